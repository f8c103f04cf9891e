// Package replica is Tether's replication layer: a game declares what it
// replicates and how precisely, fills a world each tick, and the layer sends
// each client what changed, in as few bits as it can; the game writes no
// bytes.
//
// # Declaring
//
// A Schema is the game's kinds of entity, numbered in order. A Kind lists its
// Fields, each a part of an Entity at a precision: Position, Velocity and
// AngularVelocity in steps per unit on chosen axes, Rotation as
// smallest-three of some bits, Yaw as steps of a turn, the Tag and Gen
// bytes, game integers (Int) within a range, the Knot flag. Field.Within lets
// a component the prediction has within a few steps go unsent. A kind's
// Predictor says what a delta is coded against: Hold, Linear (the default),
// Extrapolate, or the game's own, in integers, from its rules; Kind.Earlier
// lets an entity carry extra samples of the same tick (the state at a kick,
// the tick before a jump).
//
// # The server half
//
// An Encoder (one per match; package server makes it for a
// server.Replicated game) holds the World the game fills each tick with
// every entity (Reset, then Add), and for each client (Join) the snapshots
// it sent as that client rebuilds them, the last Ring of them. Append codes a
// client's snapshot of the world against the newest one the client
// acknowledged that it still holds, or whole. Each entity of that baseline
// is unchanged (where its prediction says: a small fraction of a bit), sent
// (its values less the prediction), left out (it did not fit the byte
// budget; it stays as it was for the client and gains priority), or gone; new
// entities follow whole. When the budget does not hold every change the most
// overdue go first, weighed by the kind's Priority and Config.Relevance (Near
// by distance); a snapshot is never dropped, at worst it carries no change.
// Config.OnSnapshot and OnEntity observe what each snapshot held and cost.
//
// # The client half
//
// A Decoder (package client makes it for a client.Replicated game) decodes
// each snapshot against the baseline it names, rebuilds its table, keeps the
// newest as baselines for the client to acknowledge (Decoded.Keep), and
// returns the entities the snapshot refreshes and those that left the
// client's world (Decoded.Gone).
//
// # The bytes
//
// Values less their predictions are coded by an adaptive binary range coder
// (package wire): each bit's probability adapts to what was coded before it
// in the snapshot, starting where the coding of the baseline left it, so the
// code fits each game's motion without tables fitted offline. doc/wire.md in
// the repository specifies the format for a decoder in another language.
//
// # Units
//
// Positions are metres, velocities metres per second, angular velocities
// radians per second, times time.Duration of server time; steps are the
// integers a field quantises to, sizes bytes and costs bits.
package replica
