package geom

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/num/quat"
	"gonum.org/v1/gonum/spatial/r3"
	"pgregory.net/rapid"
)

func genVec(t *rapid.T, label string) Vec3 {
	f := rapid.Float64Range(-1e3, 1e3)
	return Vec3{f.Draw(t, label+".x"), f.Draw(t, label+".y"), f.Draw(t, label+".z")}
}

func genRot(t *rapid.T, label string) Quat {
	f := rapid.Float64Range(-1, 1)
	q := Quat{f.Draw(t, label+".w"), f.Draw(t, label+".x"), f.Draw(t, label+".y"), f.Draw(t, label+".z")}
	if q.Len() < 1e-3 {
		return Identity
	}
	return q.Norm()
}

func r3v(v Vec3) r3.Vec           { return r3.Vec{X: v.X, Y: v.Y, Z: v.Z} }
func gq(q Quat) quat.Number       { return quat.Number{Real: q.W, Imag: q.X, Jmag: q.Y, Kmag: q.Z} }
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }
func nearVec(a Vec3, b r3.Vec, tol float64) bool {
	return near(a.X, b.X, tol) && near(a.Y, b.Y, tol) && near(a.Z, b.Z, tol)
}

func TestVecAgainstGonum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genVec(t, "a"), genVec(t, "b")
		s := rapid.Float64Range(-10, 10).Draw(t, "s")
		if !nearVec(a.Add(b), r3.Add(r3v(a), r3v(b)), 1e-12) ||
			!nearVec(a.Sub(b), r3.Sub(r3v(a), r3v(b)), 1e-12) ||
			!nearVec(a.Scale(s), r3.Scale(s, r3v(a)), 1e-12) ||
			!nearVec(a.Cross(b), r3.Cross(r3v(a), r3v(b)), 1e-9) {
			t.Fatalf("arithmetic differs from gonum for %v, %v", a, b)
		}
		if !near(a.Dot(b), r3.Dot(r3v(a), r3v(b)), 1e-9) || !near(a.Len(), r3.Norm(r3v(a)), 1e-12) {
			t.Fatalf("dot/len differ from gonum for %v, %v", a, b)
		}
		if a.Len() > 1e-6 && !nearVec(a.Norm(), r3.Unit(r3v(a)), 1e-12) {
			t.Fatalf("norm differs from gonum for %v", a)
		}
	})
}

func TestQuatAgainstGonum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q, r := genRot(t, "q"), genRot(t, "r")
		v := genVec(t, "v")
		m := quat.Mul(gq(q), gq(r))
		got := q.Mul(r)
		if !near(got.W, m.Real, 1e-12) || !near(got.X, m.Imag, 1e-12) || !near(got.Y, m.Jmag, 1e-12) || !near(got.Z, m.Kmag, 1e-12) {
			t.Fatalf("Mul(%v, %v) = %v, gonum %v", q, r, got, m)
		}
		rot := r3.Rotation(gq(q))
		if want := rot.Rotate(r3v(v)); !nearVec(q.Rotate(v), want, 1e-9) {
			t.Fatalf("Rotate(%v) by %v = %v, gonum %v", v, q, q.Rotate(v), want)
		}
	})
}

func TestAxisAngleMatchesGonum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		axis := genVec(t, "axis")
		if axis.Len() < 1e-6 {
			return
		}
		angle := rapid.Float64Range(-2*math.Pi, 2*math.Pi).Draw(t, "angle")
		v := genVec(t, "v")
		want := r3.NewRotation(angle, r3v(axis)).Rotate(r3v(v))
		if got := AxisAngle(axis, angle).Rotate(v); !nearVec(got, want, 1e-9) {
			t.Fatalf("AxisAngle(%v, %v).Rotate(%v) = %v, gonum %v", axis, angle, v, got, want)
		}
	})
}

func TestSlerpShortestConstantSpeed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q, r := genRot(t, "q"), genRot(t, "r")
		u := rapid.Float64Range(0, 1).Draw(t, "u")
		s := Slerp(q, r, u)
		if !near(s.Len(), 1, 1e-9) {
			t.Fatalf("Slerp not unit: %v", s.Len())
		}
		total := q.Angle(r)
		if !near(q.Angle(s), u*total, 1e-6) || !near(s.Angle(r), (1-u)*total, 1e-6) {
			t.Fatalf("Slerp(%v) angles %v + %v, want %v split at %v", u, q.Angle(s), s.Angle(r), total, u)
		}
		n := Nlerp(q, r, u)
		if q.Angle(n)+n.Angle(r) > total+1e-6 {
			t.Fatalf("Nlerp left the shortest arc")
		}
	})
}

