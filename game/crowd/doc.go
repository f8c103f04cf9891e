// Package crowd is a crowd scene on Tether's public API, where the
// bandwidth of snapshots is measured: a walled arena of a thousand spheres
// (package physics), most of them at rest, a few set rolling every half
// second by scripted kicks (seeded) that knock into others, watched by
// clients that draw every sphere by snapshot interpolation.
//
// # How it plugs in
//
// Game is the server side (server.Game and server.Replicated): Step steps
// the physics and kicks, and Replicate puts every sphere in the replication
// layer's world (package replica), which declares it in Schema: a position
// to a millimetre and a velocity to 5 cm/s, predicted to roll on in a
// straight line. The layer codes each client's snapshot against the newest
// snapshot that client acknowledged: a sphere where its prediction says (at
// rest, or rolling straight at a steady speed) costs a small fraction of a
// bit, one that is not its differences from the prediction, range-coded.
// The snapshot fits the server's byte budget (server.Config.SnapshotBudget):
// when every changed sphere does not fit, those left out longest and those
// the client would draw furthest off go first, and the snapshot is never
// dropped whole; a client whose acknowledgement has left the layer's ring
// (replica.Ring) gets every sphere whole, over as many snapshots as the
// budget needs.
//
// ClientGame is the client side (client.Game and client.Replicated): the
// layer decodes each snapshot into the spheres it refreshes, which the
// client's timelines (package timeline) draw at the one render clock: the
// repository's snapshot interpolation, unchanged.
//
// # Measured
//
// Meter measures every client against every sphere's true trajectory
// (package measure's Truth): how far from the truth each sphere is drawn at
// the moment the client shows (fidelity), how often each is refreshed and
// how soon all are after a blackout, what a sphere at rest costs, and the
// traffic on the wire, headers included.
// Virtual runs the scene in virtual time over emulated links (package
// harness) with a Meter; the lab runs it as game crowd (tether lab
// -scenario-file lab/testdata/crowd.json), one client per link preset.
//
// # Units
//
// Y is up; the floor is y = 0 and the walls stand at x, z = ±HalfSize.
// Positions are metres, velocities metres per second, times time.Duration of
// server time; the budget counts bytes.
package crowd
