package server

import (
	"net"
	"sync"
	"time"

	"github.com/tether-net/tether/transport/udp"
)

// UDP runs a Server over a tether/transport/udp Server: it ticks the core at
// its tick rate from one goroutine and feeds it connections and payloads from
// the transport's goroutine, serialising every call with a mutex. Server time
// is the time since ServeUDP was called.
type UDP struct {
	mu    sync.Mutex
	core  *Server
	srv   *udp.Server
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	err   error

	sendErrors uint64
}

// ServeUDP starts serving core on conn (a *net.UDPConn, possibly wrapped, for
// example by netsim), which the returned UDP then owns. cfg configures the
// transport; its OnConnect, OnPayload and OnDisconnect are called after the
// core has handled each, from the transport's goroutine. core should be fresh:
// its server time starts at zero now.
func ServeUDP(conn net.PacketConn, core *Server, cfg udp.ServerConfig) (*UDP, error) {
	u := &UDP{core: core, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	onConnect, onPayload, onDisconnect := cfg.OnConnect, cfg.OnPayload, cfg.OnDisconnect
	cfg.OnConnect = func(client int, id uint64) {
		u.mu.Lock()
		err := u.core.Connect(u.now(), client)
		u.sendLocked()
		u.mu.Unlock()
		if err != nil {
			_ = u.srv.Disconnect(client)
			return
		}
		if onConnect != nil {
			onConnect(client, id)
		}
	}
	cfg.OnPayload = func(client int, p []byte) {
		u.mu.Lock()
		_ = u.core.Receive(u.now(), client, p)
		u.sendLocked()
		u.mu.Unlock()
		if onPayload != nil {
			onPayload(client, p)
		}
	}
	cfg.OnDisconnect = func(client int, id uint64, reason error) {
		u.mu.Lock()
		err := u.core.Disconnect(u.now(), client)
		u.mu.Unlock()
		if err == nil && onDisconnect != nil {
			onDisconnect(client, id, reason)
		}
	}
	u.mu.Lock()
	srv, err := udp.NewServer(conn, cfg)
	if err != nil {
		u.mu.Unlock()
		return nil, err
	}
	u.srv = srv
	u.mu.Unlock()
	go u.run()
	return u, nil
}

func (u *UDP) now() time.Duration { return time.Since(u.start) }

// sendLocked sends what the core has to send.
func (u *UDP) sendLocked() {
	for {
		client, p, ok := u.core.Transmit()
		if !ok {
			return
		}
		if u.srv.Send(client, p) != nil {
			u.sendErrors++
		}
	}
}

func (u *UDP) run() {
	defer close(u.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-u.stop:
			return
		case <-timer.C:
		}
		u.mu.Lock()
		u.core.Tick(u.now())
		u.sendLocked()
		wait := u.core.NextTick() - u.now()
		u.mu.Unlock()
		timer.Reset(max(wait, 0))
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

// SendErrors returns the number of payloads the transport failed to send.
func (u *UDP) SendErrors() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.sendErrors
}

// Close stops ticking, disconnects every client and closes the connection. It
// leaves no goroutine behind and is safe to call more than once.
func (u *UDP) Close() error {
	u.once.Do(func() {
		close(u.stop)
		<-u.done
		u.err = u.srv.Close()
	})
	return u.err
}
