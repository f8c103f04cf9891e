package clock

import (
	"flag"
	"math"
	"slices"
	"testing"
	"time"
)

var traceProfile = flag.String("clock.trace", "", "trace one profile")
var traceSeed = flag.Uint64("clock.seed", 0, "seed for -clock.trace")

func TestTrace(t *testing.T) {
	if *traceProfile == "" {
		t.Skip()
	}
	next := time.Duration(0)
	simTrace = func(at, eo, et time.Duration, e *Estimator) {
		if at >= next {
			next += 500 * time.Millisecond
			t.Logf("t=%5.1f out %8.3f tgt %8.3f drift %7.1f±%6.1f n %d min %.3f scale %.3f spike %.3f", at.Seconds(), ms(eo), ms(et), e.b*1e6, e.eps*1e6, e.n, ms(e.minDelay), e.scale*1e3, e.spikeAbove*1e3)
		}
	}
	defer func() { simTrace = nil }()
	simulate(profileByName(*traceProfile), *traceSeed, Config{})
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
	for seed := range uint64(40) {
		simulate(profileByName(*traceProfile), seed, Config{})
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
