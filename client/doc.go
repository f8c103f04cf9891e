// Package client is the viewing side of a Tether game: it estimates the
// server's clock, keeps one timeline per remote entity, sends the player's
// inputs and produces render frames.
//
// # Core and driver
//
// Client is a state machine without I/O. The caller passes the client's local
// time (a time.Duration from any origin, as its own clock reads) to every call:
// Connected once the transport is up, Receive for every payload from the
// server, Frame at the frame rate (60 Hz) to get what to draw, SetInput and
// then Update to queue the input and any clock ping, and Transmit to take the
// payloads to send. It reads no clock, starts no goroutine and is not safe for
// concurrent use. UDP is the driver over tether/transport/udp.
//
// # The game
//
// The client knows nothing about the game. A Game says how each kind of
// entity is extrapolated and the render clock's policy; its snapshots are
// decoded into entity states (an id, a kind, a game tag such as a team, a
// teleport generation, the state, and optionally a parent to be drawn
// relative to) by the replication layer from the schema a Replicated game
// declares, or by a SnapshotDecoder game itself (an escape hatch no
// shipped game uses).
//
// # Time and rendering
//
// Snapshots are placed on each entity's timeline at the clock estimate of
// their arrival; a frame samples every timeline at the clock estimate of the
// frame, so each entity is drawn at its render time, now minus its render
// delay (package timeline). A change of an entity's generation between two
// states is a teleport: the newer state is marked Cut and never interpolated
// into. An entity with a parent at its render time (a ball in possession) is
// drawn at the parent's drawn position plus the offset in the parent's drawn
// frame, not interpolated on its own; an offset on its way to its place (a
// ball just won, moving to its carrier's feet) follows the state's Blend,
// past the newest state too. Events (package event) that carry a
// state are inserted into their entity's timeline as knots: one that arrives
// after the render time has passed it is extrapolated from its timestamp,
// drawn as far along as its age. An entity missing from snapshots for a second
// is dropped. Until the clock is ready nothing is drawn; the newest snapshot
// received before that is placed as soon as it is.
//
// A Game that implements Viewer shows entities of some kinds by a
// replicate.View of its own instead (Unreal's physics replication modes,
// which show the present); such an entity is never drawn attached, and
// Entity.Holder still says which entity the snapshots attach it to (who has
// the ball, whatever way it is drawn). A Game that implements Watcher is
// handed every snapshot placed, whole, with its arrival: for a world of its
// own that it re-simulates (the soccer game's resim method).
//
// # Prediction
//
// A Game that implements Predictor predicts the client's own entity: each
// Frame hands it the input last set (SetInput) and the frame as drawn; it
// makes the frame's move and the own entity is drawn where it says, at the
// present, with Entity.Predicted set. Update then sends the game's packet of
// moves instead of the raw input, and the server's replies to them (Reply
// messages) go to the game. Until it starts predicting, the input is sent as
// set and the entity drawn from its timeline. See package movement.
//
// # Acknowledged baselines
//
// A Replicated game's snapshots are decoded by the replication layer
// (package replica), which keeps them as baselines (Snapshot.Baseline; a
// SnapshotDecoder game marks those it keeps itself); the client acknowledges
// the newest it kept, once, on a packet that goes anyway: in the header of
// its Moves message, or as an Ack message beside an input, a ping or the
// channel's acknowledgement of reliable fragments. While inputs go it waits
// for the next (a frame or two at soccer's 30 Hz); a client that sends no
// inputs acknowledges in a packet of its own, at most every Config.AckEvery
// (100 ms by default).
//
// # Units
//
// Positions are metres, velocities metres per second, rotations unit
// quaternions, times time.Duration; byte counts are payload bytes (what
// Transmit returns and Receive takes), without the transport's headers.
package client
