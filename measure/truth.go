package measure

import (
	"slices"
	"time"

	"github.com/tether-net/tether/geom"
)

// Sample is the true body after one server tick, and how it moved over the
// step into that tick.
type Sample struct {
	T     time.Duration // server time of the tick
	Pos   geom.Vec3     // position at T, metres
	Vel   geom.Vec3     // velocity leaving T (after a kick at it), m/s
	VelIn geom.Vec3     // velocity arriving at T (before a kick at it), m/s
	// Contact marks a contact (a bounce, a player in the way) inside the
	// step that ended at T, at server time ContactAt: the body flew from the
	// earlier tick up to it and into T after it.
	Contact   bool
	ContactAt time.Duration
	// Cut marks a teleport at T (a kickoff, a restart): until T the body
	// moves on from the earlier tick, and the frames in the TeleportSpan
	// after it are left out of the error statistics.
	Cut bool
	// Jump marks a jump of position at T that is not a teleport (the server
	// moved the body at the tick): as for a cut, the body moves on from the
	// earlier tick until T, but the frames after it are measured as any.
	Jump bool
	// Attached marks a step over which the body moved attached to a moving
	// frame (a ball carried by a player): it moves at its place in the
	// frame, the frame's pose and that place both taken linearly from
	// Frame[0] (at the earlier tick) to Frame[1] (at T).
	Attached bool
	Frame    [2]Attachment
}

// Attachment is a moving frame's pose at one end of a step and the body's
// place in it. The frame turns about +Y only.
type Attachment struct {
	Pos geom.Vec3 // the frame's origin, metres
	Yaw float64   // the frame's rotation about +Y, radians
	Off geom.Vec3 // the body, in the frame
}

// Truth is a body's true trajectory: one Sample per server tick, in order of
// time, from which it gives the position at any moment between them. The
// zero Truth under no gravity is ready to use; set G for a ball.
type Truth struct {
	G     geom.Vec3 // gravity, m/s², for the flight around a contact
	pts   []Sample
	cuts  []time.Duration // times of the samples marked Cut
	jumps []time.Duration // times of the samples marked Jump
}

// Add appends the sample of the next tick, later than every sample before.
func (tr *Truth) Add(s Sample) {
	tr.pts = append(tr.pts, s)
	if s.Cut {
		tr.cuts = append(tr.cuts, s.T)
	}
	if s.Jump {
		tr.jumps = append(tr.jumps, s.T)
	}
}

// Len returns how many samples the truth holds.
func (tr *Truth) Len() int { return len(tr.pts) }

// Newest returns the newest sample; the truth must not be empty.
func (tr *Truth) Newest() *Sample { return &tr.pts[len(tr.pts)-1] }

// Oldest returns the oldest sample held; the truth must not be empty.
func (tr *Truth) Oldest() *Sample { return &tr.pts[0] }

// Covers reports whether the truth is known at server time t: t is within
// the samples held, the newest included.
func (tr *Truth) Covers(t time.Duration) bool {
	return len(tr.pts) > 0 && t >= tr.pts[0].T && t <= tr.pts[len(tr.pts)-1].T
}

// Forget drops the samples no query can still need: those before the last
// one at or before server time t. Cuts and jumps from then on are kept.
func (tr *Truth) Forget(t time.Duration) {
	i := tr.index(t) - 1
	if i <= 0 {
		return
	}
	tr.pts = tr.pts[:copy(tr.pts, tr.pts[i:])]
	from := tr.pts[0].T
	tr.cuts = dropBefore(tr.cuts, from)
	tr.jumps = dropBefore(tr.jumps, from)
}

func dropBefore(times []time.Duration, t time.Duration) []time.Duration {
	i, _ := slices.BinarySearch(times, t)
	return times[:copy(times, times[i:])]
}

// index returns the index of the first sample at or after t.
func (tr *Truth) index(t time.Duration) int {
	i, _ := slices.BinarySearchFunc(tr.pts, t, func(s Sample, t time.Duration) int { return cmpDur(s.T, t) })
	return i
}

func cmpDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// At returns the true position at server time t. Between two ticks the
// motion is the cubic through both ticks' positions and velocities (exact
// for flight and for rolling at constant deceleration); across a contact it
// is the flight from the earlier tick up to the contact and the flight into
// the later tick after it; over an attached step it is the body's place in
// the moving frame; across a cut or a jump the earlier tick's motion goes on
// (at its velocity) until the later tick. Before the oldest sample held it is
// that sample's position, after the newest the newest's. The truth must not
// be empty.
func (tr *Truth) At(t time.Duration) geom.Vec3 { return tr.at(tr.index(t), t) }

