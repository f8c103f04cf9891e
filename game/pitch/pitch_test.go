package pitch

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// match is a world with the default pitch, the ball and 22 players.
type match struct {
	w        *physics.World
	surfaces Surfaces
	ball     physics.BodyID
	players  []physics.BodyID
	rng      *rand.Rand
}

func newMatch(t testing.TB, cfg physics.Config, seed uint64) *match {
	t.Helper()
	w, err := physics.NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Default().AddTo(w)
	if err != nil {
		t.Fatal(err)
	}
	m := &match{w: w, surfaces: s, rng: rand.New(rand.NewPCG(seed, 3))}
	if m.ball, err = w.AddSphere(DefaultBall()); err != nil {
		t.Fatal(err)
	}
	for i := range 22 {
		p := DefaultPlayer()
		side := float64(i/11)*2 - 1
		p.Pos = geom.V(side*(5+float64(i%11)*4), 0, float64(i%5)*10-20)
		id, err := w.AddCapsule(p)
		if err != nil {
			t.Fatal(err)
		}
		m.players = append(m.players, id)
	}
	return m
}

// tick plays one step: players run towards the ball or wander, and the ball is
// kicked now and then, as the game and the ball drill would.
func (m *match) tick() {
	ball := m.w.Body(m.ball)
	for i, id := range m.players {
		p := m.w.Body(id)
		to := ball.Pos.Sub(p.Pos)
		if i%3 != 0 {
			to = geom.V(float64(i%7)*10-30, 0, float64(i%5)*10-20).Sub(p.Pos)
		}
		to.Y = 0
		v := to.Norm().Scale(math.Min(7, to.Len()))
		m.w.SetVelocity(id, v)
	}
	if m.rng.IntN(90) == 0 {
		a := m.rng.Float64() * 2 * math.Pi
		s := 5 + m.rng.Float64()*25
		ball.Vel = geom.V(s*math.Cos(a), m.rng.Float64()*s*0.5, s*math.Sin(a))
		ball.AngVel = geom.V(m.rng.Float64()*40-20, m.rng.Float64()*40-20, m.rng.Float64()*40-20)
		m.w.SetBody(m.ball, ball)
	}
	m.w.Step()
}

func TestDefaultsAreRegulation(t *testing.T) {
	p := Default()
	parts := p.Parts()
	if len(parts) != 4+2*7 {
		t.Fatalf("%d parts", len(parts))
	}
	for g := range 2 {
		posts := parts[4+7*g : 4+7*g+3]
		left, right, bar := posts[0].Box, posts[1].Box, posts[2].Box
		if w := (right.Center.Z - right.Half.Z) - (left.Center.Z + left.Half.Z); math.Abs(w-7.32) > 1e-9 {
			t.Errorf("goal %d: %.4f m between the posts", g, w)
		}
		if h := bar.Center.Y - bar.Half.Y; math.Abs(h-2.44) > 1e-9 {
			t.Errorf("goal %d: crossbar %.4f m high", g, h)
		}
		if x := math.Abs(left.Center.X); x != 52.5 {
			t.Errorf("goal %d: posts at |x| = %v, want on the goal line", g, x)
		}
	}
	for i, b := range parts[:4] {
		inner := math.Abs(b.Box.Center.X) - b.Box.Half.X
		if i >= 2 {
			inner = math.Abs(b.Box.Center.Z) - b.Box.Half.Z
		}
		if want := []float64{55.5, 55.5, 37, 37}[i]; math.Abs(inner-want) > 1e-9 {
			t.Errorf("board %d: inner face at %v, want %v", i, inner, want)
		}
	}
	ball, player := DefaultBall(), DefaultPlayer()
	if ball.Radius != 0.11 || ball.Mass != 0.43 || player.Radius != 0.35 || player.Height != 1.8 {
		t.Errorf("ball %+v, player %+v", ball, player)
	}
	if e := ball.Material.Restitution * p.Grass.Restitution; e < 0.6 || e > 0.7 {
		t.Errorf("restitution on grass %.3f, want 0.6..0.7", e)
	}
	if _, err := (Pitch{}).AddTo(nil); !errors.Is(err, ErrInvalidPitch) {
		t.Errorf("zero pitch: %v", err)
	}
	bad := Default()
	bad.GoalDepth = 5
	if _, err := bad.AddTo(nil); !errors.Is(err, ErrInvalidPitch) {
		t.Errorf("goal deeper than the margin: %v", err)
	}
}

