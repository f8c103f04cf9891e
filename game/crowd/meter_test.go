package crowd

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/server"
)

// The meter's figures of a client that draws every sphere 1 cm above where
// the server had it at the render time, 50 ms in the past, and is sent
// every sphere in every other snapshot; frames before the warm-up and in a
// blackout are left out, and every sphere is refreshed by the first
// snapshot after the blackout.
func TestMeter(t *testing.T) {
	const n = 20
	g := newGame(t, Config{Bodies: n, Seed: 1, KickEvery: 100 * time.Millisecond})
	blackout := measure.Spans{{From: 2 * time.Second, To: 2200 * time.Millisecond}}
	m := NewMeter(n, MeterConfig{WarmUp: time.Second, Clients: []measure.Link{{Blackouts: blackout}}})
	c := m.Client(0)
	dt := time.Second / 60
	var f client.Frame
	var past [][]geom.Vec3 // by tick: every sphere
	for k := 1; k <= 180; k++ {
		now := time.Duration(k) * dt
		g.Step(server.Tick{N: uint64(k), Time: now, Dt: dt}, nil)
		m.Tick(g, server.Tick{N: uint64(k), Time: now, Dt: dt})
		ps := make([]geom.Vec3, n)
		for i := range ps {
			ps[i] = g.Body(i).Pos
		}
		past = append(past, ps)
		if k%2 == 0 && !blackout.In(now) {
			s := client.Snapshot{Tick: uint64(k), Time: now}
			for i := range n {
				s.Entities = append(s.Entities, client.EntityState{ID: uint32(i)})
			}
			c.Received(&s)
		}
		if k > 3 {
			off := geom.V(0, 0.01, 0)
			if now < time.Second || blackout.In(now) {
				off = geom.V(0, 1, 0) // not measured
			}
			f.Ready, f.Server, f.Entities = true, now, f.Entities[:0]
			for i := range n - 1 { // the last sphere is never drawn
				f.Entities = append(f.Entities, client.Entity{ID: uint32(i), Kind: KindBody,
					RenderTime: now - 3*dt, Pos: past[k-4][i].Add(off)})
			}
			c.Frame(now, &f, true)
		}
		c.Encoded(Encoded{Time: now, Bytes: 10, Rest: 4, RestBits: 5})
	}
	fig := m.Figures(0, harness.Traffic{WireDown: 3000, WireUp: 1500}, 3*time.Second)
	if math.Abs(fig.FidelityM.P99-0.01) > 1e-6 || math.Abs(fig.FidelityM.P50-0.01) > 1e-6 {
		t.Errorf("fidelity %+v, want 0.01", fig.FidelityM)
	}
	// Every 2 ticks, but across the blackout: from tick 118 to 132.
	ms := func(ticks int) float64 { return float64(time.Duration(ticks)*dt) / float64(time.Millisecond) }
	if math.Abs(fig.RefreshMs.P50-ms(2)) > 1e-6 || math.Abs(fig.RefreshMs.Max-ms(14)) > 1e-6 {
		t.Errorf("refresh %+v, want every %.6f ms, %.6f across the blackout", fig.RefreshMs, ms(2), ms(14))
	}
	if fig.RecoveryS <= 0 || fig.RecoveryS > 2*dt.Seconds() {
		t.Errorf("recovery %.6f s, want the first snapshot's after the blackout, within %.6f s", fig.RecoveryS, 2*dt.Seconds())
	}
	if fig.RestBits != 1.25 || fig.SnapshotBytes != 10 || fig.Undrawn != 0.05 || fig.Net.DownKbps != 8 || fig.Net.UpKbps != 4 {
		t.Errorf("figures %+v", fig)
	}
}
