package physics

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tether-net/tether/geom"
)

func TestInvalidParameters(t *testing.T) {
	for _, cfg := range []Config{{StepHz: -1}, {StepHz: 20000}, {SubSteps: 65}, {Gravity: geom.V(math.NaN(), 0, 0)}} {
		if _, err := NewWorld(cfg); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewWorld(%+v) = %v, want ErrInvalid", cfg, err)
		}
	}
	w := newWorld(t, Config{})
	good := testBall(geom.V(0, 1, 0), geom.Vec3{})
	bad := []func(*Sphere){
		func(s *Sphere) { s.Radius = 0 },
		func(s *Sphere) { s.Mass = -1 },
		func(s *Sphere) { s.Pos.X = math.Inf(1) },
		func(s *Sphere) { s.Material.Restitution = 1.5 },
		func(s *Sphere) { s.Material.Friction = math.NaN() },
		func(s *Sphere) { s.Drag = -1 },
	}
	for i, f := range bad {
		s := good
		f(&s)
		if _, err := w.AddSphere(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("sphere %d: err = %v, want ErrInvalid", i, err)
		}
	}
	if _, err := w.AddCapsule(Capsule{Radius: 0.5, Height: 0.9}); !errors.Is(err, ErrInvalid) {
		t.Errorf("short capsule: err = %v", err)
	}
	if _, err := w.AddPlane(Plane{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero normal: err = %v", err)
	}
	if _, err := w.AddBox(Box{Half: geom.V(1, 0, 1)}); !errors.Is(err, ErrInvalid) {
		t.Errorf("flat box: err = %v", err)
	}
	if err := w.Restore(make([]BodyState, 3)); !errors.Is(err, ErrInvalid) {
		t.Errorf("Restore of the wrong size: err = %v", err)
	}
}

// A dropped ball's impact speeds fall by the restitution and its bounce heights
// by its square.
func TestBounceDecaysByRestitution(t *testing.T) {
	w := newWorld(t, Config{})
	ground := addGround(t, w)
	ball := must(w.AddSphere(testBall(geom.V(0, 2+ballR, 0), geom.Vec3{})))
	var impacts, peaks []float64
	peak, rising := 0.0, false
	for range 300 {
		w.Step()
		for _, c := range w.Contacts() {
			if c.Shape == ground && c.Speed > 0.5 {
				impacts = append(impacts, c.Speed)
			}
		}
		s := w.Body(ball)
		if s.Vel.Y > 0 {
			rising, peak = true, math.Max(peak, s.Pos.Y-ballR)
		} else if rising {
			rising = false
			peaks = append(peaks, math.Max(peak, s.Pos.Y-ballR))
			peak = 0
		}
	}
	if len(impacts) < 4 || len(peaks) < 3 {
		t.Fatalf("impacts %v, peaks %v", impacts, peaks)
	}
	if v := math.Sqrt(2 * 9.81 * 2); !near(impacts[0], v, 0.01) {
		t.Errorf("first impact at %.4f m/s, want %.4f", impacts[0], v)
	}
	for i := 1; i < 4; i++ {
		if r := impacts[i] / impacts[i-1]; !near(r, 0.65, 0.002) {
			t.Errorf("impact %d/%d = %.4f, want 0.65", i, i-1, r)
		}
	}
	h := append([]float64{2}, peaks...)
	for i := 1; i < 4; i++ {
		if r := h[i] / h[i-1]; !near(r, 0.65*0.65, 0.015) {
			t.Errorf("height %d/%d = %.4f (%.4f m), want %.4f", i, i-1, r, h[i], 0.65*0.65)
		}
	}
	if s := w.Body(ball); s.Pos.Y != ballR || s.Vel != (geom.Vec3{}) {
		t.Errorf("after 5 s the ball is at %v moving %v, want at rest on the ground", s.Pos, s.Vel)
	}
}

