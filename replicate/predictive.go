package replicate

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// PredictiveConfig configures a Predictive. The zero value gives the
// defaults noted, which are Unreal Engine's. The send interval is measured
// (the smoothed gap between successive server states) and so is the round
// trip (twice the smoothed age of a state on arrival).
type PredictiveConfig struct {
	// Tick is the fixed step of the Sim and the server's tick; 0 means
	// 1/60 s. Range [100µs, 1s].
	Tick time.Duration

	// Each tick the body's velocity moves toward the server's by the tick
	// over the interpolation time, which is the send interval times
	// PosInterpolationShare (0 means 1.1); the angular velocity likewise
	// with RotInterpolationShare (0 means 1.25). Range [0.1, 100].
	PosInterpolationShare, RotInterpolationShare float64

	// Each tick the position moves toward the server's by the tick over the
	// position correction time: PosCorrectionBase + the send interval +
	// PosCorrectionRTTShare × the round trip, at least a tick plus
	// PosCorrectionMin. Defaults: 0, 100 ms, 1 (a negative share means
	// none). Ranges [0, 10s], [0, 10s], [-1, 100]. The Rot fields do the
	// same for the rotation, with the same defaults.
	PosCorrectionBase, PosCorrectionMin time.Duration
	PosCorrectionRTTShare               float64
	RotCorrectionBase, RotCorrectionMin time.Duration
	RotCorrectionRTTShare               float64

	// The newest server state is advanced tick by tick (with the Sim's
	// physics) for at most the larger of ExtrapolationShare × the send
	// interval (0 means 3) and ExtrapolationMin (0 means 750 ms); after
	// that, until a new state arrives, the body runs free. Ranges [0.1,
	// 1000] and [0, 60s].
	ExtrapolationShare float64
	ExtrapolationMin   time.Duration

	// EarlyOutDistance (metres) and EarlyOutAngle (radians): when the
	// server's body is at rest and the errors are below these, the
	// correction ends. 0 means 1 cm and 1°. Ranges [1e-6, 10], [1e-6, π].
	EarlyOutDistance, EarlyOutAngle float64
	// SnapDistance is the position error, metres, beyond which the body is
	// set to the server's state at once; 0 means BlendSpeed times the
	// current position correction time (0.35 m at 30 Hz over a 60 ms round
	// trip). Range [0.01, 1e6].
	SnapDistance float64
	// ErrorAccumulation is how long the error may fail to shrink before the
	// body is set to the server's state; 0 means 3 s. Range [1ms, 60s].
	ErrorAccumulation time.Duration
}

func (c PredictiveConfig) withDefaults() (PredictiveConfig, error) {
	const n = "PredictiveConfig"
	for _, err := range []error{
		checkDur(n, "Tick", c.Tick, 100*time.Microsecond, time.Second),
		checkFloat(n, "PosInterpolationShare", c.PosInterpolationShare, 0.1, 100),
		checkFloat(n, "RotInterpolationShare", c.RotInterpolationShare, 0.1, 100),
		checkDur(n, "PosCorrectionBase", c.PosCorrectionBase, 0, 10*time.Second),
		checkDur(n, "PosCorrectionMin", c.PosCorrectionMin, 0, 10*time.Second),
		checkFloat(n, "PosCorrectionRTTShare", c.PosCorrectionRTTShare, -1, 100),
		checkDur(n, "RotCorrectionBase", c.RotCorrectionBase, 0, 10*time.Second),
		checkDur(n, "RotCorrectionMin", c.RotCorrectionMin, 0, 10*time.Second),
		checkFloat(n, "RotCorrectionRTTShare", c.RotCorrectionRTTShare, -1, 100),
		checkFloat(n, "ExtrapolationShare", c.ExtrapolationShare, 0.1, 1000),
		checkDur(n, "ExtrapolationMin", c.ExtrapolationMin, 0, time.Minute),
		checkFloat(n, "EarlyOutDistance", c.EarlyOutDistance, 1e-6, 10),
		checkFloat(n, "EarlyOutAngle", c.EarlyOutAngle, 1e-6, math.Pi),
		checkFloat(n, "SnapDistance", c.SnapDistance, 0.01, 1e6),
		checkDur(n, "ErrorAccumulation", c.ErrorAccumulation, time.Millisecond, time.Minute),
	} {
		if err != nil {
			return c, err
		}
	}
	c.Tick = orDur(c.Tick, time.Second/60)
	c.PosInterpolationShare = orFloat(c.PosInterpolationShare, 1.1)
	c.RotInterpolationShare = orFloat(c.RotInterpolationShare, 1.25)
	c.PosCorrectionMin = orDur(c.PosCorrectionMin, 100*time.Millisecond)
	c.RotCorrectionMin = orDur(c.RotCorrectionMin, 100*time.Millisecond)
	c.PosCorrectionRTTShare = max(orFloat(c.PosCorrectionRTTShare, 1), 0)
	c.RotCorrectionRTTShare = max(orFloat(c.RotCorrectionRTTShare, 1), 0)
	c.ExtrapolationShare = orFloat(c.ExtrapolationShare, 3)
	c.ExtrapolationMin = orDur(c.ExtrapolationMin, 750*time.Millisecond)
	c.EarlyOutDistance = orFloat(c.EarlyOutDistance, 0.01)
	c.EarlyOutAngle = orFloat(c.EarlyOutAngle, math.Pi/180)
	c.ErrorAccumulation = orDur(c.ErrorAccumulation, 3*time.Second)
	return c, nil
}

