// Package protocol is the session protocol between package server and package
// client, which both import it: the messages they exchange inside the
// channels of tether/netcode/reliable, each message starting with a one-byte
// Tag.
//
//	tag       direction         channel     body
//	Welcome   server → client   reliable    the client's own entity, tick and snapshot rates
//	Snapshot  server → client   unreliable  tick and a bit regular, then the game's bytes
//	Event     server → client   reliable    an event.Event
//	Pong      server → client   unreliable  a clock.Pong
//	Ping      client → server   unreliable  a clock.Ping
//	Input     client → server   unreliable  sequence, client times, then the game's bytes
//	Moves     client → server   unreliable  sequence, then the game's bytes: a packet of moves
//	Reply     server → client   unreliable  the game's bytes: its answer to the client's inputs
//
// A client whose game predicts its own character sends Moves instead of
// Input: the game's packet of the moves it predicted (see package movement),
// which the server's game applies as of when they were made rather than as
// the control from its next tick on. The tag, not the game's bytes, tells the
// two apart. A Reply carries what the game tells one client about its inputs:
// for a predicted character, acknowledgements of its moves and adjustments.
//
// A snapshot's server time is its tick's (Welcome.TickTime), not sent. Other
// times are server time in whole wire.TimeUnits (zig-zag varints). Append
// functions append to a caller's buffer and do not allocate when it has room;
// Decode never panics and returns ErrTruncated or ErrMalformed for a bad
// message. The game's bytes are opaque here: the game that plugs into server
// and client encodes them.
package protocol
