package replica

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// After a blackout longer than the Ring, a client missing its baselines
// gets whole snapshots within the budget, the entities it lacks by
// priority, and has every entity back within half a second.
func TestBlackout(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ), Velocity(20, XYZ)}})
	enc := NewEncoder(s, Config{})
	enc.Join(0, NoSelf)
	dec := NewDecoder(s)
	const n, budget = 1000, 460
	pos := make([]geom.Vec3, n)
	for i := range pos {
		pos[i] = geom.V(rng.NormFloat64()*10, 0, rng.NormFloat64()*10)
	}
	seen := make([]uint64, n)
	var acked uint64
	const dt = time.Second / 60
	back := uint64(0)
	var kept []uint64
	for tick := uint64(1); tick <= 400; tick++ {
		tm := time.Duration(tick) * dt
		w := enc.World()
		w.Reset()
		for i := range pos {
			w.Add(Entity{ID: uint32(i), State: kinematic.State{Pos: pos[i]}})
		}
		b := enc.Append(nil, 0, tick, tm, acked, budget)
		if len(b) > budget {
			t.Fatalf("tick %d: %d bytes", tick, len(b))
		}
		if tick > 100 && tick < 220 {
			continue // the blackout
		}
		var got Decoded
		if err := dec.Decode(&got, tick, tm, b); err != nil {
			t.Fatal(tick, err)
		}
		if got.Keep {
			kept = append(kept, tick)
		}
		// Acknowledgements arrive 3 ticks late.
		for _, k := range kept {
			if k+3 <= tick {
				acked = k
			}
		}
		for _, e := range got.Entities {
			seen[e.ID] = tick
		}
		all := true
		for i := range seen {
			all = all && seen[i] >= 220
		}
		if all && back == 0 && tick >= 220 {
			back = tick
		}
	}
	t.Logf("every entity back %d ticks after the blackout", back-220)
	if back == 0 || back-220 > 30 {
		t.Errorf("every entity back at tick %d, want within 30 ticks of 220", back)
	}
}