// Predictive is Unreal Engine's "Predictive Interpolation": the client
// simulates the body with its own physics and, on every tick, blends the
// body's own velocity toward the server's (over about one send interval)
// and shifts its position and rotation a share of the way toward the
// server's state advanced to that tick (over a time driven by the send
// interval and the round trip). The server's state is advanced by the Sim's
// physics for a bounded time after it arrives; past that the body runs
// free until the next state.
//
// Because it only blends, and because Interact sets aside the server states
// that predate a local interaction, what the client's own simulation does to
// the body (a local player's push) shows at once and is kept as long as the
// server comes to agree; a disagreement is pulled back gently. Use it for
// bodies the local player interacts with when a rollback of the whole world
// is too costly, and for bodies that must look smooth above all.
type Predictive struct {
	f   follower
	cfg PredictiveConfig
}

// NewPredictive returns a Predictive driving sim, or a *ConfigError naming
// the field of cfg out of range.
func NewPredictive(cfg PredictiveConfig, sim Sim) (*Predictive, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Predictive{cfg: cfg}
	p.f = follower{sim: sim, tick: cfg.Tick, law: p}
	return p, nil
}

// Receive takes a server state; arrival is the client's estimate of server
// time when it arrived. A state older than the newest received is dropped.
func (p *Predictive) Receive(s kinematic.State, arrival time.Duration) { p.f.receive(s, arrival) }

// Render steps the Sim up to the first tick at or after now (estimated
// server time), blending it toward the server's state on the way, and
// returns the body at now.
func (p *Predictive) Render(now time.Duration) Frame { return p.f.render(now) }

// Interact tells the Predictive that the game has just changed the body in
// the Sim itself, at server time at (usually the now of the last Render): a
// push by the local player that the server is expected to apply at the same
// tick. The correction under way ends and server states for earlier ticks,
// which cannot show the push, are ignored: the body runs on its own physics
// until a state from the push's tick on arrives, so the push shows at once
// and stays unless the server disagrees.
func (p *Predictive) Interact(at time.Duration) { p.f.interact(at) }

// Stats returns the counters.
func (p *Predictive) Stats() FollowStats { return p.f.stats }

func (p *Predictive) interval(f *follower) float64 {
	return max(f.stats.Interval, f.tick).Seconds()
}

func (p *Predictive) limit(f *follower) int {
	d := max(p.cfg.ExtrapolationShare*p.interval(f), p.cfg.ExtrapolationMin.Seconds())
	return int(math.Ceil(d / f.tick.Seconds()))
}

func (p *Predictive) correct(f *follower, b, t kinematic.State) (kinematic.State, bool) {
	h := f.tick.Seconds()
	iv := p.interval(f)
	rtt := 2 * max(f.stats.Latency, 0).Seconds()
	posT := max(p.cfg.PosCorrectionBase.Seconds()+iv+rtt*p.cfg.PosCorrectionRTTShare, h+p.cfg.PosCorrectionMin.Seconds())
	rotT := max(p.cfg.RotCorrectionBase.Seconds()+iv+rtt*p.cfg.RotCorrectionRTTShare, h+p.cfg.RotCorrectionMin.Seconds())

	e := t.Pos.Sub(b.Pos)
	d := e.Len()
	rv := rotVec(b.Rot, t.Rot)
	if t.Vel.Len2() < 1e-6 && d < p.cfg.EarlyOutDistance && rv.Len() < p.cfg.EarlyOutAngle {
		return f.restored(b)
	}
	snap := p.cfg.SnapDistance
	if snap == 0 {
		snap = BlendSpeed * posT
	}
	if f.accumulate(d, p.cfg.ErrorAccumulation) || d > snap {
		return f.snap(t)
	}
	a := min(h/(iv*p.cfg.PosInterpolationShare), 1)
	b.Vel = b.Vel.Lerp(t.Vel, a)
	b.Pos = b.Pos.AddScaled(e, min(h/posT, 1))
	ar := min(h/(iv*p.cfg.RotInterpolationShare), 1)
	b.AngVel = b.AngVel.Lerp(t.AngVel, ar)
	b.Rot = geom.Slerp(b.Rot, t.Rot, min(h/rotT, 1))
	return b, false
}
