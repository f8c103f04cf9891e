package geom

import "math"

// Quat is a quaternion W + Xi + Yj + Zk. Rotations are unit quaternions; the zero
// value is not a rotation, use Identity.
type Quat struct{ W, X, Y, Z float64 }

// Identity is the rotation that leaves every vector unchanged.
var Identity = Quat{W: 1}

// AxisAngle returns the rotation by angle radians about axis (right-handed). A
// zero axis gives Identity.
func AxisAngle(axis Vec3, angle float64) Quat {
	a := axis.Norm()
	if a == (Vec3{}) {
		return Identity
	}
	s, c := math.Sincos(angle / 2)
	return Quat{c, a.X * s, a.Y * s, a.Z * s}
}

// WrapAngle returns the angle a, in radians, wrapped into (-π, π].
func WrapAngle(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	if a > math.Pi {
		a -= 2 * math.Pi
	} else if a <= -math.Pi {
		a += 2 * math.Pi
	}
	return a
}

// Mul returns the Hamilton product q·r: the rotation r followed by q.
func (q Quat) Mul(r Quat) Quat {
	return Quat{
		W: q.W*r.W - q.X*r.X - q.Y*r.Y - q.Z*r.Z,
		X: q.W*r.X + q.X*r.W + q.Y*r.Z - q.Z*r.Y,
		Y: q.W*r.Y - q.X*r.Z + q.Y*r.W + q.Z*r.X,
		Z: q.W*r.Z + q.X*r.Y - q.Y*r.X + q.Z*r.W,
	}
}

// Conj returns the conjugate of q, the inverse rotation for a unit quaternion.
func (q Quat) Conj() Quat { return Quat{q.W, -q.X, -q.Y, -q.Z} }

// Dot returns the four-dimensional dot product of q and r.
func (q Quat) Dot(r Quat) float64 { return q.W*r.W + q.X*r.X + q.Y*r.Y + q.Z*r.Z }

// Len returns the norm of q.
func (q Quat) Len() float64 { return math.Sqrt(q.Dot(q)) }

// Norm returns q scaled to unit length; a zero quaternion gives Identity.
func (q Quat) Norm() Quat {
	l := q.Len()
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		return Identity
	}
	return Quat{q.W / l, q.X / l, q.Y / l, q.Z / l}
}

// Neg returns -q, which is the same rotation as q.
func (q Quat) Neg() Quat { return Quat{-q.W, -q.X, -q.Y, -q.Z} }

// Rotate returns v rotated by the unit quaternion q.
func (q Quat) Rotate(v Vec3) Vec3 {
	u := Vec3{q.X, q.Y, q.Z}
	t := u.Cross(v).Scale(2)
	return v.AddScaled(t, q.W).Add(u.Cross(t))
}

// Angle returns the angle in radians, in [0, π], of the shortest rotation from q
// to r (both unit quaternions). It is accurate for tiny angles too.
func (q Quat) Angle(r Quat) float64 {
	d := q.Conj().Mul(r)
	return 2 * math.Atan2(math.Sqrt(d.X*d.X+d.Y*d.Y+d.Z*d.Z), math.Abs(d.W))
}

// Integrate returns q advanced by the angular velocity w (radians per second,
// world frame) over dt seconds, as the exact rotation of angle |w|·dt about w.
func (q Quat) Integrate(w Vec3, dt float64) Quat {
	angle := w.Len() * dt
	if angle == 0 {
		return q
	}
	return AxisAngle(w, angle).Mul(q).Norm()
}

// Slerp interpolates from q to r at fraction t in [0, 1] at constant angular
// speed along the shortest arc. Both must be unit quaternions.
func Slerp(q, r Quat, t float64) Quat {
	d := q.Dot(r)
	if d < 0 {
		r, d = r.Neg(), -d
	}
	if d > 0.9995 {
		return Nlerp(q, r, t)
	}
	theta := math.Acos(d)
	s := math.Sin(theta)
	a := math.Sin((1-t)*theta) / s
	b := math.Sin(t*theta) / s
	return Quat{a*q.W + b*r.W, a*q.X + b*r.X, a*q.Y + b*r.Y, a*q.Z + b*r.Z}
}

// Nlerp interpolates linearly from q to r along the shortest arc and normalises:
// cheaper than Slerp, not constant speed.
func Nlerp(q, r Quat, t float64) Quat {
	if q.Dot(r) < 0 {
		r = r.Neg()
	}
	return Quat{
		q.W + (r.W-q.W)*t, q.X + (r.X-q.X)*t, q.Y + (r.Y-q.Y)*t, q.Z + (r.Z-q.Z)*t,
	}.Norm()
}
