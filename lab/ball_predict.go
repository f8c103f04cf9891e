package lab

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/timeline"
)

// ballPredictor extrapolates the ball the way the server moves it: it steps a
// private world holding the same pitch and the same ball as the server's, at
// the server's tick rate, from the state to extrapolate. Between two steps the
// motion is the cubic through both steps' positions and velocities, or, across
// a bounce, the flight into the contact and the flight out of it.
//
// The trajectories of the last few states it was asked about are kept, so a
// frame extrapolating from the newest state costs at most a step or two, and
// the contact search of the timeline, which asks about the same two states
// many times, costs a few steps in all. The world knows nothing the server
// will decide later (kicks, players): what it predicts is the ball left alone.
//
// Backward (negative dt) it falls back to back, which ignores drag and lift.
type ballPredictor struct {
	world *physics.World
	ball  physics.BodyID
	step  time.Duration
	g     geom.Vec3
	back  timeline.Ballistic
	max   int // points per trajectory

	traj [predictTrajectories]trajectory
	used uint64 // use counter, for least-recently-used replacement
}

// predictTrajectories is how many trajectories the predictor keeps: the
// newest state's, and the two ends of a contact segment.
const predictTrajectories = 4

// trajectory is the predicted motion from one state: pts[k] is the state k
// steps after from.Time.
type trajectory struct {
	from kinematic.State
	pts  []predictPoint
	used uint64
}

type predictPoint struct {
	pos, vel, angVel geom.Vec3
	rot              geom.Quat
	// bounce marks a contact inside the step that ended here, at contactAt
	// after the previous point.
	bounce    bool
	contactAt time.Duration
}

// predictBounceSpeed is the impact speed, m/s, above which a contact inside a
// step is interpolated as a bounce rather than smoothly.
const predictBounceSpeed = 0.5

// newBallPredictor returns a predictor stepping at tickHz for at most
// horizon ahead of a state.
func newBallPredictor(tickHz int, horizon time.Duration, back timeline.Ballistic) *ballPredictor {
	w, ball := newBallWorld(tickHz)
	p := &ballPredictor{
		world: w,
		ball:  ball,
		step:  time.Second / time.Duration(tickHz),
		g:     geom.V(0, -gravity, 0),
		back:  back,
	}
	p.max = int(horizon/p.step) + 2
	for i := range p.traj {
		p.traj[i].pts = make([]predictPoint, 0, p.max)
	}
	return p
}

// Extrapolate is a timeline.Extrapolator.
func (p *ballPredictor) Extrapolate(s kinematic.State, dt time.Duration) kinematic.State {
	if dt <= 0 {
		return p.back.Extrapolate(s, dt)
	}
	tr := p.trajectory(&s)
	k := int(dt / p.step)
	if k+1 >= p.max {
		// Past the horizon: the last point, carried on without the physics.
		p.extend(tr, p.max-1)
		last := &tr.pts[p.max-1]
		end := time.Duration(p.max-1) * p.step
		s.Time += end
		s.Pos, s.Vel, s.Rot, s.AngVel = last.pos, last.vel, last.rot, last.angVel
		return p.back.Extrapolate(s, dt-end)
	}
	p.extend(tr, k+1)
	a, b := &tr.pts[k], &tr.pts[k+1]
	at := dt - time.Duration(k)*p.step
	u := float64(at) / float64(p.step)
	out := s
	out.Time += dt
	switch {
	case b.bounce && at < b.contactAt:
		out.Pos, out.Vel = p.flight(a.pos, a.vel, at.Seconds())
	case b.bounce:
		out.Pos, out.Vel = p.flight(b.pos, b.vel, (at - p.step).Seconds())
	default:
		out.Pos, out.Vel = geom.Hermite(a.pos, a.vel, b.pos, b.vel, p.step.Seconds(), u)
	}
	out.Rot = geom.Slerp(a.rot, b.rot, u)
	out.AngVel = a.angVel.Lerp(b.angVel, u)
	return out
}

func (p *ballPredictor) flight(pos, vel geom.Vec3, dt float64) (geom.Vec3, geom.Vec3) {
	return pos.AddScaled(vel, dt).AddScaled(p.g, dt*dt/2), vel.AddScaled(p.g, dt)
}

// trajectory returns the cached trajectory from s, or starts one in the
// least recently used slot.
func (p *ballPredictor) trajectory(s *kinematic.State) *trajectory {
	p.used++
	lru := 0
	for i := range p.traj {
		tr := &p.traj[i]
		if len(tr.pts) > 0 && tr.from.Time == s.Time && tr.from.Pos == s.Pos && tr.from.Vel == s.Vel &&
			tr.from.AngVel == s.AngVel && tr.from.Rot == s.Rot {
			tr.used = p.used
			return tr
		}
		if tr.used < p.traj[lru].used {
			lru = i
		}
	}
	tr := &p.traj[lru]
	tr.from, tr.used = *s, p.used
	rot := s.Rot
	if rot == (geom.Quat{}) {
		rot = geom.Identity
	}
	tr.pts = append(tr.pts[:0], predictPoint{pos: s.Pos, vel: s.Vel, angVel: s.AngVel, rot: rot})
	return tr
}

// extend steps tr until it holds point n.
func (p *ballPredictor) extend(tr *trajectory, n int) {
	if len(tr.pts) > n {
		return
	}
	last := tr.pts[len(tr.pts)-1]
	p.world.SetBody(p.ball, physics.BodyState{Pos: last.pos, Vel: last.vel, AngVel: last.angVel, Rot: last.rot})
	for len(tr.pts) <= n {
		p.world.Step()
		b := p.world.Body(p.ball)
		pt := predictPoint{pos: b.Pos, vel: b.Vel, angVel: b.AngVel, rot: b.Rot}
		for _, c := range p.world.Contacts() {
			if c.Body == p.ball && c.Speed > predictBounceSpeed {
				pt.bounce, pt.contactAt = true, c.At
				break
			}
		}
		tr.pts = append(tr.pts, pt)
	}
}
