// Package wt carries datagrams over WebTransport (HTTP/3 datagrams, on
// QUIC over UDP), so that a browser can be a client of a Tether server with
// datagrams that are never retransmitted or held behind a lost one, as a
// UDP client's are.
//
// On the server, a Server accepts WebTransport sessions on a UDP socket and
// hands each to a tether/transport/ws Listener as one of its peers
// (ws.Listener.ServeDatagrams): one HTTP/3 datagram is one datagram, and
// the Listener is the net.PacketConn a netcode server runs on
// (tether/transport/udp, server.UDP.Serve). The Listener's WebSockets and
// the Server's sessions are peers of one netcode server, so a browser's
// connect token, which names the Listener's address, is admitted over
// either carrier with the same checks as a UDP client's (expiry, protocol
// id, the server's address, client id, one use), and the Listener's limits
// (MaxConns, MaxMessageSize, MaxMessageHz, IdleTimeout, its queues, its
// Link emulation and OnClose) hold for both. On the client, Dial returns a
// net.PacketConn over one session for tether/transport/udp.Dial: natively
// (package github.com/quic-go/webtransport-go) or, built with GOOS=js
// GOARCH=wasm, through the browser's WebTransport API (Go's js/wasm port
// has none of its own; Dial calls it through syscall/js). The server's
// ServeHTTP tells a page where to connect (Info: the UDP port, the path
// and the certificate's hash), and a page that cannot open a session falls
// back to the Listener's WebSocket: command
// tether/game/soccer/webclient does.
//
// Serve WebTransport on the UDP port of the page's own HTTP address: a page
// whose Content-Security-Policy says connect-src 'self' (or default-src
// 'self') may then open it, and its tokens name one address for both
// carriers. Sessions are taken from pages of the same host name as the
// request (Config.CheckOrigin).
//
// # Certificates
//
// WebTransport always runs over TLS 1.3. With no Config.Certificate, the
// Server makes a self-signed ECDSA P-256 certificate valid for at most 14
// days (MaxValidity), makes a new one when half of that has passed, and
// pages accept it by the SHA-256 hash of its DER encoding, which they take
// from Info each time they connect (the serverCertificateHashes option of
// the WebTransport constructor, which browsers honour only for such short,
// ECDSA certificates). That needs no name and no certificate authority:
// the right choice for a game server on an IP address, a LAN party or a
// container whose address changes. A page that is itself served over plain
// HTTP is a secure context (which WebTransport needs) only on localhost or
// a loopback address: a page from another machine must be served over
// HTTPS to use WebTransport at all, and until then plays over the
// WebSocket.
//
// In production, serve the page over HTTPS and give the Server the same
// certificate as the page (Config.Certificate, tls.LoadX509KeyPair of an
// ACME-issued certificate for the server's name): browsers then check it
// by name, Info carries no hash, and it renews as the page's does
// (restart, or a process that reloads it). netcode authenticates and
// encrypts every datagram inside either way; TLS keeps the page and the
// token it fetches from being changed on the way.
//
// # Browsers
//
// Chromium (Chrome, Edge) has WebTransport with serverCertificateHashes:
// this package's browser test runs the demo's client over it in headless
// Chromium, on a loopback address, with no command-line flags. Firefox has
// WebTransport. Safari has WebTransport from 26.4; early reports of
// handshakes with quic-go servers that never finished were answered in
// webtransport-go by advertising SETTINGS_WT_MAX_SESSIONS, which this
// version sends; it is not tested here (no Safari on Linux). A browser
// without WebTransport, or one that cannot open the session within 3 s,
// plays over the WebSocket, with the same protocol inside.
//
// # Headers
//
// A datagram costs its payload plus QUIC's short header (a byte, the
// connection id: 4 bytes of quic-go's to the server, the browser's own to
// it, and 1–4 of packet number), the DATAGRAM frame's type and length (2–3
// bytes), the session's quarter stream id (1 byte), the 16-byte tag of
// QUIC's own encryption and UDP/IP's 28 bytes (IPv4) or 48 (IPv6), and now
// and then QUIC's acknowledgements; a netcode datagram sent directly over
// UDP costs its payload and the 28 or 48.
package wt
