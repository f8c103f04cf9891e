package replicate

import (
	"math"
	"time"

	"github.com/tether-net/tether/kinematic"
)

// VelocityConfig configures a Velocity. The zero value gives the defaults
// noted.
type VelocityConfig struct {
	// Tick is the fixed step of the Sim, which must also be the server's
	// tick: server states are expected at whole ticks. 0 means 1/60 s.
	// Range [100µs, 1s].
	Tick time.Duration
	// CorrectionTime is the time over which a position error is closed: the
	// body's velocity is set to the server's plus the error divided by
	// CorrectionTime, so the error decays exponentially with this time
	// constant. 0 means 200 ms. Range [1ms, 10s].
	CorrectionTime time.Duration
	// AngularCorrectionTime is the same for the rotation; 0 means
	// CorrectionTime. Range [1ms, 10s].
	AngularCorrectionTime time.Duration
	// SnapDistance is the position error, metres, beyond which the body is
	// set to the server's state at once; 0 means BlendSpeed × CorrectionTime
	// (0.6 m by default: the largest error closed without moving the body
	// more than 5 cm per frame beyond its own motion). Unreal's is 4 m.
	// Range [0.01, 1e6].
	SnapDistance float64
	// RestoredDistance and RestoredAngle (radians) are the errors under
	// which the correction ends and the body runs free on its own physics;
	// 0 means 1 cm and 1°. Ranges [1e-6, 10] and [1e-6, π].
	RestoredDistance, RestoredAngle float64
	// ErrorAccumulation is how long the error may fail to shrink (the body
	// stuck against something the server's is not) before the body is set
	// to the server's state; 0 means 500 ms. Range [1ms, 60s].
	ErrorAccumulation time.Duration
}

func (c VelocityConfig) withDefaults() (VelocityConfig, error) {
	const n = "VelocityConfig"
	for _, err := range []error{
		checkDur(n, "Tick", c.Tick, 100*time.Microsecond, time.Second),
		checkDur(n, "CorrectionTime", c.CorrectionTime, time.Millisecond, 10*time.Second),
		checkDur(n, "AngularCorrectionTime", c.AngularCorrectionTime, time.Millisecond, 10*time.Second),
		checkFloat(n, "SnapDistance", c.SnapDistance, 0.01, 1e6),
		checkFloat(n, "RestoredDistance", c.RestoredDistance, 1e-6, 10),
		checkFloat(n, "RestoredAngle", c.RestoredAngle, 1e-6, math.Pi),
		checkDur(n, "ErrorAccumulation", c.ErrorAccumulation, time.Millisecond, time.Minute),
	} {
		if err != nil {
			return c, err
		}
	}
	c.Tick = orDur(c.Tick, time.Second/60)
	c.CorrectionTime = orDur(c.CorrectionTime, 200*time.Millisecond)
	c.AngularCorrectionTime = orDur(c.AngularCorrectionTime, c.CorrectionTime)
	c.SnapDistance = orFloat(c.SnapDistance, BlendSpeed*c.CorrectionTime.Seconds())
	c.RestoredDistance = orFloat(c.RestoredDistance, 0.01)
	c.RestoredAngle = orFloat(c.RestoredAngle, math.Pi/180)
	c.ErrorAccumulation = orDur(c.ErrorAccumulation, 500*time.Millisecond)
	return c, nil
}

// Velocity is Unreal Engine's "Default" physics replication: the client
// simulates the body with its own physics, and on each server state it
// forward-predicts that state to the present (by the state's age, with the
// Sim's own physics) and, on every tick until the error is gone, sets the
// body's velocity to the predicted server velocity plus the position error
// divided by CorrectionTime (the angular velocity likewise). A small error
// ends the correction; a large one (SnapDistance), or one that stops
// shrinking for ErrorAccumulation, is a jump to the server's state.
//
// It shows the present: between corrections the body follows the client's
// physics, which for a ball in flight or rolling is exact, and a kick the
// client could not foresee is caught up over about CorrectionTime. Because
// it overwrites the velocity, a local push is undone by the next correction.
// Use it for server-owned bodies that the local player does not touch, when
// showing them on time matters more than a faithful path just after an
// unforeseen change.
//
// Unreal predicts only a tenth of the one-way ping by default and corrects
// with a fixed coefficient per physics tick (a time constant of 0.6 s at
// 60 Hz); Tether predicts the whole age of the state, which its clock
// measures, and takes the correction time as a duration.
type Velocity struct {
	f   follower
	cfg VelocityConfig
}

// NewVelocity returns a Velocity driving sim, or a *ConfigError naming the
// field of cfg out of range.
func NewVelocity(cfg VelocityConfig, sim Sim) (*Velocity, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	v := &Velocity{cfg: cfg}
	v.f = follower{sim: sim, tick: cfg.Tick, law: v}
	return v, nil
}

// Receive takes a server state; arrival is the client's estimate of server
// time when it arrived. A state older than the newest received is dropped.
func (v *Velocity) Receive(s kinematic.State, arrival time.Duration) { v.f.receive(s, arrival) }

// Render steps the Sim up to the first tick at or after now (estimated
// server time), correcting it on the way, and returns the body at now.
func (v *Velocity) Render(now time.Duration) Frame { return v.f.render(now) }

// Stats returns the counters.
func (v *Velocity) Stats() FollowStats { return v.f.stats }

func (v *Velocity) limit(*follower) int { return 0 }

func (v *Velocity) correct(f *follower, b, t kinematic.State) (kinematic.State, bool) {
	e := t.Pos.Sub(b.Pos)
	d := e.Len()
	rv := rotVec(b.Rot, t.Rot)
	if d <= v.cfg.RestoredDistance && rv.Len() <= v.cfg.RestoredAngle {
		b.Vel, b.AngVel = t.Vel, t.AngVel
		return f.restored(b)
	}
	if f.accumulate(d, v.cfg.ErrorAccumulation) || d > v.cfg.SnapDistance {
		return f.snap(t)
	}
	b.Vel = t.Vel.AddScaled(e, 1/v.cfg.CorrectionTime.Seconds())
	b.AngVel = t.AngVel.AddScaled(rv, 1/v.cfg.AngularCorrectionTime.Seconds())
	return b, false
}
