// Package udp runs tether's netcode client and server over real UDP sockets
// (any net.PacketConn, for example one wrapped by netsim to add loss and
// latency).
//
// Each Server or Client owns its connection and runs exactly one goroutine,
// which hands every datagram to the netcode state machine, runs its Update
// (keep-alives, timeouts) at least every Tick (default 10 ms; for a Server
// with an OnTick, at its ticks and when the protocol has something due), writes
// whatever the state machine wants sent, and calls the configured callbacks
// without holding any lock, so a callback may call Send. Callbacks of one
// endpoint never run concurrently. Payload slices passed to callbacks are
// only valid during the call.
//
// # The server's I/O
//
// On Linux, with a *net.UDPConn, a Server moves datagrams in batches of up
// to 64 (recvmmsg and sendmmsg through golang.org/x/sys/unix, into buffers,
// addresses and control messages allocated once: reading and writing a
// batch allocates nothing) and wakes only for its timers: the next Update and the next
// ServerConfig.OnTick, where a game's tick loop runs (package server's UDP
// does). At each wake-up it first drains the socket, passing every payload
// to OnPayload with its arrival time from the kernel (SO_TIMESTAMPNS), then
// runs the timers, then sends everything the callbacks sent in one batch.
// Draining first means clients whose packets wait in the socket (a stalled
// process, a busy host) are never judged silent. The cost per datagram is
// then the kernel's alone: one wake-up per tick serves all clients. Elsewhere
// (other systems, wrapped connections) the goroutine sleeps in a read until
// a datagram comes or a timer is due, and reads and writes one datagram per
// system call.
//
// Send called from a callback queues the payload for that batch; from any
// other goroutine it encrypts and writes at once. Close sends the protocol's
// redundant disconnect packets, closes the connection, waits for the
// goroutine to exit and leaves no goroutine behind. A Client's goroutine
// also ends by itself when the connection reaches a terminal state (Done is
// closed); Close must still be called to release the socket. A Client reads
// and writes one datagram per system call.
//
// Time comes from ServerConfig.Now (default time.Now) and time.Now, and
// randomness from crypto/rand (unless ServerConfig.Netcode.Rand is set);
// everything else is in package netcode.
package udp