// atNear is At(t), looking for t's samples first at *hint, where a query
// for an earlier time found them, and the one after; it sets *hint. A
// hint is only a guess: any value gives the same result.
func (tr *Truth) atNear(hint *int, t time.Duration) geom.Vec3 {
	k := -1
	for _, h := range [2]int{*hint, *hint + 1} {
		if h >= 0 && h <= len(tr.pts) && (h == 0 || tr.pts[h-1].T < t) && (h == len(tr.pts) || tr.pts[h].T >= t) {
			k = h
			break
		}
	}
	if k < 0 {
		k = tr.index(t)
	}
	*hint = k
	return tr.at(k, t)
}

// at is At(t), k being index(t).
func (tr *Truth) at(k int, t time.Duration) geom.Vec3 {
	if k == 0 || len(tr.pts) < 2 {
		return tr.pts[0].Pos
	}
	if k == len(tr.pts) {
		return tr.pts[k-1].Pos
	}
	a, b := &tr.pts[k-1], &tr.pts[k]
	if b.Cut || b.Jump {
		if t == b.T {
			return b.Pos
		}
		return a.Pos.AddScaled(a.Vel, (t - a.T).Seconds())
	}
	step := b.T - a.T
	u := float64(t-a.T) / float64(step)
	if b.Attached {
		from, to := &b.Frame[0], &b.Frame[1]
		yaw := from.Yaw + geom.WrapAngle(to.Yaw-from.Yaw)*u
		off := geom.AxisAngle(geom.V(0, 1, 0), yaw).Rotate(from.Off.Lerp(to.Off, u))
		return from.Pos.Lerp(to.Pos, u).Add(off)
	}
	if b.Contact {
		if t < b.ContactAt {
			return Flight(a.Pos, a.Vel, tr.G, (t - a.T).Seconds())
		}
		return Flight(b.Pos, b.VelIn, tr.G, (t - b.T).Seconds())
	}
	pos, _ := geom.Hermite(a.Pos, a.Vel, b.Pos, b.VelIn, step.Seconds(), u)
	return pos
}

// Flight is the position dt seconds (negative: earlier) along a free flight
// from p at velocity v under gravity g.
func Flight(p, v, g geom.Vec3, dt float64) geom.Vec3 {
	return p.AddScaled(v, dt).AddScaled(g, dt*dt/2)
}

// ClosestApproach returns when, in seconds after the earlier tick, the
// flights from two ticks step seconds apart pass closest: the moment of a
// contact inside the step that the samples alone do not tell (a player in
// the way). It takes the flights from (pa, va) and from (pb, vb) to differ by
// (pa - pb) + va·τ - vb·(τ - step), leaving out gravity's share, g·step·(τ -
// step/2), which moves the moment by microseconds against velocities that
// change by metres per second in a contact. The result is clamped to [0,
// step], and is step/2 for equal velocities.
func ClosestApproach(pa, va, pb, vb geom.Vec3, step float64) float64 {
	d0 := pa.Sub(pb).AddScaled(vb, step)
	dv := va.Sub(vb)
	if l := dv.Len2(); l > 0 {
		return min(max(-d0.Dot(dv)/l, 0), step)
	}
	return step / 2
}

// CutBetween reports whether the body was teleported after server time t0
// and up to t1.
func (tr *Truth) CutBetween(t0, t1 time.Duration) bool { return anyIn(tr.cuts, t0, t1) }

// JumpBetween reports whether the body's position jumped (Sample.Jump) after
// server time t0 and up to t1.
func (tr *Truth) JumpBetween(t0, t1 time.Duration) bool { return anyIn(tr.jumps, t0, t1) }

// CutWithin reports whether the body was teleported at or less than span
// before server time t.
func (tr *Truth) CutWithin(t, span time.Duration) bool {
	i, found := slices.BinarySearch(tr.cuts, t)
	if found {
		return true
	}
	return i > 0 && t-tr.cuts[i-1] < span
}

// anyIn reports whether any of sorted times falls after t0 and up to t1.
func anyIn(times []time.Duration, t0, t1 time.Duration) bool {
	i, found := slices.BinarySearch(times, t0)
	if found {
		i++
	}
	return i < len(times) && times[i] <= t1
}

// Samples returns the samples held, oldest first. The slice is the truth's
// own: read it, do not keep it past the next Add or Forget.
func (tr *Truth) Samples() []Sample { return tr.pts }
