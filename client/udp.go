package client

import (
	"net"
	"sync"
	"time"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/transport/udp"
)

// UDPConfig configures the UDP driver. The zero value gives the defaults noted.
type UDPConfig struct {
	// Transport configures the connection; its OnState and OnPayload are
	// called after the core has handled each.
	Transport udp.ClientConfig
	// FrameHz is the frame rate; 0 means 60. Range [1, 1000].
	FrameHz int
	// Local is the client's local clock; nil means the time since DialUDP.
	// (A demo can make it drift, as netsim.Clock.Local does.)
	Local func() time.Duration
	// OnFrame is called on the driver's goroutine with every frame, outside
	// the lock, and returns the input to send from then on (nil keeps the
	// current one; see Client.SetInput). The frame is only valid during the
	// call.
	OnFrame func(f *Frame) (input []byte)
}

// UDP runs a Client over a tether/transport/udp Client: a goroutine renders
// frames at FrameHz, hands each to OnFrame, then sends the input and any clock
// ping; payloads are fed to the core from the transport's goroutine. Calls into
// the core are serialised with a mutex.
type UDP struct {
	mu    sync.Mutex
	core  *Client
	conn  *udp.Client
	cfg   UDPConfig
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	err   error

	sendErrors uint64
	meta       []byte // the frame's Meta, copied out of the core for OnFrame
}

// DialUDP connects core with token over conn (which the returned UDP then
// owns) and starts rendering frames.
func DialUDP(conn net.PacketConn, token *netcode.ConnectToken, core *Client, cfg UDPConfig) (*UDP, error) {
	if cfg.FrameHz == 0 {
		cfg.FrameHz = 60
	}
	if cfg.FrameHz < 1 || cfg.FrameHz > 1000 {
		return nil, &netcode.ConfigError{Field: "FrameHz", Value: cfg.FrameHz, Allowed: "range [1, 1000]"}
	}
	u := &UDP{core: core, cfg: cfg, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	if u.cfg.Local == nil {
		u.cfg.Local = func() time.Duration { return time.Since(u.start) }
	}
	tc := cfg.Transport
	onState, onPayload := tc.OnState, tc.OnPayload
	tc.OnState = func(s netcode.ClientState) {
		if s == netcode.StateConnected {
			u.mu.Lock()
			u.core.Connected(u.cfg.Local())
			u.mu.Unlock()
		}
		if onState != nil {
			onState(s)
		}
	}
	tc.OnPayload = func(p []byte) {
		u.mu.Lock()
		_ = u.core.Receive(u.cfg.Local(), p)
		u.mu.Unlock()
		if onPayload != nil {
			onPayload(p)
		}
	}
	u.mu.Lock()
	c, err := udp.Dial(conn, token, tc)
	if err != nil {
		u.mu.Unlock()
		return nil, err
	}
	u.conn = c
	u.mu.Unlock()
	go u.run()
	return u, nil
}

func (u *UDP) run() {
	defer close(u.done)
	interval := time.Second / time.Duration(u.cfg.FrameHz)
	next := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-u.stop:
			return
		case <-u.conn.Done():
			return
		case <-timer.C:
		}
		local := u.cfg.Local()
		u.mu.Lock()
		f := u.core.Frame(local)
		// Meta points into the core's snapshot history, which Receive
		// rewrites on the transport's goroutine once the lock is released.
		u.meta = append(u.meta[:0], f.Meta...)
		f.Meta = u.meta
		u.mu.Unlock()
		var in []byte
		if u.cfg.OnFrame != nil {
			in = u.cfg.OnFrame(f)
		}
		u.mu.Lock()
		if in != nil {
			u.core.SetInput(in)
		}
		u.core.Update(u.cfg.Local())
		for {
			p, ok := u.core.Transmit()
			if !ok {
				break
			}
			if u.conn.Send(p) != nil {
				u.sendErrors++
			}
		}
		u.mu.Unlock()
		next = next.Add(interval)
		if d := time.Until(next); d > 0 {
			timer.Reset(d)
		} else {
			next = time.Now() // behind: do not try to catch up frames
			timer.Reset(0)
		}
	}
}

// SetInput sets the input the client sends (see Client.SetInput). It may be
// called from any goroutine but OnFrame's (which returns its input instead).
func (u *UDP) SetInput(data []byte) {
	u.mu.Lock()
	u.core.SetInput(data)
	u.mu.Unlock()
}

// Do runs fn with the core locked, to read its statistics or clock.
func (u *UDP) Do(fn func(c *Client)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fn(u.core)
}

// Transport returns the transport's client, for its state and statistics.
func (u *UDP) Transport() *udp.Client { return u.conn }

// Done is closed when the driver's goroutine has ended: after Close, or when
// the connection ended (disconnected, timed out, denied).
func (u *UDP) Done() <-chan struct{} { return u.done }

// Connected returns a channel closed once the client has connected (it
// stays closed after the connection ends: see Done).
func (u *UDP) Connected() <-chan struct{} { return u.conn.Connected() }

// SendErrors returns the number of payloads the transport failed to send.
func (u *UDP) SendErrors() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.sendErrors
}

// Close stops rendering, disconnects and closes the connection. It leaves no
// goroutine behind and is safe to call more than once.
func (u *UDP) Close() error {
	u.once.Do(func() {
		close(u.stop)
		<-u.done
		u.err = u.conn.Close()
	})
	return u.err
}