// A rolling ball slows by RollingResistance·g, stops and stays stopped.
func TestRollingResistance(t *testing.T) {
	w := newWorld(t, Config{})
	addGround(t, w)
	b := testBall(geom.V(0, ballR, 0), geom.V(4, 0, 0))
	b.AngVel = geom.V(0, 0, -4/ballR) // rolling
	ball := must(w.AddSphere(b))
	for range 60 {
		w.Step()
	}
	if v := w.Body(ball).Vel; !near(v.X, 4-0.1*9.81, 1e-9) || v.Y != 0 || v.Z != 0 {
		t.Errorf("after 1 s: velocity %v, want (%.4f, 0, 0)", v, 4-0.981)
	}
	stop := 4 / 0.981 // s
	for range 240 {
		w.Step()
	}
	s := w.Body(ball)
	if s.Vel.Len() > 1e-12 || s.AngVel.Len() > 1e-9 {
		t.Fatalf("after 5 s: velocity %v, spin %v, want stopped", s.Vel, s.AngVel)
	}
	if want := 4*stop - 0.5*0.981*stop*stop; !near(s.Pos.X, want, 0.05) {
		t.Errorf("stopped at x = %.4f, want %.4f", s.Pos.X, want)
	}
	for range 60 {
		w.Step()
	}
	if w.Body(ball) != s {
		t.Errorf("a stopped ball moved: %v then %v", s, w.Body(ball))
	}
}

// A ball that lands with backspin skids and then rolls at the speed angular
// momentum about the contact line allows; one with spin about its direction of
// travel curls sideways.
func TestSpinningBallLands(t *testing.T) {
	const k = 2.0 / 3 // I = k·m·r²
	for _, tc := range []struct {
		name     string
		vel, ang geom.Vec3
		want     geom.Vec3 // rolling velocity at the end
	}{
		{"backspin", geom.V(6, 3, 0), geom.V(0, 0, 25), geom.V((6-k*ballR*25)/(1+k), 0, 0)},
		{"topspin", geom.V(6, 3, 0), geom.V(0, 0, -25), geom.V((6+k*ballR*25)/(1+k), 0, 0)},
		{"side spin", geom.V(10, 0, 0), geom.V(30, 0, 0), geom.V(10/(1+k), 0, k*ballR*30/(1+k))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, Config{SubSteps: 2})
			addGround(t, w)
			b := testBall(geom.V(0, 1, 0), tc.vel)
			b.AngVel, b.Material.RollingResistance = tc.ang, 0
			ball := must(w.AddSphere(b))
			for range 240 {
				w.Step()
			}
			s := w.Body(ball)
			if d := s.Vel.Sub(tc.want).Len(); d > 1e-9 {
				t.Errorf("velocity %v, want %v", s.Vel, tc.want)
			}
			roll := geom.V(0, 1, 0).Cross(s.Vel).Scale(1 / ballR)
			if d := s.AngVel.Sub(roll).Len(); d > 1e-6 {
				t.Errorf("spin %v, want rolling %v", s.AngVel, roll)
			}
		})
	}
}

// Lift bends the path towards ω × v and drag slows the ball.
func TestLiftAndDrag(t *testing.T) {
	w := newWorld(t, Config{})
	b := testBall(geom.V(0, 10, 0), geom.V(25, 0, 0))
	b.AngVel, b.Lift, b.Drag = geom.V(0, 50, 0), 0.005, 0.013
	ball := must(w.AddSphere(b))
	for range 30 {
		w.Step()
	}
	s := w.Body(ball)
	// ω × v = (0, 50, 0) × (25, 0, 0) points along -Z.
	if s.Pos.Z > -0.5 || s.Vel.Z > -1 {
		t.Errorf("with spin about +Y the ball went to z = %.3f (vz %.3f), want a curl to -Z", s.Pos.Z, s.Vel.Z)
	}
	if h := math.Hypot(s.Vel.X, s.Vel.Z); h > 25-1 {
		t.Errorf("horizontal speed %.3f after 0.5 s of drag, want well below 25", h)
	}
}

