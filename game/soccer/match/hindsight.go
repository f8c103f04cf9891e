package match

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/timeline"
)

// HindsightMeter measures one bot that has no view of the server's truth
// (tether bot, tether load): it records the ball states the bot received
// and the frames it drew, and once the run is over joins the states into a
// trajectory as Meter joins the server's ticks (measure.Hindsight, as if
// each state had come in time) and measures the frames against it with the
// lab's ball meter, each at the bot's estimate of server time. A carried ball
// is joined as the client draws it: in its carrier's frame, the carrier on
// the cubic through its own states received (from the snapshots that name it
// the ball's carrier) and the ball's place in that frame as the ball's states
// give it. Jumps from states that never arrived are not seen, and a contact
// between two states is placed where their flights pass closest: its pops
// are an estimate.
//
// Feed it Snapshot from the match's OnSnapshot and Frame from OnFrame; it is
// safe for concurrent use.
type HindsightMeter struct {
	g      geom.Vec3 // the ball's gravity
	player timeline.Extrapolator
	warmUp time.Duration // of local time from the first frame

	mu       sync.Mutex
	states   []hindsightBall // every ball state received, in order of arrival
	carriers map[uint32][]hindsightPose
	frames   []hindsightFrame
}

// hindsightBall is a ball state received, with its carrier (client.NoParent
// if none) and its place in the carrier's frame.
type hindsightBall struct {
	measure.Received
	parent uint32
	off    geom.Vec3
	blend  client.Blend
}

// at returns the ball's place in its carrier's frame at server time t, on
// the way of its blend.
func (b *hindsightBall) at(t time.Duration) geom.Vec3 { return b.blend.At(b.off, t) }

// hindsightPose is a carrier's state received, and its generation.
type hindsightPose struct {
	kinematic.State
	gen uint8
}

// hindsightCarryStep is how far apart the states a carried ball is joined
// through are put, at most: the server's tick at its default rate.
const hindsightCarryStep = time.Second / 60

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
	rules = rules.WithDefaults()
	return &HindsightMeter{g: soccer.BallExtrapolator(rules).Gravity, player: soccer.PlayerExtrapolator(rules), warmUp: warmUp}
}

// Snapshot records the ball's state in s.
func (m *HindsightMeter) Snapshot(s *client.Snapshot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var buf [4]uint32
	carriers := buf[:0] // of the ball's states in s (the current one and repeated knots)
	for _, e := range s.Entities {
		if e.ID == soccer.BallID {
			m.states = append(m.states, hindsightBall{
				Received: measure.Received{T: e.State.Time, Pos: e.State.Pos, Vel: e.State.Vel, Gen: e.Gen, Cut: e.State.Cut, Knot: e.State.Knot, Sent: s.Time},
				parent:   e.Parent, off: e.Offset, blend: e.Blend,
			})
			if e.Parent != client.NoParent && !slices.Contains(carriers, e.Parent) {
				carriers = append(carriers, e.Parent)
			}
		}
	}
	if len(carriers) == 0 {
		return
	}
	for _, e := range s.Entities {
		if e.ID != soccer.BallID && slices.Contains(carriers, e.ID) {
			if m.carriers == nil {
				m.carriers = make(map[uint32][]hindsightPose)
			}
			m.carriers[e.ID] = append(m.carriers[e.ID], hindsightPose{State: e.State, gen: e.Gen})
		}
	}
}

// joined returns the ball states received, carried ones in their carrier's
// frame, for measure.Hindsight: between two states of one carrier the client
// draws the ball at its place in the carrier's drawn frame (the place taken
// between the two states' places, or along the first one's blend), so they
// are held by it, and states are put between them at most
// hindsightCarryStep apart, where the carrier's cubic puts the frame.
func (m *HindsightMeter) joined() []measure.Received {
	for id, ps := range m.carriers {
		m.carriers[id] = measure.OneByTime(ps, func(p *hindsightPose) (time.Duration, bool) { return p.Time, false })
	}
	out := measure.OneByTime(slices.Clone(m.states), func(b *hindsightBall) (time.Duration, bool) { return b.T, b.Knot })
	rs := make([]measure.Received, 0, len(out))
	hold := func(r *measure.Received, carrier uint32, t time.Duration, off geom.Vec3) bool {
		pos, yaw, ok := m.poseAt(carrier, t)
		if ok {
			r.Held, r.Carrier, r.Holder = true, carrier, measure.Attachment{Pos: pos, Yaw: yaw, Off: off}
		}
		return ok
	}
	for i := range out {
		a := &out[i]
		r := a.Received
		if a.parent != client.NoParent {
			hold(&r, a.parent, a.T, a.at(a.T))
		}
		rs = append(rs, r)
		if i+1 == len(out) || !r.Held {
			continue
		}
		b := &out[i+1]
		if b.parent != a.parent || b.Gen != a.Gen || b.Cut || b.T-a.T > measure.HindsightGap {
			continue
		}
		for t := a.T + hindsightCarryStep; t < b.T-hindsightCarryStep/2; t += hindsightCarryStep {
			off := a.at(t)
			if a.blend.Span <= 0 {
				off = a.off.Lerp(b.at(b.T), float64(t-a.T)/float64(b.T-a.T))
			}
			s := measure.Received{T: t, Gen: a.Gen}
			if hold(&s, a.parent, t, off) {
				s.Pos = s.Holder.Pos.Add(geom.AxisAngle(geom.V(0, 1, 0), s.Holder.Yaw).Rotate(off))
				rs = append(rs, s)
			}
		}
	}
	return rs
}

// poseAt returns carrier's frame at server time t as the client's timeline
// joins its states received, if they join there (of one generation, no
// further apart than measure.HindsightGap): the first state's motion as the
// player's extrapolator foresees it, plus the cubic residual that brings it
// to the second state, and the yaw turned between the two.
func (m *HindsightMeter) poseAt(carrier uint32, t time.Duration) (pos geom.Vec3, yaw float64, ok bool) {
	ps := m.carriers[carrier]
	i, found := slices.BinarySearchFunc(ps, t, func(p hindsightPose, t time.Duration) int { return cmp.Compare(p.Time, t) })
	if found {
		return ps[i].Pos, soccer.YawOfRot(ps[i].Rot), true
	}
	if i == 0 || i == len(ps) {
		return pos, yaw, false
	}
	a, b := &ps[i-1], &ps[i]
	if a.gen != b.gen || b.Time-a.Time > measure.HindsightGap {
		return pos, yaw, false
	}
	end := m.player(a.State, b.Time-a.Time)
	dp, _ := geom.Hermite(geom.Vec3{}, geom.Vec3{}, b.Pos.Sub(end.Pos), b.Vel.Sub(end.Vel), (b.Time - a.Time).Seconds(), float64(t-a.Time)/float64(b.Time-a.Time))
	ya, yb := soccer.YawOfRot(a.Rot), soccer.YawOfRot(b.Rot)
	return m.player(a.State, t-a.Time).Pos.Add(dp), ya + geom.WrapAngle(yb-ya)*float64(t-a.Time)/float64(b.Time-a.Time), true
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
	tr, unknown := measure.Hindsight(m.g, m.joined())
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
