package replicate

import (
	"math/rand/v2"
	"testing"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

func TestPackRot(t *testing.T) {
	if got := unpackRot(packRot(geom.Identity)); got != geom.Identity {
		t.Fatalf("identity came back as %v", got)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	worst := 0.0
	for range 10000 {
		q := geom.Quat{W: rng.NormFloat64(), X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Norm()
		worst = max(worst, unpackRot(packRot(q)).Angle(q))
	}
	if worst > 4e-6 {
		t.Fatalf("worst rotation error %v rad", worst)
	}
}

// The history keeps at most 64 bytes per body per tick.
func TestHistoryBytes(t *testing.T) {
	w, ball, _ := crowdWorld(t, 1)
	d, err := NewWorldResim[geom.Vec3](ResimConfig{}, w, ball, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Resim()
	per := float64(r.HistoryBytes()) / float64(r.HistoryTicks()*r.Config().Bodies)
	t.Logf("%d bodies, %d ticks (%v): %d bytes, %.2f bytes per body per tick",
		r.Config().Bodies, r.HistoryTicks(), r.Config().History, r.HistoryBytes(), per)
	if per > 64 {
		t.Fatalf("%.2f bytes per body per tick, want <= 64", per)
	}
	if r.HistoryTicks()-2 < int(r.Config().History/r.Config().Tick) {
		t.Fatalf("history of %d ticks, want at least a second", r.HistoryTicks())
	}
}

// A world restored from its quantised state follows the exact one: the ball
// of a kicked crowd world stays within a millimetre of where the exact world
// takes it over two seconds of bounces, rolling and players.
func TestQuantisedStateConverges(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		exact, ball, _ := crowdWorld(t, seed)
		rng := rand.New(rand.NewPCG(seed, 9))
		b := exact.Body(ball)
		b.Vel = geom.V(rng.Float64()*30-15, rng.Float64()*8, rng.Float64()*30-15)
		b.AngVel = geom.V(rng.Float64()*40-20, rng.Float64()*40-20, rng.Float64()*40-20)
		exact.SetBody(ball, b)
		for range 30 {
			exact.Step()
		}
		quant, _, _ := crowdWorld(t, seed)
		states := exact.Save(nil)
		c := Cell{state: make([]packed, len(states)), fixed: make([]uint64, 1)}
		for i, s := range states {
			c.Set(i, s.State(0))
			states[i] = physics.BodyStateOf(c.Get(i))
		}
		if err := quant.Restore(states); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for range 120 {
			exact.Step()
			quant.Step()
			worst = max(worst, exact.Body(ball).Pos.Dist(quant.Body(ball).Pos))
		}
		if worst > 1e-3 {
			t.Errorf("seed %d: quantised world drifted %.3g m from the exact one", seed, worst)
		}
		t.Logf("seed %d: worst drift %.3g m", seed, worst)
	}
}