// A moving capsule pushes a ball ahead of it and never overlaps it.
func TestCapsulePushesBall(t *testing.T) {
	for _, speed := range []float64{0.1, 1, 3, 8} {
		w := newWorld(t, Config{})
		addGround(t, w)
		ball := must(w.AddSphere(testBall(geom.V(2, ballR, 0), geom.Vec3{})))
		player := must(w.AddCapsule(Capsule{Pos: geom.V(0, 0, 0), Vel: geom.V(speed, 0, 0), Radius: 0.35, Height: 1.8,
			Material: Material{Restitution: 0.5, Friction: 0.5}}))
		touched := false
		steps := int(60*2/speed) + 30
		for range steps {
			w.Step()
			for _, c := range w.Contacts() {
				if c.Body == ball && c.Other == player {
					touched = true
				}
			}
			b, p := w.Body(ball), w.Body(player)
			if gap, _ := capsuleGap(b.Pos.Sub(p.Pos), 0.35, 1.8-0.35); gap < 0.46-1e-9 {
				t.Fatalf("speed %v: ball %v overlaps the capsule at %v (gap %v)", speed, b.Pos, p.Pos, gap)
			}
		}
		b, p := w.Body(ball), w.Body(player)
		if !touched || b.Pos.X <= p.Pos.X+0.35 {
			t.Errorf("speed %v: touched %v, ball at %v, capsule at %v: want the ball pushed ahead", speed, touched, b.Pos, p.Pos)
		}
		if speed >= 1 && b.Vel.X < speed*0.9 {
			t.Errorf("speed %v: the ball moves at %v after the push", speed, b.Vel)
		}
	}
}

// Capsules running into one another end up side by side, never overlapping, and
// the result does not depend on the order they were added in.
func TestCapsulesDoNotOverlap(t *testing.T) {
	// Players moving at random about a small arena.
	w, _, players := arena(t, Config{}, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	for step := range 600 {
		steer(w, players, rng)
		w.Step()
		if d, i, j := closestCapsules(w, players); d < 0.7-1e-6 {
			t.Fatalf("step %d: capsules %d and %d overlap (%.6f m apart)", step, i, j, d)
		}
	}

	// Twelve players running into the same spot from all sides, for two seconds:
	// a scrum pressed from every side is pushed apart too.
	build := func(reverse bool) (*World, []BodyID) {
		w := newWorld(t, Config{})
		rng := rand.New(rand.NewPCG(5, 5))
		caps := make([]Capsule, 12)
		for i := range caps {
			a := float64(i) / float64(len(caps)) * 2 * math.Pi
			pos := geom.V(4*math.Cos(a)+rng.Float64()*0.1, 0, 4*math.Sin(a)+rng.Float64()*0.1)
			caps[i] = Capsule{Pos: pos, Vel: pos.Scale(-1.5), Radius: 0.35, Height: 1.8}
		}
		ids := make([]BodyID, len(caps))
		for i := range caps {
			j := i
			if reverse {
				j = len(caps) - 1 - i
			}
			ids[j] = must(w.AddCapsule(caps[j]))
		}
		return w, ids
	}
	w1, ids1 := build(false)
	w2, ids2 := build(true)
	for step := range 120 {
		w1.Step()
		w2.Step()
		for i := range ids1 {
			a, b := w1.Body(ids1[i]).Pos, w2.Body(ids2[i]).Pos
			if a.Sub(b).Len() > 1e-9 {
				t.Fatalf("step %d: capsule %d at %v or %v depending on the order", step, i, a, b)
			}
		}
		if d, i, j := closestCapsules(w1, ids1); d < 0.7-1e-6 {
			t.Fatalf("step %d: capsules %d and %d overlap (%.6f m apart)", step, i, j, d)
		}
	}

	// Two capsules meeting head on are pushed back symmetrically.
	w = newWorld(t, Config{})
	a := must(w.AddCapsule(Capsule{Pos: geom.V(-1, 0, 0), Vel: geom.V(2, 0, 0), Radius: 0.35, Height: 1.8}))
	b := must(w.AddCapsule(Capsule{Pos: geom.V(1, 0, 0), Vel: geom.V(-2, 0, 0), Radius: 0.35, Height: 1.8}))
	for range 60 {
		w.Step()
	}
	if pa, pb := w.Body(a).Pos, w.Body(b).Pos; pa.X != -pb.X || pa.X != -0.35 {
		t.Errorf("head on: %v and %v, want ±0.35", pa, pb)
	}
}

// Contacts never add energy: a spinning, bouncing ball among walls, posts and
// standing players, and spheres colliding in a box.
func TestEnergyDoesNotIncrease(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		w, ball, players := arena(t, Config{}, seed)
		for _, p := range players {
			w.SetVelocity(p, geom.Vec3{})
		}
		w.bodies[ball].drag, w.bodies[ball].lift = 0, 0
		rng := rand.New(rand.NewPCG(seed, 9))
		s := w.Body(ball)
		s.Vel = geom.V(rng.Float64()*60-30, rng.Float64()*20, rng.Float64()*60-30)
		s.AngVel = geom.V(rng.Float64()*100-50, rng.Float64()*100-50, rng.Float64()*100-50)
		w.SetBody(ball, s)
		e := energy(w)
		for step := range 600 {
			w.Step()
			if e2 := energy(w); e2 > e+1e-9*(1+e) {
				t.Fatalf("seed %d step %d: energy rose from %.12g to %.12g J", seed, step, e, e2)
			} else {
				e = e2
			}
		}
	}
}

