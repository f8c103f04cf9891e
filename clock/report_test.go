package clock

import (
	"flag"
	"slices"
	"testing"
	"time"
)

var (
	report      = flag.Bool("clock.report", false, "print per-profile figures over many seeds")
	reportSeeds = flag.Int("clock.seeds", 20, "seeds per profile for -clock.report")
)

// TestReport prints, for every profile, each seed's figures and the worst
// over the seeds. Run with -clock.report -v.
func TestReport(t *testing.T) {
	if !*report {
		t.Skip("run with -clock.report")
	}
	for _, p := range profiles() {
		var worst result
		worst.coverage = 1
		var p99s []time.Duration
		for seed := range uint64(*reportSeeds) {
			r := simulate(p, seed, Config{})
			worst.p99 = max(worst.p99, r.p99)
			p99s = append(p99s, r.p99)
			worst.maxErr = max(worst.maxErr, r.maxErr)
			worst.maxRatePPM = max(worst.maxRatePPM, r.maxRatePPM)
			if r.converge < 0 {
				worst.converge = time.Hour
			} else {
				worst.converge = max(worst.converge, r.converge)
			}
			worst.coverage = min(worst.coverage, r.coverage)
			worst.backsteps += r.backsteps
			worst.notReady += r.notReady
			worst.upKbps = max(worst.upKbps, r.upKbps)
			worst.downKbps = max(worst.downKbps, r.downKbps)
			worst.pingHz = max(worst.pingHz, r.pingHz)
			t.Logf("%-9s seed %2d: p99 %.3f ms, max %.3f ms, rate %4.0f ppm, converged %.2f s, coverage %.4f, bound %.2f ms, %.2f/%.2f kbps, %.2f Hz, drift %+.1f±%.1f ppm",
				p.name, seed, ms(r.p99), ms(r.maxErr), r.maxRatePPM, r.converge.Seconds(), r.coverage,
				ms(r.meanBound), r.upKbps, r.downKbps, r.pingHz, r.stats.DriftPPM, r.stats.DriftSigmaPPM)
		}
		slices.Sort(p99s)
		t.Logf("WORST %-9s p99 median %.3f ms, worst %.3f ms (limit %.1f), max %.3f ms, rate %4.0f ppm, converged %.2f s, coverage %.4f, backsteps %d, not ready %d, %.2f/%.2f kbps, %.2f Hz",
			p.name, ms(p99s[len(p99s)/2]), ms(worst.p99), ms(p.p99Limit), ms(worst.maxErr), worst.maxRatePPM, worst.converge.Seconds(),
			worst.coverage, worst.backsteps, worst.notReady, worst.upKbps, worst.downKbps, worst.pingHz)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
