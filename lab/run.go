package lab

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/wire"
)

// Options control a run's side outputs.
type Options struct {
	// Progress, if set, is called now and then with the share of the run done,
	// in [0, 1].
	Progress func(done float64)
	// Trace, if set, receives every client frame once the run is over.
	Trace func(TraceRow)
	// Keep keeps every client frame and the server's whole truth in the
	// report, for WriteReportDir's plots (a Trace keeps them too). Without
	// it a run measures each frame as soon as the truth it needs has
	// arrived and keeps only the samples its statistics need.
	Keep bool
}

// TraceRow is one client frame, for recomputing any metric independently.
type TraceRow struct {
	Client     string
	Local      time.Duration // the client's local clock
	ServerTime time.Duration // true time, which is the server's clock
	Estimate   time.Duration // the client's estimate of server time; 0 if not ready
	Ready      bool
	Bound      time.Duration // the error bound the method reports; -1 if none
	Rendered   [3]float64    // ball position drawn, metres
	True       [3]float64    // ball position on the server now, metres
	RenderTime time.Duration // server time the client claims to show
}

const (
	warmUp      = 2 * time.Second
	headerBytes = netsim.HeaderBytes
)

// sim is one run in virtual time: the server's clock is true time.
type sim struct {
	scen    Scenario
	sched   netsim.Scheduler
	end     time.Duration
	tick    time.Duration
	server  *server
	clients []*client
	opts    Options
}

// client is one emulated client with its link, its methods and what it measured.
type client struct {
	sim  *sim
	spec Client
	link *netsim.Link
	// clockUp and clockDown carry the clock method's messages on streams of
	// their own, so that what a clock method sends does not change the fates
	// of the snapshots: the ball comparison stays paired across clients.
	clockUp, clockDown *netsim.Path
	asym               time.Duration // (up - down base latency)/2: the offset error no round trip can see
	clock              clockView
	ball               ballView

	arrivals []time.Duration // scratch for Path.Send

	frames []frame // every frame, if the run keeps them (Options.Keep)

	truth      *measure.Truth // the ball's
	blackouts  measure.Spans  // the link's
	clockMeter measure.ClockMeter
	ballMeter  measure.BallMeter

	upBytes, downBytes           int64 // payload + headers, all traffic
	clockUpBytes, clockDownBytes int64
}

// frame is what a client showed at one render frame.
type frame struct {
	t     time.Duration // true time
	est   time.Duration
	ready bool
	bound time.Duration // -1: none
	ball  ballFrame
}

// Run runs scenario s in virtual time and reports what every client measured.
// The same scenario gives the same report, bit for bit.
func Run(s Scenario, opts Options) (*Report, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Game == GameSoccer {
		return runSoccer(s, opts)
	}
	if s.Game == GameArena {
		return runArena(s, opts)
	}
	m := &sim{
		scen: s,
		end:  time.Duration(s.DurationS * float64(time.Second)),
		tick: time.Second / time.Duration(s.TickHz),
		opts: opts,
	}
	m.server = newServer(m)
	for _, spec := range s.Clients {
		c := &client{
			sim:  m,
			spec: spec,
			// Every client gets an identically seeded link: the comparison is paired.
			link: netsim.NewLink(spec.Link, s.Seed),
			asym: time.Duration((spec.Link.Up.LatencyMs - spec.Link.Down.LatencyMs) / 2 * float64(time.Millisecond)),
		}
		c.clockUp, c.clockDown = c.link.Up.Stream(1), c.link.Down.Stream(1)
		c.measureAgainst(&m.server.truth)
		c.clock = newClockView(spec.Clock, c)
		c.ball = newBallView(spec.Ball, c, s.TickHz)
		m.clients = append(m.clients, c)
	}
	m.server.start()
	for _, c := range m.clients {
		c.clock.start()
		c.scheduleFrame(0)
	}
	step := m.end / 100
	for t := step; t <= m.end; t += step {
		m.sched.RunUntil(t)
		if opts.Progress != nil {
			opts.Progress(float64(t) / float64(m.end))
		}
	}
	m.sched.RunUntil(m.end)
	if opts.Trace != nil {
		m.trace(opts.Trace, &m.server.truth)
	}
	return m.report(&m.server.truth), nil
}

