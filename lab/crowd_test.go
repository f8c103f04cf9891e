package lab

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The crowd's figures (issue 22) on broadband, with the budget of
// testdata/crowd.json, for seeds 1 to 3 (60 s each), every seed on its own:
// at most 256 kbps per client on the wire, every sphere drawn within 5 cm
// of the truth at the 99th percentile (those moving too), and a sphere at
// rest costs at most 2 bits.
func TestCrowdFigures(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("3 runs of 60 s (TestCrowdReport runs the crowd under the race detector)")
	}
	s := scenarioFile(t, "crowd.json")
	var bb []Client
	for _, c := range s.Clients {
		if c.Name == "broadband" {
			bb = append(bb, c)
		}
	}
	s.Clients = bb
	for seed := uint64(1); seed <= 3; seed++ {
		s.Seed = seed
		rep, err := Run(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Results[0]
		c := r.Crowd
		t.Logf("seed %d: down %.1f kbps, fidelity p99 %.4f m (moving %.4f), refresh p99 %.0f ms, %.2f bits at rest, %.1f left out",
			seed, r.Net.DownKbps, c.FidelityM.P99, c.MovingM.P99, c.RefreshMs.P99, c.RestBits, c.LeftOut)
		if r.Net.DownKbps > 256 || c.FidelityM.P99 > 0.05 || c.MovingM.P99 > 0.05 || c.RestBits > 2 || c.Undrawn > 0 {
			t.Errorf("seed %d: down %.1f kbps (want <= 256), fidelity p99 %.4f m and moving %.4f m (want <= 0.05), %.2f bits at rest (want <= 2), %.4f undrawn (want 0)",
				seed, r.Net.DownKbps, c.FidelityM.P99, c.MovingM.P99, c.RestBits, c.Undrawn)
		}
	}
}

// The replication layer's bytes as a ratio to the bit-packer of Gaffer On
// Games' "Snapshot Compression" (ball gaffer), paired on identically seeded
// links in one run of testdata/crowd-gaffer.json (no budget): at most 0.55
// of the article's bytes per snapshot on every link, with spheres drawn
// closer to the truth (the article's positions are 2 mm steps).
func TestCrowdGaffer(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("30 s of six clients (TestCrowdReport runs the crowd under the race detector)")
	}
	rep, err := Run(scenarioFile(t, "crowd-gaffer.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*CrowdMetrics{}
	for i := range rep.Results {
		by[rep.Results[i].Client] = rep.Results[i].Crowd
	}
	for _, link := range []string{"lan", "broadband", "wan"} {
		ours, art := by[link], by[link+"-gaffer"]
		ratio := ours.SnapshotBytes / art.SnapshotBytes
		t.Logf("%s: %.1f bytes a snapshot, the article's %.1f: %.3f; fidelity p99 %.2f mm, the article's %.2f mm",
			link, ours.SnapshotBytes, art.SnapshotBytes, ratio, 1000*ours.FidelityM.P99, 1000*art.FidelityM.P99)
		if ratio > 0.55 || ours.FidelityM.P99 >= art.FidelityM.P99 || art.Undrawn > 0 {
			t.Errorf("%s: ratio %.3f (want <= 0.55), fidelity p99 %.4f m against the article's %.4f m (want below), article undrawn %.3f (want 0)",
				link, ratio, ours.FidelityM.P99, art.FidelityM.P99, art.Undrawn)
		}
	}
}

// A crowd scenario reports the crowd's figures for every client, and no
// ball; its clients are tether's.
func TestCrowdReport(t *testing.T) {
	s := scenarioFile(t, "crowd.json")
	s.DurationS, s.Clients = 3, s.Clients[1:2]
	rep, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"ball":{`) || !strings.Contains(b.String(), `"rest_bits"`) || !strings.Contains(b.String(), `"snapshot_budget":460`) {
		t.Fatalf("report: %s", b.String())
	}
	if c := rep.Results[0].Crowd; c == nil || c.RestBits == 0 || rep.Results[0].Net.DownKbps == 0 {
		t.Fatalf("%+v", rep.Results[0])
	}
	b.Reset()
	if err := WriteTable(&b, rep); err != nil || !strings.Contains(b.String(), "rest bits") || strings.Contains(b.String(), "spawn err") {
		t.Fatalf("table (%v):\n%s", err, b.String())
	}
	s.Clients[0].Ball = BallSeed
	if _, err := Run(s, Options{}); err == nil {
		t.Fatal("ball seed accepted for the crowd")
	}
}
