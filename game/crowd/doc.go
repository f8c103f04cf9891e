// Package crowd is a crowd scene on Tether's public API, where the
// bandwidth of snapshots is measured: a walled arena of a thousand spheres
// (package physics), most of them at rest, a few set rolling every half
// second by scripted kicks (seeded) that knock into others, watched by
// clients that draw every sphere by snapshot interpolation.
//
// # How it plugs in
//
// Game is the server side (server.Game and server.PerClient): Step steps the
// physics and kicks, and AppendSnapshotFor encodes each client's snapshot on
// its own, against the newest snapshot that client acknowledged keeping: one
// bit for a sphere that is where the baseline, extrapolated by its
// velocity, says it is (at rest, or rolling straight at a steady speed),
// and the differences from that extrapolation, bit-packed in
// exponential-Golomb codes, for one that is not. Positions are quantised to
// a millimetre (PosUnit), velocities to 5 cm/s (VelUnit). The snapshot fits
// the server's byte budget (server.Config.SnapshotBudget): when every
// changed sphere does not fit, those the client would draw furthest off,
// and those left out longest, go first (a priority accumulated per client
// and sphere), and the snapshot is never dropped whole. The server keeps
// the last Ring snapshots it sent each client; a client whose
// acknowledgement is older than those gets every sphere whole, over as many
// snapshots as the budget needs.
//
// ClientGame is the client side (client.Game): it keeps the snapshots it
// decodes in order as baselines (client.Snapshot.Baseline, which the client
// acknowledges) and hands every sphere a snapshot refreshes to the client,
// whose timelines (package timeline) draw them all at the one render clock:
// the repository's snapshot interpolation, unchanged.
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
// server time; a Ring and the budget count snapshots and bytes.
package crowd
