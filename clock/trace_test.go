package clock

import (
	"flag"
	"math"
	"slices"
	"testing"
	"time"
)

var traceProfile = flag.String("clock.trace", "", "trace one profile")
var oracle = flag.Bool("clock.oracle", false, "use the true drift")
var oracleLam = flag.Bool("clock.oraclelambda", false, "penalise by the true drift error")
var traceSeed = flag.Uint64("clock.seed", 0, "seed for -clock.trace")

func TestTrace(t *testing.T) {
	if *traceProfile == "" {
		t.Skip()
	}
	next := time.Duration(0)
	simTrace = func(at, eo, et time.Duration, e *Estimator) {
		if at >= next {
			next += 500 * time.Millisecond
			t.Logf("t=%5.1f out %8.3f tgt %8.3f drift %7.1f±%6.1f n %d min %.3f jf %.3f jb %.3f fcorr %.1f", at.Seconds(), ms(eo), ms(et), e.b*1e6, math.Sqrt(e.varB)*1e6, e.n, ms(e.minDelay), e.jf*1e3, e.jb*1e3, (e.freq-e.b)*1e6)
		}
	}
	defer func() { simTrace = nil }()
	simulate(profileByName(*traceProfile), *traceSeed, parseCfg(t))
}

// TestErrorOverTime prints percentiles of the target and output errors per
// time bucket over many seeds.
func TestErrorOverTime(t *testing.T) {
	if *traceProfile == "" {
		t.Skip()
	}
	const buckets = 30
	var tgt, out [buckets][]float64
	simTrace = func(at, eo, et time.Duration, e *Estimator) {
		b := int(at / (2 * time.Second))
		if b < buckets {
			tgt[b] = append(tgt[b], math.Abs(ms(et)))
			out[b] = append(out[b], math.Abs(ms(eo)))
		}
	}
	defer func() { simTrace = nil }()
	if *oracle {
		p := profileByName(*traceProfile)
		d := p.driftPPM * 1e-6
		b := -d / (1 + d)
		oracleDrift = &b
		defer func() { oracleDrift = nil }()
	}
	if *oracleLam {
		p := profileByName(*traceProfile)
		d := p.driftPPM * 1e-6
		b := -d / (1 + d)
		oracleLambda = &b
		defer func() { oracleLambda = nil }()
	}
	for seed := range uint64(40) {
		simulate(profileByName(*traceProfile), seed, parseCfg(t))
	}
	for b := range buckets {
		slices.Sort(tgt[b])
		slices.Sort(out[b])
		q := func(v []float64, p float64) float64 {
			if len(v) == 0 {
				return 0
			}
			return v[int(p*float64(len(v)-1))]
		}
		t.Logf("t=%2d-%2ds target p50 %.3f p99 %.3f   out p50 %.3f p99 %.3f", 2*b, 2*b+2, q(tgt[b], .5), q(tgt[b], .99), q(out[b], .5), q(out[b], .99))
	}
}

// TestDriftOverTime prints percentiles of the drift error per time bucket.
func TestDriftOverTime(t *testing.T) {
	if *traceProfile == "" {
		t.Skip()
	}
	p := profileByName(*traceProfile)
	d := p.driftPPM * 1e-6
	truth := -d / (1 + d)
	const buckets = 12
	var errs [buckets][]float64
	simTrace = func(at, eo, et time.Duration, e *Estimator) {
		b := int(at / (5 * time.Second))
		if b < buckets {
			errs[b] = append(errs[b], math.Abs(e.b-truth)*1e6)
		}
	}
	defer func() { simTrace = nil }()
	for seed := range uint64(40) {
		simulate(p, seed, parseCfg(t))
	}
	for b := range buckets {
		slices.Sort(errs[b])
		q := func(v []float64, p float64) float64 { return v[int(p*float64(len(v)-1))] }
		t.Logf("t=%2d-%2ds drift err p50 %6.1f p90 %6.1f p99 %6.1f ppm", 5*b, 5*b+5, q(errs[b], .5), q(errs[b], .9), q(errs[b], .99))
	}
}

// TestReadyError prints the target error at the first ready frame.
func TestReadyError(t *testing.T) {
	if *traceProfile == "" {
		t.Skip()
	}
	var errs []float64
	for seed := range uint64(40) {
		done := false
		simTrace = func(at, eo, et time.Duration, e *Estimator) {
			if e.ready && !done {
				done = true
				errs = append(errs, math.Abs(ms(eo)))
				t.Logf("seed %2d ready at %.2fs n %d err %.3fms spread %.3fms jf %.2f jb %.2f", seed, at.Seconds(), e.n, ms(eo), e.spread()*1e3, e.jf*1e3, e.jb*1e3)
			}
		}
		simulate(profileByName(*traceProfile), seed, parseCfg(t))
	}
	simTrace = nil
	slices.Sort(errs)
	t.Logf("p50 %.3f p90 %.3f max %.3f", errs[len(errs)/2], errs[len(errs)*9/10], errs[len(errs)-1])
}
