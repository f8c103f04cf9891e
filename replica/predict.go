package replica

import (
	"math/bits"
	"time"
)

// Sample is an entity's quantised values at one moment of server time:
// Q[i] is component i of its kind's Layout.
type Sample struct {
	Time time.Duration
	Q    []int32
}

// Predictor predicts an entity's values at a snapshot's time from samples
// both sides hold: the entity as of the baseline the client acknowledged,
// and up to two earlier ones of the same generation. A delta codes the
// difference between the truth and the prediction, so the better the
// prediction the fewer the bits; an entity exactly where it is predicted to
// be costs a fraction of a bit. A Predictor must be deterministic and use
// integers only (or floating point the same on every platform): server and
// client must reach the same prediction to the step.
type Predictor interface {
	// Depth is how many samples Predict wants, 1 to 3.
	Depth() int
	// Predict writes into pred (len l.N) the values at time t, from hist:
	// 1 to Depth() samples, newest first, all before t.
	Predict(l *Layout, pred []int64, hist []Sample, t time.Duration)
}

const maxDepth = 3

// Refiner is implemented by a Predictor that predicts an entity's other
// components better once its velocity is known: the layer codes the
// velocity's components first, then calls Refine, then codes the others
// against pred as refined.
type Refiner interface {
	// Refine updates pred (len l.N) given cur, whose velocity components
	// (l.Vel) hold the entity's values at t; its other entries are
	// meaningless.
	Refine(l *Layout, pred, cur []int64, hist []Sample, t time.Duration)
}

// Hold predicts that nothing changed: the newest sample's values.
type Hold struct{}

func (Hold) Depth() int { return 1 }

func (Hold) Predict(l *Layout, pred []int64, hist []Sample, _ time.Duration) {
	for i := range pred {
		pred[i] = int64(hist[0].Q[i])
	}
}

// Linear predicts motion at the newest sample's velocity: its velocity
// held, and its position moved on at the mean of that velocity and the one
// the snapshot sends (Refine), which is exact for a steady acceleration (a
// body speeding up or slowing down) and a straight line when the velocity
// is as predicted; everything else held. A kind without both a position and
// a velocity on an axis holds that axis.
type Linear struct{}

func (Linear) Depth() int { return 1 }

func (Linear) Predict(l *Layout, pred []int64, hist []Sample, t time.Duration) {
	Hold{}.Predict(l, pred, hist, t)
	l.Advance(pred, t-hist[0].Time)
}

func (Linear) Refine(l *Layout, pred, cur []int64, hist []Sample, t time.Duration) {
	l.Midway(pred, cur, hist[0], t)
}

// Midway sets the position of pred to that of sample s moved on to t at the
// mean of s's velocity and cur's (a steady acceleration's path), on the
// axes with both a position and a velocity.
func (l *Layout) Midway(pred, cur []int64, s Sample, t time.Duration) {
	dt := int64((t - s.Time) / time.Microsecond)
	for a := range 3 {
		p, v := l.Pos[a], l.Vel[a]
		if p < 0 || v < 0 {
			continue
		}
		pred[p] = clampSteps(int64(s.Q[p]) + MulDiv((int64(s.Q[v])+cur[v])*l.PosScale, dt, 2*l.VelScale*1e6))
	}
}

// Advance moves the position of values q on by its velocity over dt, in
// integers (rounded half away from zero): the step Linear predicts with.
func (l *Layout) Advance(q []int64, dt time.Duration) {
	for a := range 3 {
		p, v := l.Pos[a], l.Vel[a]
		if p < 0 || v < 0 {
			continue
		}
		// steps of position = v · dt · PosScale / VelScale, dt in µs.
		q[p] = clampSteps(q[p] + MulDiv(q[v]*l.PosScale, int64(dt/time.Microsecond), l.VelScale*1e6))
	}
}

