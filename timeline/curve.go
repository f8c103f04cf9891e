package timeline

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// What a render time falls on.
type kind uint8

const (
	kindInterp       kind = iota // between two states
	kindGap                      // after a state and before a Cut: extrapolated up to the cut
	kindExtrapolated             // past the newest state
	kindFrozen                   // past the extrapolation bound: held
	kindBefore                   // before the oldest state: held
)

// knotMismatch is the velocity mismatch, metres per second, above which a
// segment is taken to contain a contact even if its velocity change is slow:
// the mismatch is how far the residual (see eval) is from a quadratic, zero
// when its mean velocity over the segment is the mean of its end velocities,
// as for any residual motion under constant acceleration.
const knotMismatch = 1.0

// eval computes the curve at rt into out and returns the index of the state it
// is drawn from (the newest at or before rt; -1 if rt is before them all).
func (t *Timeline) eval(rt time.Duration, out *kinematic.State) (int, kind) {
	i := t.n - 1
	for i >= 0 && t.at(i).Time > rt {
		i--
	}
	if i < 0 {
		*out = *t.at(0)
		out.Vel, out.AngVel = geom.Vec3{}, geom.Vec3{}
		out.Knot, out.Cut = false, false
		return -1, kindBefore
	}
	a := t.at(i)
	if i == t.n-1 {
		return i, t.extrapolate(a, rt-a.Time, out, kindExtrapolated)
	}
	b := t.at(i + 1)
	if b.Cut {
		return i, t.extrapolate(a, rt-a.Time, out, kindGap)
	}
	if gap := b.Time - a.Time; t.cfg.MaxExtrapolation > 0 && gap > t.cfg.MaxExtrapolation {
		// Nothing is known of the motion in a gap longer than the
		// extrapolation bound (a blackout): a's motion, held past the bound,
		// then b's motion run backward over the last half of the gap, or the
		// bound if that is shorter.
		if rt < b.Time-min(gap/2, t.cfg.MaxExtrapolation) {
			return i, t.extrapolate(a, rt-a.Time, out, kindGap)
		}
		*out = t.cfg.Extrapolate(*b, rt-b.Time)
		out.Knot, out.Cut = false, false
		return i, kindInterp
	}
	span := float64(b.Time - a.Time)
	dt := span / float64(time.Second)
	u := float64(rt-a.Time) / span
	// The curve is a's motion as the extrapolator predicts it, plus a
	// residual that brings it to b: with Linear, or any extrapolator exact
	// for constant acceleration, that is the cubic Hermite curve.
	end := t.cfg.Extrapolate(*a, b.Time-a.Time)
	rp, rv := b.Pos.Sub(end.Pos), b.Vel.Sub(end.Vel)
	switch {
	case b.Knot || rv.Len() > t.cfg.ContactAccel*dt || rp.Scale(2/dt).Sub(rv).Len() > knotMismatch:
		// A contact: flagged, or not one smooth motion (its knot is lost).
		t.contact(a, b, rt, out)
	default:
		p := t.cfg.Extrapolate(*a, rt-a.Time)
		dp, dv := geom.Hermite(geom.Vec3{}, geom.Vec3{}, rp, rv, dt, u)
		out.Pos, out.Vel = p.Pos.Add(dp), p.Vel.Add(dv)
	}
	out.Rot = interpRot(a, b, dt, u)
	out.AngVel = a.AngVel.Lerp(b.AngVel, u)
	out.Knot, out.Cut = false, false
	return i, kindInterp
}

// interpRot interpolates the rotation from a to b, dt seconds apart, at
// fraction u. Of the rotations that take a.Rot to b.Rot about the same axis
// (the shortest arc, or it plus whole turns, or the other way round) it turns
// through the one closest to what the mean angular velocity predicts; with no
// angular velocity that is the shortest arc, i.e. Slerp.
func interpRot(a, b *kinematic.State, dt, u float64) geom.Quat {
	w := a.AngVel.Add(b.AngVel).Scale(dt / 2) // predicted rotation vector
	d := b.Rot.Mul(a.Rot.Conj())
	if d.W < 0 {
		d = d.Neg()
	}
	v := geom.V(d.X, d.Y, d.Z)
	s := v.Len()
	var axis geom.Vec3
	var phi float64
	if s < 1e-12 {
		if w.Len() < math.Pi {
			return geom.Slerp(a.Rot, b.Rot, u)
		}
		axis = w.Norm()
	} else {
		axis = v.Scale(1 / s)
		phi = 2 * math.Atan2(s, d.W) // shortest arc, [0, π]
	}
	turns := math.Round((w.Dot(axis) - phi) / (2 * math.Pi))
	if turns == 0 {
		return geom.Slerp(a.Rot, b.Rot, u)
	}
	theta := phi + 2*math.Pi*turns
	return geom.AxisAngle(axis, u*theta).Mul(a.Rot).Norm()
}

// extrapolate computes the state dt past a into out, holding still past the
// extrapolation bound, and returns k or kindFrozen.
func (t *Timeline) extrapolate(a *kinematic.State, dt time.Duration, out *kinematic.State, k kind) kind {
	if dt > t.cfg.MaxExtrapolation {
		*out = t.cfg.Extrapolate(*a, t.cfg.MaxExtrapolation)
		out.Vel, out.AngVel = geom.Vec3{}, geom.Vec3{}
		k = kindFrozen
	} else {
		*out = t.cfg.Extrapolate(*a, dt)
	}
	out.Knot, out.Cut = false, false
	return k
}

