package server

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tether-net/tether/transport/udp"
)

// UDP runs a Server over a tether/transport/udp Server, on the transport's
// one goroutine: the core's ticks run in the transport's OnTick, after the
// socket has been drained, and connections and payloads are handed to the
// core as the transport reads them, so everything a tick sends leaves in one
// batch. A mutex, uncontended but for Do's callers, guards the core. Server
// time is the time since ServeUDP was called, on the transport's clock.
type UDP struct {
	mu   sync.Mutex
	core *Server
	srv  *udp.Server
	more []side // transports added by Serve
	// firstEnd is the number of slots of the first transport.
	firstEnd int
	clock    func() time.Time
	start    time.Time
	once     sync.Once
	err      error

	sendErrors uint64
	tickTimes  TickTimes
	ticked     time.Duration // server time of the last Tick: no arrival is earlier
}

// side is a transport added by Serve: its slot i is the core's first+i.
type side struct {
	srv        *udp.Server
	first, end int
}

// TickBounds are the upper bounds of TickTimes' buckets; 16.7 ms is a 60 Hz
// tick's whole budget (16.67 ms, rounded up so that alerting rules can name
// it, le="0.0167"): the share of calls over it is read from the histogram.
var TickBounds = [...]time.Duration{
	50 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	16700 * time.Microsecond, 25 * time.Millisecond, 50 * time.Millisecond,
}

// TickTimes is a histogram of the wall time the driver's calls of the core's
// Tick took (one call runs several ticks when it catches up).
type TickTimes struct {
	Count uint64        // calls
	Sum   time.Duration // their total time
	// Buckets[i] counts the calls that took more than TickBounds[i-1] and at
	// most TickBounds[i]; longer calls are only in Count.
	Buckets [len(TickBounds)]uint64
}

func (t *TickTimes) add(d time.Duration) {
	t.Count++
	t.Sum += d
	for i, b := range TickBounds {
		if d <= b {
			t.Buckets[i]++
			return
		}
	}
}

