//go:build !js

package ws_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/transport/ws"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serve mounts a Listener with cfg on a loopback HTTP server and returns it
// with the server's address.
func serve(t testing.TB, cfg ws.ListenerConfig) (*ws.Listener, string) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = tcp.Addr().(*net.TCPAddr).AddrPort()
	ln, err := ws.NewListener(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: ln}
	go hs.Serve(tcp)
	t.Cleanup(func() {
		ln.Close()
		hs.Close()
	})
	return ln, tcp.Addr().String()
}

func dialRaw(t *testing.T, addr string, opts *websocket.DialOptions) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return websocket.Dial(ctx, "ws://"+addr+"/", opts)
}

// Text and oversize messages are dropped and counted; the datagrams between
// them arrive in order, from the WebSocket's own address in 100::/64.
func TestListenerDrops(t *testing.T) {
	ln, addr := serve(t, ws.ListenerConfig{MaxMessageSize: 100})
	c, _, err := dialRaw(t, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ctx := context.Background()
	c.Write(ctx, websocket.MessageBinary, []byte("one"))
	c.Write(ctx, websocket.MessageText, []byte("text"))
	c.Write(ctx, websocket.MessageBinary, make([]byte, 101))
	c.Write(ctx, websocket.MessageBinary, []byte("two"))
	ln.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 200)
	var from net.Addr
	for _, want := range []string{"one", "two"} {
		n, a, err := ln.ReadFrom(buf)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(buf[:n]); got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
		if from != nil && a.String() != from.String() {
			t.Errorf("from %v, then %v", from, a)
		}
		from = a
	}
	if ap := from.(*net.UDPAddr).AddrPort(); !netip.MustParsePrefix("100::/64").Contains(ap.Addr()) {
		t.Errorf("peer address %v outside 100::/64", ap)
	}
	if _, err := ln.WriteTo([]byte("back"), from); err != nil {
		t.Fatal(err)
	}
	_, b, err := c.Read(ctx)
	if err != nil || string(b) != "back" {
		t.Fatalf("reply %q, %v", b, err)
	}
	st := ln.Stats()
	if st.Text != 1 || st.Oversize != 1 || st.Messages != 2 {
		t.Errorf("stats %+v: want 1 text, 1 oversize, 2 messages", st)
	}
}

// WebSockets beyond MaxConns and from another origin are refused; a
// WebSocket that floods beyond MaxMessageHz is cut off.
func TestListenerLimits(t *testing.T) {
	ln, addr := serve(t, ws.ListenerConfig{MaxConns: 1, MaxMessageHz: 10})
	if _, resp, err := dialRaw(t, addr, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://attacker.example"}}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %v", err)
	}
	c, _, err := dialRaw(t, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, resp, err := dialRaw(t, addr, nil); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second WebSocket with MaxConns 1: %v", err)
	}
	ctx := context.Background()
	for range 100 {
		if c.Write(ctx, websocket.MessageBinary, []byte("x")) != nil {
			break
		}
	}
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("flooding WebSocket: %v, want closed for policy", err)
	}
	if st := ln.Stats(); st.CutOff != 1 || st.OverRate < 20 || st.Refused != 1 {
		t.Errorf("stats %+v: want 1 cut off after at least 20 over the rate, 1 refused", st)
	}
}

// A netcode server and client on a Listener and a Conn, as on UDP sockets:
// the server echoes payloads.
func Example() {
	key, _ := netcode.GenerateKey(rand.Reader)
	const protocolID = 0x7e7e
	tcp, _ := net.Listen("tcp", "127.0.0.1:0")
	ln, _ := ws.NewListener(ws.ListenerConfig{Addr: tcp.Addr().(*net.TCPAddr).AddrPort()})
	hs := &http.Server{Handler: ln} // in production, behind a Host check and TLS
	go hs.Serve(tcp)
	defer hs.Close()

	var srv *udp.Server
	ready := make(chan struct{})
	srv, _ = udp.NewServer(ln, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: protocolID, PrivateKey: key},
		OnPayload: func(client int, p []byte, _ time.Time) {
			<-ready
			srv.Send(client, append([]byte("echo: "), p...))
		},
	})
	close(ready)
	defer srv.Close()

	token, _ := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
		ProtocolID: protocolID, ClientID: 1, Now: time.Now(),
		ServerAddresses: []netip.AddrPort{tcp.Addr().(*net.TCPAddr).AddrPort()},
	})
	conn, _ := ws.Dial(context.Background(), "ws://"+tcp.Addr().String()+"/")
	replies := make(chan string, 1)
	cl, _ := udp.Dial(conn, token, udp.ClientConfig{
		OnPayload: func(p []byte) { replies <- string(p) },
	})
	defer cl.Close()
	<-cl.Connected()
	cl.Send([]byte("hello"))
	fmt.Println(<-replies)
	// Output: echo: hello
}

