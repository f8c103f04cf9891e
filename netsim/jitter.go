package netsim

import (
	"math"
	"time"
)

// Every jitter distribution is sampled by its quantile function from exactly
// one uniform draw, so a draw costs the same whatever the distribution and a
// larger draw always means a larger delay.

// z99 is the 99th percentile of the standard normal distribution.
var z99 = math.Sqrt2 * math.Erfinv(0.98)

// lognormalMaxRatio is the supremum of p99/mean over lognormal distributions,
// exp(z99²/2) ≈ 14.97.
var lognormalMaxRatio = math.Exp(z99 * z99 / 2)

// paretoRatio is p99/mean of a Pareto (type I) distribution of shape a > 1:
// the scale cancels out.
func paretoRatio(a float64) float64 { return math.Pow(100, 1/a) * (a - 1) / a }

// paretoPeak is the shape at which paretoRatio is largest: setting its
// logarithmic derivative to zero gives a/(a-1) = ln 100.
var paretoPeak = math.Log(100) / (math.Log(100) - 1)

// paretoMaxRatio is the supremum of p99/mean over Pareto distributions, ≈ 7.99.
var paretoMaxRatio = paretoRatio(paretoPeak)

// maxJitterMs caps a single jitter draw (heavy tails can otherwise produce
// absurd values); the effect on any valid distribution's mean is negligible.
const maxJitterMs = 3_600_000

type distKind uint8

const (
	distNone distKind = iota
	distUniform
	distExponential
	distLognormal
	distPareto
)

// sampler maps a uniform draw in (0, 1) to a jitter delay.
type sampler struct {
	kind distKind
	a, b float64 // uniform: max; exponential: mean; lognormal: mu, sigma; pareto: scale, 1/shape (all in ms)
}

// newSampler solves j's parameters; j must be valid.
func newSampler(j Jitter) sampler {
	switch j.Dist {
	case "uniform":
		return sampler{kind: distUniform, a: j.MaxMs}
	case "exponential":
		return sampler{kind: distExponential, a: j.MeanMs}
	case "lognormal":
		// mean = exp(mu + s²/2) and p99 = exp(mu + z s), so
		// s²/2 - z s + ln(p99/mean) = 0; take the smaller (lighter-tailed) root.
		r := math.Log(j.P99Ms / j.MeanMs)
		s := z99 - math.Sqrt(z99*z99-2*r)
		return sampler{kind: distLognormal, a: math.Log(j.MeanMs) - s*s/2, b: s}
	case "pareto":
		// p99/mean falls from its peak towards 1 as the shape grows; bisect
		// on that branch for the lighter-tailed of the two solutions.
		want := j.P99Ms / j.MeanMs
		lo, hi := paretoPeak, 1e6
		for range 200 {
			mid := (lo + hi) / 2
			if paretoRatio(mid) > want {
				lo = mid
			} else {
				hi = mid
			}
		}
		a := (lo + hi) / 2
		return sampler{kind: distPareto, a: j.MeanMs * (a - 1) / a, b: 1 / a}
	}
	return sampler{}
}

// ms returns the delay in milliseconds at quantile u, 0 < u < 1.
func (s sampler) ms(u float64) float64 {
	var v float64
	switch s.kind {
	case distUniform:
		v = s.a * u
	case distExponential:
		v = -s.a * math.Log1p(-u)
	case distLognormal:
		v = math.Exp(s.a + s.b*math.Sqrt2*math.Erfinv(2*u-1))
	case distPareto:
		v = s.a * math.Exp(-s.b*math.Log1p(-u))
	}
	return min(v, maxJitterMs)
}

// delay returns the delay at quantile u as a Duration.
func (s sampler) delay(u float64) time.Duration {
	if s.kind == distNone {
		return 0
	}
	return msDur(s.ms(u))
}

// msDur converts milliseconds to a Duration, rounding to the nanosecond.
func msDur(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }

// sDur converts seconds to a Duration, rounding to the nanosecond.
func sDur(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
