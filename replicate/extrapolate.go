package replicate

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/timeline"
)

// WorldExtrapolator extrapolates a body the way the server moves it: it steps
// a private world holding the same static shapes and the same body as the
// server's, at the server's tick rate, from the state to extrapolate. Use its
// Extrapolate method as a timeline.Config's Extrapolate: a ball then flies,
// bounces off the ground and the walls and rolls to rest on the curve the
// server computes, until something the world does not hold (a kick, a player)
// changes it. Between two steps the
// motion is the cubic through both steps' positions and velocities, or, across
// a bounce, the flight into the contact and the flight out of it.
//
// The trajectories of the last few states it was asked about are kept, so a
// frame extrapolating from the newest state costs at most a step or two, and
// the contact search of the timeline, which asks about the same two states
// many times, costs a few steps in all. The world knows nothing the server
// will decide later (kicks, players): what it predicts is the ball left alone.
//
// Backward (negative dt), and past its horizon, it falls back to back, which
// knows no walls. A WorldExtrapolator is not safe for concurrent use.
type WorldExtrapolator struct {
	world *physics.World
	ball  physics.BodyID
	step  time.Duration
	g     geom.Vec3
	back  timeline.Extrapolator
	max   int // points per trajectory

	traj [extrapTrajectories]extrapTrajectory
	used uint64 // use counter, for least-recently-used replacement
}

// extrapTrajectories is how many trajectories the predictor keeps: the
// newest state's, and the two ends of a contact segment.
const extrapTrajectories = 4

// trajectory is the predicted motion from one state: pts[k] is the state k
// steps after from.Time.
type extrapTrajectory struct {
	from kinematic.State
	pts  []extrapPoint
	used uint64
}

type extrapPoint struct {
	pos, vel, angVel geom.Vec3
	rot              geom.Quat
	// bounce marks a contact inside the step that ended here, at contactAt
	// after the previous point.
	bounce    bool
	contactAt time.Duration
}

// extrapBounceSpeed is the impact speed, m/s, above which a contact inside a
// step is interpolated as a bounce rather than smoothly.
const extrapBounceSpeed = 0.5

// NewWorldExtrapolator returns an extrapolator of body in w, a world the
// extrapolator owns from now on (the client's own copy of the server's: the
// same static shapes and body, at the server's step rate), stepping for at
// most horizon ahead of a state; past that, and backward, back takes over.
func NewWorldExtrapolator(w *physics.World, body physics.BodyID, horizon time.Duration, back timeline.Extrapolator) *WorldExtrapolator {
	p := &WorldExtrapolator{
		world: w,
		ball:  body,
		step:  time.Second / time.Duration(w.StepHz()),
		g:     w.Gravity(),
		back:  back,
	}
	p.max = int(horizon/p.step) + 2
	for i := range p.traj {
		p.traj[i].pts = make([]extrapPoint, 0, p.max)
	}
	return p
}

// Extrapolate returns s moved on by dt: a timeline.Extrapolator.
func (p *WorldExtrapolator) Extrapolate(s kinematic.State, dt time.Duration) kinematic.State {
	if dt <= 0 {
		return p.back(s, dt)
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
		return p.back(s, dt-end)
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

func (p *WorldExtrapolator) flight(pos, vel geom.Vec3, dt float64) (geom.Vec3, geom.Vec3) {
	return pos.AddScaled(vel, dt).AddScaled(p.g, dt*dt/2), vel.AddScaled(p.g, dt)
}

// trajectory returns the cached trajectory from s, or starts one in the
// least recently used slot.
func (p *WorldExtrapolator) trajectory(s *kinematic.State) *extrapTrajectory {
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
	tr.pts = append(tr.pts[:0], extrapPoint{pos: s.Pos, vel: s.Vel, angVel: s.AngVel, rot: rot})
	return tr
}

// extend steps tr until it holds point n.
func (p *WorldExtrapolator) extend(tr *extrapTrajectory, n int) {
	if len(tr.pts) > n {
		return
	}
	last := tr.pts[len(tr.pts)-1]
	p.world.SetBody(p.ball, physics.BodyState{Pos: last.pos, Vel: last.vel, AngVel: last.angVel, Rot: last.rot})
	for len(tr.pts) <= n {
		p.world.Step()
		b := p.world.Body(p.ball)
		pt := extrapPoint{pos: b.Pos, vel: b.Vel, angVel: b.AngVel, rot: b.Rot}
		for _, c := range p.world.Contacts() {
			if c.Body == p.ball && c.Speed > extrapBounceSpeed {
				pt.bounce, pt.contactAt = true, c.At
				break
			}
		}
		tr.pts = append(tr.pts, pt)
	}
}
