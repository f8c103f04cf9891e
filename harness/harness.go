package harness

import (
	"errors"
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
)

// Sizes of the modelled handshake's datagrams, payload bytes: a netcode
// connection request, and the answers that follow it (a challenge, then a
// keep-alive), taken as one.
const (
	requestBytes = netcode.RequestPacketSize
	answerBytes  = 300
	leaveBytes   = 20
)

// retryEvery is how often a client that is not connected yet resends its
// request.
const retryEvery = 100 * time.Millisecond

// Config configures a Rig. The zero value gives the defaults noted.
type Config struct {
	// Server configures the server core; its OnTick is called as usual.
	Server server.Config
	// FrameHz is the rate clients render frames at, by their own clocks;
	// 0 means 60. Range [1, 1000].
	FrameHz int
}

// ErrConfig is wrapped by the errors New and Join return for a bad
// configuration; the message names the field.
var ErrConfig = errors.New("tether/harness: invalid config")

// Rig is a server core and its clients in virtual time. Create it with New,
// add clients with Join and advance it with RunUntil. Not safe for
// concurrent use.
type Rig struct {
	// Sched is the rig's clock: true time, which is the server's clock.
	Sched *netsim.Scheduler

	frameHz int
	srv     *server.Server
	clients []*Client
	slots   map[int]*Client
	maxSlot int
}

// New returns a rig running game on a server core configured by cfg.Server.
// The server's first tick is scheduled; nothing runs until RunUntil.
func New(cfg Config, game server.Game) (*Rig, error) {
	if cfg.FrameHz == 0 {
		cfg.FrameHz = 60
	}
	if cfg.FrameHz < 1 || cfg.FrameHz > 1000 {
		return nil, fmt.Errorf("%w: FrameHz = %d, want 1 to 1000", ErrConfig, cfg.FrameHz)
	}
	srv, err := server.New(cfg.Server, game)
	if err != nil {
		return nil, err
	}
	r := &Rig{Sched: &netsim.Scheduler{}, frameHz: cfg.FrameHz, srv: srv, slots: map[int]*Client{}, maxSlot: srv.Config().MaxClients}
	r.scheduleTick()
	return r, nil
}

// Server returns the server core.
func (r *Rig) Server() *server.Server { return r.srv }

// Clients returns the clients that joined, in order of joining, including
// those that left.
func (r *Rig) Clients() []*Client { return r.clients }

// Now returns the true time.
func (r *Rig) Now() time.Duration { return r.Sched.Now() }

// RunUntil runs the rig up to true time t.
func (r *Rig) RunUntil(t time.Duration) { r.Sched.RunUntil(t) }

func (r *Rig) scheduleTick() {
	r.Sched.At(r.srv.NextTick(), func() {
		r.srv.Tick(r.Sched.Now())
		r.transmit()
		r.scheduleTick()
	})
}

// transmit sends what the server core has to send down each client's link.
func (r *Rig) transmit() {
	for {
		slot, p, ok := r.srv.Transmit()
		if !ok {
			return
		}
		c := r.slots[slot]
		if c == nil {
			continue
		}
		pkt := append([]byte(nil), p...)
		c.traffic.down(len(pkt))
		for _, a := range c.send(c.link.Down, len(pkt)) {
			r.Sched.At(a, func() {
				if c.left || !c.up {
					return
				}
				_ = c.core.Receive(c.Local(), pkt)
			})
		}
	}
}

// ClientConfig configures one client of a rig.
type ClientConfig struct {
	// Link is the client's emulated network and clock.
	Link netsim.LinkConfig
	// Seed seeds the link's randomness: clients with equal links and seeds
	// meet the same network (a paired comparison).
	Seed uint64
	// Core configures the client core.
	Core client.Config
	// Game is the client side of the game; required.
	Game client.Game
	// OnFrame, if set, is called at every frame the client renders, with
	// the frame (valid during the call), before the client core's Update
	// sends what it owes: the place to decide and set the input.
	OnFrame func(c *Client, f *client.Frame)
}

// Client is one client of a rig: a client core behind its emulated link.
type Client struct {
	// Index is the order of joining, from 0.
	Index int

	rig     *Rig
	cfg     ClientConfig
	link    *netsim.Link
	core    *client.Client
	slot    int
	start   time.Duration // true time it joined; its local clock starts then
	joined  bool          // the server has connected it
	up      bool          // the client knows it is connected
	left    bool
	arrive  []time.Duration
	traffic Traffic
}

