package ws

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/tether-net/tether/netsim"
)

// ListenerConfig configures a Listener. Zero fields take the defaults shown.
type ListenerConfig struct {
	// Addr is the address the Listener reports as its LocalAddr: the HTTP
	// server's, which connect tokens for its clients name. Required.
	Addr netip.AddrPort
	// MaxConns caps the peers open at once, WebSockets and Datagrams
	// sessions together (default 64, range 1..4096); more WebSockets are
	// refused with 503 Service Unavailable, more sessions closed.
	MaxConns int
	// MaxConnsPerAddr caps the peers open at once from one IP address
	// (default 4, range 1..4096), refused as beyond MaxConns: one visitor
	// cannot take every place. A Datagrams session is counted by its
	// RemoteAddr, if it has that method.
	MaxConnsPerAddr int
	// Established, if set, reports whether the peer at addr (its address
	// on the Listener) holds a client slot: it completed the handshake
	// with a valid token (udp.Server.HasClient). A peer it does not report
	// HandshakeTimeout after it opened is closed and counted
	// (Stats.NoHandshake), so that peers without a token cannot hold the
	// places MaxConns counts.
	Established func(addr net.Addr) bool
	// HandshakeTimeout is that deadline (default 5 s, range 1 s..1 min).
	HandshakeTimeout time.Duration
	// MaxMessageSize is the largest datagram taken, in bytes (default 1500,
	// range 64..65536); longer messages are dropped and counted, and a
	// message over 64 KiB closes its WebSocket.
	MaxMessageSize int
	// MaxMessageHz is each WebSocket's budget of messages a second, with a
	// burst of as many (default 300, range 1..100000): messages beyond it
	// are dropped and counted, and a WebSocket that sends twice MaxMessageHz
	// messages beyond it is closed.
	MaxMessageHz int
	// IdleTimeout closes a WebSocket that sent nothing for this long
	// (default 15 s, range 1 s..10 min).
	IdleTimeout time.Duration
	// Queue is how many received datagrams wait for the reader, all
	// WebSockets together (default 1024, range 16..65536).
	Queue int
	// Link, if set, emulates a network between the Listener and every
	// peer (package tether/netsim), as a UDP client's own socket and a
	// netsim.Router do for it: datagrams a peer sends go through Link.Up
	// before ReadFrom returns them, and those written to it through
	// Link.Down; each peer's random streams are seeded from Seed and its
	// number. A browser's clock is its own: Link.Clock and Link.Blackouts
	// are not emulated.
	Link *netsim.LinkConfig
	Seed uint64
	// OnClose, if set, is called with a peer's address once its WebSocket
	// has closed, on that WebSocket's goroutine: a server can free the
	// peer's slot at once (udp.Server.DisconnectAddr), where netcode would
	// wait for its timeout, as a closed tab sends no disconnect packet.
	OnClose func(addr net.Addr)
}

// ConfigError reports a ListenerConfig field out of range.
type ConfigError struct {
	Field   string
	Value   any
	Allowed string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("tether/transport/ws: %s = %v, want %s", e.Field, e.Value, e.Allowed)
}

func (c *ListenerConfig) resolve() error {
	if !c.Addr.IsValid() {
		return &ConfigError{Field: "Addr", Value: c.Addr, Allowed: "an IP address and port"}
	}
	ints := []struct {
		v           *int
		name        string
		def, lo, hi int
	}{
		{&c.MaxConns, "MaxConns", 64, 1, 4096},
		{&c.MaxConnsPerAddr, "MaxConnsPerAddr", 4, 1, 4096},
		{&c.MaxMessageSize, "MaxMessageSize", 1500, 64, maxReadLimit},
		{&c.MaxMessageHz, "MaxMessageHz", 300, 1, 100000},
		{&c.Queue, "Queue", 1024, 16, 65536},
	}
	for _, f := range ints {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < f.lo || *f.v > f.hi {
			return &ConfigError{Field: f.name, Value: *f.v, Allowed: fmt.Sprintf("range %d..%d", f.lo, f.hi)}
		}
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 15 * time.Second
	}
	if c.IdleTimeout < time.Second || c.IdleTimeout > 10*time.Minute {
		return &ConfigError{Field: "IdleTimeout", Value: c.IdleTimeout, Allowed: "range 1s..10m"}
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = 5 * time.Second
	}
	if c.HandshakeTimeout < time.Second || c.HandshakeTimeout > time.Minute {
		return &ConfigError{Field: "HandshakeTimeout", Value: c.HandshakeTimeout, Allowed: "range 1s..1m"}
	}
	if c.Link != nil {
		if err := c.Link.Validate(); err != nil {
			return &ConfigError{Field: "Link", Value: err, Allowed: "a valid netsim.LinkConfig"}
		}
	}
	return nil
}

