package replicate

import (
	"time"

	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
)

// Interp is snapshot interpolation: the client draws the body as it was a
// render delay ago, on the curve through the server's states (package
// timeline). It runs no physics, so it never mispredicts and never shows a
// correction, at the cost of showing the past: the present error is about
// the body's speed times the render delay.
//
// Use it for bodies the local player does not touch and whose exact path
// matters more than its timeliness, and as the reference the other modes are
// measured against.
type Interp struct {
	tl *timeline.Timeline
}

// NewInterp returns an Interp over a timeline configured by cfg (see
// timeline.Config; for a ball, set Extrapolate to a timeline.Ballistic), or
// the timeline's *timeline.ConfigError.
func NewInterp(cfg timeline.Config) (*Interp, error) {
	tl, err := timeline.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Interp{tl: tl}, nil
}

// Receive inserts a server state; arrival is the client's estimate of
// server time when it arrived.
func (v *Interp) Receive(s kinematic.State, arrival time.Duration) {
	v.tl.Insert(s, arrival)
}

// Render samples the timeline at now (estimated server time); the frame's
// Time is the render time, Delay behind now.
func (v *Interp) Render(now time.Duration) Frame {
	f := v.tl.Sample(now)
	return Frame{
		Pos: f.Pos, Rot: f.Rot, Vel: f.Vel, AngVel: f.AngVel,
		Time: f.Time, Delay: f.Delay, Offset: f.Offset,
		Valid: f.Valid, Extrapolated: f.Extrapolated, Frozen: f.Frozen, Cut: f.Cut,
	}
}

// Timeline returns the underlying timeline, for its statistics.
func (v *Interp) Timeline() *timeline.Timeline { return v.tl }
