package measure

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/replica"
)

// TestEntityMeter feeds a synthetic world of two kinds and a client that
// draws it with known offsets, and checks every figure.
//
// Runner (kind 0, id 1) runs along +X at 1 m/s and is teleported 5 m on at
// tick 420 (its Gen changes); the client draws it 100 ms late and 2 cm off
// in Z, and at frame 300 a further 10 cm off: fidelity 2 cm but that frame's
// 12 cm, two pops (there and back), none at the teleport. Post (kind 1, id
// 2) stands still, leaves the world after tick 300 and comes back 10 m away
// at tick 360; the client draws it exactly, and holds it while it is gone:
// those frames are not measured, and the return is no pop.
func TestEntityMeter(t *testing.T) {
	const (
		ticks   = 600
		delay   = 6 // ticks: 100 ms
		odd     = 300
		teleAt  = 420
		goneAt  = 300 // Post's last tick before it leaves
		backAt  = 360
		runBits = 100.0 // per snapshot, kind 0
	)
	at := func(k int) time.Duration { return time.Duration(k) * tick }
	runner := func(k int) geom.Vec3 {
		x := at(k).Seconds()
		if k >= teleAt {
			x += 5
		}
		return geom.V(x, 0, 0)
	}
	post := func(k int) geom.Vec3 {
		if k >= backAt {
			return geom.V(10, 0, 5)
		}
		return geom.V(0, 0, 5)
	}
	m := NewEntityMeter(EntityConfig{WarmUp: at(60), Kinds: []string{"runner", "post"}, Clients: []Link{{}}})
	c := m.Client(0)
	var w replica.World
	var drawn []EntityDrawn
	for k := range ticks {
		w.Reset()
		var gen uint8
		if k >= teleAt {
			gen = 1
		}
		w.Add(replica.Entity{ID: 1, Kind: 0, Gen: gen, State: kinematic.State{Pos: runner(k), Vel: geom.V(1, 0, 0)}})
		present := k <= goneAt || k >= backAt
		if present {
			w.Add(replica.Entity{ID: 2, Kind: 1, State: kinematic.State{Pos: post(k)}})
		}
		m.World(at(k), &w)
		if k%2 == 0 { // snapshots at 30 Hz
			c.Received(at(k), 1, 0)
			c.Bits(at(k), 0, runBits)
			if present {
				c.Received(at(k), 2, 1)
			}
		}
		r := k - delay
		if r < 0 {
			continue
		}
		pr := runner(r).Add(geom.V(0, 0, 0.02))
		if k == odd {
			pr.Z += 0.1
		}
		pp := post(min(r, goneAt))
		if r >= backAt {
			pp = post(r)
		}
		drawn = append(drawn[:0], EntityDrawn{ID: 1, Kind: 0, Pos: pr, RenderTime: at(r)},
			EntityDrawn{ID: 2, Kind: 1, Pos: pp, RenderTime: at(r), Frozen: r > goneAt && r < backAt})
		c.Frame(at(k), drawn)
	}
	got := m.Figures(0, at(ticks))
	if len(got) != 2 || got[0].Kind != "runner" || got[1].Kind != "post" {
		t.Fatalf("kinds: %+v", got)
	}
	run, pst := got[0], got[1]
	minutes := (at(ticks) - at(60)).Minutes()
	measured := ticks - 60 // frames from the warm-up on
	checks := []struct {
		name      string
		got, want float64
	}{
		{"runner samples", float64(run.Samples), float64(measured)},
		{"runner fidelity p50", run.FidelityM.P50, 0.02},
		{"runner fidelity p99", run.FidelityM.P99, 0.02},
		{"runner fidelity max", run.FidelityM.Max, 0.12},
		{"runner fidelity mean", run.FidelityM.Mean, Round((0.02*float64(measured-1) + 0.12) / float64(measured))},
		{"runner pops", float64(run.Pops), 2},
		{"runner pops per min", run.PopsPerMin, Round(2 / minutes)},
		{"runner refresh p50", run.RefreshMs.P50, ms(2 * tick)},
		{"runner refresh max", run.RefreshMs.Max, ms(2 * tick)},
		{"runner kbps", run.Kbps, Round(runBits * 270 / (at(ticks) - at(60)).Seconds() / 1000)},
		{"post samples", float64(pst.Samples), float64(measured - (backAt - goneAt - 1))},
		{"post fidelity max", pst.FidelityM.Max, 0},
		{"post pops", float64(pst.Pops), 0},
		{"post frozen", float64(pst.FrozenFrames), 0},
		{"post refresh max", pst.RefreshMs.Max, ms(at(backAt) - at(goneAt))},
		{"post kbps", pst.Kbps, 0},
	}
	for _, ch := range checks {
		if math.Abs(ch.got-ch.want) > 1e-6 {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

// TestEntityMeterBlackout leaves out the frames in a blackout of the link,
// and an entity the server never had.
func TestEntityMeterBlackout(t *testing.T) {
	m := NewEntityMeter(EntityConfig{Clients: []Link{{Blackouts: Spans{{From: time.Second, To: 2 * time.Second}}}}})
	c := m.Client(0)
	for k := range 180 {
		m.Truth(7, 0, 0, Sample{T: time.Duration(k) * tick})
		c.Frame(time.Duration(k)*tick, []EntityDrawn{{ID: 7, RenderTime: time.Duration(k) * tick, Pos: geom.V(1, 0, 0)},
			{ID: 8, RenderTime: time.Duration(k) * tick}})
	}
	got := m.Figures(0, 3*time.Second)
	if len(got) != 1 || got[0].Kind != "kind 0" || got[0].Samples != 120 || got[0].FidelityM.Max != 1 || got[0].Pops != 0 {
		t.Errorf("got %+v, want 120 samples 1 m off, no pop, of kind 0", got)
	}
}

// TestEntityMeterMoving measures MovingM over the entities that moved
// more than MovingDist in the MovingSpan before their render time only:
// an entity that stops half way through is drawn 2 m off a span after it
// stopped, 0.5 m before, and MovingM has only the 0.5 m; without
// MovingSpan, MovingM is left out.
func TestEntityMeterMoving(t *testing.T) {
	for _, span := range []time.Duration{0, 100 * time.Millisecond} {
		m := NewEntityMeter(EntityConfig{Clients: []Link{{}}, MovingSpan: span, MovingDist: 0.01})
		c := m.Client(0)
		pos := func(k int) geom.Vec3 { return geom.V(float64(min(k, 60))/60, 0, 0) } // 1 m/s for a second
		for k := range 120 {
			at := time.Duration(k) * tick
			m.Truth(1, 0, 0, Sample{T: at, Pos: pos(k)})
			off := 0.5
			if k > 70 {
				off = 2
			}
			c.Frame(at, []EntityDrawn{{ID: 1, RenderTime: at, Pos: pos(k).Add(geom.V(0, off, 0))}})
		}
		got := m.Figures(0, 2*time.Second)[0]
		switch {
		case span == 0 && got.MovingM != nil:
			t.Errorf("MovingM %+v without MovingSpan, want nil", got.MovingM)
		case got.FidelityM.Max != 2:
			t.Errorf("FidelityM %+v, want a max of 2 m", got.FidelityM)
		case span > 0 && (got.MovingM == nil || got.MovingM.Max != 0.5 || got.MovingM.Mean != 0.5):
			t.Errorf("MovingM %+v, want 0.5 m off: the moving frames only", got.MovingM)
		}
	}
}

// atNear gives At's position whatever its hint.
func TestTruthAtNear(t *testing.T) {
	tr := ballistic(geom.V(0, 1, 0), geom.V(3, 5, 1), 40)
	for k := -2; k <= 42; k++ {
		for _, q := range []time.Duration{-tick, 0, 3 * tick, 3*tick + 1, 20*tick - 1, 39 * tick, 50 * tick} {
			h := k
			if got, want := tr.atNear(&h, q), tr.At(q); got != want {
				t.Fatalf("hint %d, t %v: %v, want %v", k, q, got, want)
			}
		}
	}
}