// Join adds a client at true time at (not before now). It connects after a
// handshake over its link, then renders frames at the rig's FrameHz by its
// local clock, which starts at the join (reading the link's clock offset).
func (r *Rig) Join(at time.Duration, cc ClientConfig) (*Client, error) {
	if cc.Game == nil {
		return nil, fmt.Errorf("%w: ClientConfig.Game is nil", ErrConfig)
	}
	if err := cc.Link.Validate(); err != nil {
		return nil, err
	}
	core, err := client.New(cc.Core, cc.Game)
	if err != nil {
		return nil, err
	}
	c := &Client{
		Index: len(r.clients), rig: r, cfg: cc, link: netsim.NewLink(cc.Link, cc.Seed),
		core: core, slot: -1, start: max(at, r.Sched.Now()),
	}
	r.clients = append(r.clients, c)
	r.Sched.At(c.start, func() { r.handshake(c) })
	r.Sched.At(c.start, func() { r.frame(c, 0) })
	return c, nil
}

// Core returns the client core.
func (c *Client) Core() *client.Client { return c.core }

// Link returns the client's emulated link.
func (c *Client) Link() *netsim.Link { return c.link }

// Slot returns the server's slot for the client, or -1 before it connected.
func (c *Client) Slot() int { return c.slot }

// Start returns the true time the client joined.
func (c *Client) Start() time.Duration { return c.start }

// Connected reports whether the server has the client connected now.
func (c *Client) Connected() bool { return c.joined }

// Local returns the client's local clock now.
func (c *Client) Local() time.Duration { return c.LocalAt(c.rig.Sched.Now()) }

// LocalAt returns the client's local clock reading at true time t.
func (c *Client) LocalAt(t time.Duration) time.Duration { return c.link.Clock.Local(t - c.start) }

// Traffic returns what the client sent and received so far.
func (c *Client) Traffic() Traffic { return c.traffic }

func (c *Client) send(p *netsim.Path, size int) []time.Duration {
	c.arrive = p.Send(c.rig.Sched.Now(), size, c.arrive[:0])
	return c.arrive
}

// handshake sends a connection request up the link, and the answer down,
// until the client knows it is connected.
func (r *Rig) handshake(c *Client) {
	if c.left || c.up {
		return
	}
	for _, a := range c.send(c.link.Up, requestBytes) {
		r.Sched.At(a, func() {
			if c.left {
				return
			}
			if !c.joined {
				if len(r.slots) >= r.maxSlot {
					return
				}
				c.slot = r.freeSlot()
				if err := r.srv.Connect(r.Sched.Now(), c.slot); err != nil {
					c.slot = -1
					return
				}
				c.joined = true
				r.slots[c.slot] = c
				r.transmit()
			}
			for _, a2 := range c.link.Down.Send(r.Sched.Now(), answerBytes, nil) {
				r.Sched.At(a2, func() {
					if c.left || c.up {
						return
					}
					c.up = true
					c.core.Connected(c.Local())
				})
			}
		})
	}
	r.Sched.After(retryEvery, func() { r.handshake(c) })
}

func (r *Rig) freeSlot() int {
	for i := 0; ; i++ {
		if _, ok := r.slots[i]; !ok {
			return i
		}
	}
}

// Leave makes client c leave at true time at: the server drops it once its
// disconnect travels up the link (or at once if it is lost, as a timeout
// would eventually).
func (r *Rig) Leave(c *Client, at time.Duration) {
	r.Sched.At(at, func() {
		if c.left {
			return
		}
		c.left = true
		arr := c.send(c.link.Up, leaveBytes)
		when := r.Sched.Now()
		if len(arr) > 0 {
			when = arr[0]
		}
		r.Sched.At(when, func() {
			if c.joined {
				_ = r.srv.Disconnect(r.Sched.Now(), c.slot)
				delete(r.slots, c.slot)
				c.joined = false
			}
		})
	})
}

// frame renders frame n of client c at its local time n/FrameHz, hands it to
// OnFrame, and sends what the client core owes.
func (r *Rig) frame(c *Client, n int64) {
	if c.left {
		return
	}
	local := c.Local()
	f := c.core.Frame(local)
	if c.cfg.OnFrame != nil {
		c.cfg.OnFrame(c, f)
	}
	c.core.Update(local)
	for {
		p, ok := c.core.Transmit()
		if !ok {
			break
		}
		pkt := append([]byte(nil), p...)
		c.traffic.up(len(pkt))
		for _, a := range c.send(c.link.Up, len(pkt)) {
			r.Sched.At(a, func() {
				if !c.joined {
					return
				}
				_ = r.srv.Receive(r.Sched.Now(), c.slot, pkt)
				r.transmit()
			})
		}
	}
	next := c.link.Clock.Local(0) + time.Duration(n+1)*time.Second/time.Duration(r.frameHz)
	r.Sched.At(c.start+c.link.Clock.True(next), func() { r.frame(c, n+1) })
}

// Now returns the true time.
func (c *Client) Now() time.Duration { return c.rig.Sched.Now() }