// With a Link, a peer's datagrams go through its Up direction and those to
// it through Down: every datagram duplicated each way.
func TestListenerLink(t *testing.T) {
	link := netsim.LinkConfig{Up: netsim.Direction{LatencyMs: 1, Dup: 1}, Down: netsim.Direction{LatencyMs: 1, Dup: 1}}
	ln, addr := serve(t, ws.ListenerConfig{Link: &link, Seed: 1})
	c, _, err := dialRaw(t, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ctx := context.Background()
	c.Write(ctx, websocket.MessageBinary, []byte("up"))
	ln.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 100)
	var from net.Addr
	for range 2 {
		n, a, err := ln.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "up" {
			t.Fatalf("read %q, %v; want the datagram twice", buf[:n], err)
		}
		from = a
	}
	ln.WriteTo([]byte("down"), from)
	for range 2 {
		if _, b, err := c.Read(ctx); err != nil || string(b) != "down" {
			t.Fatalf("reply %q, %v; want it twice", b, err)
		}
	}
}

// 64 clients connect over WebSockets to one netcode server and each gets its
// payload echoed; a token for another protocol and a token sealed with
// another key are refused and counted by netcode.
func TestListener64Clients(t *testing.T) {
	const n = 64
	key, _ := netcode.GenerateKey(rand.Reader)
	const protocolID = 0x7e7e
	ln, addr := serve(t, ws.ListenerConfig{MaxConns: n + 3, MaxConnsPerAddr: n + 3}) // all from loopback
	var srv *udp.Server
	ready := make(chan struct{})
	srv, err := udp.NewServer(ln, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: protocolID, PrivateKey: key, MaxClients: n},
		OnPayload: func(client int, p []byte, _ time.Time) {
			<-ready
			srv.Send(client, p)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	close(ready)
	defer srv.Close()
	mint := func(id uint64, pid uint64, k *netcode.Key, now time.Time) *netcode.ConnectToken {
		tok, err := netcode.NewConnectToken(rand.Reader, k, netcode.TokenParams{ProtocolID: pid, ClientID: id, Now: now,
			ServerAddresses: []netip.AddrPort{ln.LocalAddr().(*net.UDPAddr).AddrPort()}})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	echoes := make(chan string, n)
	dial := func(tok *netcode.ConnectToken, msg string) *udp.Client {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := ws.Dial(ctx, "ws://"+addr+"/")
		if err != nil {
			t.Fatal(err)
		}
		var cl *udp.Client
		cl, err = udp.Dial(conn, tok, udp.ClientConfig{
			OnPayload: func(p []byte) { echoes <- string(p) },
		})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			select {
			case <-cl.Connected():
				cl.Send([]byte(msg))
			case <-cl.Done():
			}
		}()
		return cl
	}
	now := time.Now()
	var clients []*udp.Client
	for i := range n {
		clients = append(clients, dial(mint(uint64(i+1), protocolID, &key, now), fmt.Sprint("client ", i)))
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	got := map[string]bool{}
	timeout := time.After(60 * time.Second)
	for len(got) < n {
		select {
		case e := <-echoes:
			got[e] = true
		case <-timeout:
			t.Fatalf("%d of %d echoes; server stats %+v", len(got), n, srv.Stats())
		}
	}
	other, _ := netcode.GenerateKey(rand.Reader)
	// Tokens the client cannot tell are bad (the server's checks refuse
	// them): sealed with another key, for another protocol.
	bad := []*netcode.ConnectToken{
		mint(1001, protocolID, &other, now),
		mint(1002, protocolID+1, &key, now),
	}
	for _, tok := range bad {
		c := dial(tok, "bad")
		defer c.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if d := srv.Stats().Dropped; d.Auth > 0 && d.ProtocolID > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := srv.Stats()
	if st.Dropped.Auth == 0 || st.Dropped.ProtocolID == 0 {
		t.Errorf("bad tokens: dropped %+v; want another key's and another protocol's refused", st.Dropped)
	}
	if c := srv.NumConnected(); c != n {
		t.Errorf("%d connected, want %d", c, n)
	}
	if ls := ln.Stats(); ls.Conns != n+len(bad) {
		t.Errorf("%d WebSockets open, want %d", ls.Conns, n+len(bad))
	}
}

// One IP address opens at most MaxConnsPerAddr peers, however many
// MaxConns leaves; a peer not Established within HandshakeTimeout is
// closed, one Established stays.
func TestListenerPerAddrAndHandshake(t *testing.T) {
	var first atomic.Value // the first peer's address, a string
	established := func(a net.Addr) bool { return first.Load() == a.String() }
	ln, addr := serve(t, ws.ListenerConfig{MaxConns: 16, MaxConnsPerAddr: 2, HandshakeTimeout: time.Second, Established: established})
	ctx := context.Background()
	a, _, err := dialRaw(t, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.CloseNow()
	a.Write(ctx, websocket.MessageBinary, []byte("a"))
	ln.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, from, err := ln.ReadFrom(make([]byte, 10))
	if err != nil {
		t.Fatal(err)
	}
	first.Store(from.String())
	b, _, err := dialRaw(t, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.CloseNow()
	if _, resp, err := dialRaw(t, addr, nil); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third WebSocket from one address: %v, want 503", err)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, _, err := b.Read(rctx); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("a peer without a handshake: %v, want closed for policy", err)
	}
	a.Write(ctx, websocket.MessageBinary, []byte("still"))
	ln.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := ln.ReadFrom(make([]byte, 10)); err != nil {
		t.Fatalf("the established peer: %v", err)
	}
	if st := ln.Stats(); st.NoHandshake != 1 || st.Refused != 1 {
		t.Errorf("stats %+v: want 1 closed without a handshake, 1 refused", st)
	}
}
