package replica

import (
	"time"

	"github.com/tether-net/tether/wire"
)

// A spinning body's rotation predicted: a sample's smallest-three rotation
// turned by its angular velocity over the time to the snapshot, in
// integers, so that server and client predict the very same components
// whatever their floating point.

// turnOne is 1 in the turn's fixed point (2^-24 steps).
const turnOne = 1 << 24

// Angles in turnOne steps of a radian.
const (
	turnPi     = 52707179 // π
	turnHalfPi = 26353589 // π/2
)

// turnMaxSpin bounds the sum of the two spins on an axis that the turn
// follows, thousandths of a radian per second: a mean spin over 1048.576
// rad/s is held.
const turnMaxSpin = 1 << 21

// Turn sets pred's rotation to sample s's turned ahead to t at the mean of
// s's angular velocity and pred's, about fixed axes as the physics turns a
// body (geom.Quat.Integrate), in integers: the same components on every
// machine. An axis without an AngularVelocity component does not spin. The
// rotation is s's when the kind has no Rotation or no AngularVelocity, when
// t-s.Time in whole microseconds is not within (0, 1 s], when the mean spin
// on an axis exceeds 1048.576 rad/s, or when half the turn exceeds 64
// radians.
func (l *Layout) Turn(pred []int64, s Sample, t time.Duration) {
	r, a := l.Rot, l.AngVel
	if r < 0 || a[0] < 0 && a[1] < 0 && a[2] < 0 {
		return
	}
	for j := range 4 {
		pred[r+j] = int64(s.Q[r+j])
	}
	us := int64((t - s.Time) / time.Microsecond)
	if us <= 0 || us > 1e6 {
		return
	}
	var h [3]int64 // half the turn, turnOne steps of a radian
	n2 := int64(0)
	for i, c := range a {
		if c < 0 {
			continue
		}
		w := int64(s.Q[c]) + pred[c] // twice the mean, steps
		if abs64(w)*1000 > turnMaxSpin*uint64(l.AngVelScale) {
			return
		}
		// A quarter of w·dt (the mean, halved), radians in turnOne steps.
		h[i] = MulDiv(w*us, turnOne/4, l.AngVelScale*1e6)
		if h[i] > 1<<30 || h[i] < -1<<30 {
			return
		}
		n2 += h[i] * h[i]
	}
	n := wire.Isqrt(n2)
	if n == 0 {
		return
	}
	// sin and cos of n: n mod 2π, folded into [-π/2, π/2].
	x := n % (2 * turnPi)
	if x > turnPi {
		x -= 2 * turnPi
	}
	flip := int64(1)
	switch {
	case x > turnHalfPi:
		x, flip = turnPi-x, -1
	case x < -turnHalfPi:
		x, flip = -turnPi-x, -1
	}
	sn, cs := sinCos(x)
	d := [4]int64{cs * flip, h[0] * sn / n, h[1] * sn / n, h[2] * sn / n}
	q := l.rotInts(s.Q[r : r+4])
	p := [4]int64{
		d[0]*q[0] - d[1]*q[1] - d[2]*q[2] - d[3]*q[3],
		d[0]*q[1] + d[1]*q[0] + d[2]*q[3] - d[3]*q[2],
		d[0]*q[2] - d[1]*q[3] + d[2]*q[0] + d[3]*q[1],
		d[0]*q[3] + d[1]*q[2] - d[2]*q[1] + d[3]*q[0],
	}
	for i := range p {
		p[i] = wire.RoundDiv(p[i], turnOne)
	}
	l.packInts(pred[r:r+4], p)
}

// rotSteps is a rotation component's largest magnitude, and rotScale
// √2·rotSteps in thousandths (rounded): a unit component in steps.
func (l *Layout) rotSteps() (steps, scale int64) {
	steps = int64(1)<<(l.RotBits-1) - 1
	// round(√(2e6)·steps) = ⌊(⌊√(8e6·steps²)⌋+1)/2⌋.
	return steps, (wire.Isqrt(8e6*steps*steps) + 1) / 2
}

// rotInts returns rotation components q (the largest's index, then the
// other three in order) as W, X, Y, Z in turnOne steps.
func (l *Layout) rotInts(q []int32) [4]int64 {
	_, scale := l.rotSteps()
	big := int(q[0] & 3)
	var c [4]int64
	sum, k := int64(0), 1
	for i := range 4 {
		if i == big {
			continue
		}
		c[i] = wire.RoundDiv(int64(q[k])*turnOne*1000, scale)
		sum += c[i] * c[i]
		k++
	}
	c[big] = wire.Isqrt(turnOne*turnOne - sum)
	return c
}

// packInts writes W, X, Y, Z in turnOne steps into rotation components q
// (the largest's index, then the other three in order) as
// geom.PackSmallestThree packs a quaternion.
func (l *Layout) packInts(q []int64, c [4]int64) {
	steps, scale := l.rotSteps()
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
	q[0] = int64(big)
	k := 1
	for i := range 4 {
		if i == big {
			continue
		}
		q[k] = min(max(wire.RoundDiv(c[i]*sign*scale, turnOne*1000), -steps), steps)
		k++
	}
}

// sinCos returns the sine and cosine of x, in turnOne steps, for |x| ≤ π/2
// (Taylor series to x^13 and x^14: within 2^-24 there).
func sinCos(x int64) (s, c int64) {
	x2 := x * x / turnOne
	s, c = turnOne, turnOne
	for _, d := range [...]int64{156, 110, 72, 42, 20, 6} {
		s = turnOne - x2*s/(d*turnOne)
	}
	for _, d := range [...]int64{182, 132, 90, 56, 30, 12, 2} {
		c = turnOne - x2*c/(d*turnOne)
	}
	return x * s / turnOne, c
}
