package udp

import (
	"crypto/rand"
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/tether-net/tether/netcode"
)

// ErrClosed is returned by operations on a closed Server or Client.
var ErrClosed = errors.New("tether/transport/udp: closed")

// ServerConfig configures a Server. Zero fields take the defaults shown.
type ServerConfig struct {
	// Netcode configures the protocol. Netcode.Rand defaults to
	// crypto/rand.Reader, and Netcode.PublicAddress to the connection's
	// local address when that is a specific IP (not 0.0.0.0 or ::).
	Netcode netcode.ServerConfig
	// Tick is the longest the server sleeps between runs of netcode's
	// Update (keep-alives, timeouts), which are also, when batching, when
	// it reads the socket: the longest a datagram waits there (default
	// 10 ms, range 1 ms..1 s). With OnTick set the default is 1 s: the
	// server wakes for OnTick, when it also runs Update, and otherwise only
	// when the protocol has something due (netcode.Server.NextUpdate, at
	// least every KeepAliveInterval), so a 60 Hz game wakes it about 60
	// times a second rather than 100 to 160.
	Tick time.Duration
	// ReadBuffer is the socket receive buffer requested when conn is a
	// *net.UDPConn, in bytes (default 4 MiB; the OS may cap it, e.g. at
	// net.core.rmem_max on Linux). Bursts such as many clients leaving at
	// once, or the server's goroutine held off the CPU during a flood,
	// overflow small buffers, and the kernel then drops every client's
	// datagrams alike.
	ReadBuffer int
	// Now is the server's clock (default time.Now). Waits still take real
	// time; a test that drives Now can stall the server in virtual time.
	Now func() time.Time
	// OnConnect is called when a client takes a slot.
	OnConnect func(client int, clientID uint64)
	// OnPayload is called for every payload received, with the time it
	// arrived on the Now clock (when batching, the kernel's timestamp: up to
	// a timer's wait before the call); payload is only valid during the call.
	OnPayload func(client int, payload []byte, arrival time.Time)
	// OnDisconnect is called when a client leaves its slot; reason matches
	// netcode.ErrDisconnected, netcode.ErrTimeout, netcode.ErrClosed or
	// netcode.ErrOverBudget (a *netcode.OverBudgetError).
	OnDisconnect func(client int, clientID uint64, reason error)
	// OnTick, if set, is called at once and then whenever the time it last
	// returned is due, after the socket has been drained: a game's tick
	// loop runs in it, on the server's goroutine. What it sends goes out in
	// one batch when it returns.
	OnTick func(now time.Time) (next time.Time)
}

func resolveTick(t *time.Duration) error {
	if *t == 0 {
		*t = 10 * time.Millisecond
	}
	if *t < time.Millisecond || *t > time.Second {
		return &netcode.ConfigError{Field: "Tick", Value: *t, Allowed: "range [1ms, 1s]"}
	}
	return nil
}

// Server runs a netcode.Server on a net.PacketConn with one goroutine, which
// reads datagrams, runs the protocol's timers, calls the On* callbacks (never
// two at once) and writes what they send. Send and Disconnect may be called
// from any goroutine, including from the callbacks.
type Server struct {
	cfg  ServerConfig
	pio  packetIO
	in   *reader // the goroutine's
	mu   sync.Mutex
	out  writer
	core *netcode.Server
	done chan struct{}
	quit chan struct{} // closed by Close

	closed   bool
	nextTick time.Time // OnTick's last answer (the goroutine's)
	wakeups  int       // the goroutine's: times it slept and woke to run its timers
	// inCallbacks is set while the goroutine runs callbacks: Send then
	// queues, and the goroutine flushes the batch when they return.
	inCallbacks bool
	writeErr    uint64

	calls []call // the goroutine's: callbacks due, in order
}

// call is one callback due: an event, or a payload when event is false.
type call struct {
	ev      netcode.Event
	event   bool
	client  int
	payload []byte
	at      time.Time // the payload's arrival
}

