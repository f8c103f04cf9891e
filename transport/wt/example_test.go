//go:build !js

package wt_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/transport/ws"
	"github.com/tether-net/tether/transport/wt"
)

// A netcode server on a Listener that takes WebTransport sessions, and a
// client that dials one with the self-signed certificate's hash, as a page
// does: the server echoes payloads.
func Example() {
	key, _ := netcode.GenerateKey(rand.Reader)
	const protocolID = 0x7e7e
	conn, _ := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	addr := conn.LocalAddr().(*net.UDPAddr).AddrPort()
	ln, _ := ws.NewListener(ws.ListenerConfig{Addr: addr}) // also mount it on HTTP for WebSockets
	srv, _ := wt.NewServer(conn, ln, wt.Config{})          // a self-signed certificate
	defer srv.Close()
	defer ln.Close()

	var ns *udp.Server
	ready := make(chan struct{})
	ns, _ = udp.NewServer(ln, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: protocolID, PrivateKey: key},
		OnPayload: func(client int, p []byte, _ time.Time) {
			<-ready
			ns.Send(client, append([]byte("echo: "), p...))
		},
	})
	close(ready)
	defer ns.Close()

	// A page learns the port, path and hash from srv.ServeHTTP (wt.Info).
	info := srv.Info()
	token, _ := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
		ProtocolID: protocolID, ClientID: 1, Now: time.Now(), ServerAddresses: []netip.AddrPort{addr},
	})
	url := fmt.Sprintf("https://127.0.0.1:%d%s", info.Port, info.Path)
	pc, err := wt.Dial(context.Background(), url, info.CertificateHash)
	if err != nil {
		fmt.Println(err)
		return
	}
	replies := make(chan string, 1)
	cl, _ := udp.Dial(pc, token, udp.ClientConfig{
		OnPayload: func(p []byte) { replies <- string(p) },
	})
	defer cl.Close()
	<-cl.Connected()
	cl.Send([]byte("hello"))
	fmt.Println(<-replies)
	// Output: echo: hello
}
