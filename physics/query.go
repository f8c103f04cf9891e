package physics

import (
	"math"

	"github.com/tether-net/tether/geom"
)

// The geometric queries behind the swept tests. A moving sphere of radius r
// touching a shape is a point (its centre) entering the shape grown by r, so each
// sweep casts the segment p + t·d, t in [0, 1], against a rounded shape and returns
// the first t of entry. Callers first check that p is not already touching.

// clamp returns x limited to [lo, hi] (NaN stays NaN).
func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func fmin(a, b float64) float64 {
	if b < a {
		return b
	}
	return a
}

func fmax(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// rayBox returns the interval [enter, exit] of t over which p + t·d lies in the
// box [lo, hi]; ok is false if the line misses it.
func rayBox(p, d, lo, hi geom.Vec3) (enter, exit float64, ok bool) {
	enter, exit = math.Inf(-1), math.Inf(1)
	for k := 0; k < 3; k++ {
		pk, dk, l, h := p.Axis(k), d.Axis(k), lo.Axis(k), hi.Axis(k)
		if dk == 0 {
			if pk < l || pk > h {
				return 0, 0, false
			}
			continue
		}
		t0, t1 := (l-pk)/dk, (h-pk)/dk
		if t0 > t1 {
			t0, t1 = t1, t0
		}
		enter, exit = math.Max(enter, t0), math.Min(exit, t1)
	}
	return enter, exit, enter <= exit
}

// rayCircle returns the first t in [0, 1] at which the 2-D point (px, py) + t·(dx,
// dy) enters the circle of radius rad about the origin, if it starts outside.
func rayCircle(px, py, dx, dy, rad float64) (float64, bool) {
	a := dx*dx + dy*dy
	b := px*dx + py*dy
	c := px*px + py*py - rad*rad
	if a == 0 || c < 0 || b >= 0 {
		return 0, false
	}
	disc := b*b - a*c
	if disc < 0 {
		return 0, false
	}
	t := (-b - math.Sqrt(disc)) / a
	return t, t >= 0 && t <= 1
}

// raySphere returns the first t in [0, 1] at which p + t·d enters the sphere of
// radius rad about c, if it starts outside.
func raySphere(p, d, c geom.Vec3, rad float64) (float64, bool) {
	m := p.Sub(c)
	a := d.Dot(d)
	b := m.Dot(d)
	cc := m.Dot(m) - rad*rad
	if a == 0 || cc < 0 || b >= 0 {
		return 0, false
	}
	disc := b*b - a*cc
	if disc < 0 {
		return 0, false
	}
	t := (-b - math.Sqrt(disc)) / a
	return t, t >= 0 && t <= 1
}

// boxGap returns the signed distance from p to the surface of the box of half
// extents e centred on the origin (negative inside) and the outward unit normal
// at the closest point.
func boxGap(p, e geom.Vec3) (float64, geom.Vec3) {
	q := geom.V(clamp(p.X, -e.X, e.X), clamp(p.Y, -e.Y, e.Y), clamp(p.Z, -e.Z, e.Z))
	if q != p {
		diff := p.Sub(q)
		l := diff.Len()
		return l, diff.Scale(1 / l)
	}
	// Inside: leave through the nearest face.
	best, depth := 0, math.Inf(1)
	for k := 0; k < 3; k++ {
		if dk := e.Axis(k) - math.Abs(p.Axis(k)); dk < depth {
			best, depth = k, dk
		}
	}
	var n geom.Vec3
	if p.Axis(best) < 0 {
		n.SetAxis(best, -1)
	} else {
		n.SetAxis(best, 1)
	}
	return -depth, n
}

// sweepBox returns the first t in [0, 1] at which a sphere of radius r moving from
// p by d touches the box of half extents e centred on the origin.
func sweepBox(p, d, e geom.Vec3, r float64) (float64, bool) {
	grown := e.Add(geom.V(r, r, r))
	enter, exit, ok := rayBox(p, d, grown.Neg(), grown)
	if !ok || enter > 1 || exit < 0 {
		return 0, false
	}
	if enter >= 0 {
		// Entering the grown box through a face's flat part is the answer.
		q := p.AddScaled(d, enter)
		out := 0
		for k := 0; k < 3; k++ {
			if math.Abs(q.Axis(k)) > e.Axis(k) {
				out++
			}
		}
		if out <= 1 {
			return enter, true
		}
	}
	// Near an edge or a corner: the rounded box is the union of three boxes, each
	// grown along one axis, twelve edge cylinders and eight corner spheres; the
	// first entry into any of them is the first touch.
	best := math.Inf(1)
	for k := 0; k < 3; k++ {
		g := e
		g.SetAxis(k, grown.Axis(k))
		if t, _, ok := rayBox(p, d, g.Neg(), g); ok && t >= 0 && t < best {
			best = t
		}
		i, j := (k+1)%3, (k+2)%3
		ei, ej, ek := e.Axis(i), e.Axis(j), e.Axis(k)
		for _, si := range [2]float64{-1, 1} {
			for _, sj := range [2]float64{-1, 1} {
				t, ok := rayCircle(p.Axis(i)-si*ei, p.Axis(j)-sj*ej, d.Axis(i), d.Axis(j), r)
				if ok && t < best && math.Abs(p.Axis(k)+t*d.Axis(k)) <= ek {
					best = t
				}
			}
		}
	}
	for c := 0; c < 8; c++ {
		corner := geom.V(e.X, e.Y, e.Z)
		if c&1 != 0 {
			corner.X = -corner.X
		}
		if c&2 != 0 {
			corner.Y = -corner.Y
		}
		if c&4 != 0 {
			corner.Z = -corner.Z
		}
		if t, ok := raySphere(p, d, corner, r); ok && t < best {
			best = t
		}
	}
	return best, best <= 1
}

// capsuleGap returns the distance from p to the vertical segment from (0, ya, 0)
// to (0, yb, 0) and the unit direction from the segment to p.
func capsuleGap(p geom.Vec3, ya, yb float64) (float64, geom.Vec3) {
	diff := geom.V(p.X, p.Y-clamp(p.Y, ya, yb), p.Z)
	l := diff.Len()
	if l == 0 {
		return 0, geom.V(1, 0, 0)
	}
	return l, diff.Scale(1 / l)
}

// sweepCapsule returns the first t in [0, 1] at which p + t·d comes within rad of
// the vertical segment from (0, ya, 0) to (0, yb, 0).
func sweepCapsule(p, d geom.Vec3, ya, yb, rad float64) (float64, bool) {
	best := math.Inf(1)
	if t, ok := rayCircle(p.X, p.Z, d.X, d.Z, rad); ok {
		if y := p.Y + t*d.Y; y >= ya && y <= yb {
			best = t
		}
	}
	if t, ok := raySphere(p, d, geom.V(0, ya, 0), rad); ok && t < best {
		best = t
	}
	if t, ok := raySphere(p, d, geom.V(0, yb, 0), rad); ok && t < best {
		best = t
	}
	return best, best <= 1
}

// toLocal returns the world point p in the box's frame.
func (s *shape) toLocal(p geom.Vec3) geom.Vec3 {
	p = p.Sub(s.c)
	if s.rotated {
		p = s.q.Conj().Rotate(p)
	}
	return p
}

// dirToLocal returns the world direction d in the box's frame.
func (s *shape) dirToLocal(d geom.Vec3) geom.Vec3 {
	if s.rotated {
		return s.q.Conj().Rotate(d)
	}
	return d
}

// dirToWorld returns the box-frame direction d in the world frame.
func (s *shape) dirToWorld(d geom.Vec3) geom.Vec3 {
	if s.rotated {
		return s.q.Rotate(d)
	}
	return d
}

func overlaps(alo, ahi, blo, bhi geom.Vec3) bool {
	return alo.X <= bhi.X && blo.X <= ahi.X && alo.Y <= bhi.Y && blo.Y <= ahi.Y &&
		alo.Z <= bhi.Z && blo.Z <= ahi.Z
}

func minVec(a, b geom.Vec3) geom.Vec3 {
	return geom.V(fmin(a.X, b.X), fmin(a.Y, b.Y), fmin(a.Z, b.Z))
}

func maxVec(a, b geom.Vec3) geom.Vec3 {
	return geom.V(fmax(a.X, b.X), fmax(a.Y, b.Y), fmax(a.Z, b.Z))
}
