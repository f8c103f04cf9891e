package udp_test

import (
	"crypto/rand"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/transport/udp"
)

// A server and a client on loopback: the server echoes payloads.
func Example() {
	key, _ := netcode.GenerateKey(rand.Reader)
	const protocolID = 0x7e7e

	serverConn, _ := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	var srv *udp.Server
	ready := make(chan struct{})
	srv, _ = udp.NewServer(serverConn, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: protocolID, PrivateKey: key},
		OnPayload: func(client int, p []byte, _ time.Time) {
			<-ready
			srv.Send(client, append([]byte("echo: "), p...))
		},
	})
	close(ready)
	defer srv.Close()

	// What a matchmaking backend does: mint a token for this server.
	token, _ := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
		ProtocolID:      protocolID,
		ClientID:        1,
		ServerAddresses: []netip.AddrPort{serverConn.LocalAddr().(*net.UDPAddr).AddrPort()},
		Now:             time.Now(),
	})

	replies := make(chan string, 1)
	clientConn, _ := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	cl, _ := udp.Dial(clientConn, token, udp.ClientConfig{
		OnPayload: func(p []byte) { replies <- string(p) },
	})
	defer cl.Close()

	<-cl.Connected()
	cl.Send([]byte("hello"))
	fmt.Println(<-replies)
	// Output: echo: hello
}
