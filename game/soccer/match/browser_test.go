package match

import (
	"context"
	"crypto/rand"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/transport/ws"
)

// TestBrowserBesideUDP plays a client over a real WebSocket on loopback in
// the same match as a UDP bot: both are in the server's core, the
// WebSocket client in a browser slot, and the keys it sends move its player
// in the server's truth. Its token used again from a second WebSocket is
// refused, as a token for the bots' UDP address is.
func TestBrowserBesideUDP(t *testing.T) {
	lan, err := netsim.Preset("lan")
	if err != nil {
		t.Fatal(err)
	}
	l, err := StartLive(Config{Seed: 5, Bots: 1, Link: lan})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	url := serveBrowsers(t, l, ws.ListenerConfig{})
	tok, err := l.BrowserToken()
	if err != nil {
		t.Fatal(err)
	}
	dial := func(tok *netcode.ConnectToken) *Bot {
		b, _ := dialBrowser(t, url, tok)
		return b
	}
	b := dial(tok)
	defer b.Driver().Close()
	b.Steer(&soccer.Keys{Dir: geom.V(1, 0, 0)})

	slot := -1
	var self uint32
	var from, to geom.Vec3
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if slot < 0 {
			if i := b.Driver().Transport().ClientIndex(); i >= 0 {
				slot = udpSlots(l.core.Config().MaxClients) + i
				l.Server().Do(func(s *server.Server) {
					st, _ := s.ClientStats(slot)
					self = st.Self
				})
				from = position(l, self)
			}
		} else if to = position(l, self); to.Sub(from).Len() > 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if slot < 0 {
		t.Fatal("the WebSocket client never connected")
	}
	var clients int
	l.Server().Do(func(s *server.Server) { clients = s.Stats().Clients })
	t.Logf("WebSocket client in slot %d, player %d moved from %v to %v; %d clients", slot, self, from, to, clients)
	if clients != 2 {
		t.Errorf("%d clients in the core, want the bot and the browser", clients)
	}
	if slot < udpSlots(l.core.Config().MaxClients) {
		t.Errorf("slot %d is a UDP slot", slot)
	}
	if to.Sub(from).Len() <= 2 {
		t.Errorf("the player steered +X moved %v → %v", from, to)
	}

	// The same token from another WebSocket (its client is connected:
	// netcode refuses it as such before looking at the token's use), and a
	// token naming the bots' UDP address, are refused by the browsers'
	// netcode server.
	again := dial(tok)
	defer again.Driver().Close()
	udpTok, err := netcode.NewConnectToken(rand.Reader, &l.key, netcode.TokenParams{ProtocolID: ProtocolID, ClientID: 99,
		ServerAddresses: []netip.AddrPort{l.Addr()}, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	other := dial(udpTok)
	defer other.Driver().Close()
	side := l.Server().Transports()[1]
	for time.Now().Before(deadline) {
		if d := side.Stats().Dropped; d.AlreadyConnected > 0 && d.ServerAddress > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := side.Stats().Dropped; d.AlreadyConnected == 0 || d.ServerAddress == 0 {
		t.Errorf("refusals: already connected %d, wrong server address %d; want both", d.AlreadyConnected, d.ServerAddress)
	}
}

// serveBrowsers serves l's browsers on a Listener with cfg on a loopback
// HTTP server, closed with the test, and returns its WebSocket URL.
func serveBrowsers(t *testing.T, l *Live, cfg ws.ListenerConfig) string {
	t.Helper()
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
	t.Cleanup(func() { hs.Close() })
	if err := l.ServeBrowsers(ln); err != nil {
		t.Fatal(err)
	}
	return "ws://" + tcp.Addr().String() + "/"
}

// dialBrowser connects a bot with tok over a WebSocket to url and returns it
// with its WebSocket.
func dialBrowser(t *testing.T, url string, tok *netcode.ConnectToken) (*Bot, net.PacketConn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := ws.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Dial(conn, tok, Config{Seed: 9}, udp.ClientConfig{Netcode: netcode.ClientConfig{ProtocolID: ProtocolID}})
	if err != nil {
		t.Fatal(err)
	}
	return b, conn
}

// A browser whose WebSocket closes without netcode's goodbye (a closed tab)
// leaves the match at once when the Listener's close hook tells the match
// (Live.BrowserLeft), not after its token's timeout (10 s).
func TestBrowserTabClosed(t *testing.T) {
	l, err := StartLive(Config{Seed: 5, Bots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	url := serveBrowsers(t, l, ws.ListenerConfig{OnClose: func(a net.Addr) { l.BrowserLeft(a) }})
	tok, err := l.BrowserToken()
	if err != nil {
		t.Fatal(err)
	}
	b, conn := dialBrowser(t, url, tok)
	defer b.Driver().Close()
	clients := func() (n int) {
		l.Server().Do(func(s *server.Server) { n = s.Stats().Clients })
		return n
	}
	waitUntil := func(what string, within time.Duration, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(within); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v", what, within)
			}
		}
	}
	waitUntil("the browser connected", 5*time.Second, func() bool { return clients() == 2 })
	peer := &net.UDPAddr{IP: net.ParseIP("100::1"), Port: 1} // the Listener's first peer
	if !l.BrowserConnected(peer) || l.BrowserConnected(&net.UDPAddr{IP: net.ParseIP("100::1"), Port: 9}) {
		t.Errorf("BrowserConnected: %v for the browser, %v for another address", l.BrowserConnected(peer), l.BrowserConnected(&net.UDPAddr{IP: net.ParseIP("100::1"), Port: 9}))
	}
	closed := time.Now()
	conn.Close() // the WebSocket ends; no netcode disconnect is sent
	waitUntil("the browser's slot freed before its token's timeout", 5*time.Second, func() bool { return clients() == 1 })
	t.Logf("the browser left %v after its WebSocket closed", time.Since(closed).Round(time.Millisecond))
	if l.BrowserConnected(peer) {
		t.Error("BrowserConnected after the browser left")
	}
	if ok, err := l.BrowserLeft(&net.UDPAddr{IP: net.ParseIP("100::1"), Port: 9}); ok || err != nil {
		t.Errorf("BrowserLeft of an address no browser has: %v, %v", ok, err)
	}
}

// position returns the true position of player id.
func position(l *Live, id uint32) geom.Vec3 {
	var tr soccer.Truth
	l.Truth(&tr)
	for _, p := range tr.Players {
		if p.ID == id {
			return p.Pos
		}
	}
	return geom.Vec3{}
}

// TestBrowserNet: a browser's traffic as BrowserNet reads it from the
// server's counters of its slot (netcode's packets plus 28 bytes of IPv4
// and UDP header each) is what the client counted of its own datagrams
// over the same span, on a lossless link, within 5 %, each direction's
// total and its kinds (the clock's both ways); and each session
// posting frames of the same player gets a row of its own.
func TestBrowserNet(t *testing.T) {
	l, err := StartLive(Config{Seed: 5, Bots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	meter, err := NewMeter(MeterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	take := l.MeterBrowsers(meter, netsim.LinkConfig{})
	url := serveBrowsers(t, l, ws.ListenerConfig{})
	tok, err := l.BrowserToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := dialBrowser(t, url, tok)
	defer b.Driver().Close()
	var self uint32
	for deadline := time.Now().Add(10 * time.Second); self == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the WebSocket client never connected")
		}
		if i := b.Driver().Transport().ClientIndex(); i >= 0 {
			l.Server().Do(func(s *server.Server) {
				st, _ := s.ClientStats(udpSlots(l.core.Config().MaxClients) + i)
				self = st.Self
			})
		}
	}
	time.Sleep(time.Second) // the client's traffic settles
	post := func(session uint64) NetCounters {
		t.Helper()
		body := fmt.Sprintf(`{"session": %d, "frames": [{"t": 1, "self": %d, "hasSelf": true, "ownSeq": -1}]}`, session, self)
		if err := take(strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		return b.NetCounters(l.Server().Now())
	}
	first := post(1)
	time.Sleep(5 * time.Second)
	last := post(1)
	got, ok := l.BrowserNet(0)
	if !ok {
		t.Fatal("BrowserNet(0): no browser's row")
	}
	want := NetBetween(first, last)
	t.Logf("server's count: down %.2f kbps (snapshots %.2f), up %.2f; the client's: down %.2f (snapshots %.2f), up %.2f",
		got.DownKbps, got.Down.Snapshots, got.UpKbps, want.DownKbps, want.Down.Snapshots, want.UpKbps)
	near := func(what string, a, b float64) {
		if b <= 0 || math.Abs(a-b) > 0.05*b {
			t.Errorf("%s: server's count %.2f kbps, the client's %.2f", what, a, b)
		}
	}
	near("down", got.DownKbps, want.DownKbps)
	near("up", got.UpKbps, want.UpKbps)
	near("snapshots down", got.Down.Snapshots, want.Down.Snapshots)
	near("clock down", got.ClockDownKbps, want.ClockDownKbps)
	near("clock up", got.ClockUpKbps, want.ClockUpKbps)
	if got.Up == nil {
		t.Fatal("up not split by kind")
	}
	t.Logf("up by kind: the server's %+v; the client's %+v", *got.Up, *want.Up)
	near("inputs up", got.Up.Inputs, want.Up.Inputs)
	near("acks up", got.Up.Acks, want.Up.Acks)
	near("headers up", got.Up.Headers, want.Up.Headers)
	post(2) // another session, the same player (a slot given again)
	if meter.Rows() != 2 {
		t.Errorf("%d rows, want 2: one a session", meter.Rows())
	}
	if _, ok := l.BrowserNet(2); ok {
		t.Error("BrowserNet(2): a row no browser has")
	}
}
