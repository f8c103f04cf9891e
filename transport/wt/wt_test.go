//go:build !js

package wt_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"
	"go.uber.org/goleak"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/transport/ws"
	"github.com/tether-net/tether/transport/wt"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serve starts a WebTransport Server on a loopback UDP socket into a
// Listener with lcfg (its Addr the socket's), and returns both with the
// sessions' URL.
func serve(t testing.TB, lcfg ws.ListenerConfig) (*ws.Listener, *wt.Server, string) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	lcfg.Addr = conn.LocalAddr().(*net.UDPAddr).AddrPort()
	ln, err := ws.NewListener(lcfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wt.NewServer(conn, ln, wt.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ln.Close()
		srv.Close()
	})
	return ln, srv, fmt.Sprintf("https://%s/play/wt", lcfg.Addr)
}

// rawSession opens a WebTransport session that sends what the test
// writes, with no netcode above it.
func rawSession(t *testing.T, url string, hash []byte, origin string) (*webtransport.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d := &webtransport.Transport{TLSClientConfig: wt.HashPinned(hash)}
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	_, s, err := d.Dial(ctx, url, h)
	return s, err
}

// The self-signed certificate is what browsers accept by hash: ECDSA
// P-256, valid now for at most 14 days, with the hash the page is given.
func TestSelfSignedCertificate(t *testing.T) {
	_, srv, url := serve(t, ws.ListenerConfig{})
	info := srv.Info()
	if info.Path != "/play/wt" || len(info.CertificateHash) != sha256.Size {
		t.Fatalf("info %+v", info)
	}
	var leaf *x509.Certificate
	tc := wt.HashPinned(info.CertificateHash)
	check := tc.VerifyPeerCertificate
	tc.VerifyPeerCertificate = func(raw [][]byte, chains [][]*x509.Certificate) error {
		leaf, _ = x509.ParseCertificate(raw[0])
		return check(raw, chains)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, s, err := (&webtransport.Transport{TLSClientConfig: tc}).Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.CloseWithError(0, "")
	if leaf == nil || leaf.PublicKeyAlgorithm != x509.ECDSA || leaf.NotAfter.Sub(leaf.NotBefore) > wt.MaxValidity ||
		time.Now().Before(leaf.NotBefore) || time.Now().After(leaf.NotAfter) {
		t.Fatalf("certificate %+v", leaf)
	}
	if _, err := wt.Dial(ctx, url, make([]byte, sha256.Size)); err == nil {
		t.Fatal("dialled with a wrong certificate hash")
	}
	if _, err := wt.NewServer(nil, nil, wt.Config{Validity: wt.MaxValidity + time.Hour}); err == nil {
		t.Fatal("a validity over 14 days taken")
	}
}

// Oversize datagrams are dropped and counted by the Listener, malformed
// ones by netcode; a session from another host's page is refused.
func TestServerDrops(t *testing.T) {
	ln, srv, url := serve(t, ws.ListenerConfig{MaxMessageSize: 100})
	key, _ := netcode.GenerateKey(rand.Reader)
	us, err := udp.NewServer(ln, udp.ServerConfig{Netcode: netcode.ServerConfig{ProtocolID: 7, PrivateKey: key}})
	if err != nil {
		t.Fatal(err)
	}
	defer us.Close()
	hash := srv.CertificateHash()
	if _, err := rawSession(t, url, hash, "http://attacker.example"); err == nil {
		t.Fatal("foreign origin: session opened")
	}
	s, err := rawSession(t, url, hash, "http://127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	defer s.CloseWithError(0, "")
	s.SendDatagram(make([]byte, 101))
	s.SendDatagram([]byte{0xff, 1, 2, 3}) // no packet type of netcode's
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && (ln.Stats().Oversize == 0 || us.Stats().Dropped.Total() == 0) {
		time.Sleep(5 * time.Millisecond)
	}
	if st := ln.Stats(); st.Oversize != 1 || st.Sessions != 1 {
		t.Errorf("listener stats %+v: want 1 oversize of 1 session", st)
	}
	if d := us.Stats().Dropped; d.Total() != 1 {
		t.Errorf("netcode dropped %+v, want the malformed datagram", d)
	}
	if st := srv.Stats(); st.Refused != 1 || st.Sessions != 1 {
		t.Errorf("server stats %+v: want 1 refused, 1 session", st)
	}
}

// 64 netcode clients connect over WebTransport to one server, and each gets
// its payload echoed; tokens sealed with another key or for another
// protocol are refused and counted by netcode.
func TestServer64Clients(t *testing.T) {
	const n = 64
	const protocolID = 0x7e7e
	key, _ := netcode.GenerateKey(rand.Reader)
	ln, srv, url := serve(t, ws.ListenerConfig{MaxConns: n + 3, MaxConnsPerAddr: n + 3}) // all from loopback
	var us *udp.Server
	ready := make(chan struct{})
	us, err := udp.NewServer(ln, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: protocolID, PrivateKey: key, MaxClients: n},
		OnPayload: func(client int, p []byte, _ time.Time) {
			<-ready
			us.Send(client, p)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	close(ready)
	defer us.Close()
	mint := func(id, pid uint64, k *netcode.Key, now time.Time) *netcode.ConnectToken {
		tok, err := netcode.NewConnectToken(rand.Reader, k, netcode.TokenParams{ProtocolID: pid, ClientID: id, Now: now,
			ServerAddresses: []netip.AddrPort{ln.LocalAddr().(*net.UDPAddr).AddrPort()}})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	echoes := make(chan string, n)
	hash := srv.CertificateHash()
	dial := func(tok *netcode.ConnectToken, msg string) *udp.Client {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := wt.Dial(ctx, url, hash)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := udp.Dial(conn, tok, udp.ClientConfig{
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
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for i := range n {
		clients = append(clients, dial(mint(uint64(i+1), protocolID, &key, now), fmt.Sprint("client ", i)))
	}
	got := map[string]bool{}
	timeout := time.After(60 * time.Second)
	for len(got) < n {
		select {
		case e := <-echoes:
			got[e] = true
		case <-timeout:
			t.Fatalf("%d of %d echoes; server stats %+v", len(got), n, us.Stats())
		}
	}
	other, _ := netcode.GenerateKey(rand.Reader)
	for _, tok := range []*netcode.ConnectToken{mint(1001, protocolID, &other, now), mint(1002, protocolID+1, &key, now)} {
		clients = append(clients, dial(tok, "bad"))
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if d := us.Stats().Dropped; d.Auth > 0 && d.ProtocolID > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if d := us.Stats().Dropped; d.Auth == 0 || d.ProtocolID == 0 {
		t.Errorf("bad tokens: dropped %+v; want another key's and another protocol's refused", d)
	}
	if c := us.NumConnected(); c != n {
		t.Errorf("%d connected, want %d", c, n)
	}
	if ls := ln.Stats(); ls.Sessions != n+2 || ls.Conns != n+2 {
		t.Errorf("listener stats %+v: want %d sessions open", ls, n+2)
	}
}

// A session's close reaches the Listener's OnClose at once: a closed tab's
// player can leave without waiting for netcode's timeout.
func TestSessionClose(t *testing.T) {
	closed := make(chan net.Addr, 1)
	ln, srv, url := serve(t, ws.ListenerConfig{OnClose: func(a net.Addr) { closed <- a }})
	s, err := rawSession(t, url, srv.CertificateHash(), "")
	if err != nil {
		t.Fatal(err)
	}
	s.SendDatagram([]byte("hello"))
	ln.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, from, err := ln.ReadFrom(make([]byte, 100))
	if err != nil {
		t.Fatal(err)
	}
	s.CloseWithError(0, "")
	select {
	case a := <-closed:
		if a.String() != from.String() {
			t.Errorf("closed %v, want %v", a, from)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no OnClose 5 s after the session closed")
	}
}
