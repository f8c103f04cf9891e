package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
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
	Drawn      bool          // whether the client drew the ball: Rendered and RenderTime are zero if not
	Rendered   [3]float64    // ball position drawn, metres
	True       [3]float64    // ball position on the server now, metres
	RenderTime time.Duration // server time the client claims to show
}

const warmUp = 2 * time.Second

// sim is one run in virtual time: the server's clock is true time.
type sim struct {
	scen    Scenario
	end     time.Duration
	tick    time.Duration
	clock   func() time.Duration // true time
	clients []*client
	opts    Options
}

// newSim starts the run of the validated scenario s.
func newSim(s Scenario, opts Options) *sim {
	return &sim{
		scen: s,
		end:  time.Duration(s.DurationS * float64(time.Second)),
		tick: time.Second / time.Duration(s.TickHz),
		opts: opts,
	}
}

// client is one emulated client with its link, its methods and what it measured.
type client struct {
	sim   *sim
	spec  Client
	link  *netsim.Link
	asym  time.Duration // (up - down base latency)/2: the offset error no round trip can see
	est   *clock.Estimator
	clock clockView
	// oracle is the ball drill's reference, for a client whose ball method
	// is the oracle.
	oracle *oracleBall

	frames []frame         // every frame, if the run keeps them (Options.Keep)
	pops   []time.Duration // the true time of every pop, if the run keeps its frames

	truth      *measure.Truth // the ball's
	blackouts  measure.Spans  // the link's
	clockMeter measure.ClockMeter
	ballMeter  measure.BallMeter

	upBytes, downBytes int64 // every byte on the wire, all traffic
	// downKinds and upKinds, if set, split downBytes and upBytes by kind
	// (bytes, in NetKinds' fields).
	downKinds, upKinds           *NetKinds
	clockUpBytes, clockDownBytes int64   // the clock's messages alone
	resimTicks                   *uint64 // ticks re-simulated, for a ball method that has them
}

// frame is what a client showed at one render frame.
type frame struct {
	t     time.Duration // true time
	est   time.Duration
	ready bool
	bound time.Duration // -1: none
	ball  measure.Drawn // T unset
}

// fromEntity returns the ball as frame entity e draws it, if it is drawn.
func fromEntity(e *tclient.Entity) measure.Drawn {
	if e == nil {
		return measure.Drawn{}
	}
	return measure.Drawn{OK: true, Pos: e.Pos, RenderTime: e.RenderTime, Extrapolated: e.Extrapolated, Frozen: e.Frozen, Cut: e.Cut}
}

// Run runs scenario s in virtual time and reports what every client measured.
// The same scenario gives the same report, bit for bit.
func Run(s Scenario, opts Options) (*Report, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	switch s.Game {
	case GameSoccer:
		return runSoccer(s, opts)
	case GameArena:
		return runArena(s, opts)
	case GameCrowd:
		return runCrowd(s, opts)
	}
	return runDrill(s, opts)
}

// run advances the run to its end through runUntil, reporting progress.
func (m *sim) run(runUntil func(time.Duration)) {
	step := m.end / 100
	for t := step; t <= m.end; t += step {
		runUntil(t)
		if m.opts.Progress != nil {
			m.opts.Progress(float64(t) / float64(m.end))
		}
	}
	runUntil(m.end)
}

// newClient adds a client for spec, measured against the ball's truth tr.
func (m *sim) newClient(spec Client, tr *measure.Truth) *client {
	c := &client{
		sim: m, spec: spec,
		asym: spec.Link.Asymmetry(),
	}
	c.measureAgainst(tr)
	m.clients = append(m.clients, c)
	return c
}

// now returns the true time, the server's clock.
func (c *client) now() time.Duration { return c.sim.clock() }

// frame measures client frame f at true time now; ball is the ball's entity.
func (c *client) frame(now time.Duration, f *tclient.Frame, ball uint32) {
	fr := frame{t: now, bound: -1}
	fr.est, fr.ready = c.clock.estimate(f.Local)
	if b, ok := c.clock.bound(f.Local); ok {
		fr.bound = b
	}
	if fr.ready {
		if c.oracle != nil {
			fr.ball = c.oracle.render(now)
		} else {
			fr.ball = fromEntity(f.Find(ball))
		}
	}
	c.record(fr)
}

// traffic takes the bytes the client core sent and received: every byte on
// the wire (t), and its clock's messages alone (st).
func (c *client) traffic(t harness.Traffic, st tclient.Stats) {
	c.upBytes, c.downBytes = t.WireUp, t.WireDown
	c.clockUpBytes, c.clockDownBytes = int64(st.ClockBytesOut), int64(st.ClockBytesIn)
}

// trace hands every client frame to fn, client by client, with the ball's
// true position from tr.
func (m *sim) trace(fn func(TraceRow), tr *measure.Truth) {
	for _, c := range m.clients {
		for _, f := range c.frames {
			row := TraceRow{
				Client: c.spec.Name, Local: c.link.Clock.Local(f.t), ServerTime: f.t,
				Estimate: f.est, Ready: f.ready, Bound: f.bound, RenderTime: f.ball.RenderTime,
				True: vec3(tr.At(f.t)),
			}
			if f.ball.OK {
				row.Drawn, row.Rendered = true, vec3(f.ball.Pos)
			} else {
				row.RenderTime = 0
			}
			fn(row)
		}
	}
}

func vec3(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