// maxReadLimit is the longest message read (and dropped) before a
// WebSocket is closed.
const maxReadLimit = 64 << 10

// Stats are a Listener's counters.
type Stats struct {
	Conns    int    // WebSockets open now
	Accepted uint64 // peers accepted: WebSockets and Datagrams sessions
	Sessions uint64 // of Accepted, Datagrams sessions (ServeDatagrams)
	Refused  uint64 // peers refused: MaxConns (or MaxConnsPerAddr) were open, or the Listener was closed
	// NoHandshake counts peers closed for not being Established within
	// HandshakeTimeout.
	NoHandshake uint64
	Messages    uint64 // datagrams taken for the reader, counted before they are queued (QueueFull of them were not)
	Oversize    uint64 // messages dropped as longer than MaxMessageSize
	Text        uint64 // WebSocket text messages dropped
	OverRate    uint64 // messages dropped beyond MaxMessageHz
	QueueFull   uint64 // datagrams dropped because the reader's queue was full
	CutOff      uint64 // WebSockets closed for their message rate
	Unsent      uint64 // datagrams dropped on the way out: unknown peer, or its queue full
}

// Listener is a net.PacketConn whose peers are the WebSockets that
// ServeHTTP accepts, one datagram per binary message, and the Datagrams
// sessions (WebTransport) given to ServeDatagrams. ReadFrom returns
// datagrams from every peer in the order they were queued; WriteTo sends to
// the peer with that address without waiting (a full queue drops the
// datagram). Use it with tether/transport/udp.NewServer or server.UDP.Serve.
type Listener struct {
	cfg   ListenerConfig
	local *net.UDPAddr
	in    inbox

	mu     sync.Mutex
	peers  map[netip.AddrPort]*peer // accepted WebSockets
	open   int                      // WebSockets being accepted or served
	byIP   map[netip.Addr]int       // of open, by remote IP address
	next   uint64                   // the next peer's address
	closed bool
	wg     sync.WaitGroup

	accepted, sessions, refused, noHandshake, messages, oversize, text, overRate, queueFull, cutOff, unsent atomic.Uint64
}

// NewListener returns a Listener; mount it (its ServeHTTP) on an HTTP
// server behind a Host check.
func NewListener(cfg ListenerConfig) (*Listener, error) {
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	return &Listener{
		cfg:   cfg,
		local: net.UDPAddrFromAddrPort(cfg.Addr),
		in:    newInbox(cfg.Queue),
		peers: make(map[netip.AddrPort]*peer),
		byIP:  make(map[netip.Addr]int),
	}, nil
}

// ServeHTTP accepts a WebSocket from the same origin and serves it until
// either side closes it.
func (l *Listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ap, _ := netip.ParseAddrPort(r.RemoteAddr)
	ip := ap.Addr().Unmap()
	n, ok := l.admit(ip)
	if !ok {
		http.Error(w, "tether/transport/ws: no room", http.StatusServiceUnavailable)
		return
	}
	defer l.wg.Done()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		l.leave(n, ip)
		return // Accept has answered the request
	}
	c.SetReadLimit(maxReadLimit)
	l.serve(n, ip, wsCarrier{c})
}

