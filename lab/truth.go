package lab

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// truth is the server's ball trajectory, one point per tick, from which the lab
// reads the true position at any moment.
type truth struct {
	tick time.Duration
	g    geom.Vec3
	pts  []truthPoint    // pts[n] holds at n·tick
	cuts []time.Duration // times of the points marked cut, in order
	// jumps are the times of the points marked jump, in order.
	jumps []time.Duration
}

type truthPoint struct {
	state physics.BodyState // the ball leaving this tick (after a kick at it)
	velIn geom.Vec3         // velocity arriving at this tick (before a kick at it)
	// bounce marks a contact inside the step that ended at this tick, at
	// server time contactAt.
	bounce    bool
	contactAt time.Duration
	// cut marks a teleport at this tick (the soccer game's kickoff or
	// restart): until it the ball moves on from the earlier tick.
	cut bool
	// jump marks a jump of position at this tick that is not a teleport
	// (soccer.Truth.BallJumped): as for a cut, the ball moves on from the
	// earlier tick until it, but frames after it are measured as any.
	jump bool
	// carried marks a step over which a player carried the ball: it moves
	// with its carrier's pose, from carry's first place to its second.
	carried bool
	carry   [2]carryPose
}

// carryPose is a carrier's pose at one end of a carried step, and the ball's
// place in its frame there.
type carryPose struct {
	pos geom.Vec3 // the carrier's position
	yaw float64   // radians about +Y
	off geom.Vec3 // the ball, in the carrier's frame
}

// at returns the true ball position at server time t: between ticks the motion
// is the cubic through both ticks' positions and velocities (exact for flight
// and for rolling at constant deceleration); across a bounce it is the flight
// from the earlier tick up to the contact and the flight into the later tick
// after it. Over a carried step the ball is at its place in the frame of its
// carrier, both taken linearly between the two ticks' poses.
func (tr *truth) at(t time.Duration) geom.Vec3 {
	if t <= 0 || len(tr.pts) < 2 {
		return tr.pts[0].state.Pos
	}
	k := int((t + tr.tick - 1) / tr.tick)
	if k >= len(tr.pts) {
		return tr.pts[len(tr.pts)-1].state.Pos
	}
	a, b := tr.pts[k-1], tr.pts[k]
	ta, tb := time.Duration(k-1)*tr.tick, time.Duration(k)*tr.tick
	if b.cut || b.jump {
		if t == tb {
			return b.state.Pos
		}
		return a.state.Pos.AddScaled(a.state.Vel, (t - ta).Seconds())
	}
	u := float64(t-ta) / float64(tr.tick)
	if b.carried {
		from, to := &b.carry[0], &b.carry[1]
		yaw := from.yaw + geom.WrapAngle(to.yaw-from.yaw)*u
		off := geom.AxisAngle(geom.V(0, 1, 0), yaw).Rotate(from.off.Lerp(to.off, u))
		return from.pos.Lerp(to.pos, u).Add(off)
	}
	if b.bounce {
		if t < b.contactAt {
			return flight(a.state.Pos, a.state.Vel, tr.g, (t - ta).Seconds())
		}
		return flight(b.state.Pos, b.velIn, tr.g, (t - tb).Seconds())
	}
	pos, _ := geom.Hermite(a.state.Pos, a.state.Vel, b.state.Pos, b.velIn, tr.tick.Seconds(), u)
	return pos
}

// flight is the position dt seconds (negative: earlier) along a free flight
// from p with velocity v under gravity g.
func flight(p, v, g geom.Vec3, dt float64) geom.Vec3 {
	return p.AddScaled(v, dt).AddScaled(g, dt*dt/2)
}

// cutBetween reports whether the ball was teleported after server time t0 and
// up to t1.
func (tr *truth) cutBetween(t0, t1 time.Duration) bool { return anyIn(tr.cuts, t0, t1) }

// jumpBetween reports whether the ball's position jumped (truthPoint.jump)
// after server time t0 and up to t1.
func (tr *truth) jumpBetween(t0, t1 time.Duration) bool { return anyIn(tr.jumps, t0, t1) }

// anyIn reports whether any of times falls after t0 and up to t1.
func anyIn(times []time.Duration, t0, t1 time.Duration) bool {
	for _, c := range times {
		if c > t0 && c <= t1 {
			return true
		}
	}
	return false
}

// cutWithin reports whether the ball was teleported at or less than span
// before server time t.
func (tr *truth) cutWithin(t, span time.Duration) bool {
	for _, c := range tr.cuts {
		if c <= t && t-c < span {
			return true
		}
	}
	return false
}