// NewServer starts serving on conn, which the Server then owns: Close
// closes it.
func NewServer(conn net.PacketConn, cfg ServerConfig) (*Server, error) {
	if cfg.Tick == 0 && cfg.OnTick != nil {
		cfg.Tick = time.Second
	}
	if err := resolveTick(&cfg.Tick); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Netcode.Rand == nil {
		cfg.Netcode.Rand = rand.Reader
	}
	if !cfg.Netcode.PublicAddress.IsValid() {
		if ap, ok := localAddrPort(conn); ok {
			cfg.Netcode.PublicAddress = ap
		}
	}
	core, err := netcode.NewServer(cfg.Netcode)
	if err != nil {
		return nil, err
	}
	if cfg.ReadBuffer == 0 {
		cfg.ReadBuffer = 4 << 20
	}
	if cfg.ReadBuffer < 0 {
		return nil, &netcode.ConfigError{Field: "ReadBuffer", Value: cfg.ReadBuffer, Allowed: ">= 0"}
	}
	pio := newPacketIO(conn)
	var b batcher
	if pio.udp != nil {
		pio.udp.SetReadBuffer(cfg.ReadBuffer) // best effort
		b = newBatcher(pio.udp)
	}
	s := &Server{cfg: cfg, pio: pio, in: newReader(pio, b), out: writer{pio, b}, core: core, done: make(chan struct{}), quit: make(chan struct{})}
	go s.run()
	return s, nil
}

// Batched reports whether the server reads and writes datagrams in batches
// (recvmmsg and sendmmsg: a *net.UDPConn on Linux) rather than one per
// system call.
func (s *Server) Batched() bool { return s.in.batched() }

// Addr is the local address of the connection.
func (s *Server) Addr() net.Addr { return s.pio.conn.LocalAddr() }

// Stats returns the protocol counters.
func (s *Server) Stats() netcode.ServerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.Stats()
}

// WriteErrors is the number of datagrams the connection failed to send.
func (s *Server) WriteErrors() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeErr
}

// NumConnected is the number of connected clients.
func (s *Server) NumConnected() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.NumConnected()
}

// Send encrypts payload (1 to netcode.MaxPayloadSize bytes) and sends it to
// a connected client: at once, or from a callback with the batch the
// server's goroutine writes when the callbacks return.
func (s *Server) Send(client int, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.core.SendPayload(s.cfg.Now(), client, payload); err != nil {
		return err
	}
	s.sendLocked()
	return nil
}

// Disconnect disconnects a client, sending it the protocol's redundant
// disconnect packets as Send does; OnDisconnect follows from the server's
// goroutine.
func (s *Server) Disconnect(client int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.core.Disconnect(s.cfg.Now(), client); err != nil {
		return err
	}
	s.sendLocked()
	return nil
}

// DisconnectAddr disconnects the client connected from addr, as Disconnect
// does, and reports whether there was one: for a transport that learns a
// peer is gone, which netcode cannot hear (a browser tab closing its
// WebSocket sends no disconnect packet).
func (s *Server) DisconnectAddr(addr netip.AddrPort) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	client := s.clientAtLocked(addr)
	if client < 0 {
		return false, nil
	}
	if err := s.core.Disconnect(s.cfg.Now(), client); err != nil {
		return false, err
	}
	s.sendLocked()
	return true, nil
}

// clientAtLocked returns the slot of the client connected from addr, -1
// if none.
func (s *Server) clientAtLocked(addr netip.AddrPort) int {
	for client := range s.core.MaxClients() {
		if s.core.Connected(client) && s.core.ClientAddr(client) == addr {
			return client
		}
	}
	return -1
}

// HasClient reports whether a client is connected from addr.
func (s *Server) HasClient(addr netip.AddrPort) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientAtLocked(addr) >= 0
}

// DisconnectAll disconnects every client as Disconnect does.
func (s *Server) DisconnectAll() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.core.DisconnectAll(s.cfg.Now())
	s.sendLocked()
	return nil
}

// RefuseNew makes the server deny every new connection, as a full server
// does, while refuse is true (a draining server keeps its clients).
func (s *Server) RefuseNew(refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.core.RefuseNew(refuse)
}

// sendLocked moves what the core has to send to the writer, and writes it
// out unless the goroutine will.
func (s *Server) sendLocked() {
	for {
		p, to, ok := s.core.Transmit()
		if !ok {
			break
		}
		s.writeErr += uint64(s.out.write(p, to))
	}
	if !s.inCallbacks {
		s.flushLocked()
	}
}

func (s *Server) flushLocked() { s.writeErr += uint64(s.out.flush()) }

