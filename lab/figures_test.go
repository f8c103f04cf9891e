package lab

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// runPreset runs a built-in scenario and returns its results by clock method.
func runPreset(t *testing.T, name string) map[string]Result {
	t.Helper()
	s, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	byClock := map[string]Result{}
	for _, r := range rep.Results {
		if _, dup := byClock[r.ClockMethod]; !dup {
			byClock[r.ClockMethod] = r
		}
	}
	return byClock
}

// The clock figures of the foundation issue, on every preset, default seed;
// against the baselines, pooled over seeds 1 to 10.
func TestClockFigures(t *testing.T) {
	for _, tc := range []struct {
		preset      string
		p99Ms       float64
		convergeS   float64
		vsBaselines bool
	}{
		{"lan", 0.1, 2, false},
		{"broadband", 1.0, 2, false},
		{"wan", 2.0, 2, true},
		{"mobile", 4.0, 5, true},
		{"lossy", 2.0, 2, false},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			res := runPreset(t, tc.preset)
			k := res[ClockTether].Clock
			if k.ErrMs.P99 > tc.p99Ms {
				t.Errorf("err_ms p99 = %.3f, want <= %v", k.ErrMs.P99, tc.p99Ms)
			}
			if k.Backsteps != 0 {
				t.Errorf("backsteps = %d, want 0", k.Backsteps)
			}
			if k.MaxRatePPM == nil || *k.MaxRatePPM > 1000 {
				t.Errorf("max_rate_ppm = %v, want <= 1000", fmtPtr(k.MaxRatePPM))
			}
			if k.ConvergeS < 0 || k.ConvergeS > tc.convergeS {
				t.Errorf("converge_s = %.2f, want 0..%v", k.ConvergeS, tc.convergeS)
			}
			if k.BoundCoverage == nil || *k.BoundCoverage != 1 {
				t.Errorf("bound_coverage = %v, want 1", k.BoundCoverage)
			}
			if k.NotReady != 0 {
				t.Errorf("%d frames without an estimate after warm-up", k.NotReady)
			}
			n := res[ClockTether].Net
			if n.ClockUpKbps > 1.5 || n.ClockDownKbps > 1.5 {
				t.Errorf("clock traffic %.2f up / %.2f down kbps, want <= 1.5", n.ClockUpKbps, n.ClockDownKbps)
			}
			if tc.vsBaselines {
				clockVsBaselines(t, tc.preset)
			}
		})
	}
}

// clockVsBaselines checks, pooled over seeds 1 to 10 (a mean of the runs'
// p99s: on one seed a baseline can be lucky, as the one-shot offset is on
// wan's seed 1), that the clock's error p99 is at most a fifth of the
// one-shot offset's and a tenth of Unreal's replicated world time's.
func clockVsBaselines(t *testing.T, preset string) {
	t.Helper()
	p99 := map[string]float64{}
	for seed := uint64(1); seed <= 10; seed++ {
		s, err := Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		s.Seed = seed
		rep, err := Run(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range rep.Results {
			if !seen[r.ClockMethod] {
				seen[r.ClockMethod] = true
				p99[r.ClockMethod] += r.Clock.ErrMs.P99 / 10
			}
		}
	}
	k, one, ue4 := p99[ClockTether], p99[ClockOneShot], p99[ClockUE4]
	t.Logf("seeds 1-10, mean p99: tether %.3f ms, oneshot %.3f ms, ue4 %.3f ms", k, one, ue4)
	if k > one/5 {
		t.Errorf("p99 %.3f ms > 1/5 of oneshot's %.3f", k, one)
	}
	if k > ue4/10 {
		t.Errorf("p99 %.3f ms > 1/10 of ue4's %.3f", k, ue4)
	}
}

// Drift anywhere within ±500 ppm is tracked with no loss of accuracy.
func TestClockTracksDrift(t *testing.T) {
	for _, ppm := range []string{"-500", "500"} {
		s, err := ParseScenario(strings.NewReader(`{"name": "drift", "duration_s": 60, "clients": [
			{"name": "d", "link": {"up": {"latency_ms": 40, "jitter": {"dist": "lognormal", "mean_ms": 10, "p99_ms": 60}},
			                       "down": {"latency_ms": 60, "jitter": {"dist": "lognormal", "mean_ms": 10, "p99_ms": 60}},
			                       "clock": {"offset_s": -3, "drift_ppm": ` + ppm + `}}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		k := rep.Results[0].Clock
		if k.ErrMs.P99 > 2 || k.Backsteps != 0 || k.MaxRatePPM == nil || *k.MaxRatePPM > 1000 || *k.BoundCoverage != 1 {
			t.Errorf("%s ppm: p99 %.3f ms, backsteps %d, max rate %v ppm, coverage %v",
				ppm, k.ErrMs.P99, k.Backsteps, fmtPtr(k.MaxRatePPM), *k.BoundCoverage)
		}
	}
}

// Same seed, same JSON, byte for byte; another seed, other numbers.
func TestRunDeterministic(t *testing.T) {
	s, _ := Preset("wan")
	s.DurationS = 10
	checkDeterministic(t, s)
}

// checkDeterministic runs s with seeds 3, 3 and 4 and checks that the two
// runs of seed 3 give the same JSON, byte for byte, and seed 4 another.
func checkDeterministic(t *testing.T, s Scenario) {
	t.Helper()
	encode := func(seed uint64) []byte {
		s.Seed = seed
		return reportJSON(t, s, Options{})
	}
	a, b, c := encode(3), encode(3), encode(4)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	if bytes.Equal(a, c) {
		t.Fatal("runs with different seeds are identical")
	}
}

// reportJSON runs s and returns its report as JSON.
func reportJSON(t *testing.T, s Scenario, opts Options) []byte {
	t.Helper()
	rep, err := Run(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fmtPtr prints *x, or "none" for nil.
func fmtPtr(x *float64) string {
	if x == nil {
		return "none"
	}
	return strconv.FormatFloat(*x, 'f', 0, 64)
}
