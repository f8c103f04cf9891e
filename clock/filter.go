package clock

import (
	"math"
	"slices"
	"time"

	"github.com/tether-net/tether/internal/order"
)

// The filter's model. A sample is a ping sent at local time t1, received at
// server time t2, answered at server time t3 and received back at local time
// t4. With off(x) the true offset (server time minus local time) at local
// time x, and up, down >= 0 the two one-way delays:
//
//	forward point  (t1, t2-t1) = off(t1) + up
//	backward point (t4, t3-t4) = off(t4) - down
//
// Each delay is a fixed base plus jitter, and jitter only ever adds. So the
// forward points lie above the line off(x) + base_up and the backward points
// below off(x) - base_down, and each set has an envelope with the slope of
// off: the drift. The filter fits both envelopes with one slope and takes
// their mean, off(x) + (base_up - base_down)/2: the true offset up to half
// the base asymmetry, which no round trip can observe. Spikes (one direction
// delayed by tens of milliseconds) only lift points off the envelope.
//
// The slope: for exponential jitter of scale J the likelihood of a line under
// the points is exp(-sum of the points' distances above it / J), so the
// filter weighs each candidate drift by that likelihood (both directions,
// each with its own J, tempered for heavier-tailed jitter) times a Laplace
// prior, and takes the posterior means of drift and intercept over a grid.
// That keeps a poorly determined drift (a short window) from dragging the
// estimate along one extreme slope, and gives the drift a standard deviation.
//
// The bound: the true offset is no higher than any forward point and no lower
// than any backward point, each carried to the moment in question at the
// drift plus or minus its uncertainty. That interval holds whatever the
// split of the delays, so it covers the base asymmetry the estimate cannot
// see. The drift's uncertainty for it comes from the same inequalities: the
// true drift is the slope of a line lying between the forward points and the
// backward points.

const (
	// spikeFactor times the median excess round trip (above the window's
	// minimum) is the excess beyond which a sample is a delay spike, left out
	// of the fit; spikeFloor is the least such threshold, in seconds.
	spikeFactor = 4
	spikeFloor  = 200e-6
	// quantum bounds the error of a server timestamp from the wire's
	// resolution, in seconds.
	quantum = 1e-6
	// suspectSlack is the margin, in seconds, by which a sample must fall
	// outside the interval the window allows before it is a contradiction.
	suspectSlack = 1e-3
	// temperature widens the likelihood: the exponential jitter model is
	// overconfident when the jitter's lower tail is thinner (lognormal).
	temperature = 3
	// priorScale is the Laplace prior's scale on the drift, as a fraction
	// of MaxDriftPPM.
	priorScale = 0.25
	// posteriorSpan: drifts whose posterior density is below exp(-span) of
	// the peak are ignored; posteriorGrid is how many drifts are weighed.
	posteriorSpan = 12
	posteriorGrid = 33
	// slopeSteps and rangeSteps are bisection steps for the drift's mode and
	// for the edges of its range.
	slopeSteps = 24
	rangeSteps = 14
	// readyFloor: for judging readiness from few samples, no path's jitter
	// is taken to be below this fraction of its round trip.
	readyFloor = 0.05
)

// filter is the window's estimate of the offset as a line in local time.
type filter struct {
	maxDrift float64 // a priori bound on |drift|, dimensionless

	// The estimate, in seconds relative to xRef (local time) and yRef
	// (offset): offset(x) = yRef + a + b*(x-xRef).
	xRef, yRef time.Duration
	a, b       float64
	varA       float64 // posterior variance of a, s²
	sigmaB     float64 // posterior standard deviation of b
	eps        float64 // bound on |true drift - b|, for Bound
	jf, jb     float64 // jitter scale of each direction, s
	minDelay   time.Duration
	spikeAbove float64 // excess round trip beyond which a sample is a spike, s

	// The fit's points (spikes excluded), relative to xRef and yRef, and
	// their sums; the lower hull of the forward points and the upper hull
	// of the backward points. Reused.
	fwd, bwd           []point
	fh, bh             []point
	sxf, syf, sxb, syb float64
	xMax               float64 // the latest point's x
	scratch            []float64
}

