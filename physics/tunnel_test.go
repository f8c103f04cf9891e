package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tether-net/tether/geom"
)

// A 40 m/s ball (0.67 m per step at 60 Hz, six times its diameter) fired from many
// angles at a wall, a 12 cm post, a 2 cm net and a moving player always touches
// it, never ends a step inside it and never comes out on the far side.
func TestNoTunnellingAt40MetresPerSecond(t *testing.T) {
	const speed, shots = 40.0, 150
	type target struct {
		name string
		// build adds the target to w and returns how to aim at it and the
		// ball's gap to its surface (negative: inside) and side (negative: the
		// side it was fired from), if the target has sides.
		build func(w *World, rng *rand.Rand) (aim geom.Vec3, frame geom.Quat, gap func(p geom.Vec3) float64, side func(p geom.Vec3) float64)
	}
	boxTarget := func(half geom.Vec3, tilt bool) func(*World, *rand.Rand) (geom.Vec3, geom.Quat, func(geom.Vec3) float64, func(geom.Vec3) float64) {
		return func(w *World, rng *rand.Rand) (geom.Vec3, geom.Quat, func(geom.Vec3) float64, func(geom.Vec3) float64) {
			rot := geom.Identity
			if tilt {
				rot = geom.AxisAngle(geom.V(0, 1, 0), rng.Float64()*2-1).Mul(geom.AxisAngle(geom.V(0, 0, 1), rng.Float64()-0.5))
			}
			b := Box{Center: geom.V(0, half.Y, 0), Half: half, Rot: rot, Material: neutral}
			must(w.AddBox(b))
			s := &w.shapes[len(w.shapes)-1]
			// A point on the face towards -X, away from its edges.
			local := geom.V(-half.X, (rng.Float64()*1.6-0.8)*half.Y, (rng.Float64()*1.6-0.8)*half.Z)
			gap := func(p geom.Vec3) float64 { g, _ := boxGap(s.toLocal(p), half); return g - ballR }
			side := func(p geom.Vec3) float64 { return s.toLocal(p).X }
			return b.Center.Add(rot.Rotate(local)), rot, gap, side
		}
	}
	targets := []target{
		{"wall", boxTarget(geom.V(0.25, 2, 5), false)},
		{"net", boxTarget(geom.V(0.01, 1.5, 3), true)},
		{"post", func(w *World, rng *rand.Rand) (geom.Vec3, geom.Quat, func(geom.Vec3) float64, func(geom.Vec3) float64) {
			half := geom.V(0.06, 1.28, 0.06)
			must(w.AddBox(Box{Center: geom.V(0, 1.28, 0), Half: half, Material: neutral}))
			gap := func(p geom.Vec3) float64 { g, _ := boxGap(p.Sub(geom.V(0, 1.28, 0)), half); return g - ballR }
			return geom.V(0, 0.3+rng.Float64()*2, 0), geom.Identity, gap, nil
		}},
		{"player", func(w *World, rng *rand.Rand) (geom.Vec3, geom.Quat, func(geom.Vec3) float64, func(geom.Vec3) float64) {
			a := rng.Float64() * 2 * math.Pi
			vel := geom.V(math.Cos(a), 0, math.Sin(a)).Scale(rng.Float64() * 8)
			id := must(w.AddCapsule(Capsule{Vel: vel, Radius: 0.35, Height: 1.8, Material: neutral}))
			gap := func(p geom.Vec3) float64 {
				g, _ := capsuleGap(p.Sub(w.Body(id).Pos), 0.35, 1.45)
				return g - 0.35 - ballR
			}
			// Lead the target by the time the ball takes to get there.
			return geom.V(0, 0.2+rng.Float64()*1.4, 0).Add(vel.Scale(3.0 / speed)), geom.Identity, gap, nil
		}},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			for shot := range shots {
				rng := rand.New(rand.NewPCG(uint64(shot), 40))
				w := newWorld(t, Config{})
				aim, frame, gap, side := tg.build(w, rng)
				// From 2 to 4 m away, up to 75° off the target's -X axis, a
				// little high to make up for gravity.
				yaw, pitch := (rng.Float64()*2-1)*75*math.Pi/180, (rng.Float64()*2-1)*30*math.Pi/180
				dir := frame.Rotate(geom.V(-math.Cos(yaw)*math.Cos(pitch), math.Sin(pitch), math.Sin(yaw)*math.Cos(pitch)))
				dist := 2 + rng.Float64()*2
				start := aim.AddScaled(dir, dist)
				lead := 0.5 * 9.81 * (dist / speed) * (dist / speed)
				ball := must(w.AddSphere(testBall(start, aim.Add(geom.V(0, lead, 0)).Sub(start).Norm().Scale(speed))))
				touched := false
				for step := range 20 {
					w.Step()
					for _, c := range w.Contacts() {
						touched = touched || c.Body == ball
					}
					p := w.Body(ball).Pos
					if g := gap(p); g < -1e-6 {
						t.Fatalf("shot %d step %d: ball at %v is %.3g m inside", shot, step, p, -g)
					}
					if side != nil && side(p) > 0 {
						t.Fatalf("shot %d step %d: ball at %v came out on the far side", shot, step, p)
					}
				}
				if !touched {
					t.Fatalf("shot %d: from %v at %v the ball never touched the %s", shot, start, w.Body(ball).Pos, tg.name)
				}
			}
		})
	}
}
