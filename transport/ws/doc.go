// Package ws carries datagrams over WebSockets, so that a browser can be a
// client of a Tether server beside UDP clients, in the same match.
//
// Each WebSocket binary message is one datagram: on the server a Listener is
// a net.PacketConn whose peers are WebSockets, and on the client Dial returns
// a net.PacketConn over one WebSocket (natively, or in a browser when built
// with GOOS=js GOARCH=wasm). Both plug into package tether/transport/udp
// unchanged, so a browser client speaks the whole netcode 1.02 protocol: it
// is admitted by connect token with the same checks as a UDP client
// (expiry, protocol id, the server's address in the token, client id, one
// use per token), its packets are encrypted and authenticated, and it has
// the same keep-alives, timeouts and per-client budgets. The payloads inside
// are the same as UDP clients', so server.UDP.Serve puts both kinds of
// client in one core.
//
// # Addresses
//
// A Listener reports the address given in ListenerConfig.Addr (the HTTP
// server's) as its LocalAddr: connect tokens for browsers name it. Each
// WebSocket it accepts gets an address of its own in the IPv6 discard
// prefix 100::/64 (RFC 6666), which no UDP datagram comes from: the
// netcode server tells connections apart by it. A client Conn reports every
// message as coming from the address it last wrote to, the one its netcode
// client expects.
//
// # Delivery and limits
//
// Messages are delivered in order and never lost by the network (TCP), but
// the queues between the WebSockets and the reader are bounded: a datagram
// that finds its queue full is dropped and counted, as a kernel drops a UDP
// datagram, and the protocol above recovers as it does from loss. A Listener
// refuses WebSockets beyond MaxConns (503), accepts only same-origin
// WebSockets (the Origin header's host must be the Host), drops and counts
// text messages, messages over MaxMessageSize bytes and messages beyond
// MaxMessageHz a second per WebSocket, closes a WebSocket that exceeds that
// rate by twice MaxMessageHz messages, and closes one that sends nothing for
// IdleTimeout. Check the Host header (a DNS rebinding page carries its own)
// in front of ServeHTTP, as package tether/web's Hub does for the play
// endpoints it mounts.
//
// # A browser client for your own game
//
// The client side is game-agnostic: build a Go program with GOOS=js
// GOARCH=wasm that fetches a connect token from your matchmaker, opens a
// WebTransport session with tether/transport/wt.Dial (or, where that
// fails, the server's WebSocket with Dial), runs tether/transport/udp.Dial
// over it, and drives a tether/client.Client with your game's client side
// from the page's requestAnimationFrame, with performance.now() as its
// local clock: Frame, your input, SetInput, Update, then Send what Transmit
// returns. Command tether/game/soccer/webclient is a complete one (about
// 350 lines with its drawing hand-off), served by `tether demo` and `tether
// serve -http`. On the server, mount a Listener behind a Host check, hand
// it WebTransport sessions with a tether/transport/wt Server, and give it
// to server.UDP.Serve with netcode settings of its own: the Listener's
// address is the one its tokens name (tether/web.Play does all of this, and
// web.WasmBuild builds a client on first use).
//
// In production serve the page and the WebSocket over HTTPS (wss://):
// netcode already encrypts and authenticates every datagram, but a page
// loaded over plain HTTP can be altered on the way. Certificates are the
// HTTP server's concern (a reverse proxy or the usual ACME setup); package
// tether/transport/wt's documentation tells WebTransport's side.
//
// # Headers
//
// A datagram costs its payload plus the WebSocket frame header: 2 bytes
// from the server, 6 (with the mask) from a client for messages up to 125
// bytes, 4 and 8 up to 64 KiB; with TCP/IP's 40 bytes or more per segment.
package ws
