// Package udp runs tether's netcode client and server over real UDP sockets
// (any net.PacketConn, for example one wrapped by netsim to add loss and
// latency).
//
// Each Server or Client owns its connection and runs exactly one goroutine.
// That goroutine blocks reading datagrams with a read deadline of the next
// tick (ServerConfig.Tick / ClientConfig.Tick, default 10 ms), hands every
// datagram to the netcode state machine, runs its Update when the tick is
// due, writes whatever the state machine wants sent, and then calls the
// configured callbacks without holding any lock, so a callback may call
// Send. Callbacks of one endpoint never run concurrently. Payload slices
// passed to callbacks are only valid during the call.
//
// Send encrypts and writes at once from the caller's goroutine. Close sends
// the protocol's redundant disconnect packets, closes the connection, waits
// for the goroutine to exit and leaves no goroutine behind. A Client's
// goroutine also ends by itself when the connection reaches a terminal
// state (Done is closed); Close must still be called to release the socket.
//
// Time comes from time.Now and randomness from crypto/rand (unless
// ServerConfig.Netcode.Rand is set); everything else is in package netcode.
// Reading from a *net.UDPConn does not allocate per datagram.
package udp
