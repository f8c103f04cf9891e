package timeline

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// A segment ending at a knot, or between two states whose velocities do not
// fit one smooth curve (a contact whose knot state was lost), contains a
// contact. Its curve is a's motion predicted forward and b's motion run
// backward, switching where they come closest: for a kick or a wall bounce
// they cross exactly at the contact, so the rendered motion changes at the
// right instant. The two rarely meet exactly; the residual is spread over the
// longer of the two parts so the curve stays continuous.

// crossing is a solved contact segment.
type crossing struct {
	from, to time.Duration // the states' times: the cache key
	at       time.Duration // the switch time
	resid    geom.Vec3     // backward minus forward position at the switch
}

// contact evaluates the contact curve from a to b at rt into out's position
// and velocity.
func (t *Timeline) contact(a, b *kinematic.State, rt time.Duration, out *kinematic.State) {
	c := t.solveCrossing(a, b)
	var s kinematic.State
	if rt < c.at {
		s = t.cfg.Extrapolate(*a, rt-a.Time)
	} else {
		s = t.cfg.Extrapolate(*b, rt-b.Time)
	}
	before, after := c.at-a.Time, b.Time-c.at
	if before >= after {
		if rt < c.at {
			k := float64(rt-a.Time) / float64(before)
			s.Pos = s.Pos.AddScaled(c.resid, k)
			s.Vel = s.Vel.AddScaled(c.resid, 1/before.Seconds())
		}
	} else if rt >= c.at {
		k := float64(b.Time-rt) / float64(after)
		s.Pos = s.Pos.AddScaled(c.resid, -k)
		s.Vel = s.Vel.AddScaled(c.resid, 1/after.Seconds())
	}
	out.Pos, out.Vel = s.Pos, s.Vel
}

// gapDist is the squared distance between a's motion forward and b's
// backward at time x.
func (t *Timeline) gapDist(a, b *kinematic.State, x time.Duration) float64 {
	f := t.cfg.Extrapolate(*a, x-a.Time).Pos
	g := t.cfg.Extrapolate(*b, x-b.Time).Pos
	return f.Sub(g).Len2()
}

// solveCrossing finds (or recalls) where the segment's two motions come
// closest.
func (t *Timeline) solveCrossing(a, b *kinematic.State) crossing {
	for i := range t.cross {
		if c := t.cross[i]; c.from == a.Time && c.to == b.Time {
			return c
		}
	}
	// A coarse scan, then golden-section refinement around the best point.
	const steps = 8
	span := b.Time - a.Time
	best, bestD := 0, t.gapDist(a, b, a.Time)
	for i := 1; i <= steps; i++ {
		if d := t.gapDist(a, b, a.Time+span*time.Duration(i)/steps); d < bestD {
			best, bestD = i, d
		}
	}
	lo := a.Time + span*time.Duration(max(best-1, 0))/steps
	hi := a.Time + span*time.Duration(min(best+1, steps))/steps
	const g = 0.6180339887498949
	x1 := hi - time.Duration(g*float64(hi-lo))
	x2 := lo + time.Duration(g*float64(hi-lo))
	d1, d2 := t.gapDist(a, b, x1), t.gapDist(a, b, x2)
	for hi-lo > 10*time.Microsecond {
		if d1 <= d2 {
			hi, x2, d2 = x2, x1, d1
			x1 = hi - time.Duration(g*float64(hi-lo))
			d1 = t.gapDist(a, b, x1)
		} else {
			lo, x1, d1 = x1, x2, d2
			x2 = lo + time.Duration(g*float64(hi-lo))
			d2 = t.gapDist(a, b, x2)
		}
	}
	at := (lo + hi) / 2
	if bestD < min(d1, d2) {
		at = a.Time + span*time.Duration(best)/steps
	}
	c := crossing{from: a.Time, to: b.Time, at: at}
	c.resid = t.cfg.Extrapolate(*b, at-b.Time).Pos.Sub(t.cfg.Extrapolate(*a, at-a.Time).Pos)
	t.cross[t.crossAt] = c
	t.crossAt = (t.crossAt + 1) % len(t.cross)
	return c
}