// run is the server's goroutine. When it reads in batches it sleeps until
// the next Update or OnTick is due and then drains the socket, taking each
// datagram's arrival time from the kernel: one wake-up per timer however
// many datagrams came. A drain stops after maxDrain reads so the timers run;
// if the socket still held datagrams then, the next drain follows at once,
// without sleeping, so that a flood does not fill the socket's buffer and
// have the kernel drop other clients' datagrams. Otherwise it sleeps in a
// read until a datagram comes or a timer is due. Either way, before the
// timers run every datagram waiting in the socket has been handled, so
// clients whose packets wait in it (a stalled process, a busy host) are
// not judged silent.
func (s *Server) run() {
	defer close(s.done)
	now := s.cfg.Now()
	nextUpdate, nextTick := now, now
	timer := time.NewTimer(0)
	defer timer.Stop()
	backlog := false // the last drain left datagrams in the socket
	for {
		wake := nextUpdate
		if s.cfg.OnTick != nil && nextTick.Before(wake) {
			wake = nextTick
		}
		if s.in.batched() {
			if backlog {
				wake = s.cfg.Now()
			}
			timer.Reset(wake.Sub(s.cfg.Now()))
			select {
			case <-s.quit:
				return
			case <-timer.C:
			}
		} else {
			if err := s.pio.conn.SetReadDeadline(time.Now().Add(wake.Sub(s.cfg.Now()))); err != nil {
				return
			}
			n, err := s.in.read(s.cfg.Now)
			if err != nil && !isTimeout(err) && errors.Is(err, net.ErrClosed) {
				return
			}
			if !s.handle(n, time.Time{}, false) {
				return
			}
			if s.cfg.Now().Before(wake) {
				continue
			}
		}
		if !backlog {
			s.wakeups++
		}
		backlog = s.in.batched()
		for i := 0; i < maxDrain && s.in.batched(); i++ {
			n, err := s.in.read(s.cfg.Now)
			if err != nil || n == 0 {
				backlog = false
				break
			}
			if !s.handle(n, time.Time{}, false) {
				return
			}
		}
		// Update runs at every wake-up (it only walks the slots), and its
		// next deadline is taken after OnTick has sent: a tick's snapshots
		// put the clients' keep-alives off.
		now = s.cfg.Now()
		s.mu.Lock()
		s.core.Update(now)
		s.mu.Unlock()
		tick := s.cfg.OnTick != nil && !now.Before(nextTick)
		if !s.handle(0, now, tick) {
			return
		}
		if tick {
			nextTick = s.nextTick
		}
		s.mu.Lock()
		nextUpdate = s.core.NextUpdate(now)
		s.mu.Unlock()
		if limit := now.Add(s.cfg.Tick); limit.Before(nextUpdate) {
			nextUpdate = limit
		}
	}
}

// maxDrain bounds the reads of one drain (maxDrain·batchSize datagrams), so
// that a flood cannot hold the timers back for ever.
const maxDrain = 16

// handle passes the n datagrams of the last read to the core, runs the
// callbacks due (and OnTick at now when tick is set, storing its answer in
// nextTick) and writes what they sent. It returns false once the server is
// closed.
func (s *Server) handle(n int, now time.Time, tick bool) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.calls = s.calls[:0]
	for i := 0; i < n; i++ {
		p, from, at := s.in.datagram(i)
		client, payload, _ := s.core.Receive(at, from, p)
		s.pollLocked()
		if payload != nil {
			s.calls = append(s.calls, call{client: client, payload: payload, at: at})
		}
	}
	s.pollLocked()
	s.sendLocked()
	if len(s.calls) == 0 && !tick {
		s.mu.Unlock()
		return true
	}
	s.inCallbacks = true
	s.mu.Unlock()
	s.dispatch(s.calls)
	if tick {
		s.nextTick = s.cfg.OnTick(now)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inCallbacks = false
	if s.closed {
		return false // Close has flushed
	}
	s.flushLocked()
	return true
}

func (s *Server) pollLocked() {
	for e, ok := s.core.PollEvent(); ok; e, ok = s.core.PollEvent() {
		s.calls = append(s.calls, call{ev: e, event: true})
	}
}

func (s *Server) dispatch(calls []call) {
	for _, c := range calls {
		switch {
		case !c.event:
			if s.cfg.OnPayload != nil {
				s.cfg.OnPayload(c.client, c.payload, c.at)
			}
		case c.ev.Kind == netcode.EventConnected:
			if s.cfg.OnConnect != nil {
				s.cfg.OnConnect(c.ev.Client, c.ev.ClientID)
			}
		case c.ev.Kind == netcode.EventDisconnected:
			if s.cfg.OnDisconnect != nil {
				s.cfg.OnDisconnect(c.ev.Client, c.ev.ClientID, c.ev.Reason)
			}
		}
	}
}

// Close disconnects every client (sending redundant disconnect packets),
// stops the goroutine, closes the connection and then calls OnDisconnect
// for the clients it disconnected. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.closed = true
	s.core.DisconnectAll(s.cfg.Now())
	s.inCallbacks = false
	s.sendLocked()
	var calls []call
	for e, ok := s.core.PollEvent(); ok; e, ok = s.core.PollEvent() {
		calls = append(calls, call{ev: e, event: true})
	}
	s.mu.Unlock()
	close(s.quit)
	err := s.pio.conn.Close()
	<-s.done
	s.dispatch(calls)
	return err
}
