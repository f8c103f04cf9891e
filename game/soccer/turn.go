package soccer

import (
	"math"

	"github.com/tether-net/tether/wire"
)

// The rotation prediction of the per-client deltas: a baseline ball's
// packed rotation (geom.PackSmallestThree, wire.RotBits a component) turned
// by its angular velocity over the time to the snapshot, in integers, so
// that server and client predict the very same packed rotation whatever
// their floating point.

// rotOne is 1 in the prediction's fixed point (2^-24 steps).
const rotOne = 1 << 24

// rotSteps is a packed component's largest magnitude.
const rotSteps = int64(1)<<(wire.RotBits-1) - 1

// rotScale is √2·rotSteps, in thousandths: a unit component in packed steps.
var rotScale = int64(math.Round(math.Sqrt2 * float64(rotSteps) * 1000))

// Angles in rotOne steps of a radian.
const (
	rotPi     = 52707179 // π
	rotHalfPi = 26353589 // π/2
)

// rotInts returns packed rotation v's components W, X, Y, Z in rotOne steps.
func rotInts(v uint64) [4]int64 {
	const bits = wire.RotBits
	mask := uint64(1)<<bits - 1
	big := int(v >> (3 * bits) & 3)
	var c [4]int64
	sum, shift := int64(0), uint(0)
	for i := 3; i >= 0; i-- {
		if i == big {
			continue
		}
		x := int64(v>>shift&mask) - rotSteps
		c[i] = wire.RoundDiv(x*rotOne*1000, rotScale)
		sum += c[i] * c[i]
		shift += bits
	}
	c[big] = wire.Isqrt(rotOne*rotOne - sum)
	return c
}

// packInts packs components W, X, Y, Z in rotOne steps as
// geom.PackSmallestThree packs a quaternion.
func packInts(c [4]int64) uint64 {
	big := 0
	for i := 1; i < 4; i++ {
		if abs64(c[i]) > abs64(c[big]) {
			big = i
		}
	}
	sign := int64(1)
	if c[big] < 0 {
		sign = -1
	}
	v := uint64(big)
	for i := range 4 {
		if i == big {
			continue
		}
		x := min(max(wire.RoundDiv(c[i]*sign*rotScale, rotOne*1000), -rotSteps), rotSteps)
		v = v<<wire.RotBits | uint64(x+rotSteps)
	}
	return v
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// sinCos returns the sine and cosine of x, in rotOne steps, for |x| ≤ π/2
// (Taylor series to x^13 and x^14: within 2^-24 there).
func sinCos(x int64) (s, c int64) {
	x2 := x * x / rotOne
	s, c = rotOne, rotOne
	for _, d := range [...]int64{156, 110, 72, 42, 20, 6} {
		s = rotOne - x2*s/(d*rotOne)
	}
	for _, d := range [...]int64{182, 132, 90, 56, 30, 12, 2} {
		c = rotOne - x2*c/(d*rotOne)
	}
	return x * s / rotOne, c
}

// rotAhead returns packed rotation rot turned for dt nanoseconds at the
// mean of angular velocities w0 and w1 (wire.AngVelUnit steps), about fixed
// axes as the physics turns a body: rot itself when there is no turn, or
// when the turn is out of the prediction's range (over half a second at
// more than 1000 rad/s, or dt beyond a second).
func rotAhead(rot uint64, w0, w1 [3]int64, dt int64) uint64 {
	if dt <= 0 || dt > 1e9 || rot>>wire.RotPackBits != 0 {
		return rot
	}
	us := dt / 1000
	var h [3]int64 // half the turn, rotOne steps of a radian
	n2 := int64(0)
	for i := range h {
		w := w0[i] + w1[i] // twice the mean, mrad/s
		if w > 1<<21 || w < -1<<21 {
			return rot
		}
		// mrad/s × µs = 1e-9 rad; a quarter of it (the mean, halved) in
		// 2^-24 rad: × 2^22/1e9 = 2^13/5^9.
		h[i] = wire.RoundDiv(w*us*(1<<13), 1953125)
		if h[i] > 1<<30 || h[i] < -1<<30 {
			return rot
		}
		n2 += h[i] * h[i]
	}
	n := wire.Isqrt(n2)
	if n == 0 {
		return rot
	}
	// sin and cos of n: n mod 2π, folded into [-π/2, π/2].
	a := n % (2 * rotPi)
	if a > rotPi {
		a -= 2 * rotPi
	}
	flip := int64(1)
	switch {
	case a > rotHalfPi:
		a, flip = rotPi-a, -1
	case a < -rotHalfPi:
		a, flip = -rotPi-a, -1
	}
	s, c := sinCos(a)
	c *= flip
	d := [4]int64{c, h[0] * s / n, h[1] * s / n, h[2] * s / n}
	q := rotInts(rot)
	p := [4]int64{
		d[0]*q[0] - d[1]*q[1] - d[2]*q[2] - d[3]*q[3],
		d[0]*q[1] + d[1]*q[0] + d[2]*q[3] - d[3]*q[2],
		d[0]*q[2] - d[1]*q[3] + d[2]*q[0] + d[3]*q[1],
		d[0]*q[3] + d[1]*q[2] - d[2]*q[1] + d[3]*q[0],
	}
	for i := range p {
		p[i] = wire.RoundDiv(p[i], rotOne)
	}
	return packInts(p)
}
