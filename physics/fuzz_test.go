package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tether-net/tether/geom"
)

// FuzzRandomWorld builds a random world from the input (shapes at any angle,
// spheres of any size, mass, material and spin, fast players, violent kicks),
// steps it and checks that every state stays finite and every rotation a unit
// quaternion.
func FuzzRandomWorld(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(seed%3), uint8(3+seed))
	}
	f.Fuzz(func(t *testing.T, seed uint64, sub, n uint8) {
		rng := rand.New(rand.NewPCG(seed, uint64(sub)<<8|uint64(n)))
		w := newWorld(t, Config{SubSteps: 1 + int(sub%4), StepHz: []int{30, 60, 120}[rng.IntN(3)]})
		mat := func() Material {
			return Material{Restitution: rng.Float64(), Friction: rng.Float64() * 2, RollingResistance: rng.Float64() * 0.5}
		}
		rot := func() geom.Quat { return geom.AxisAngle(randVec(rng, 1), rng.Float64()*math.Pi) }
		must(w.AddPlane(Plane{Normal: geom.V(0, 1, 0).Add(randVec(rng, 0.3)), Material: mat()}))
		for range rng.IntN(3) {
			must(w.AddPlane(Plane{Normal: randVec(rng, 1).Add(geom.V(0, 0.01, 0)), Offset: -5 - rng.Float64()*5, Material: mat()}))
		}
		for range rng.IntN(6) {
			must(w.AddBox(Box{Center: randVec(rng, 4), Half: randVec(rng, 1).Add(geom.V(1.01, 1.01, 1.01)), Rot: rot(), Material: mat()}))
		}
		for range 1 + int(n%12) {
			r := 0.02 + rng.Float64()*0.5
			must(w.AddSphere(Sphere{
				Pos: randVec(rng, 4).Add(geom.V(0, 5, 0)), Vel: randVec(rng, 50), AngVel: randVec(rng, 200), Rot: rot(),
				Radius: r, Mass: 0.01 + rng.Float64()*10, Inertia: rng.Float64() * r * r,
				Material: mat(), Drag: rng.Float64() * 0.05, Lift: rng.Float64()*0.02 - 0.01,
			}))
		}
		var caps []BodyID
		for range rng.IntN(5) {
			r := 0.1 + rng.Float64()*0.5
			caps = append(caps, must(w.AddCapsule(Capsule{Pos: randVec(rng, 3), Vel: randVec(rng, 15), Radius: r, Height: 2*r + rng.Float64()*2, Material: mat()})))
		}
		for step := range 90 {
			if rng.IntN(10) == 0 {
				id := BodyID(rng.IntN(len(w.state)))
				w.SetVelocity(id, randVec(rng, 60))
			}
			for _, c := range caps {
				if rng.IntN(5) == 0 {
					w.SetVelocity(c, randVec(rng, 15))
				}
			}
			w.Step()
			for id, s := range w.state {
				if !s.Pos.IsFinite() || !s.Vel.IsFinite() || !s.AngVel.IsFinite() || math.Abs(s.Rot.Len()-1) > 1e-9 {
					t.Fatalf("step %d body %d: %+v", step, id, s)
				}
			}
			for _, c := range w.contacts {
				if !c.Point.IsFinite() || !c.Normal.IsFinite() || math.IsNaN(c.Speed) {
					t.Fatalf("step %d: contact %+v", step, c)
				}
			}
		}
	})
}
