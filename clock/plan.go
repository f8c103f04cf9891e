package clock

import (
	"math"
	"time"
)

// plan is the output path from one pong to the next: a piecewise-linear
// function of local time, fixed when a pong is handled and only read by Now
// and Bound.
//
// For d = L - at >= 0 the output is out0 + d + round(h(d)), where h adds the
// estimated frequency offset and up to two slew segments that close the gap
// between the output and the estimated server clock (first at the converging
// rate, then at the steady rate). Folding every fractional term into one
// rounding keeps the output non-decreasing to the nanosecond: h changes by far
// less than one nanosecond per nanosecond.
type plan struct {
	at     time.Duration // local time the plan starts
	out0   time.Duration // output at at
	freq   float64       // estimated server rate per local rate, minus 1
	r1, d1 float64       // first slew segment: extra rate and length (ns)
	r2, d2 float64       // second slew segment
	bound0 float64       // model error bound at at (ns), without slew lag
	eps    float64       // growth of the model bound per ns of local time
}

// slewed returns how much of the gap the slew segments have closed d ns into
// the plan.
func (p *plan) slewed(d float64) float64 {
	if d <= 0 {
		return 0
	}
	if d < p.d1 {
		return p.r1 * d
	}
	v := p.r1 * p.d1
	d -= p.d1
	if d < p.d2 {
		return v + p.r2*d
	}
	return v + p.r2*p.d2
}

func (p *plan) out(local time.Duration) time.Duration {
	d := local - p.at
	fd := float64(d)
	return p.out0 + d + time.Duration(math.Round(p.freq*fd+p.slewed(fd)))
}

// lag returns the estimated server clock minus the output, in ns, d ns into
// the plan.
func (p *plan) lag(d float64) float64 {
	return p.r1*p.d1 + p.r2*p.d2 - p.slewed(d)
}

func (p *plan) bound(local time.Duration) time.Duration {
	d := float64(local - p.at)
	b := p.bound0 + p.eps*math.Abs(d) + math.Abs(p.lag(d))
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(math.Ceil(b))
}

// newPlan builds a plan starting at local time at with output out0, rate
// freq, and gap (estimated server time minus output) gap ns. The part of the
// gap beyond fastAbove (ns) closes at fastRate, the rest at slowRate (both
// positive, dimensionless).
func newPlan(at, out0 time.Duration, freq, gap, fastAbove, fastRate, slowRate, bound0, eps float64) plan {
	p := plan{at: at, out0: out0, freq: freq, bound0: bound0, eps: eps}
	mag := math.Abs(gap)
	sign := 1.0
	if gap < 0 {
		sign = -1
	}
	if mag > fastAbove {
		p.r1 = sign * fastRate
		p.d1 = (mag - fastAbove) / fastRate
		mag = fastAbove
	}
	if mag > 0 {
		p.r2 = sign * slowRate
		p.d2 = mag / slowRate
	}
	return p
}
