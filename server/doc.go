// Package server is the authoritative side of a Tether game: a fixed-rate tick
// loop that steps the game, sends every connected client regular snapshots on
// the unreliable channel, events on the reliable one, answers clock pings,
// and hands the game the inputs clients send.
//
// # Core and driver
//
// Server is a state machine without I/O, in the manner of a raft RawNode: the
// caller feeds it Connect, Disconnect, Receive (a payload from a client) and
// Tick (the current server time), and after every call takes the payloads to
// send with Transmit. It reads no clock, starts no goroutine and is not safe
// for concurrent use. Payloads are the packets of a tether/netcode/reliable
// Endpoint per client, which the caller carries (for example as netcode
// payloads); package protocol defines the messages inside them.
//
// UDP is the driver for real sockets: it runs the core over a
// tether/transport/udp Server with a 60 Hz ticker, serialising every call.
// UDP.Serve adds a second transport for more of the core's slots, such as
// browsers' datagrams over WebSockets (package tether/transport/ws), so
// both kinds of client play in one match. Tests and the lab drive the core
// directly in virtual time.
//
// # The game
//
// The server knows nothing about the game it runs. A Game joins and removes
// players, takes inputs and steps its world once per tick (emitting events);
// package game/arena is one, and a user's own game plugs in the same way. Its
// snapshots are the replication layer's (package replica): a Replicated game
// declares its entity kinds once and fills the world of every tick a
// snapshot follows, and the server codes each client's snapshot against the
// newest snapshot that client acknowledged keeping (the client sends the
// tick in a protocol Ack message or a Moves header), within the byte budget
// (Config.SnapshotBudget), whole for a client it holds no baseline of. A
// Game that predicts its players' characters on their clients (package
// movement) also implements Replier: its answers to each client's inputs
// (acknowledgements, adjustments) go to that client alone, unreliably, with
// its next packets (within Config.ReplyHold, for a snapshot's). A game the
// layer does not serve encodes its own snapshots instead (Snapshotter, and
// PerClient for one of its own per client), an escape hatch no shipped game
// uses.
//
// # Time and ticks
//
// Server time is a time.Duration since the server started: tick n (n ≥ 1)
// simulates up to n·Dt, Dt = 1/TickHz, and runs once Tick is called with a time
// at or after that. A Tick call that finds several ticks due runs up to
// Config.MaxCatchUp of them (an overrun, counted in Stats.Overruns and
// Stats.CaughtUp) and skips the rest (Stats.Skipped): the simulation then lags
// server time by the skipped ticks instead of spiralling.
//
// # Snapshots and joins
//
// Every TickHz/SnapshotHz ticks each joined client gets a regular snapshot,
// which holds the whole state, so a client joining mid-match has everything
// within one snapshot interval. When Game.Step asks for it (a kick, a bounce, a
// teleport) an extra snapshot follows the tick at once, so that clients' curves
// get their knots.
//
// # Packets
//
// A client's packets go with whatever is queued for it: a snapshot, events,
// replies, a pong. Clock pings are answered by a pong that waits, up to
// Config.Hold (one snapshot interval by default), for a packet that goes to
// the client anyway, rather than go in one of its own, whose headers (IPv4,
// UDP, netcode, the reliable channel: about 60 bytes) outweigh it several
// times. A held pong is built when it leaves and says when the ping arrived
// and when the pong left, so the wait is the server's hold, which the
// client's clock takes out: its samples stay unbiased. A client's first
// pongs, its clock's first burst of pings, go at once, so that its estimate
// is ready as soon as before. At most one ping per packet is answered, and
// at most Config.PongHz a second per client, so replies never outgrow pings.
package server
