package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tether-net/tether/geom"
)

// neutral leaves the other side's material as it is.
var neutral = Material{Restitution: 1, Friction: 1, RollingResistance: 1}

const ballR, ballM = 0.11, 0.43

// testBall is a size-5 ball: a hollow shell.
func testBall(pos, vel geom.Vec3) Sphere {
	return Sphere{
		Pos: pos, Vel: vel, Radius: ballR, Mass: ballM, Inertia: 2.0 / 3 * ballM * ballR * ballR,
		Material: Material{Restitution: 0.65, Friction: 0.5, RollingResistance: 0.1},
	}
}

// must returns v, panicking on err: for building test worlds.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func newWorld(t testing.TB, cfg Config) *World {
	return must(NewWorld(cfg))
}

func addGround(t testing.TB, w *World) ShapeID {
	return must(w.AddPlane(Plane{Normal: geom.V(0, 1, 0), Material: neutral}))
}

// arena builds a 40 m × 26 m walled floor with a goal at each end, a ball and 22
// players moving in seeded random directions; it returns the world, the ball and
// the players.
func arena(t testing.TB, cfg Config, seed uint64) (*World, BodyID, []BodyID) {
	w := newWorld(t, cfg)
	addGround(t, w)
	wall := Material{Restitution: 0.9, Friction: 0.6, RollingResistance: 1}
	for _, b := range []Box{
		{Center: geom.V(21, 1.5, 0), Half: geom.V(0.5, 1.5, 14)},
		{Center: geom.V(-21, 1.5, 0), Half: geom.V(0.5, 1.5, 14)},
		{Center: geom.V(0, 1.5, 14), Half: geom.V(21, 1.5, 0.5)},
		{Center: geom.V(0, 1.5, -14), Half: geom.V(21, 1.5, 0.5)},
	} {
		b.Material = wall
		must(w.AddBox(b))
	}
	for _, sx := range []float64{-1, 1} {
		x := sx * 19
		for _, b := range []Box{
			{Center: geom.V(x, 1.28, 3.72), Half: geom.V(0.06, 1.28, 0.06)},
			{Center: geom.V(x, 1.28, -3.72), Half: geom.V(0.06, 1.28, 0.06)},
			{Center: geom.V(x, 2.5, 0), Half: geom.V(0.06, 0.06, 3.78)},
			{Center: geom.V(x+sx*1.5, 1.22, 0), Half: geom.V(0.01, 1.22, 3.7)},
		} {
			b.Material = wall
			must(w.AddBox(b))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	b := testBall(geom.V(0, 1, 0), geom.V(rng.Float64()*20-10, rng.Float64()*8, rng.Float64()*20-10))
	b.AngVel = geom.V(rng.Float64()*40-20, rng.Float64()*40-20, rng.Float64()*40-20)
	b.Drag, b.Lift = 0.013, 0.005
	ball := must(w.AddSphere(b))
	var players []BodyID
	for i := range 22 {
		pos := geom.V(float64(i%6)*5-12.5, 0, float64(i/6)*5-7.5)
		players = append(players, must(w.AddCapsule(Capsule{
			Pos: pos, Vel: playerVel(rng), Radius: 0.35, Height: 1.8,
			Material: Material{Restitution: 0.5, Friction: 0.5},
		})))
	}
	return w, ball, players
}

func playerVel(rng *rand.Rand) geom.Vec3 {
	a := rng.Float64() * 2 * math.Pi
	s := rng.Float64() * 7
	return geom.V(s*math.Cos(a), 0, s*math.Sin(a))
}

// steer gives the players new velocities from rng, pointing them back to the
// middle when they stray, as a game would each tick.
func steer(w *World, players []BodyID, rng *rand.Rand) {
	for _, p := range players {
		s := w.Body(p)
		if rng.IntN(20) == 0 {
			s.Vel = playerVel(rng)
		}
		if math.Abs(s.Pos.X) > 17 || math.Abs(s.Pos.Z) > 11 {
			s.Vel = s.Pos.Scale(-0.3)
			s.Vel.Y = 0
		}
		w.SetVelocity(p, s.Vel)
	}
}

// spheres builds n spheres of radius 0.11 m dropped at random in a walled 20 m ×
// 20 m box.
func spheres(t testing.TB, n int, seed uint64) *World {
	w := newWorld(t, Config{})
	addGround(t, w)
	for _, p := range []Plane{
		{Normal: geom.V(1, 0, 0), Offset: -10}, {Normal: geom.V(-1, 0, 0), Offset: -10},
		{Normal: geom.V(0, 0, 1), Offset: -10}, {Normal: geom.V(0, 0, -1), Offset: -10},
	} {
		p.Material = neutral
		must(w.AddPlane(p))
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	for range n {
		s := testBall(
			geom.V(rng.Float64()*19-9.5, 0.2+rng.Float64()*3, rng.Float64()*19-9.5),
			geom.V(rng.Float64()*6-3, rng.Float64()*6-3, rng.Float64()*6-3))
		must(w.AddSphere(s))
	}
	return w
}

// energy returns the kinetic and potential energy of the spheres (J).
func energy(w *World) float64 {
	e := 0.0
	for _, id := range w.spheres {
		s, b := w.state[id], w.bodies[id]
		e += 0.5*s.Vel.Len2()/b.invM + 0.5*s.AngVel.Len2()/b.invI - s.Pos.Dot(w.gravity)/b.invM
	}
	return e
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