// Extrapolate predicts every component from the newest Samples samples (2
// or 3; 0 means 3) as a polynomial in time through them: a straight line
// through two, a parabola through three, so a steady acceleration costs
// nothing. With fewer samples held it uses those (one: held). A rotation is
// held unless its largest component is the same in every sample, and a
// wrapping component (a yaw) is unwrapped about the newest sample.
type Extrapolate struct{ Samples int }

func (x Extrapolate) Depth() int {
	if x.Samples == 0 {
		return 3
	}
	return x.Samples
}

func (Extrapolate) Predict(l *Layout, pred []int64, hist []Sample, t time.Duration) {
	Hold{}.Predict(l, pred, hist, t)
	if len(hist) < 2 {
		return
	}
	rotSame := true
	if l.Rot >= 0 {
		for _, s := range hist[1:] {
			rotSame = rotSame && s.Q[l.Rot] == hist[0].Q[l.Rot]
		}
	}
	us := func(d time.Duration) int64 { return int64(d / time.Microsecond) }
	d0, d1 := us(t-hist[0].Time), us(hist[0].Time-hist[1].Time)
	if d1 <= 0 {
		return
	}
	for i := range pred {
		if l.Rot >= 0 && i >= l.Rot && (i == l.Rot || !rotSame) && i < l.Rot+4 {
			continue
		}
		// Values as differences from the newest, unwrapped for a yaw.
		v0 := int64(hist[0].Q[i])
		diff := func(s Sample) int64 {
			d := int64(s.Q[i]) - v0
			if i == l.Yaw {
				d = wrapDiff(d, l.YawSteps)
			}
			return d
		}
		e1 := diff(hist[1]) // v1 - v0
		// The line through the two newest samples.
		p := v0 + MulDiv(-e1, d0, d1)
		if len(hist) >= 3 {
			if d2 := us(hist[1].Time - hist[2].Time); d2 > 0 {
				// The parabola through three: add
				// [(v0-v1)/d1 - (v1-v2)/d2] · d0(d0+d1)/(d1+d2).
				e2 := diff(hist[2])
				n := -e1*d2 - (e1-e2)*d1
				x := MulDiv(n, d0<<16, d1*d2)
				p += MulDiv(x, d0+d1, (d1+d2)<<16)
			}
		}
		if i == l.Yaw {
			p = ((p % l.YawSteps) + l.YawSteps) % l.YawSteps
		}
		pred[i] = clampSteps(p)
	}
}

// MulDiv returns a·b/c rounded to the nearest integer, halves away from
// zero (c > 0), without overflow in the product; a result beyond int64 is
// clamped.
func MulDiv(a, b, c int64) int64 {
	if a == 0 || b == 0 {
		return 0 // the common case of a body at rest, without a division
	}
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	uc := uint64(c)
	// Add c/2 to round.
	lo, carry := bits.Add64(lo, uc/2, 0)
	hi += carry
	if hi >= uc {
		if neg {
			return -1 << 63
		}
		return 1<<63 - 1
	}
	q, _ := bits.Div64(hi, lo, uc)
	if q > 1<<63-1 {
		q = 1<<63 - 1
	}
	if neg {
		return -int64(q)
	}
	return int64(q)
}

func abs64(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

func clampSteps(x int64) int64 { return max(-maxSteps, min(maxSteps, x)) }

// clamp keeps a prediction within each component's range, whatever a
// game's Predictor says, so that no residual outgrows the coding. A yaw's
// range is its whole turn, [0, YawSteps): within it, it needs no taking
// round.
func (l *layout) clamp(pred []int64) {
	lo, hi := l.lo[:len(pred)], l.hi[:len(pred)]
	for k, x := range pred {
		if x < lo[k] || x > hi[k] { // rare: stored only then
			pred[k] = max(lo[k], min(hi[k], x))
		}
	}
}

// wrapDiff returns d taken into [-m/2, m/2): the shorter way around a circle
// of m steps.
func wrapDiff(d, m int64) int64 {
	if d <= -m || d >= m { // the division only when it changes d
		d %= m
	}
	if d >= m/2 {
		d -= m
	} else if d < -m/2 {
		d += m
	}
	return d
}
