package lab

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// checkEntities checks the entities section of r's clients: one kind,
// named kind, every other entity measured in about every frame after the
// warm-up, a refresh at every snapshot at the median, the kind's bits a
// share of the client's traffic, and fidelity within p99m at the 99th
// percentile.
func checkEntities(t *testing.T, r *Report, kind string, others int, p99m float64) {
	t.Helper()
	s := r.Scenario
	frames := float64(others) * float64(s.FrameHz) * (s.DurationS - warmUp.Seconds())
	for _, res := range r.Results {
		if len(res.Entities) != 1 {
			t.Fatalf("%s: %d kinds, want 1: %+v", res.Client, len(res.Entities), res.Entities)
		}
		e := res.Entities[0]
		t.Logf("%s: %s fidelity p50 %.4f p99 %.4f max %.3f m, %.1f pops/min, refresh p50 %.1f p99 %.0f ms, %.2f kbps of %.2f down, %d samples",
			res.Client, e.Kind, e.FidelityM.P50, e.FidelityM.P99, e.FidelityM.Max, e.PopsPerMin, e.RefreshMs.P50, e.RefreshMs.P99, e.Kbps, res.Net.DownKbps, e.Samples)
		snapMs := 1000 / float64(s.SnapshotHz)
		switch {
		case e.Kind != kind:
			t.Errorf("%s: kind %q, want %q", res.Client, e.Kind, kind)
		case float64(e.Samples) < 0.95*frames || float64(e.Samples) > frames+float64(others):
			t.Errorf("%s: %d samples, want about %.0f", res.Client, e.Samples, frames)
		case e.FidelityM.Max <= 0 || e.FidelityM.P99 > p99m || e.FidelityM.P50 > e.FidelityM.P99:
			t.Errorf("%s: fidelity %+v, want p99 within %.3f m", res.Client, e.FidelityM, p99m)
		case math.Abs(e.RefreshMs.P50-snapMs) > 0.01:
			t.Errorf("%s: refresh p50 %.3f ms, want a snapshot's %.3f", res.Client, e.RefreshMs.P50, snapMs)
		case e.Kbps <= 0 || e.Kbps >= res.Net.DownKbps:
			t.Errorf("%s: %.2f kbps, want some of the %.2f down", res.Client, e.Kbps, res.Net.DownKbps)
		case e.Pops < 0 || float64(e.Pops) > 0.1*frames:
			t.Errorf("%s: %d pops in %.0f entity-frames", res.Client, e.Pops, frames)
		}
	}
}

// arena-wan reports its players by kind for every client: the 7 other
// players drawn in every frame, within half a metre at the 99th
// percentile (they run at 6 m/s on a link with 3 % loss), their bits
// about a fifth of the traffic down; the JSON and the table carry them.
func TestEntitiesArena(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("60 s of 8 clients (TestArenaReport runs the arena under the race detector)")
	}
	rep, err := Run(scenarioFile(t, "arena-wan.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkEntities(t, rep, "player", 7, 0.5)
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(rep); err != nil || !strings.Contains(b.String(), `"entities":[{"kind":"player","fidelity_m":{"mean":`) {
		t.Fatalf("report (%v): %.2000s", err, b.String())
	}
	b.Reset()
	if err := WriteTable(&b, rep); err != nil || !strings.Contains(b.String(), "refresh p99 ms") || !strings.Contains(b.String(), "  player  ") {
		t.Fatalf("table (%v):\n%s", err, b.String())
	}
}

// The crowd's spheres measured by the entity meter, any game's, agree with
// the crowd's own meter (which knows the spheres' contacts): fidelity p99
// within 5 % on lan and wan, the refresh p99 the same, and the spheres'
// bits no more than the snapshots' bytes.
func TestEntitiesCrowd(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("10 s of 1,000 spheres (TestCrowdReport runs the crowd under the race detector)")
	}
	s := scenarioFile(t, "crowd.json")
	s.DurationS = 10
	var keep []Client
	for _, c := range s.Clients {
		if c.Name == "lan" || c.Name == "wan" {
			keep = append(keep, c)
		}
	}
	s.Clients = keep
	rep, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkEntities(t, rep, "sphere", 1000, 0.05)
	for _, res := range rep.Results {
		e, c := res.Entities[0], res.Crowd
		snapKbps := c.SnapshotBytes * 8 * float64(s.SnapshotHz) / 1000
		if math.Abs(e.FidelityM.P99-c.FidelityM.P99) > 0.05*c.FidelityM.P99 || e.RefreshMs.P99 != c.RefreshMs.P99 || e.Kbps > snapKbps {
			t.Errorf("%s: fidelity p99 %.6f m and refresh p99 %.3f ms, the crowd's meter %.6f and %.3f; %.2f kbps, the snapshots %.2f",
				res.Client, e.FidelityM.P99, e.RefreshMs.P99, c.FidelityM.P99, c.RefreshMs.P99, e.Kbps, snapKbps)
		}
	}
}