// closestCapsules returns the smallest horizontal distance between two of the
// capsules, and which.
func closestCapsules(w *World, ids []BodyID) (float64, int, int) {
	best, bi, bj := math.Inf(1), -1, -1
	for i := range ids {
		a := w.Body(ids[i]).Pos
		for j := i + 1; j < len(ids); j++ {
			b := w.Body(ids[j]).Pos
			if d := math.Hypot(a.X-b.X, a.Z-b.Z); d < best {
				best, bi, bj = d, i, j
			}
		}
	}
	return best, bi, bj
}

// Spheres that collide exchange momentum, bounce by their restitution and end
// apart; the grid finds every overlapping pair, whatever the sizes and however
// far apart the spheres are spread.
func TestSpheresCollide(t *testing.T) {
	w := newWorld(t, Config{})
	a := testBall(geom.V(-1, 5, 0), geom.V(6, 0, 0))
	b := testBall(geom.V(1, 5, 0.05), geom.V(-4, 0, 0))
	b.Mass *= 2
	a.Material.Friction, b.Material.Friction = 0, 0
	ia, ib := must(w.AddSphere(a)), must(w.AddSphere(b))
	p0 := a.Vel.Scale(a.Mass).Add(b.Vel.Scale(b.Mass))
	for step := range 20 {
		w.Step()
		sa, sb := w.Body(ia), w.Body(ib)
		p := sa.Vel.Scale(a.Mass).Add(sb.Vel.Scale(b.Mass))
		fall := geom.V(0, -9.81*float64(step+1)/60*(a.Mass+b.Mass), 0)
		if d := p.Sub(p0.Add(fall)).Len(); d > 1e-9 {
			t.Fatalf("step %d: momentum %v, want %v", step, p, p0.Add(fall))
		}
		if d := sa.Pos.Dist(sb.Pos); d < 0.22-1e-9 {
			t.Fatalf("step %d: spheres %.4f m apart", step, d)
		}
	}
	// They touch with their centres 0.05 m apart across the line of motion: the
	// normal part of the approach is reversed and scaled by the restitution
	// (0.65 × 0.65), the rest kept.
	n := geom.V(-math.Sqrt(0.22*0.22-0.05*0.05), 0, -0.05).Scale(1 / 0.22)
	rel0 := geom.V(10, 0, 0)
	rel := w.Body(ia).Vel.Sub(w.Body(ib).Vel)
	after := rel0.AddScaled(n, -(1+0.65*0.65)*rel0.Dot(n))
	if d := rel.Sub(after).Len(); d > 1e-6 {
		t.Errorf("relative velocity after %v, want %v", rel, after)
	}

	// Pairs of overlapping spheres of mixed sizes, one far away to stretch the
	// grid: each pair is reported once.
	w = newWorld(t, Config{})
	rng := rand.New(rand.NewPCG(3, 3))
	want := map[[2]BodyID]bool{}
	for i := range 60 {
		c := geom.V(float64(i%6)*2.5, 10+float64(i/6%5)*2.5, float64(i/30)*2.5)
		r1, r2 := 0.05+rng.Float64()*0.45, 0.05+rng.Float64()*0.45
		dir := randVec(rng, 1).Norm()
		s1 := Sphere{Pos: c, Radius: r1, Mass: 1, Material: neutral}
		s2 := Sphere{Pos: c.AddScaled(dir, (r1+r2)*0.9), Radius: r2, Mass: 1, Material: neutral}
		want[[2]BodyID{must(w.AddSphere(s1)), must(w.AddSphere(s2))}] = true
	}
	must(w.AddSphere(Sphere{Pos: geom.V(1e4, -3e3, 2e4), Radius: 0.1, Mass: 1}))
	w.Step()
	got := map[[2]BodyID]bool{}
	for _, c := range w.Contacts() {
		if c.Other != NoBody {
			got[[2]BodyID{c.Body, c.Other}] = true
		}
	}
	for p := range want {
		if !got[p] {
			t.Errorf("overlapping spheres %v not found", p)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d pairs reported, want %d", len(got), len(want))
	}
}

// A player running the ball into a wall squeezes it but never through the wall.
func TestBallPinnedAgainstWall(t *testing.T) {
	for _, angle := range []float64{0, 0.3, 1} {
		w := newWorld(t, Config{})
		addGround(t, w)
		wall := must(w.AddBox(Box{Center: geom.V(3.25, 1.5, 0), Half: geom.V(0.25, 1.5, 5), Material: neutral}))
		ball := must(w.AddSphere(testBall(geom.V(2, ballR, 0), geom.Vec3{})))
		dir := geom.V(math.Cos(angle), 0, math.Sin(angle))
		must(w.AddCapsule(Capsule{Pos: dir.Scale(-1), Vel: dir.Scale(8), Radius: 0.35, Height: 1.8, Material: neutral}))
		for step := range 60 {
			w.Step()
			p := w.Body(ball).Pos
			if gap, _ := boxGap(w.shapes[wall].toLocal(p), w.shapes[wall].e); gap < ballR-1e-9 || p.X > 3 {
				t.Fatalf("angle %v step %d: ball at %v, %.3g m into the wall", angle, step, p, ballR-gap)
			}
			if !w.Body(ball).Vel.IsFinite() {
				t.Fatalf("angle %v step %d: %+v", angle, step, w.Body(ball))
			}
		}
	}
}

// A ball placed inside a player (a kick from a dribble pressed by a defender)
// is moved out by Separate to where the next Step would start it from, so the
// step then moves it by its own motion only; without Separate the step moves
// it out first.
func TestSeparate(t *testing.T) {
	for _, separate := range []bool{false, true} {
		w := newWorld(t, Config{})
		addGround(t, w)
		must(w.AddCapsule(Capsule{Radius: 0.35, Height: 1.8, Material: neutral}))
		ball := must(w.AddSphere(testBall(geom.V(0.3, ballR, 0), geom.V(0, 0, 5))))
		if separate {
			w.Separate(ball)
		}
		placed := w.Body(ball).Pos
		w.Step()
		moved := w.Body(ball).Pos.X - placed.X
		// The ball sits below the centre of the capsule's rounded foot.
		gap := placed.Dist(geom.V(0, 0.35, 0)) - 0.35 - ballR
		if separate && (math.Abs(moved) > 1e-9 || gap < -1e-9) {
			t.Errorf("separated %.4f m clear, then the step moved it %.4f m across", gap, moved)
		}
		if !separate && moved < 0.03 {
			t.Errorf("without Separate the step moved it %.4f m across, want the push out of the capsule", moved)
		}
	}
}
