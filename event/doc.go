// Package event carries the moments of a game that must not be smoothed away:
// a kick, a shot, a projectile fired. The server stamps each Event with the
// server time it happened; a client that learns of it late does not replay it
// from the start but spawns it at its timestamp and advances it by its age, so
// a kick seen 80 ms after it happened is drawn 80 ms along its path (Event.At).
//
// The server side of the same idea is rewind: History keeps, for a bounded
// number of ticks, where every entity was, so a hit check (a tackle, a shot)
// can be made against where the acting client saw its target, at the server
// time that client was showing, not where the target is now. History holds
// one world for every client; Seen holds, per client, what that client's
// snapshots carried (fed from the replication layer's report of every
// entity a snapshot refreshed), so that a game whose snapshots differ from
// client to client (a byte budget, relevance) judges each client against
// its own picture.
//
// # Units
//
// Times are time.Duration of server time (the server's clock since its start).
// Positions are metres, velocities metres per second, angular velocities
// radians per second in the world frame, as in package geom.
//
// # Encoding
//
// Append and Decode encode an Event compactly (varints, the state quantised by
// package wire), without allocating; Decode returns an error, never panics, on
// any input, and is fuzzed. Events normally travel on a reliable, ordered
// channel: exactly once, in order, possibly late.
//
// Nothing in the package does I/O, reads a clock or starts a goroutine; History,
// Seen and Log are not safe for concurrent use.
package event
