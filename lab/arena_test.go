package lab

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// scenarioFile parses a scenario file of testdata.
func scenarioFile(t *testing.T, name string) Scenario {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ParseScenario(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func arenaScenario(t *testing.T, link string) Scenario {
	return scenarioFile(t, "arena-"+link+".json")
}

// The arena's figures, pooled over seeds 1 to 10 (60 s each): projectiles
// drawn fast-forwarded by their age are within one tick of travel of the
// server's at the 99th percentile, and within a tenth of the naive
// baseline's error; hitscan shots judged with rewind agree with their
// shooters at least 99 % of the time at up to 150 ms of round trip.
func TestArenaFigures(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("30 runs of 60 s (TestArenaReport runs the arena under the race detector)")
	}
	const tick = 20.0 / 60 // ProjectileSpeed / 60 Hz, metres
	for _, link := range []string{"broadband", "wan", "mobile"} {
		s := arenaScenario(t, link)
		pool := arenaPool{BallTether: {}, BallSeed: {}}
		for seed := uint64(1); seed <= 10; seed++ {
			s.Seed = seed
			if _, _, _, err := playArena(s, Options{}, pool); err != nil {
				t.Fatal(err)
			}
		}
		aged, naive := pool[BallTether].proj.Metrics(), pool[BallSeed].proj.Metrics()
		ha, hn := pool[BallTether].hits.Metrics(), pool[BallSeed].hits.Metrics()
		shots := ha.Shots + hn.Shots
		agree := (ha.Agree*float64(ha.Shots) + hn.Agree*float64(hn.Shots)) / float64(shots)
		agreeNow := (ha.AgreeNoRewind*float64(ha.Shots) + hn.AgreeNoRewind*float64(hn.Shots)) / float64(shots)
		t.Logf("%s: proj.spawn_err_m aged p50 %.3f p99 %.3f (%d samples, %d predicted), naive p50 %.3f p99 %.3f (%d); "+
			"hits.agree %.4f, without rewind %.4f (%d shots); hits.rewind_ms p99 %.0f / %.0f; clamped %d",
			link, aged.SpawnErrM.P50, aged.SpawnErrM.P99, aged.Samples, aged.Predicted, naive.SpawnErrM.P50, naive.SpawnErrM.P99, naive.Samples,
			agree, agreeNow, shots, ha.RewindMs.P99, hn.RewindMs.P99, ha.Clamped+hn.Clamped)
		if aged.SpawnErrM.P99 > tick || aged.SpawnErrM.P99 > 0.1*naive.SpawnErrM.P99 {
			t.Errorf("%s: spawn_err_m p99 %.3f, want <= %.3f and <= 0.1 × naive's %.3f", link, aged.SpawnErrM.P99, tick, naive.SpawnErrM.P99)
		}
		if link != "mobile" && agree < 0.99 {
			t.Errorf("%s: hits.agree %.4f, want >= 0.99", link, agree)
		}
		if agreeNow > agree-0.2 {
			t.Errorf("%s: without rewind %.4f, with %.4f: rewind makes no difference", link, agreeNow, agree)
		}
	}
}

// An arena scenario reports projectile and hitscan figures for every client,
// and no ball.
func TestArenaReport(t *testing.T) {
	s := arenaScenario(t, "broadband")
	s.DurationS = 10
	rep, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"ball":{`) || !strings.Contains(b.String(), `"spawn_err_m"`) || !strings.Contains(b.String(), `"agree_no_rewind"`) {
		t.Fatalf("report: %s", b.String())
	}
	for _, r := range rep.Results {
		if r.Proj == nil || r.Proj.Samples == 0 || r.Hits == nil || r.Hits.Shots == 0 {
			t.Fatalf("%s: %+v %+v", r.Client, r.Proj, r.Hits)
		}
	}
	b.Reset()
	if err := WriteTable(&b, rep); err != nil || !strings.Contains(b.String(), "hits agree") || strings.Contains(b.String(), "fidelity") {
		t.Fatalf("table (%v):\n%s", err, b.String())
	}
	s.Clients[0].Ball = BallResim
	if err := s.Validate(); err == nil {
		t.Fatal("resim accepted for the arena")
	}
}
