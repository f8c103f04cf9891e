package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tether-net/tether/geom"
)

// checkSweep compares a swept test with the gap sampled densely along the path:
// the sweep's answer must be where the gap reaches zero, with no earlier sample
// inside, and a miss must have no sample inside.
func checkSweep(t *testing.T, name string, p, d geom.Vec3, r float64, sweep func() (float64, bool), gap func(geom.Vec3) float64) {
	t.Helper()
	const samples = 400
	f, ok := sweep()
	if ok {
		if g := gap(p.AddScaled(d, f)) - r; math.Abs(g) > 1e-9 {
			t.Fatalf("%s: from %v by %v, hit at %v where the gap is %g", name, p, d, f, g)
		}
	}
	for i := 0; i <= samples; i++ {
		s := float64(i) / samples
		if ok && s >= f {
			break
		}
		if g := gap(p.AddScaled(d, s)) - r; g < -1e-9 {
			t.Fatalf("%s: from %v by %v, sweep says %v %v but at %v the gap is %g", name, p, d, f, ok, s, g)
		}
	}
}

func randVec(rng *rand.Rand, scale float64) geom.Vec3 {
	return geom.V(rng.Float64()*2-1, rng.Float64()*2-1, rng.Float64()*2-1).Scale(scale)
}

func TestSweepBoxMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	hits := 0
	for range 3000 {
		e := geom.V(0.01+rng.Float64(), 0.01+rng.Float64(), 0.01+rng.Float64())
		r := 0.05 + rng.Float64()*0.3
		p := randVec(rng, 3)
		if g, _ := boxGap(p, e); g <= r {
			continue
		}
		// Aim near a corner or an edge half of the time.
		target := randVec(rng, 1)
		if rng.IntN(2) == 0 {
			target = geom.V(math.Copysign(e.X, target.X), math.Copysign(e.Y, target.Y), target.Z*e.Z)
		}
		d := target.Sub(p).Scale(1 + rng.Float64())
		gap := func(q geom.Vec3) float64 { g, _ := boxGap(q, e); return g }
		checkSweep(t, "box", p, d, r, func() (float64, bool) { return sweepBox(p, d, e, r) }, gap)
		if _, ok := sweepBox(p, d, e, r); ok {
			hits++
		}
	}
	if hits < 1000 {
		t.Errorf("only %d hits: the test aims badly", hits)
	}
}

func TestSweepCapsuleMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 3000 {
		ya := 0.1 + rng.Float64()*0.5
		yb := ya + rng.Float64()*1.5
		rad := 0.2 + rng.Float64()*0.5
		p := randVec(rng, 3).Add(geom.V(0, 1, 0))
		if g, _ := capsuleGap(p, ya, yb); g <= rad {
			continue
		}
		d := geom.V(0, ya+rng.Float64()*(yb-ya+1), 0).Add(randVec(rng, 0.5)).Sub(p).Scale(0.5 + rng.Float64())
		gap := func(q geom.Vec3) float64 { g, _ := capsuleGap(q, ya, yb); return g }
		checkSweep(t, "capsule", p, d, 0, func() (float64, bool) { return sweepCapsule(p, d, ya, yb, rad) },
			func(q geom.Vec3) float64 { return gap(q) - rad })
	}
}