// point is a forward or backward point: x local time, y offset plus or
// minus a delay, both in seconds relative to the references.
type point struct{ x, y float64 }

func newFilter(window int, maxDrift float64) filter {
	return filter{
		maxDrift: maxDrift,
		fwd:      make([]point, 0, window),
		bwd:      make([]point, 0, window),
		fh:       make([]point, 0, window),
		bh:       make([]point, 0, window),
		scratch:  make([]float64, 0, window),
	}
}

type sample struct {
	sent time.Duration // t1: local time the ping left
	recv time.Duration // t4: local time the pong arrived
	fwd  time.Duration // t2-t1: offset plus the forward delay
	bwd  time.Duration // t3-t4: offset minus the backward delay
}

// delay returns the round trip minus the server's hold.
func (s *sample) delay() time.Duration { return s.fwd - s.bwd }

func sec(d time.Duration) float64 { return d.Seconds() }

// refit recomputes the estimate from e's window and reports whether the
// newest sample is a spike.
func (f *filter) refit(e *Estimator) (spike bool) {
	newest := e.at(e.n - 1)
	f.xRef, f.yRef = newest.recv, newest.bwd
	d1 := time.Duration(math.MaxInt64)
	for i := range e.n {
		d1 = min(d1, e.at(i).delay())
	}
	f.minDelay = d1
	f.scratch = f.scratch[:0]
	for i := range e.n {
		f.scratch = append(f.scratch, sec(e.at(i).delay()-d1))
	}
	f.spikeAbove = max(spikeFactor*order.Select(f.scratch, len(f.scratch)/2), spikeFloor)
	f.fwd, f.bwd = f.fwd[:0], f.bwd[:0]
	f.sxf, f.syf, f.sxb, f.syb = 0, 0, 0, 0
	f.xMax = math.Inf(-1)
	for i := range e.n {
		s := e.at(i)
		if sec(s.delay()-d1) > f.spikeAbove {
			continue
		}
		pf := point{sec(s.sent - f.xRef), sec(s.fwd - f.yRef)}
		pb := point{sec(s.recv - f.xRef), sec(s.bwd - f.yRef)}
		f.fwd = append(f.fwd, pf)
		f.bwd = append(f.bwd, pb)
		f.sxf += pf.x
		f.syf += pf.y
		f.sxb += pb.x
		f.syb += pb.y
		f.xMax = max(f.xMax, pf.x, pb.x)
	}
	f.fh = hull(f.fh[:0], f.fwd, 1)
	f.bh = hull(f.bh[:0], f.bwd, -1)
	f.posterior()
	f.eps = f.driftRange()
	return sec(newest.delay()-d1) > f.spikeAbove
}

func byX(p, q point) int {
	switch {
	case p.x < q.x:
		return -1
	case p.x > q.x:
		return 1
	}
	return 0
}