// Linear extrapolates at constant velocity and angular velocity.
func Linear(s kinematic.State, dt time.Duration) kinematic.State {
	sec := dt.Seconds()
	s.Time += dt
	s.Pos = s.Pos.AddScaled(s.Vel, sec)
	s.Rot = s.Rot.Integrate(s.AngVel, sec)
	return s
}

// Ballistic extrapolates a body under constant gravity above a flat floor,
// such as a ball on a pitch: in the air it follows the parabola and bounces
// off the floor; on the floor it slides, slowing at RollingDecel. Rotation
// keeps its angular velocity. Use its Extrapolate method as
// Config.Extrapolate.
type Ballistic struct {
	Gravity geom.Vec3 // metres per second squared; its direction is down
	// Floor is the height, metres along -Gravity from the origin, of the
	// body's centre when it rests on the floor (a ball's radius above a ground
	// at height 0); math.Inf(-1) means no floor.
	Floor        float64
	Restitution  float64 // share of the vertical speed kept at a bounce, [0, 1]
	RollingDecel float64 // deceleration on the floor, metres per second squared
}

// Below this vertical speed, metres per second, a body on the floor stays on
// it (slides) rather than bouncing.
const settleSpeed = 0.5

// Extrapolate advances s by dt. A negative dt runs the motion backward: the
// parabola without floor contacts in the air, the slide (faster going back)
// on the floor.
func (b Ballistic) Extrapolate(s kinematic.State, dt time.Duration) kinematic.State {
	g := b.Gravity.Len()
	if g == 0 || dt == 0 {
		return Linear(s, dt)
	}
	sec := dt.Seconds()
	if dt < 0 {
		return b.backward(s, dt)
	}
	if math.IsInf(b.Floor, -1) {
		s.Time += dt
		s.Pos = s.Pos.AddScaled(s.Vel, sec).AddScaled(b.Gravity, sec*sec/2)
		s.Vel = s.Vel.AddScaled(b.Gravity, sec)
		s.Rot = s.Rot.Integrate(s.AngVel, sec)
		return s
	}
	up := b.Gravity.Scale(-1 / g)
	vu := s.Vel.Dot(up)
	vh := s.Vel.AddScaled(up, -vu)
	h := s.Pos.Dot(up) - b.Floor
	ph := s.Pos.AddScaled(up, -s.Pos.Dot(up)) // horizontal part of the position
	rest := sec
	slide := 0.0 // time spent sliding on the floor
	for bounce := 0; rest > 0; bounce++ {
		if h <= 1e-3 && math.Abs(vu) < settleSpeed || bounce == 8 {
			h, vu, slide = max(h, 0), 0, rest
			break
		}
		// Time to reach the floor: h + vu τ - g τ²/2 = 0.
		tau := (vu + math.Sqrt(vu*vu+2*g*max(h, 0))) / g
		if tau >= rest {
			h += vu*rest - g*rest*rest/2
			vu -= g * rest
			break
		}
		rest -= tau
		h = 0
		vu = -(vu - g*tau) * b.Restitution
		if vu < settleSpeed {
			vu, slide = 0, rest
			break
		}
	}
	// Horizontal motion: free for sec-slide, then slowing on the floor.
	free := sec - slide
	pos := ph.AddScaled(vh, free)
	if slide > 0 && b.RollingDecel > 0 {
		if v := vh.Len(); v > 0 {
			stop := v / b.RollingDecel
			tt := min(slide, stop)
			dir := vh.Scale(1 / v)
			pos = pos.AddScaled(dir, v*tt-b.RollingDecel*tt*tt/2)
			vh = dir.Scale(v - b.RollingDecel*tt)
		}
	} else {
		pos = pos.AddScaled(vh, slide)
	}
	s.Time += dt
	s.Pos = pos.AddScaled(up, h+b.Floor)
	s.Vel = vh.AddScaled(up, vu)
	s.Rot = s.Rot.Integrate(s.AngVel, sec)
	return s
}

func (b Ballistic) backward(s kinematic.State, dt time.Duration) kinematic.State {
	sec := dt.Seconds() // negative
	up := b.Gravity.Norm().Neg()
	vu := s.Vel.Dot(up)
	h := s.Pos.Dot(up) - b.Floor
	if h <= 1e-3 && math.Abs(vu) < settleSpeed {
		vh := s.Vel.AddScaled(up, -vu)
		back := -sec
		v := vh.Len()
		if v > 0 && b.RollingDecel > 0 {
			dir := vh.Scale(1 / v)
			s.Pos = s.Pos.AddScaled(dir, -(v*back + b.RollingDecel*back*back/2))
			s.Vel = dir.Scale(v + b.RollingDecel*back)
		} else {
			s.Pos = s.Pos.AddScaled(vh, sec)
			s.Vel = vh
		}
	} else {
		s.Pos = s.Pos.AddScaled(s.Vel, sec).AddScaled(b.Gravity, sec*sec/2)
		s.Vel = s.Vel.AddScaled(b.Gravity, sec)
	}
	s.Time += dt
	s.Rot = s.Rot.Integrate(s.AngVel, sec)
	return s
}
