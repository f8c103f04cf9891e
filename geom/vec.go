package geom

import "math"

// Vec3 is a 3-vector. Tether's world is Y-up: X and Z span the ground.
type Vec3 struct{ X, Y, Z float64 }

// V is shorthand for Vec3{x, y, z}.
func V(x, y, z float64) Vec3 { return Vec3{x, y, z} }

// Add returns v + w.
func (v Vec3) Add(w Vec3) Vec3 { return Vec3{v.X + w.X, v.Y + w.Y, v.Z + w.Z} }

// Sub returns v - w.
func (v Vec3) Sub(w Vec3) Vec3 { return Vec3{v.X - w.X, v.Y - w.Y, v.Z - w.Z} }

// Scale returns s·v.
func (v Vec3) Scale(s float64) Vec3 { return Vec3{v.X * s, v.Y * s, v.Z * s} }

// AddScaled returns v + s·w.
func (v Vec3) AddScaled(w Vec3, s float64) Vec3 {
	return Vec3{v.X + s*w.X, v.Y + s*w.Y, v.Z + s*w.Z}
}

// Neg returns -v.
func (v Vec3) Neg() Vec3 { return Vec3{-v.X, -v.Y, -v.Z} }

// Dot returns the dot product v·w.
func (v Vec3) Dot(w Vec3) float64 { return v.X*w.X + v.Y*w.Y + v.Z*w.Z }

// Cross returns the cross product v×w.
func (v Vec3) Cross(w Vec3) Vec3 {
	return Vec3{v.Y*w.Z - v.Z*w.Y, v.Z*w.X - v.X*w.Z, v.X*w.Y - v.Y*w.X}
}

// Len returns the Euclidean length of v.
func (v Vec3) Len() float64 { return math.Sqrt(v.Dot(v)) }

// Len2 returns the squared length of v.
func (v Vec3) Len2() float64 { return v.Dot(v) }

// Dist returns the distance between v and w.
func (v Vec3) Dist(w Vec3) float64 { return v.Sub(w).Len() }

// Norm returns v scaled to unit length, or the zero vector if v is zero.
func (v Vec3) Norm() Vec3 {
	l := v.Len()
	if l == 0 {
		return Vec3{}
	}
	return v.Scale(1 / l)
}

// Lerp returns v + (w-v)·t.
func (v Vec3) Lerp(w Vec3, t float64) Vec3 { return v.AddScaled(w.Sub(v), t) }

// IsFinite reports whether no component is NaN or infinite.
func (v Vec3) IsFinite() bool {
	return finite(v.X) && finite(v.Y) && finite(v.Z)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Hermite evaluates the cubic Hermite curve from p0 (velocity v0) to p1 (velocity
// v1) over an interval of dt seconds, at fraction u in [0, 1] of that interval. It
// returns the position and the velocity there. The curve passes through both
// positions with both velocities, so a ball's arc between two snapshots is
// followed rather than cut by a straight line.
func Hermite(p0, v0, p1, v1 Vec3, dt, u float64) (pos, vel Vec3) {
	u2 := u * u
	u3 := u2 * u
	h00 := 2*u3 - 3*u2 + 1
	h10 := u3 - 2*u2 + u
	h01 := -2*u3 + 3*u2
	h11 := u3 - u2
	pos = p0.Scale(h00).AddScaled(v0, h10*dt).AddScaled(p1, h01).AddScaled(v1, h11*dt)
	if dt == 0 {
		return pos, v0.Lerp(v1, u)
	}
	d00 := 6*u2 - 6*u
	d10 := 3*u2 - 4*u + 1
	d01 := -6*u2 + 6*u
	d11 := 3*u2 - 2*u
	vel = p0.Scale(d00/dt).AddScaled(v0, d10).AddScaled(p1, d01/dt).AddScaled(v1, d11)
	return pos, vel
}

// Axis returns v's component k: 0 X, 1 Y, 2 Z.
func (v Vec3) Axis(k int) float64 {
	switch k {
	case 0:
		return v.X
	case 1:
		return v.Y
	}
	return v.Z
}

// SetAxis sets v's component k (0 X, 1 Y, 2 Z) to x.
func (v *Vec3) SetAxis(k int, x float64) {
	switch k {
	case 0:
		v.X = x
	case 1:
		v.Y = x
	default:
		v.Z = x
	}
}
