// Package tether is the guide to the module: your own game on Tether. The
// packages below it do the work; this page says how a game plugs in, in the
// order you will need it. Example is a whole two-sided game over real UDP,
// run by go test. Package game/arena is the next step: a small shooter with
// prediction, events and lag compensation, written to be copied.
//
// # The two sides of a game
//
// The server runs your simulation; package server owns the rest (ticks,
// snapshots, clocks, reliability). Your server side implements server.Game:
//
//   - Join(client) (self, err): a client connected (a slot number); add its
//     player and return the entity it controls, or refuse it.
//   - Leave(client): it left; remove its player.
//   - Input(client, in): an input arrived (in.Data, your bytes). Only newer
//     inputs than the last are handed over; in.View is the server time the
//     client was showing when it sent it, for lag compensation.
//   - Step(tick, events) (extra bool): advance your world by tick.Dt to
//     tick.Time. Emit events (below) here; return true for an extra snapshot
//     after this tick (a teleport, a collision a client must not smooth over).
//
// # What is replicated
//
// You never write the bytes of a snapshot. You declare your kinds of
// entity once, with package replica, and fill a world each tick; the
// replication layer sends each client a delta against the newest snapshot
// it acknowledged, coded against a prediction of where each entity is now
// (an entity where it was predicted costs a fraction of a bit), within a
// byte budget, the entities left out longest first:
//
//	var schema, _ = replica.NewSchema(
//		replica.Kind{Name: "player", Fields: []replica.Field{
//			replica.Position(1000, replica.XZ).Within(1), // mm, on the ground
//			replica.Velocity(100, replica.XZ),            // cm/s
//			replica.Yaw(1024), replica.Tag()}},           // facing, team
//		replica.Kind{Name: "coin", Fields: []replica.Field{
//			replica.Position(1000, replica.XZ), replica.Velocity(1000, replica.XZ)}},
//	)
//
// Your server side also implements server.Replicated: Replication returns
// the schema (and the layer's optional hooks: relevance, replica.Near by
// distance; observers), and Replicate adds every entity of the tick to the
// world (an id, a kind, a kinematic.State, a tag, a generation that changes
// at a teleport, game integers). Entities come and go as you add them: a
// client is told an entity left when it is no longer added. A kind's
// Predictor says what a delta is coded against: replica.Linear (the
// default: at the velocity, moving at the mean of the old and new ones),
// Hold, Extrapolate (through the last two or three acknowledged samples),
// or your own, in integers, from your game's rules (game/crowd's spheres
// roll and slow; game/drill's ball flies). Field.Within lets a value the
// prediction has within a step or two go unsent. The limits: one snapshot
// is one unreliable message (server.Config.SnapshotBudget, at most about
// 1,100 bytes); when the changes do not fit, the layer sends what fits by
// priority and the rest in later snapshots, never dropping one whole; what
// still cannot fit is counted (server.Stats.Oversize, the layer's
// replica.Stats) and reported once (server.Config.OnLimit). doc/wire.md
// specifies the bytes, for a client in another language.
//
// The client side implements client.Game and client.Replicated:
//
//   - Schema(): the same schema; the client decodes every snapshot into its
//     entities, keeps its baselines and acknowledges them.
//   - Timeline(kind): how entities of a kind are extrapolated past the newest
//     snapshot (timeline.Config; the zero value is straight-line).
//   - RenderClock(): the render delay's policy (the zero value is a good
//     start; package game/arena shows one tuned for players).
//
// The client places each entity on a timeline and draws it, interpolated,
// at the render time: a little in the past, by an adaptive delay.
// TestTagGame in this package is a user's game of 16 players and 200 moving
// coins replicated by about 20 lines of declarations: 35 kbps a client on
// the wan preset, headers included.
//
// Frames (client.Frame, at 60 Hz) give the entities to draw, each with the
// server time it shows; the client's estimate of server time is Frame.Server.
//
// # Over the network
//
// server.ServeUDP and client.DialUDP run the sans-I/O cores on real UDP
// sockets with netcode 1.02 connections: a client needs a connect token,
// minted with netcode.NewConnectToken by whoever holds the server's key (your
// matchmaking backend, or tether token). Everything else (handshake,
// encryption, replay protection, clocks) is the drivers'. Example does it in
// 142 lines, both sides included.
//
// # Prediction
//
// A client that draws its own character from snapshots feels a round trip
// late. Implement client.Predictor on your client side and let package
// movement do the work: write the move function once (a pure function of a
// state and an input, shared by client and server: movement.Game), give
// Predict the frame's input, send AppendInput's packets, and hand Reply the
// server's answers. On the server, feed each client's packets (server.Input
// with Moves set) to a movement.Server and implement server.Replier. The
// client then draws its character at once, and the server corrects it only
// when their simulations disagree. The others see that character from what
// the server replicates: replicate movement.Shown (its applied moves
// replayed a little behind the newest), not the movement.Server's newest
// state, which moves in bursts with the client's packets and wobbles on
// everyone else's screen. game/arena's move.go, client.go and game.go are a
// complete, small instance.
//
// # Events
//
// What must not be smoothed away (a shot, a kick) is an event.Event: Emit it
// in Step with the server time it happened and, if it moves an entity, the
// state it left it in. Events travel reliably; a client that learns of one
// late draws it fast-forwarded by its age (Event.At), where the server has it
// now, not where it started. Clients find the new events in Frame.Events.
//
// # Lag compensation
//
// A player aims at what it sees, which is the past. To judge a shot where the
// shooter saw its target, keep an event.Seen of what each client was sent
// (fed from replica.Config.OnEntity, which reports every entity a client's
// snapshot carried: one the byte budget left out stays where that client's
// last snapshot had it), and judge against the shooter's at the view time
// the input carries (server.Input.View, or movement.Move.View), bounded by
// event.RewindTo's maximum rewind: 250 ms in game/arena, the anti-abuse bound
// beyond which a client's claim to be showing the past is not believed.
//
// # Measure it
//
// Test your game in virtual time with package harness: one server core and N
// clients over emulated links (package netsim: latency, jitter, loss,
// drifting clocks), a minute of play in well under a second, the same result
// for the same seed. Package measure defines the figures (clock error,
// fidelity, pops, projectile error, hit agreement) so your tests and the lab
// speak alike. The lab runs the built-in games side by side with the naive
// designs they replace:
//
//	tether lab -scenario-file lab/testdata/arena-wan.json
package tether