// ServeDatagrams serves d (a WebTransport session, say) as a peer, as
// ServeHTTP serves a WebSocket: it returns once either side has closed it.
// With MaxConns peers open, or the Listener closed, it closes d and returns
// ErrNoRoom at once.
func (l *Listener) ServeDatagrams(d Datagrams) error {
	var ip netip.Addr
	if ra, ok := d.(interface{ RemoteAddr() net.Addr }); ok {
		if ua, ok := ra.RemoteAddr().(*net.UDPAddr); ok {
			ip = ua.AddrPort().Addr().Unmap()
		}
	}
	n, ok := l.admit(ip)
	if !ok {
		d.Close("no room")
		return ErrNoRoom
	}
	defer l.wg.Done()
	l.sessions.Add(1)
	l.serve(n, ip, dgCarrier{d})
	return nil
}

// ErrNoRoom is returned by ServeDatagrams when MaxConns peers are open
// (or MaxConnsPerAddr from its address) or the Listener is closed.
var ErrNoRoom = errors.New("tether/transport/ws: no room")

// admit takes a place for a new peer from ip (the zero Addr if unknown)
// and numbers it; false means refused (counted). After true, the caller
// calls l.wg.Done when done, and serve or leave.
func (l *Listener) admit(ip netip.Addr) (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.open >= l.cfg.MaxConns || l.byIP[ip] >= l.cfg.MaxConnsPerAddr {
		l.refused.Add(1)
		return 0, false
	}
	l.open++
	l.byIP[ip]++
	l.next++
	l.wg.Add(1)
	return l.next, true
}

// leave gives back the place of peer n from ip.
func (l *Listener) leave(n uint64, ip netip.Addr) {
	l.mu.Lock()
	l.open--
	if l.byIP[ip]--; l.byIP[ip] <= 0 {
		delete(l.byIP, ip)
	}
	delete(l.peers, netip.AddrPortFrom(peerAddr(n), 1))
	l.mu.Unlock()
}

// serve runs peer n from ip over c until either side closes it.
func (l *Listener) serve(n uint64, ip netip.Addr, c carrier) {
	defer l.leave(n, ip)
	l.accepted.Add(1)
	ap := netip.AddrPortFrom(peerAddr(n), 1)
	p := newPeer(c, net.UDPAddrFromAddrPort(ap))
	if link := l.cfg.Link; link != nil {
		seed := l.cfg.Seed + n*0x9e3779b97f4a7c15
		p.up = netsim.NewPacketConn(sink{l.local, l.deliver}, link.Up, seed)
		p.down = netsim.NewPacketConn(sink{l.local, func(b []byte, _ net.Addr) { l.sendTo(p, b) }}, link.Down, seed^0x646f776e)
		defer p.up.Close()
		defer p.down.Close()
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		c.closeNow()
		return
	}
	l.peers[ap] = p
	l.mu.Unlock()
	if est := l.cfg.Established; est != nil {
		deadline := time.AfterFunc(l.cfg.HandshakeTimeout, func() {
			if !est(p.addr) {
				l.noHandshake.Add(1)
				p.c.close(true, "no handshake")
			}
		})
		defer deadline.Stop()
	}
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		p.write()
	}()
	l.read(p)
	p.drop()
	<-writer
	if l.cfg.OnClose != nil {
		l.cfg.OnClose(p.addr)
	}
}

// peerAddr is the n-th address in 100::/64.
func peerAddr(n uint64) netip.Addr {
	var a [16]byte
	a[0], a[1] = 0x01, 0x00
	for i := range 8 {
		a[15-i] = byte(n >> (8 * i))
	}
	return netip.AddrFrom16(a)
}

// read queues p's datagrams until it closes, idles, or exceeds its rate.
func (l *Listener) read(p *peer) {
	rate := time.Second / time.Duration(l.cfg.MaxMessageHz)
	depth := time.Duration(l.cfg.MaxMessageHz) * rate
	var tat time.Time
	excess := 0
	for {
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.IdleTimeout)
		b, text, oversize, err := p.c.read(ctx, l.cfg.MaxMessageSize)
		cancel()
		if err != nil {
			return
		}
		now := time.Now()
		if tat.Sub(now) >= depth {
			l.overRate.Add(1)
			if excess++; excess > 2*l.cfg.MaxMessageHz {
				l.cutOff.Add(1)
				p.c.close(true, "too many messages")
				return
			}
			continue
		}
		tat = later(tat, now).Add(rate)
		switch {
		case oversize:
			l.oversize.Add(1)
		case text:
			l.text.Add(1)
		case p.up != nil:
			p.up.WriteTo(b, p.addr) // to deliver, after the link's delay
		default:
			l.deliver(b, p.addr)
		}
	}
}