// ServeUDP starts serving core on conn (a *net.UDPConn, possibly wrapped, for
// example by netsim), which the returned UDP then owns. cfg configures the
// transport; its OnConnect, OnPayload and OnDisconnect are called after the
// core has handled each, from the transport's goroutine. cfg.OnTick must be
// nil: the core's ticks take it. core should be fresh: its server time starts
// at zero now.
func ServeUDP(conn net.PacketConn, core *Server, cfg udp.ServerConfig) (*UDP, error) {
	if cfg.OnTick != nil {
		return nil, fmt.Errorf("%w: ServeUDP runs the core's ticks in the transport's OnTick, which must be nil", ErrConfig)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	u := &UDP{core: core, clock: cfg.Now, start: cfg.Now()}
	u.firstEnd = cfg.Netcode.MaxClients
	if u.firstEnd == 0 {
		u.firstEnd = 64 // netcode's default
	}
	u.hooks(&cfg, 0, &u.srv)
	cfg.OnTick = func(now time.Time) time.Time {
		u.mu.Lock()
		defer u.mu.Unlock()
		t0 := time.Now()
		u.ticked = now.Sub(u.start)
		u.core.Tick(u.ticked)
		u.tickTimes.add(time.Since(t0))
		u.sendLocked()
		return u.start.Add(u.core.NextTick())
	}
	u.mu.Lock() // the callbacks wait for u.srv
	srv, err := udp.NewServer(conn, cfg)
	if err != nil {
		u.mu.Unlock()
		return nil, err
	}
	u.srv = srv
	u.mu.Unlock()
	return u, nil
}

// hooks sets cfg's OnConnect, OnPayload and OnDisconnect to hand the core
// what the transport *srv (set before its first callback) reports, its slot
// i being the core's first+i, and then to call cfg's own.
func (u *UDP) hooks(cfg *udp.ServerConfig, first int, srv **udp.Server) {
	onConnect, onPayload, onDisconnect := cfg.OnConnect, cfg.OnPayload, cfg.OnDisconnect
	cfg.OnConnect = func(client int, id uint64) {
		u.mu.Lock()
		err := u.core.Connect(u.now(), first+client)
		u.sendLocked()
		s := *srv
		u.mu.Unlock()
		if err != nil {
			_ = s.Disconnect(client)
			return
		}
		if onConnect != nil {
			onConnect(first+client, id)
		}
	}
	cfg.OnPayload = func(client int, p []byte, arrival time.Time) {
		u.mu.Lock()
		_ = u.core.ReceiveAt(u.now(), max(arrival.Sub(u.start), u.ticked), first+client, p)
		u.sendLocked()
		u.mu.Unlock()
		if onPayload != nil {
			onPayload(first+client, p, arrival)
		}
	}
	cfg.OnDisconnect = func(client int, id uint64, reason error) {
		u.mu.Lock()
		err := u.core.Disconnect(u.now(), first+client)
		u.mu.Unlock()
		if err == nil && onDisconnect != nil {
			onDisconnect(first+client, id, reason)
		}
	}
}

// Serve serves more clients of the same core over a second transport on
// conn — a tether/transport/ws Listener that carries browsers' datagrams —
// beside the first, which keeps the ticks: the transport's slot i is the
// core's first+i, for its cfg.Netcode.MaxClients slots (default 64), which
// must lie within the core's MaxClients and above the slots of the
// transports already served. cfg's callbacks get the core's slot numbers;
// cfg.OnTick must be nil, and cfg.Now is the first transport's clock. The
// UDP owns conn; Close closes it.
func (u *UDP) Serve(conn net.PacketConn, first int, cfg udp.ServerConfig) error {
	if cfg.OnTick != nil {
		return fmt.Errorf("%w: Serve: cfg.OnTick must be nil (the first transport runs the ticks)", ErrConfig)
	}
	if cfg.Netcode.MaxClients == 0 {
		cfg.Netcode.MaxClients = 64
	}
	end := first + cfg.Netcode.MaxClients
	u.mu.Lock()
	defer u.mu.Unlock() // the callbacks wait for the side's server
	low := u.firstEnd
	for _, sd := range u.more {
		low = max(low, sd.end)
	}
	if first < low || end > u.core.Config().MaxClients {
		return fmt.Errorf("%w: Serve: slots %d to %d, want within %d to %d", ErrConfig, first, end-1, low, u.core.Config().MaxClients-1)
	}
	cfg.Now = u.clock
	u.more = append(u.more, side{first: first, end: end})
	sd := &u.more[len(u.more)-1]
	var srv *udp.Server
	u.hooks(&cfg, first, &srv)
	var err error
	if srv, err = udp.NewServer(conn, cfg); err != nil {
		u.more = u.more[:len(u.more)-1]
		return err
	}
	sd.srv = srv
	return nil
}

func (u *UDP) now() time.Duration { return u.clock().Sub(u.start) }

// sendLocked hands the transport what the core has to send.
func (u *UDP) sendLocked() {
	for {
		client, p, ok := u.core.Transmit()
		if !ok {
			return
		}
		srv := u.srv
		for _, sd := range u.more {
			if client >= sd.first && client < sd.end {
				srv, client = sd.srv, client-sd.first
			}
		}
		if srv.Send(client, p) != nil {
			u.sendErrors++
		}
	}
}

// Do runs fn with the core locked: the way to read the game's state or the
// core's statistics while the server runs. fn must not keep the core.
func (u *UDP) Do(fn func(s *Server)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fn(u.core)
}

// Now returns the current server time.
func (u *UDP) Now() time.Duration { return u.now() }

// Addr returns the local address of the connection.
func (u *UDP) Addr() net.Addr { return u.srv.Addr() }

// Transport returns the transport's server, for its protocol statistics.
func (u *UDP) Transport() *udp.Server { return u.srv }

// Transports returns the first transport's server and then those Serve
// added, in order.
func (u *UDP) Transports() []*udp.Server {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*udp.Server{u.srv}, sideServers(u.more)...)
}

// SendErrors returns the number of payloads the transport failed to send.
func (u *UDP) SendErrors() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.sendErrors
}

// TickTimes returns the histogram of the core's Tick calls so far.
func (u *UDP) TickTimes() TickTimes {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tickTimes
}

// Close disconnects every client, stops the transport's goroutine (and with
// it the ticks) and closes the connection. It is safe to call more than once.
func (u *UDP) Close() error {
	u.once.Do(func() {
		var errs []error
		for _, srv := range u.Transports() {
			if err := srv.Close(); err != nil && !errors.Is(err, udp.ErrClosed) {
				errs = append(errs, err)
			}
		}
		u.err = errors.Join(errs...)
	})
	return u.err
}

func sideServers(sides []side) []*udp.Server {
	var s []*udp.Server
	for _, sd := range sides {
		s = append(s, sd.srv)
	}
	return s
}
