package lab

import (
	_ "embed"
	"time"

	"github.com/tether-net/tether/game/crowd"
	"github.com/tether-net/tether/measure"
)

// Report is what a run measured: the resolved scenario and one result per
// client. Its JSON form is the output schema of the design document.
type Report struct {
	Scenario Scenario `json:"scenario"`
	Results  []Result `json:"results"`

	clients []*client // per-frame series, for plots (Options.Keep)
	truth   *measure.Truth
}

// Result is one client's measurements.
type Result struct {
	Client      string       `json:"client"`
	ClockMethod string       `json:"clock_method"`
	BallMethod  string       `json:"ball_method"`
	Clock       ClockMetrics `json:"clock"`
	Ball        BallMetrics  `json:"ball,omitzero"` // none in the arena game
	Net         NetMetrics   `json:"net"`
	// Others, in the soccer game, measures the other players' characters.
	Others *OthersMetrics `json:"others,omitempty"`
	// Own, in the soccer game, measures the client's own character.
	Own *OwnMetrics `json:"own,omitempty"`
	// Proj and Hits, in the arena game, measure how the client draws
	// projectiles and how its hitscan shots were judged.
	Proj  *ProjMetrics  `json:"proj,omitempty"`
	Hits  *HitMetrics   `json:"hits,omitempty"`
	Crowd *CrowdMetrics `json:"crowd,omitempty"` // the crowd game's own figures
	// Entities, in a game on the replication layer (arena, crowd), measure
	// how the client draws the entities of each kind the game declares,
	// one per kind in the schema's order.
	Entities []EntityMetrics `json:"entities,omitempty"`
}

// The metrics are package measure's, the one definition the lab, tether demo
// and tether bot report.
type (
	Stat          = measure.Stat
	BallMetrics   = measure.BallMetrics
	ClockMetrics  = measure.ClockMetrics
	NetMetrics    = measure.NetMetrics
	NetKinds      = measure.NetKinds
	OwnMetrics    = measure.OwnMetrics
	OthersMetrics = measure.OthersMetrics
	ProjMetrics   = measure.ProjMetrics
	HitMetrics    = measure.HitMetrics
	CrowdMetrics  = crowd.Figures
	EntityMetrics = measure.EntityMetrics
)

// report measures every client against the ball's trajectory tr.
func (m *sim) report(tr *measure.Truth) *Report {
	r := &Report{Scenario: m.scen, clients: m.clients, truth: tr}
	for _, c := range m.clients {
		r.Results = append(r.Results, c.result(nil))
	}
	return r
}

// measureAgainst readies client c's meters, its ball measured against tr.
func (c *client) measureAgainst(tr *measure.Truth) {
	c.truth = tr
	link := measure.LinkOf(c.spec.Link)
	c.blackouts = link.Blackouts
	c.clockMeter = measure.NewClockMeter(warmUp, link)
	c.ballMeter = measure.BallMeter{WarmUp: warmUp, Blackouts: c.blackouts}
	if c.sim.keep() {
		c.ballMeter.OnPop = c.popped
	}
}

// popped keeps the true time of a pop of c's ball.
func (c *client) popped(t time.Duration) { c.pops = append(c.pops, t) }

// record measures frame f of client c, and keeps it if the run keeps its
// frames (for a trace or plots).
func (c *client) record(f frame) {
	c.clockMeter.Add(measure.Frame{T: f.t, Est: f.est, Ready: f.ready, Bound: f.bound})
	ball := f.ball
	ball.T = f.t
	c.ballMeter.Add(c.truth, ball)
	if c.sim.keep() {
		c.frames = append(c.frames, f)
	}
}

// keep reports whether the run keeps every frame and the whole truth.
func (m *sim) keep() bool { return m.opts.Keep || m.opts.Trace != nil }

// result measures client c; ball is its ball method, whose re-simulated
// ticks are counted if it has any.
func (c *client) result(ball any) Result {
	res := Result{
		Client:      c.spec.Name,
		ClockMethod: c.spec.Clock,
		BallMethod:  c.spec.Ball,
		Clock:       c.clockMeter.Metrics(c.clock.firstReply()),
		Ball:        c.ballMeter.Metrics(c.truth),
		Net:         c.netMetrics(),
	}
	if rc, ok := ball.(interface{ resimTicks() (uint64, bool) }); ok {
		if n, ok := rc.resimTicks(); ok {
			c.resimTicks = &n
		}
	}
	if c.resimTicks != nil {
		perS := measure.Round(float64(*c.resimTicks) / c.sim.end.Seconds())
		res.Ball.ResimTicks = &perS
	}
	return res
}

func (c *client) netMetrics() NetMetrics {
	secs := c.sim.end.Seconds()
	kbps := func(bytes int64) float64 { return measure.Round(float64(bytes) * 8 / secs / 1000) }
	n := NetMetrics{
		DownKbps:      kbps(c.downBytes),
		UpKbps:        kbps(c.upBytes),
		ClockDownKbps: kbps(c.clockDownBytes),
		ClockUpKbps:   kbps(c.clockUpBytes),
	}
	rate := func(k *NetKinds) *NetKinds {
		if k == nil {
			return nil
		}
		r := func(bytes float64) float64 { return kbps(int64(bytes)) }
		return &NetKinds{Snapshots: r(k.Snapshots), Inputs: r(k.Inputs), Acks: r(k.Acks), Replies: r(k.Replies), Clock: r(k.Clock), Events: r(k.Events), Headers: r(k.Headers)}
	}
	n.Down, n.Up = rate(c.downKinds), rate(c.upKinds)
	return n
}

// definitions is report.md's last section: what every column of the tables
// is, and what each method and reference is.
//
//go:embed definitions.md
var definitions string