// trace hands every client frame to fn, client by client, with the ball's
// true position from tr.
func (m *sim) trace(fn func(TraceRow), tr *measure.Truth) {
	for _, c := range m.clients {
		for _, f := range c.frames {
			row := TraceRow{
				Client: c.spec.Name, Local: c.link.Clock.Local(f.t), ServerTime: f.t,
				Estimate: f.est, Ready: f.ready, Bound: f.bound, RenderTime: f.ball.renderTime,
				True: vec3(tr.At(f.t)),
			}
			if f.ball.ok {
				row.Rendered = vec3(f.ball.pos)
			}
			fn(row)
		}
	}
}

func vec3(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }

// local returns the client's local clock now.
func (c *client) local() time.Duration { return c.link.Clock.Local(c.sim.sched.Now()) }

// at schedules fn at the true time when the client's local clock reads local.
func (c *client) at(local time.Duration, fn func()) {
	c.sim.sched.At(c.link.Clock.True(local), fn)
}

// sendUp sends a datagram of size payload bytes to the server; deliver runs at
// each arrival (none if lost, twice if duplicated).
func (c *client) sendUp(size int, clockTraffic bool, deliver func()) {
	c.upBytes += int64(size + headerBytes)
	path := c.link.Up
	if clockTraffic {
		c.clockUpBytes += int64(size + headerBytes)
		path = c.clockUp
	}
	c.send(path, size, deliver)
}

func (c *client) send(path *netsim.Path, size int, deliver func()) {
	c.arrivals = path.Send(c.sim.sched.Now(), size, c.arrivals[:0])
	for _, a := range c.arrivals {
		c.sim.sched.At(a, deliver)
	}
}

// sendDown sends a datagram from the server to this client.
func (c *client) sendDown(size int, clockTraffic bool, deliver func()) {
	c.downBytes += int64(size + headerBytes)
	path := c.link.Down
	if clockTraffic {
		c.clockDownBytes += int64(size + headerBytes)
		path = c.clockDown
	}
	c.send(path, size, deliver)
}

// scheduleFrame schedules frame n at local time n/frame_hz: the client renders
// by its own (drifting) clock.
func (c *client) scheduleFrame(n int64) {
	local := c.frameLocal(n)
	if c.link.Clock.True(local) > c.sim.end {
		return
	}
	c.at(local, func() {
		c.renderFrame()
		c.scheduleFrame(n + 1)
	})
}

// frameLocal is the local time of frame n, counted from the client's local
// reading at true time 0.
func (c *client) frameLocal(n int64) time.Duration {
	start := c.link.Clock.Local(0)
	return start + time.Duration(n)*time.Second/time.Duration(c.sim.scen.FrameHz)
}

func (c *client) renderFrame() {
	now := c.sim.sched.Now()
	local := c.local()
	f := frame{t: now, bound: -1}
	f.est, f.ready = c.clock.estimate(local)
	if b, ok := c.clock.bound(local); ok {
		f.bound = b
	}
	if f.ready {
		f.ball = c.ball.render(f.est)
	}
	c.record(f)
}

// sendSnapshot sends the server's snapshot datagram to this client, which
// decodes it on arrival.
func (c *client) sendSnapshot(packet []byte) {
	c.sendDown(len(packet), false, func() {
		est, ok := c.clock.estimate(c.local())
		if !ok {
			return // no clock yet: nothing to place the states on
		}
		for b := packet[msgTypeBytes:]; len(b) > 0; {
			s, n, err := wire.DecodeState(b)
			if err != nil {
				panic(err) // the lab's own encoding
			}
			c.ball.receive(s, est)
			b = b[n:]
		}
	})
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
