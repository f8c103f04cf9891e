package match

import (
	"math"
	"sync"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
)

// HindsightMeter measures one bot that has no view of the server's truth
// (tether bot, tether load): it records the ball states the bot received
// and the frames it drew, and once the run is over joins the states into a
// trajectory as Meter joins the server's ticks (measure.Hindsight, as if
// each state had come in time) and measures the frames against it with the
// lab's ball meter, each at the bot's estimate of server time. Jumps from
// states that never arrived are not seen, and a contact between two states
// is placed where their flights pass closest: its pops are an estimate.
//
// Feed it Snapshot from the match's OnSnapshot and Frame from OnFrame; it is
// safe for concurrent use.
type HindsightMeter struct {
	g      geom.Vec3     // the ball's gravity
	warmUp time.Duration // of local time from the first frame

	mu     sync.Mutex
	states []measure.Received // every ball state received, in order of arrival
	frames []hindsightFrame
}

type hindsightFrame struct {
	local time.Duration
	ready bool
	est   time.Duration // the clock's estimate of server time
	bound time.Duration
	ball  measure.Drawn // T unset until measured: the true time is unknown
}

// HindsightFigures are what a HindsightMeter measured over the frames after
// its warm-up.
type HindsightFigures struct {
	Frames   int          // every frame, the warm-up's included
	NotReady int          // frames without a clock after the warm-up
	BoundMs  measure.Stat // the clock's own error bound, ms
	// Ball is measured against the trajectory joined from the states
	// received: fidelity is the distance from the drawn ball to it at the
	// render time, delay the render delay behind the estimate of server
	// time, present the distance to it at that estimate; blackout frames
	// are those where it is unknown.
	Ball measure.BallMetrics
	// PopFrames counts the frames the pops were judged over.
	PopFrames int
}

// NewHindsightMeter returns a meter of a bot playing by rules (the zero
// value: the defaults) that leaves out the frames of the first warmUp of
// local time, while the bot's clock and render delay settle.
func NewHindsightMeter(rules soccer.Rules, warmUp time.Duration) *HindsightMeter {
	return &HindsightMeter{g: soccer.BallExtrapolator(rules.WithDefaults()).Gravity, warmUp: warmUp}
}

// Snapshot records the ball's state in s.
func (m *HindsightMeter) Snapshot(s *client.Snapshot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range s.Entities {
		if e.ID == soccer.BallID {
			m.states = append(m.states, measure.Received{T: e.State.Time, Pos: e.State.Pos, Vel: e.State.Vel, Gen: e.Gen, Cut: e.State.Cut, Knot: e.State.Knot, Sent: s.Time})
		}
	}
}

// Frame records a frame the bot drew.
func (m *HindsightMeter) Frame(f *client.Frame) {
	hf := hindsightFrame{local: f.Local, ready: f.Ready, est: f.Server, bound: f.Bound}
	if e := f.Find(soccer.BallID); f.Ready && e != nil {
		hf.ball = measure.Drawn{OK: true, Pos: e.Pos, RenderTime: e.RenderTime, Extrapolated: e.Extrapolated, Frozen: e.Frozen, Cut: e.Cut}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.frames = append(m.frames, hf)
}

// Figures measures what was recorded. Call it once the bot has stopped.
func (m *HindsightMeter) Figures() HindsightFigures {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := HindsightFigures{Frames: len(m.frames)}
	after := func(f *hindsightFrame) bool { return f.local-m.frames[0].local >= m.warmUp }
	// The ball's meter leaves out the frames before the first ready one
	// after the warm-up, by their estimate of server time.
	tr, unknown := measure.Hindsight(m.g, m.states)
	ball := measure.BallMeter{WarmUp: math.MaxInt64, Blackouts: unknown}
	for i := range m.frames {
		if f := &m.frames[i]; f.ready && after(f) {
			ball.WarmUp = f.est
			break
		}
	}
	var bounds []float64
	for i := range m.frames {
		f := &m.frames[i]
		switch {
		case after(f) && !f.ready:
			r.NotReady++
		case after(f):
			bounds = append(bounds, float64(f.bound)/float64(time.Millisecond))
		}
		if f.ready && tr.Len() > 0 {
			f.ball.T = f.est
			ball.Add(tr, f.ball)
		}
	}
	r.BoundMs = measure.Summarise(bounds)
	r.Ball = ball.Metrics(tr)
	r.PopFrames = r.Ball.Frames - r.Ball.TeleportFrames - r.Ball.BlackoutFrames
	return r
}