// Shots into the goal are caught by the nets; shots at the posts bounce off them;
// low passes bounce off the boards and stay on the pitch.
func TestShots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for shot := range 60 {
		m := newMatch(t, physics.Config{}, 1)
		ball := m.w.Body(m.ball)
		side := float64(shot%2)*2 - 1
		ball.Pos = geom.V(side*41.5, 0.11, rng.Float64()*20-10) // the penalty area's edge
		var aim geom.Vec3
		var want Surface
		switch shot % 3 {
		case 0: // into the goal
			aim, want = geom.V(side*52.5, 0.3+rng.Float64()*1.8, rng.Float64()*6-3), SurfaceNet
		case 1: // at a post
			aim, want = geom.V(side*52.5, 0.3+rng.Float64()*1.8, (float64(rng.IntN(2))*2-1)*3.72), SurfacePost
		default: // along the grass at the boards beside the goal
			aim, want = geom.V(side*56, 0.2, (float64(rng.IntN(2))*2-1)*(8+rng.Float64()*20)), SurfaceBoard
		}
		dir := aim.Sub(ball.Pos).Norm()
		ball.Vel = dir.Scale(25 + rng.Float64()*15)
		ball.Vel.Y += 0.5 * 9.81 * aim.Sub(ball.Pos).Len() / ball.Vel.Len() // lead for gravity
		for _, p := range m.players {
			m.w.SetBody(p, physics.BodyState{Pos: geom.V(0, 0, float64(p)), Rot: geom.Identity})
		}
		m.w.SetBody(m.ball, ball)
		hit := false
		for range 180 {
			m.w.Step()
			for _, c := range m.w.Contacts() {
				hit = hit || m.surfaces.Of(c.Shape) == want
			}
			p := m.w.Body(m.ball).Pos
			if math.Abs(p.X) > 55.5-0.11+1e-9 || math.Abs(p.Z) > 37-0.11+1e-9 {
				t.Fatalf("shot %d at the %v: the ball got out to %v", shot, want, p)
			}
		}
		if !hit {
			t.Errorf("shot %d at the %v from %v: never touched it", shot, want, ball.Pos)
		}
		if p := m.w.Body(m.ball).Pos; want == SurfaceNet && math.Abs(p.X) < 52.5 {
			t.Errorf("shot %d into the goal ended at %v, outside it", shot, p)
		}
	}
}

// The sync test on the real pitch: save, step 120, restore, step 120 again:
// bit-identical states and contacts.
func TestSyncOnThePitch(t *testing.T) {
	m := newMatch(t, physics.Config{}, 2)
	for range 60 {
		m.tick()
	}
	saved := m.w.Save(nil)
	play := func() ([][]physics.BodyState, [][]physics.Contact) {
		m.rng = rand.New(rand.NewPCG(9, 9))
		var s [][]physics.BodyState
		var c [][]physics.Contact
		for range 120 {
			m.tick()
			s = append(s, m.w.Save(nil))
			c = append(c, slices.Clone(m.w.Contacts()))
		}
		return s, c
	}
	s1, c1 := play()
	if err := m.w.Restore(saved); err != nil {
		t.Fatal(err)
	}
	s2, c2 := play()
	for i := range s1 {
		if !slices.Equal(s1[i], s2[i]) || !slices.Equal(c1[i], c2[i]) {
			t.Fatalf("step %d differs after the restore", i)
		}
	}
	if n := testing.AllocsPerRun(100, m.tick); n != 0 {
		t.Errorf("%v allocations per step", n)
	}
}

// BenchmarkStepSoccer is one step of the ball and 22 players on the pitch.
func BenchmarkStepSoccer(b *testing.B) {
	m := newMatch(b, physics.Config{}, 1)
	for range 60 {
		m.tick()
	}
	b.ReportAllocs()
	for b.Loop() {
		m.tick()
	}
}
