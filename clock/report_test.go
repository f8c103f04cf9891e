package clock

import (
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"
)

var report = flag.Bool("clock.report", false, "print per-profile figures over many seeds")
var reportCfg = flag.String("clock.cfg", "", "config overrides: Field=value,...")
var reportOnly = flag.String("clock.only", "", "profile to report")
var reportSeeds = flag.Int("clock.seeds", 20, "seeds per profile")

func parseCfg(t *testing.T) Config {
	var c Config
	if *reportCfg == "" {
		return c
	}
	for _, kv := range strings.Split(*reportCfg, ",") {
		k, v, _ := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		switch k {
		case "FastSamples":
			c.FastSamples = int(f)
		case "Window":
			c.Window = int(f)
		case "MinSamples":
			c.MinSamples = int(f)
		case "Slow":
			c.SlowPingInterval = time.Duration(f * 1e6)
		case "Fast":
			c.FastPingInterval = time.Duration(f * 1e6)
		case "Slew":
			c.SlewPPM = f
		case "R":
			rampSamples = int(f)
		case "P":
			penaltyK = f
		case "PV":
			penaltyInValue = f != 0
		case "T":
			temperature = f
		case "RC":
			readyCap = int(f)
		case "PK":
			priorK = f
		case "FT":
			freqTau = f
		case "FK":
			freqK = f
		case "FJ":
			fastJ = f
		case "CS":
			convSamples = int(f)
		case "RF":
			readyFloor = f
		case "RE":
			c.ReadyError = time.Duration(f * 1e6)
		case "RW":
			c.ReadyWithin = time.Duration(f * 1e6)
		case "M":
			recentM = int(f)
		case "Q":
			slopeQ = f
		case "K":
			slopeBlocks = int(f)
		case "FastSlewAbove":
			c.FastSlewAbove = time.Duration(f * 1e6)
		default:
			t.Fatal("unknown field", k)
		}
	}
	return c
}

func TestReport(t *testing.T) {
	if !*report {
		t.Skip("run with -clock.report")
	}
	cfg := parseCfg(t)
	for _, p := range profiles() {
		if *reportOnly != "" && !strings.Contains(*reportOnly, p.name) {
			continue
		}
		var worst result
		worst.coverage = 1
		for seed := range uint64(*reportSeeds) {
			r := simulate(p, seed, cfg)
			worst.p99 = max(worst.p99, r.p99)
			worst.maxErr = max(worst.maxErr, r.maxErr)
			worst.maxRatePPM = max(worst.maxRatePPM, r.maxRatePPM)
			if r.converge < 0 {
				worst.converge = time.Hour
			} else {
				worst.converge = max(worst.converge, r.converge)
			}
			worst.coverage = min(worst.coverage, r.coverage)
			worst.backsteps += r.backsteps
			worst.upKbps = max(worst.upKbps, r.upKbps)
			worst.downKbps = max(worst.downKbps, r.downKbps)
			worst.pingHz = max(worst.pingHz, r.pingHz)
			worst.notReady = max(worst.notReady, r.notReady)
			worst.meanBound = max(worst.meanBound, r.meanBound)
			t.Logf("%-9s seed %2d p99 %7.3fms max %7.3fms rate %6.0fppm at %5.1fs conv %5.2fs cov %.4f bound %6.2fms up %.2f down %.2f kbps %.2f Hz resets %d drift %.1f±%.1f stats %+v",
				p.name, seed, ms(r.p99), ms(r.maxErr), r.maxRatePPM, r.maxRateAt.Seconds(), r.converge.Seconds(), r.coverage, ms(r.meanBound), r.upKbps, r.downKbps, r.pingHz, r.resets, r.stats.DriftPPM, r.stats.DriftErrPPM, r.stats)
		}
		t.Logf("WORST %-9s p99 %7.3fms max %7.3fms rate %6.0fppm conv %5.2fs cov %.4f backsteps %d up %.2f down %.2f kbps %.2f Hz notready %d",
			p.name, ms(worst.p99), ms(worst.maxErr), worst.maxRatePPM, worst.converge.Seconds(), worst.coverage, worst.backsteps, worst.upKbps, worst.downKbps, worst.pingHz, worst.notReady)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
