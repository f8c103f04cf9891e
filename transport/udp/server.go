package udp

import (
	"crypto/rand"
	"errors"
	"net"
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
	// Tick is how often the server runs netcode's Update: keep-alives,
	// timeouts (default 10 ms, range 1 ms..1 s).
	Tick time.Duration
	// ReadBuffer is the socket receive buffer requested when conn is a
	// *net.UDPConn, in bytes (default 1 MiB; the OS may cap it, e.g. at
	// net.core.rmem_max on Linux). Bursts such as many clients leaving at
	// once overflow small default buffers.
	ReadBuffer int
	// OnConnect is called when a client takes a slot.
	OnConnect func(client int, clientID uint64)
	// OnPayload is called for every payload received; payload is only
	// valid during the call.
	OnPayload func(client int, payload []byte)
	// OnDisconnect is called when a client leaves its slot; reason matches
	// netcode.ErrDisconnected, netcode.ErrTimeout or netcode.ErrClosed.
	OnDisconnect func(client int, clientID uint64, reason error)
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
// reads datagrams, runs the protocol's timers and calls the On* callbacks
// (never two at once). Send and Disconnect may be called from any
// goroutine, including from the callbacks.
type Server struct {
	cfg  ServerConfig
	io   packetIO
	mu   sync.Mutex
	core *netcode.Server
	done chan struct{}

	closed   bool
	writeErr uint64
}

// NewServer starts serving on conn, which the Server then owns: Close
// closes it.
func NewServer(conn net.PacketConn, cfg ServerConfig) (*Server, error) {
	if err := resolveTick(&cfg.Tick); err != nil {
		return nil, err
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
		cfg.ReadBuffer = 1 << 20
	}
	if cfg.ReadBuffer < 0 {
		return nil, &netcode.ConfigError{Field: "ReadBuffer", Value: cfg.ReadBuffer, Allowed: ">= 0"}
	}
	s := &Server{cfg: cfg, io: newPacketIO(conn), core: core, done: make(chan struct{})}
	if s.io.udp != nil {
		s.io.udp.SetReadBuffer(cfg.ReadBuffer) // best effort
	}
	go s.run()
	return s, nil
}

// Addr is the local address of the connection.
func (s *Server) Addr() net.Addr { return s.io.conn.LocalAddr() }

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
// a connected client at once.
func (s *Server) Send(client int, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.core.SendPayload(time.Now(), client, payload); err != nil {
		return err
	}
	s.flushLocked()
	return nil
}

// Disconnect disconnects a client; OnDisconnect follows from the server's
// goroutine.
func (s *Server) Disconnect(client int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.core.Disconnect(time.Now(), client); err != nil {
		return err
	}
	s.flushLocked()
	return nil
}

func (s *Server) flushLocked() {
	for {
		p, to, ok := s.core.Transmit()
		if !ok {
			return
		}
		if err := s.io.write(p, to); err != nil {
			s.writeErr++
		}
	}
}

func (s *Server) run() {
	defer close(s.done)
	buf := make([]byte, 2048)
	var events []netcode.Event
	next := time.Now()
	for {
		if err := s.io.conn.SetReadDeadline(next); err != nil {
			return
		}
		n, from, err := s.io.read(buf)
		if err != nil && !isTimeout(err) && errors.Is(err, net.ErrClosed) {
			return
		}
		now := time.Now()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		client, payload := -1, []byte(nil)
		if err == nil {
			client, payload, _ = s.core.Receive(now, from, buf[:n])
		}
		if !now.Before(next) {
			s.core.Update(now)
			next = now.Add(s.cfg.Tick)
		}
		s.flushLocked()
		events = events[:0]
		for e, ok := s.core.PollEvent(); ok; e, ok = s.core.PollEvent() {
			events = append(events, e)
		}
		s.mu.Unlock()
		s.dispatch(events)
		if payload != nil && s.cfg.OnPayload != nil {
			s.cfg.OnPayload(client, payload)
		}
	}
}

func (s *Server) dispatch(events []netcode.Event) {
	for _, e := range events {
		switch e.Kind {
		case netcode.EventConnected:
			if s.cfg.OnConnect != nil {
				s.cfg.OnConnect(e.Client, e.ClientID)
			}
		case netcode.EventDisconnected:
			if s.cfg.OnDisconnect != nil {
				s.cfg.OnDisconnect(e.Client, e.ClientID, e.Reason)
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
	s.core.DisconnectAll(time.Now())
	s.flushLocked()
	var events []netcode.Event
	for e, ok := s.core.PollEvent(); ok; e, ok = s.core.PollEvent() {
		events = append(events, e)
	}
	s.mu.Unlock()
	err := s.io.conn.Close()
	<-s.done
	s.dispatch(events)
	return err
}