// Across ±180° of yaw the shortest path is 20°, not 340°: the seed design's Euler
// lerp goes the long way round.
func TestSlerpAcrossHalfTurn(t *testing.T) {
	up := V(0, 1, 0)
	a := AxisAngle(up, math.Pi-10*math.Pi/180)
	b := AxisAngle(up, -math.Pi+10*math.Pi/180)
	mid := Slerp(a, b, 0.5)
	if got := mid.Angle(AxisAngle(up, math.Pi)); got > 1e-9 {
		t.Fatalf("midpoint is %v rad from yaw 180°", got)
	}
}

func TestIntegrate(t *testing.T) {
	w := V(0, 0, 2) // 2 rad/s about Z
	q := Identity
	for i := 0; i < 60; i++ {
		q = q.Integrate(w, 1.0/60)
	}
	if got := q.Angle(AxisAngle(w, 2)); got > 1e-9 {
		t.Fatalf("after 1 s at 2 rad/s: %v rad off", got)
	}
}

func TestHermite(t *testing.T) {
	// A ballistic arc is a quadratic: Hermite reproduces it exactly.
	g := V(0, -9.81, 0)
	p0, v0 := V(0, 0, 0), V(10, 8, 0)
	dt := 0.1
	at := func(s float64) (Vec3, Vec3) { return p0.AddScaled(v0, s).AddScaled(g, s*s/2), v0.AddScaled(g, s) }
	p1, v1 := at(dt)
	for _, u := range []float64{0, 0.25, 0.5, 0.9, 1} {
		pos, vel := Hermite(p0, v0, p1, v1, dt, u)
		wp, wv := at(u * dt)
		if pos.Dist(wp) > 1e-12 || vel.Dist(wv) > 1e-9 {
			t.Fatalf("u=%v: got %v %v want %v %v", u, pos, vel, wp, wv)
		}
	}
}

func TestSmallestThree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := genRot(t, "q")
		bits := uint(rapid.IntRange(9, 20).Draw(t, "bits"))
		got := UnpackSmallestThree(PackSmallestThree(q, bits), bits)
		// Each component is quantised to a step of 1/(√2·(2^(bits-1)-1)).
		tol := 4 / (math.Sqrt2 * float64(uint64(1)<<(bits-1)-1))
		if a := got.Angle(q); a > tol {
			t.Fatalf("bits=%d: %v came back as %v, %v rad off (tol %v)", bits, q, got, a, tol)
		}
	})
}

func TestIsFinite(t *testing.T) {
	if !V(1e308, 1e308, 1e308).IsFinite() {
		t.Error("large finite vector reported non-finite")
	}
	for _, v := range []Vec3{V(math.NaN(), 0, 0), V(0, math.Inf(1), 0), V(0, 0, math.Inf(-1))} {
		if v.IsFinite() {
			t.Errorf("%v reported finite", v)
		}
	}
}

func TestSmallestThreeIdentityExact(t *testing.T) {
	for _, bits := range []uint{9, 14, 20} {
		if got := UnpackSmallestThree(PackSmallestThree(Identity, bits), bits); got != Identity {
			t.Errorf("bits=%d: Identity came back as %v", bits, got)
		}
	}
}

func TestWrapAngle(t *testing.T) {
	for _, c := range [][2]float64{{0, 0}, {math.Pi, math.Pi}, {-math.Pi, math.Pi}, {3 * math.Pi / 2, -math.Pi / 2}, {-5 * math.Pi / 2, -math.Pi / 2}, {7, 7 - 2*math.Pi}} {
		if got := WrapAngle(c[0]); math.Abs(got-c[1]) > 1e-12 {
			t.Errorf("WrapAngle(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}

func TestAxis(t *testing.T) {
	v := V(1, 2, 3)
	for k, want := range []float64{1, 2, 3} {
		if v.Axis(k) != want {
			t.Errorf("Axis(%d) = %v, want %v", k, v.Axis(k), want)
		}
		v.SetAxis(k, -want)
	}
	if v != V(-1, -2, -3) {
		t.Errorf("after SetAxis: %v", v)
	}
}
