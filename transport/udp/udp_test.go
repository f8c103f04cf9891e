package udp

import (
	"crypto/rand"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-net/tether/netcode"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testProtocol = 0x7e7e7e

func listen(t testing.TB) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func addrOf(c net.PacketConn) netip.AddrPort {
	return c.LocalAddr().(*net.UDPAddr).AddrPort()
}

type testEnv struct {
	key  netcode.Key
	srv  *Server
	addr netip.AddrPort

	mu          sync.Mutex
	connects    int
	disconnects map[error]int
	payloads    []int // per slot
	connected   chan int
	left        chan error
}

func newEnv(t *testing.T, maxClients int, onPayload func(e *testEnv, client int, p []byte)) *testEnv {
	t.Helper()
	return newEnvWrap(t, maxClients, nil, onPayload)
}

// newEnvWrap starts a server whose socket is wrapped by wrap (if not nil).
func newEnvWrap(t *testing.T, maxClients int, wrap func(net.PacketConn) net.PacketConn, onPayload func(e *testEnv, client int, p []byte)) *testEnv {
	t.Helper()
	key, err := netcode.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{key: key, disconnects: map[error]int{}, payloads: make([]int, maxClients),
		connected: make(chan int, 1024), left: make(chan error, 1024)}
	raw := listen(t)
	e.addr = addrOf(raw)
	var conn net.PacketConn = raw
	if wrap != nil {
		conn = wrap(raw)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.srv, err = NewServer(conn, ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: testProtocol, PrivateKey: key, MaxClients: maxClients},
		OnConnect: func(client int, id uint64) {
			e.mu.Lock()
			e.connects++
			e.mu.Unlock()
			e.connected <- client
		},
		OnPayload: func(client int, p []byte, _ time.Time) {
			e.mu.Lock()
			e.payloads[client]++
			e.mu.Unlock()
			if onPayload != nil {
				onPayload(e, client, p)
			}
		},
		OnDisconnect: func(client int, id uint64, reason error) {
			e.mu.Lock()
			e.disconnects[reason]++
			e.mu.Unlock()
			e.left <- reason
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.srv.Close() })
	return e
}

// server returns the Server (callbacks may run before NewServer returns).
func (e *testEnv) server() *Server {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.srv
}

func (e *testEnv) token(t testing.TB, clientID uint64, p netcode.TokenParams) *netcode.ConnectToken {
	t.Helper()
	if p.ProtocolID == 0 {
		p.ProtocolID = testProtocol
	}
	p.ClientID = clientID
	if p.ServerAddresses == nil {
		p.ServerAddresses = []netip.AddrPort{e.addr}
	}
	if p.Now.IsZero() {
		p.Now = time.Now()
	}
	tok, err := netcode.NewConnectToken(rand.Reader, &e.key, p)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// stateWaiter records a client's states.
type stateWaiter struct {
	ch chan netcode.ClientState
}

// connect dials the server with a token for clientID and returns the
// client once connected; it is closed when the test ends.
func (e *testEnv) connect(t *testing.T, clientID uint64) *Client {
	t.Helper()
	w := newWaiter()
	cl, err := Dial(listen(t), e.token(t, clientID, netcode.TokenParams{}), ClientConfig{OnState: func(s netcode.ClientState) { w.ch <- s }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	w.wait(t, netcode.StateConnected, 5*time.Second)
	return cl
}

func newWaiter() *stateWaiter { return &stateWaiter{ch: make(chan netcode.ClientState, 16)} }

func (w *stateWaiter) wait(t testing.TB, want netcode.ClientState, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	for {
		select {
		case s := <-w.ch:
			if s == want {
				return
			}
		case <-deadline:
			t.Fatalf("state %v not reached within %v", want, limit)
		}
	}
}

func TestConnectSendDisconnect(t *testing.T) {
	got := make(chan string, 4)
	e := newEnv(t, 4, func(e *testEnv, client int, p []byte) {
		e.server().Send(client, append([]byte("echo "), p...))
	})
	w := newWaiter()
	cl, err := Dial(listen(t), e.token(t, 1, netcode.TokenParams{}), ClientConfig{
		OnState:   func(s netcode.ClientState) { w.ch <- s },
		OnPayload: func(p []byte) { got <- string(p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t, netcode.StateConnected, 5*time.Second)
	if err := cl.Send([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "echo hi" {
			t.Fatalf("got %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no echo")
	}
	cl.Close()
	select {
	case r := <-e.left:
		if !errors.Is(r, netcode.ErrDisconnected) {
			t.Fatalf("reason %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not see the disconnect")
	}
}

func TestRefusedClients(t *testing.T) {
	e := newEnv(t, 4, nil)
	first := newWaiter()
	reused := e.token(t, 3, netcode.TokenParams{Timeout: time.Second})
	a, err := Dial(listen(t), reused, ClientConfig{OnState: func(s netcode.ClientState) { first.ch <- s }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	first.wait(t, netcode.StateConnected, 5*time.Second)

	// An expired token is refused by the client itself, before sending.
	if _, err := Dial(listen(t), e.token(t, 1, netcode.TokenParams{Timeout: time.Second, Now: time.Now().Add(-time.Hour)}), ClientConfig{}); !errors.Is(err, netcode.ErrTokenExpired) {
		t.Fatalf("expired token: Dial %v, want ErrTokenExpired", err)
	}
	cases := []struct {
		name string
		tok  *netcode.ConnectToken
	}{
		{"wrong protocol id", e.token(t, 2, netcode.TokenParams{Timeout: time.Second, ProtocolID: 99})},
		{"token used from a second address", reused},
	}
	var wg sync.WaitGroup
	results := make([]netcode.ClientState, len(cases))
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := Dial(listen(t), c.tok, ClientConfig{})
			if err != nil {
				t.Error(err)
				return
			}
			<-cl.Done() // bounded by the 1 s token timeout
			results[i] = cl.State()
			cl.Close()
		}()
	}
	wg.Wait()
	for i, c := range cases {
		if results[i] != netcode.StateRequestTimedOut {
			t.Errorf("%s: state %v, want refused (request timed out)", c.name, results[i])
		}
	}
	st := e.srv.Stats()
	if st.Dropped.ProtocolID == 0 || st.Dropped.AlreadyConnected+st.Dropped.TokenReused == 0 {
		t.Fatalf("refusals not counted: %+v", st.Dropped)
	}
	if n := e.srv.NumConnected(); n != 1 {
		t.Fatalf("%d connected", n)
	}
}

func TestNextServerAddress(t *testing.T) {
	e := newEnv(t, 4, nil)
	dead := listen(t) // bound but never answers
	defer dead.Close()
	w := newWaiter()
	tok := e.token(t, 1, netcode.TokenParams{Timeout: time.Second, ServerAddresses: []netip.AddrPort{addrOf(dead), e.addr}})
	cl, err := Dial(listen(t), tok, ClientConfig{OnState: func(s netcode.ClientState) { w.ch <- s }})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	w.wait(t, netcode.StateConnected, 5*time.Second)
}

// muteConn drops every datagram written once muted.
type muteConn struct {
	net.PacketConn
	muted atomic.Bool
}

func (m *muteConn) WriteTo(b []byte, a net.Addr) (int, error) {
	if m.muted.Load() {
		return len(b), nil
	}
	return m.PacketConn.WriteTo(b, a)
}

func TestSilentClientDropped(t *testing.T) {
	e := newEnv(t, 4, nil)
	mc := &muteConn{PacketConn: listen(t)}
	w := newWaiter()
	cl, err := Dial(mc, e.token(t, 1, netcode.TokenParams{Timeout: time.Second}), ClientConfig{OnState: func(s netcode.ClientState) { w.ch <- s }})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	w.wait(t, netcode.StateConnected, 5*time.Second)
	<-e.connected
	mc.muted.Store(true)
	select {
	case r := <-e.left:
		if !errors.Is(r, netcode.ErrTimeout) {
			t.Fatalf("reason %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("silent client not dropped")
	}
	if st := e.srv.Stats(); st.TimedOut != 1 {
		t.Fatalf("TimedOut %d", st.TimedOut)
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestSixtyFourClients(t *testing.T) {
	const clients, hz, ticks = 64, 60, 90 // 1.5 s of traffic at 60 Hz
	e := newEnv(t, clients, nil)
	var clientGot [clients]atomic.Int64
	var conns []*Client
	var states []*stateWaiter
	start := time.Now()
	for i := 0; i < clients; i++ {
		w := newWaiter()
		i := i
		cl, err := Dial(listen(t), e.token(t, uint64(i+1), netcode.TokenParams{}), ClientConfig{
			OnState:   func(s netcode.ClientState) { w.ch <- s },
			OnPayload: func(p []byte) { clientGot[i].Add(1) },
		})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, cl)
		states = append(states, w)
	}
	for _, w := range states {
		w.wait(t, netcode.StateConnected, 10*time.Second)
	}
	connectTime := time.Since(start)

	input := make([]byte, 100)
	snapshot := make([]byte, 1000)
	slots := make([]int, clients)
	for i, c := range conns {
		slots[i] = c.ClientIndex()
	}
	cpu0, wall0 := cpuTime(), time.Now()
	tk := time.NewTicker(time.Second / hz)
	for k := 0; k < ticks; k++ {
		<-tk.C
		for i, c := range conns {
			if err := c.Send(input); err != nil {
				t.Fatal(err)
			}
			if err := e.srv.Send(slots[i], snapshot); err != nil {
				t.Fatal(err)
			}
		}
	}
	tk.Stop()
	time.Sleep(100 * time.Millisecond) // let the last packets land
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)

	var up, down int64
	e.mu.Lock()
	for _, n := range e.payloads {
		up += int64(n)
	}
	e.mu.Unlock()
	for i := range clientGot {
		down += clientGot[i].Load()
	}
	sent := int64(clients * ticks)
	before := e.srv.Stats()
	for _, c := range conns {
		c.Close()
	}
	for i := 0; i < clients; i++ {
		select {
		case r := <-e.left:
			if !errors.Is(r, netcode.ErrDisconnected) {
				t.Fatalf("reason %v", r)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of %d disconnects seen", i, clients)
		}
	}
	st := e.srv.Stats()
	redundant := st.Dropped.Total() - before.Dropped.Total()
	// Loopback may drop under load, but nearly everything must arrive.
	if up < sent*95/100 || down < sent*95/100 {
		t.Fatalf("delivered up %d/%d, down %d/%d", up, sent, down, sent)
	}
	t.Logf("64 clients connected in %v; %d ticks at %d Hz: up %d/%d payloads, down %d/%d; server dropped %d datagrams during traffic (%d redundant disconnect packets after the slots were freed); process CPU %v over %v of traffic (all 65 endpoints, race detector %v)",
		connectTime.Round(time.Millisecond), ticks, hz, up, sent, down, sent, before.Dropped.Total(), redundant, cpu.Round(time.Millisecond), wall.Round(time.Millisecond), raceEnabled)
}

// ListenFor binds loopback for servers on loopback, of the same family.
func TestListenForLoopback(t *testing.T) {
	for _, tc := range []struct {
		servers string
		want    netip.Addr
	}{
		{"127.0.0.1:40000", netip.MustParseAddr("127.0.0.1")},
		{"[::ffff:127.0.0.1]:40000", netip.MustParseAddr("127.0.0.1")},
	} {
		c, err := ListenFor([]netip.AddrPort{netip.MustParseAddrPort(tc.servers)})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap(); got != tc.want {
			t.Errorf("servers %s: bound %v, want %v", tc.servers, got, tc.want)
		}
		c.Close()
	}
}