// hull sorts pts by x and appends to h their lower (sign 1) or upper (sign
// -1) convex hull, left to right. The envelope of any slope touches the
// points at a vertex of it.
func hull(h, pts []point, sign float64) []point {
	slices.SortFunc(pts, byX)
	for _, p := range pts {
		for len(h) >= 2 {
			o, a := h[len(h)-2], h[len(h)-1]
			// Drop a unless it lies strictly below (above) the chord o-p.
			if sign*((a.x-o.x)*(p.y-o.y)-(a.y-o.y)*(p.x-o.x)) > 0 {
				break
			}
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	return h
}

// extreme returns the hull vertex lowest (sign 1) or highest (sign -1)
// relative to a line of slope b: where the envelope of slope b touches.
func extreme(h []point, b, sign float64) point {
	best, at := math.Inf(1), 0
	for i, p := range h {
		if v := sign * (p.y - b*p.x); v < best {
			best, at = v, i
		}
	}
	return h[at]
}

// posterior sets the drift and intercept to their posterior means.
func (f *filter) posterior() {
	b := f.b
	for range 2 {
		f.jf = f.jitter(b, 1)
		f.jb = f.jitter(b, -1)
		b = f.mode()
	}
	o0, _ := f.objective(b)
	// The posterior is log-concave: find where it falls by span on each side.
	edge := func(to float64) float64 {
		if o, _ := f.objective(to); o-o0 < posteriorSpan {
			return to
		}
		lo, hi := b, to
		for range rangeSteps {
			mid := (lo + hi) / 2
			if o, _ := f.objective(mid); o-o0 < posteriorSpan {
				lo = mid
			} else {
				hi = mid
			}
		}
		return hi
	}
	bLo, bHi := edge(-f.maxDrift), edge(f.maxDrift)
	var sw, sb, sa, sbb, saa float64
	for k := range posteriorGrid {
		bk := bLo + (bHi-bLo)*float64(k)/(posteriorGrid-1)
		o, ak := f.objective(bk)
		w := math.Exp(o0 - o)
		sw += w
		sb += w * bk
		sa += w * ak
		sbb += w * bk * bk
		saa += w * ak * ak
	}
	f.b, f.a = sb/sw, sa/sw
	f.sigmaB = math.Sqrt(max(sbb/sw-f.b*f.b, 0))
	f.varA = max(saa/sw-f.a*f.a, 0)
}

// gaps returns the sum of the distances of a direction's points from their
// envelope of slope b, and the envelope's intercept.
func (f *filter) gaps(b, sign float64) (sum, base float64) {
	if sign > 0 {
		p := extreme(f.fh, b, 1)
		base = p.y - b*p.x
		return f.syf - b*f.sxf - float64(len(f.fwd))*base, base
	}
	p := extreme(f.bh, b, -1)
	base = p.y - b*p.x
	return float64(len(f.bwd))*base - f.syb + b*f.sxb, base
}

// objective returns the negative log posterior of drift b (up to a constant)
// and the estimate's intercept at that drift: the mean of the two envelopes,
// each moved by its expected distance from the base (jitter over points).
func (f *filter) objective(b float64) (o, a float64) {
	gf, mf := f.gaps(b, 1)
	gb, mb := f.gaps(b, -1)
	n := float64(len(f.fwd))
	o = (gf/f.jf+gb/f.jb)/temperature + math.Abs(b)/(priorScale*f.maxDrift)
	a = (mf - f.jf/n + mb + f.jb/n) / 2
	return o, a
}

// mode returns the posterior's mode by bisection on the objective's
// subgradient, which does not decrease with the drift.
func (f *filter) mode() float64 {
	n := float64(len(f.fwd))
	prior := 1 / (priorScale * f.maxDrift)
	grad := func(b float64) float64 {
		xf := extreme(f.fh, b, 1).x
		xb := extreme(f.bh, b, -1).x
		g := ((n*xf-f.sxf)/f.jf + (f.sxb-n*xb)/f.jb) / temperature
		switch {
		case b > 0:
			g += prior
		case b < 0:
			g -= prior
		}
		return g
	}
	lo, hi := -f.maxDrift, f.maxDrift
	switch {
	case grad(lo) >= 0:
		return lo
	case grad(hi) <= 0:
		return hi
	}
	for range slopeSteps {
		mid := (lo + hi) / 2
		if grad(mid) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	if lo < 0 && hi > 0 {
		return 0
	}
	return (lo + hi) / 2
}

// jitter estimates a direction's jitter scale, in seconds, as the mean
// distance of its points from their envelope of slope b: the maximum
// likelihood scale of exponential jitter.
func (f *filter) jitter(b, sign float64) float64 {
	n := len(f.fwd)
	if n < 2 {
		return quantum
	}
	sum, _ := f.gaps(b, sign)
	return max(sum/float64(n-1), quantum)
}

// spread returns the estimate's statistical error, in seconds: each
// envelope lies about its jitter over its number of points from the base,
// with about as much spread, plus the drift's uncertainty. With few points
// the jitter scales may be low by two standard errors, and are taken to be
// at least readyFloor of the round trip.
func (f *filter) spread() float64 {
	n := float64(len(f.fwd))
	floor := sec(f.minDelay) * readyFloor
	ef := max(f.jf, floor) / n * (1 + 2/math.Sqrt(n))
	eb := max(f.jb, floor) / n * (1 + 2/math.Sqrt(n))
	return math.Sqrt((ef*ef+eb*eb)/4 + f.varA)
}

// target returns the estimated server time at local time l.
func (f *filter) target(l time.Duration) time.Duration {
	return l + f.yRef + time.Duration(math.Round((f.a+f.b*sec(l-f.xRef))*1e9))
}

// limits returns the interval, in seconds relative to yRef, that holds the
// true offset at local time l given the fit's points: no higher than a
// forward point, no lower than a backward point, each carried to l at the
// drift plus or minus its uncertainty.
func (f *filter) limits(l time.Duration) (lo, hi float64) {
	xl := sec(l - f.xRef)
	if xl >= f.xMax {
		// Every point is in the past: the extremes are hull vertices.
		p := extreme(f.fh, f.b+f.eps, 1)
		q := extreme(f.bh, f.b-f.eps, -1)
		return q.y - quantum + (f.b-f.eps)*(xl-q.x), p.y + quantum + (f.b+f.eps)*(xl-p.x)
	}
	lo, hi = math.Inf(-1), math.Inf(1)
	for i, p := range f.fwd {
		d := xl - p.x
		hi = min(hi, p.y+quantum+f.b*d+f.eps*math.Abs(d))
		q := f.bwd[i]
		d = xl - q.x
		lo = max(lo, q.y-quantum+f.b*d-f.eps*math.Abs(d))
	}
	return lo, hi
}

// bound returns a bound, in seconds, on the estimate's error at local time l.
func (f *filter) bound(l time.Duration) float64 {
	lo, hi := f.limits(l)
	c := f.a + f.b*sec(l-f.xRef)
	return max(c-lo, hi-c, 0)
}

// contradicts reports whether s is impossible given the fit: its forward
// point below the lowest offset the fit allows, or its backward point above
// the highest.
func (f *filter) contradicts(s *sample) bool {
	lo, _ := f.limits(s.sent)
	if sec(s.fwd-f.yRef)+quantum < lo-suspectSlack {
		return true
	}
	_, hi := f.limits(s.recv)
	return sec(s.bwd-f.yRef)-quantum > hi+suspectSlack
}

// driftRange returns how far the true drift may be from the estimate: it is
// the slope of some line with every forward point above and every backward
// point below, and within MaxDriftPPM. (Spikes are left out: fewer
// constraints only widen the range.)
func (f *filter) driftRange() float64 {
	b := f.b
	lower, upper := -f.maxDrift, f.maxDrift
	if f.separation(b) >= 0 {
		if f.separation(lower) < 0 {
			lower = f.edge(b, lower)
		}
		if f.separation(upper) < 0 {
			upper = f.edge(b, upper)
		}
	}
	return max(b-lower, upper-b)
}

// edge bisects, in rangeSteps halvings, between a slope in where the
// separation is not negative and a slope out where it is, and returns the
// end on out's side.
func (f *filter) edge(in, out float64) float64 {
	for range rangeSteps {
		mid := (in + out) / 2
		if f.separation(mid) >= 0 {
			in = mid
		} else {
			out = mid
		}
	}
	return out
}

// separation returns the least vertical distance, in seconds, from the
// backward points up to the forward points across a line of slope s: where
// it is negative no such line lies between them. It is concave in s.
func (f *filter) separation(s float64) float64 {
	p, q := extreme(f.fh, s, 1), extreme(f.bh, s, -1)
	return (p.y + quantum - s*p.x) - (q.y - quantum - s*q.x)
}
