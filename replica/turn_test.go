package replica

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

// spinner declares a rigid body: a rotation of bits bits a component and
// an angular velocity in mrad/s.
func spinner(t *testing.T, bits int) Layout {
	t.Helper()
	s, err := NewSchema(Kind{Fields: []Field{
		Position(1000, XYZ), Velocity(1000, XYZ), Rotation(bits), AngularVelocity(1000, XYZ),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s.Layout(0)
}

// sample is a body at rotation q spinning at w (rad/s), at time 1 s.
func (l *Layout) sample(q geom.Quat, w geom.Vec3) Sample {
	v := make([]int32, l.N)
	packed := geom.PackSmallestThree(q, uint(l.RotBits))
	mask := uint64(1)<<l.RotBits - 1
	steps, _ := l.rotSteps()
	v[l.Rot] = int32(packed >> (3 * l.RotBits))
	for j := range 3 {
		v[l.Rot+1+j] = int32(int64(packed>>(uint(2-j)*uint(l.RotBits))&mask) - steps)
	}
	for i, c := range l.AngVel {
		v[c] = int32(math.Round(w.Axis(i) * float64(l.AngVelScale)))
	}
	return Sample{Time: time.Second, Q: v}
}

// quat is values q's rotation.
func (l *Layout) quat(q []int64) geom.Quat {
	steps, _ := l.rotSteps()
	packed := uint64(q[l.Rot])
	for j := 1; j <= 3; j++ {
		packed = packed<<l.RotBits | uint64(q[l.Rot+j]+steps)
	}
	return geom.UnpackSmallestThree(packed, uint(l.RotBits))
}

// The turn's integers turn a rotation as the physics turns a body
// (geom.Quat.Integrate), to a step a component, at any precision: a body
// spinning steadily costs its rotation nothing.
func TestTurn(t *testing.T) {
	q := geom.AxisAngle(geom.V(0.3, 1, -0.2), 1.1)
	for _, bits := range []int{8, 14, 20} {
		l := spinner(t, bits)
		for _, w := range []geom.Vec3{geom.V(0, 0, 0.5), geom.V(3, 0, -20), geom.V(50, 2, 80), geom.V(-90, 0, 10)} {
			for _, dt := range []time.Duration{33 * time.Millisecond, 133 * time.Millisecond, 400 * time.Millisecond} {
				s := l.sample(q, w)
				spin := geom.V(float64(s.Q[l.AngVel[0]]), float64(s.Q[l.AngVel[1]]), float64(s.Q[l.AngVel[2]])).Scale(1 / float64(l.AngVelScale))
				want := l.sample(l.quat(l.hold(s)).Integrate(spin, dt.Seconds()), spin)
				got := l.hold(s)
				l.Turn(got, s, s.Time+dt)
				same := got[l.Rot] == int64(want.Q[l.Rot])
				for j := 1; j <= 3; j++ {
					if d := got[l.Rot+j] - int64(want.Q[l.Rot+j]); d < -1 || d > 1 {
						same = false
					}
				}
				if !same {
					t.Errorf("%d bits, spin %v for %v: turned to %v, want %v", bits, w, dt, got[l.Rot:l.Rot+4], want.Q[l.Rot:l.Rot+4])
				}
			}
		}
		// No spin, no time, or too long: the rotation held.
		s := l.sample(geom.AxisAngle(geom.V(1, 0, 0), 2), geom.Vec3{})
		for _, c := range []struct {
			w  geom.Vec3
			dt time.Duration
		}{{geom.Vec3{}, time.Second}, {geom.V(1, 2, 3), 0}, {geom.V(1, 2, 3), time.Second + time.Microsecond}, {geom.V(0, 1100, 0), time.Millisecond}} {
			s := l.sample(l.quat(l.hold(s)), c.w)
			got := l.hold(s)
			got[l.Rot] = -1
			l.Turn(got, s, s.Time+c.dt)
			for j := range 4 {
				if got[l.Rot+j] != int64(s.Q[l.Rot+j]) {
					t.Errorf("%d bits, spin %v for %v: turned to %v, want %v", bits, c.w, c.dt, got[l.Rot:l.Rot+4], s.Q[l.Rot:l.Rot+4])
					break
				}
			}
		}
	}
}

// hold is sample s's values.
func (l *Layout) hold(s Sample) []int64 {
	v := make([]int64, l.N)
	Hold{}.Predict(l, v, []Sample{s}, s.Time)
	return v
}

// The turn's unit component in steps, computed in integers, is √2 times a
// component's largest magnitude, in thousandths, rounded.
func TestRotScale(t *testing.T) {
	for bits := 2; bits <= 20; bits++ {
		l := Layout{RotBits: bits}
		steps, scale := l.rotSteps()
		if want := int64(math.Round(math.Sqrt2 * float64(steps) * 1000)); scale != want {
			t.Errorf("%d bits: scale %d, want %d", bits, scale, want)
		}
	}
}
