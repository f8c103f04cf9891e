// Package netcode implements the netcode 1.02 connection protocol as
// sans-I/O state machines: connect tokens, the connection handshake,
// per-packet encryption, replay protection, keep-alives, timeouts and client
// slots, byte-compatible with the standard (STANDARD.md of the public
// netcode repository), so a stock netcode client can connect to a Tether
// server and the other way round.
//
// # Roles
//
// A backend that authenticated a player mints a ConnectToken with
// NewConnectToken (see also `tether token`). The token's private part is
// sealed with XChaCha20-Poly1305 under a private Key that only the backend
// and the servers know; its public part gives the client the server
// addresses and the two per-connection keys.
//
// A Client, given the token, sends connection requests, answers the server's
// challenge and then exchanges encrypted payload packets. A Server checks
// requests (size, version, protocol id, expiry, authenticity, its own
// address in the token, first address to use the token), answers with a
// challenge token that proves the client owns its source address, and
// assigns a slot when the challenge comes back.
//
// # Sans-I/O
//
// Neither type does I/O, starts goroutines, reads the clock or draws random
// numbers on its own. The caller passes the current time (time.Time; token
// expiry compares its Unix seconds, everything else uses differences) to
// every call, hands each received datagram to Receive, calls Update at
// least as often as NextUpdate asks, and after every call takes the packets
// to send from Transmit until it reports false. Randomness comes from
// ServerConfig.Rand (crypto/rand.Reader in production). Package
// tether/transport/udp is the driver for real sockets.
//
// # Delivery semantics
//
// Payloads are datagrams of 1 to MaxPayloadSize (1200) bytes: delivered at
// most once (the 256-entry replay window drops duplicates and anything
// older than the window), possibly out of order, possibly not at all.
// Package tether/netcode/reliable adds ordered reliable messages and
// fragmentation on top.
//
// # Security properties
//
//   - Every packet but the request is sealed with ChaCha20-Poly1305 (IETF);
//     the associated data binds the version, protocol id and prefix byte.
//   - A reply to an unauthenticated datagram is never larger than it (a
//     1078-byte request earns at most a 333-byte challenge); garbage gets no
//     reply and creates no state; pending connections and remembered tokens
//     are capped (ServerConfig.MaxPending, TokenHistory).
//   - Each connected client has a budget of datagrams and bytes per second
//     (ServerConfig.ClientPacketRate, ClientByteRate, ClientBurst); beyond
//     it datagrams are dropped before decryption and counted. Only
//     authenticated datagrams spend the budget.
//   - Token lifecycle: a request whose token expires more than
//     MaxTokenLife ahead, or whose timeout is zero, negative (none) or above
//     MaxTimeout, is refused. A token is good from one address, and admits
//     one client: a captured handshake replayed later is refused until the
//     token expires. The history of admitted tokens forgets none before it
//     expires; when TokenHistory are remembered, new clients are refused
//     instead. A token is recorded when its client is admitted, so
//     requests alone create no lasting state. Used tokens survive a
//     restart if the driver keeps them (OnTokenUsed, UsedTokens); the
//     alternative of refusing tokens minted before the server started is
//     not possible, as a request does not carry the token's creation time.
//   - OnRefused reports why a well-formed request was refused, so drivers
//     can tell an operator (wrong key, protocol id, expired, used, full).
//   - The replay check compares by subtraction, so it is correct up to
//     sequence 2^64-1, and packets sent before a client has a slot use
//     sequences from 2^63 for every Server value (both errata of the
//     standard's IMPLEMENTERS.md).
//
// # Limits
//
// A connect token's per-connection keys would be reused if a client
// reconnected with the same token after a server process restarted that did
// not keep its used tokens (UsedTokens); per-client packet sequences would
// then restart at zero under the same key. Backends should mint a fresh
// token per connection attempt.
//
// Drops are reported as errors matching the package's sentinels with
// errors.Is and counted in ServerStats and ClientStats. Receive, Update,
// SendPayload and Transmit do not allocate in steady state; the only
// allocations on the receive path are cipher objects for a valid request
// that creates a new pending connection (two) or is denied (one), and the
// token history's growth when a client is admitted.
package netcode