// deliver queues a datagram from addr for the reader.
func (l *Listener) deliver(b []byte, addr net.Addr) {
	l.messages.Add(1) // before the reader can see it, so a reader's Stats count it
	if !l.in.offer(datagram{b: b, from: addr.(*net.UDPAddr)}) {
		l.queueFull.Add(1)
	}
}

// sendTo queues b for p's writer.
func (l *Listener) sendTo(p *peer, b []byte) {
	if !p.send(b) {
		l.unsent.Add(1)
	}
}

// sink is a net.PacketConn whose writes call write: the end of an emulated
// link's path.
type sink struct {
	local net.Addr
	write func(b []byte, addr net.Addr)
}

func (s sink) WriteTo(b []byte, addr net.Addr) (int, error) {
	s.write(append([]byte(nil), b...), addr) // the link reuses b
	return len(b), nil
}
func (sink) ReadFrom([]byte) (int, net.Addr, error) { return 0, nil, net.ErrClosed }
func (sink) Close() error                           { return nil }
func (s sink) LocalAddr() net.Addr                  { return s.local }
func (sink) SetDeadline(time.Time) error            { return nil }
func (sink) SetReadDeadline(time.Time) error        { return nil }
func (sink) SetWriteDeadline(time.Time) error       { return nil }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ReadFrom reads the next datagram from any peer; its address is a
// *net.UDPAddr in 100::/64.
func (l *Listener) ReadFrom(b []byte) (int, net.Addr, error) { return l.in.read(b, nil) }

// WriteTo queues b for the peer at addr. A datagram to a peer that is gone,
// or whose queue is full, is dropped and counted, with no error: datagrams
// may be lost.
func (l *Listener) WriteTo(b []byte, addr net.Addr) (int, error) {
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, &net.OpError{Op: "write", Net: "ws", Addr: addr, Err: net.UnknownNetworkError(addr.Network())}
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, net.ErrClosed
	}
	p := l.peers[ua.AddrPort()]
	l.mu.Unlock()
	switch {
	case p == nil:
		l.unsent.Add(1)
	case p.down != nil:
		p.down.WriteTo(b, addr) // to send, after the link's delay
	default:
		l.sendTo(p, b)
	}
	return len(b), nil
}

// Close closes every WebSocket and waits for their goroutines; ReadFrom
// then returns net.ErrClosed.
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	for _, p := range l.peers {
		p.drop() // its writer sends what is queued and closes it
	}
	l.mu.Unlock()
	close(l.in.done)
	l.wg.Wait()
	return nil
}

// LocalAddr returns ListenerConfig.Addr as a *net.UDPAddr.
func (l *Listener) LocalAddr() net.Addr { return l.local }

// SetDeadline sets the read deadline; writes never wait.
func (l *Listener) SetDeadline(t time.Time) error { return l.SetReadDeadline(t) }

// SetReadDeadline sets the deadline of ReadFrom.
func (l *Listener) SetReadDeadline(t time.Time) error { l.in.setDeadline(t); return nil }

// SetWriteDeadline does nothing: writes never wait.
func (l *Listener) SetWriteDeadline(time.Time) error { return nil }

// Stats returns the counters.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	n := l.open
	l.mu.Unlock()
	return Stats{Conns: n, Accepted: l.accepted.Load(), Sessions: l.sessions.Load(), Refused: l.refused.Load(), NoHandshake: l.noHandshake.Load(), Messages: l.messages.Load(),
		Oversize: l.oversize.Load(), Text: l.text.Load(), OverRate: l.overRate.Load(), QueueFull: l.queueFull.Load(),
		CutOff: l.cutOff.Load(), Unsent: l.unsent.Load()}
}
