package udp

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/tether-net/tether/netcode"
)

// ClientConfig configures a Client. Zero fields take the defaults shown.
type ClientConfig struct {
	Netcode netcode.ClientConfig
	// Tick is how often the client runs netcode's Update (default 10 ms,
	// range 1 ms..1 s).
	Tick time.Duration
	// OnState is called on every state change.
	OnState func(netcode.ClientState)
	// OnPayload is called for every payload received; payload is only
	// valid during the call.
	OnPayload func(payload []byte)
}

// Client runs a netcode.Client on a net.PacketConn with one goroutine, which
// ends when the client reaches a terminal state (disconnected, denied,
// timed out, token expired) or is closed. Send may be called from any
// goroutine, including from the callbacks.
type Client struct {
	cfg  ClientConfig
	io   packetIO
	mu   sync.Mutex
	core *netcode.Client
	done chan struct{}
	up   chan struct{} // closed once connected

	closed bool
	state  netcode.ClientState
}

// Dial starts connecting with token over conn, which the Client then owns:
// Close closes it.
func Dial(conn net.PacketConn, token *netcode.ConnectToken, cfg ClientConfig) (*Client, error) {
	if err := resolveTick(&cfg.Tick); err != nil {
		return nil, err
	}
	core, err := netcode.NewClient(cfg.Netcode)
	if err != nil {
		return nil, err
	}
	if err := core.Connect(time.Now(), token); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, io: newPacketIO(conn), core: core, done: make(chan struct{}), up: make(chan struct{}), state: core.State()}
	c.mu.Lock()
	c.flushLocked()
	c.mu.Unlock()
	go c.run()
	return c, nil
}

// State returns the current state.
func (c *Client) State() netcode.ClientState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.State()
}

// ClientIndex is the slot the server assigned (-1 until connected).
func (c *Client) ClientIndex() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.ClientIndex()
}

// Stats returns the protocol counters.
func (c *Client) Stats() netcode.ClientStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.Stats()
}

// Done is closed when the client's goroutine has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Connected returns a channel closed once the client has connected, after
// OnState was told; it stays closed after the connection ends (see Done).
func (c *Client) Connected() <-chan struct{} { return c.up }

// Send encrypts payload (1 to netcode.MaxPayloadSize bytes) and sends it.
func (c *Client) Send(payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if err := c.core.SendPayload(time.Now(), payload); err != nil {
		return err
	}
	c.flushLocked()
	return nil
}

func (c *Client) flushLocked() {
	for {
		p, to, ok := c.core.Transmit()
		if !ok {
			return
		}
		c.io.write(p, to) // a lost datagram is just loss
	}
}

func (c *Client) run() {
	defer close(c.done)
	buf := make([]byte, 2048)
	next := time.Now()
	for {
		if err := c.io.conn.SetReadDeadline(next); err != nil {
			return
		}
		n, from, err := c.io.read(buf)
		if err != nil && !isTimeout(err) && errors.Is(err, net.ErrClosed) {
			return
		}
		now := time.Now()
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		var payload []byte
		if err == nil {
			payload, _ = c.core.Receive(now, from, buf[:n])
		}
		if !now.Before(next) {
			c.core.Update(now)
			next = now.Add(c.cfg.Tick)
		}
		c.flushLocked()
		st := c.core.State()
		changed := st != c.state
		c.state = st
		c.mu.Unlock()
		if changed && c.cfg.OnState != nil {
			c.cfg.OnState(st)
		}
		if changed && st == netcode.StateConnected {
			close(c.up)
		}
		if payload != nil && c.cfg.OnPayload != nil {
			c.cfg.OnPayload(payload)
		}
		if st <= netcode.StateDisconnected {
			return
		}
	}
}

// Close disconnects (sending redundant disconnect packets when connected),
// stops the goroutine and closes the connection. It is safe to call more
// than once.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.closed = true
	c.core.Disconnect(time.Now())
	c.flushLocked()
	c.mu.Unlock()
	err := c.io.conn.Close()
	<-c.done
	return err
}

// ListenFor opens a client's socket for a connect token's servers: on the
// loopback interface when every server is on it (so nothing leaves the
// machine), otherwise on any interface.
func ListenFor(servers []netip.AddrPort) (*net.UDPConn, error) {
	loop4, loop6 := true, true
	for _, s := range servers {
		a := s.Addr().Unmap()
		loop4 = loop4 && a.Is4() && a.IsLoopback()
		loop6 = loop6 && a.Is6() && a.IsLoopback()
	}
	switch {
	case loop4:
		return net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	case loop6:
		return net.ListenUDP("udp6", &net.UDPAddr{IP: net.IPv6loopback})
	}
	return net.ListenUDP("udp", &net.UDPAddr{})
}
