package timeline

import (
	"math"
	"time"

	"github.com/tether-net/tether/internal/order"
)

// estimator measures the link from arrivals and derives the target render
// delay from it: the least delay at which the expected share of frames drawn
// past the newest state is Config.LateShare (see lateAt).
type estimator struct {
	share float64       // target share of late frames
	fixed time.Duration // configured send interval, or 0
	minD  time.Duration
	maxD  time.Duration

	late    []time.Duration // ring of recent lateness samples
	lateN   int
	lateAt  int
	scratch []time.Duration

	gaps  [15]time.Duration // ring of recent gaps between appended states
	gapN  int
	gapAt int

	lost, seen float64 // exponentially weighted counts of regular states

	dirty  bool
	cached time.Duration
	median time.Duration // median lateness
}

// lossMemory is the number of states the loss estimate forgets over (1/e).
const lossMemory = 64

func (e *estimator) init(c Config) {
	*e = estimator{
		share:   c.LateShare,
		fixed:   c.SendInterval,
		minD:    c.MinDelay,
		maxD:    c.MaxDelay,
		late:    make([]time.Duration, c.Window),
		scratch: make([]time.Duration, c.Window),
		dirty:   true,
	}
}

// reset returns e emptied, keeping its configuration and buffers.
func (e *estimator) reset() estimator {
	r := estimator{
		share: e.share, fixed: e.fixed, minD: e.minD, maxD: e.maxD,
		late: e.late, scratch: e.scratch, dirty: true,
	}
	clear(r.late)
	return r
}

// lateness records one arrival's lateness (arrival minus state time).
func (e *estimator) lateness(l time.Duration) {
	e.late[e.lateAt] = l
	e.lateAt++
	if e.lateAt == len(e.late) {
		e.lateAt = 0
	}
	e.lateN = min(e.lateN+1, len(e.late))
	e.dirty = true
}

// appended records the gap between a state appended as the newest and the
// previous newest, for the send interval and loss estimates. A gap longer
// than the longest delay allowed is an outage, not loss: no delay could
// cover it, and counting its states as lost would raise the delay for the
// next lossMemory states, long after it is over.
func (e *estimator) appended(gap time.Duration) {
	iv := e.interval()
	e.gaps[e.gapAt] = gap
	e.gapAt = (e.gapAt + 1) % len(e.gaps)
	e.gapN = min(e.gapN+1, len(e.gaps))
	if iv > 0 && gap <= e.maxD {
		k := math.Round(float64(gap) / float64(iv))
		lost := max(k-1, 0)
		const f = 1 - 1.0/lossMemory
		e.lost = e.lost*f + lost
		e.seen = e.seen*f + 1 + lost
	}
	e.dirty = true
}

// filled records a late state inserted into a gap, which appended counted
// as lost.
func (e *estimator) filled() {
	e.lost = max(e.lost-1, 0)
	e.dirty = true
}

// interval returns the configured send interval, else the median of the
// recent gaps (extra states at contacts make shorter gaps, losses longer
// ones; the median ignores both while they are the minority), else 0.
func (e *estimator) interval() time.Duration {
	if e.fixed > 0 {
		return e.fixed
	}
	if e.gapN == 0 {
		return 0
	}
	var s [len(estimator{}.gaps)]time.Duration
	copy(s[:], e.gaps[:e.gapN])
	return order.Select(s[:e.gapN], e.gapN/2)
}

func (e *estimator) loss() float64 {
	if e.seen == 0 {
		return 0
	}
	return e.lost / e.seen
}

// medianLateness returns the median lateness over the window (0 with no
// samples).
func (e *estimator) medianLateness() time.Duration {
	e.update()
	return e.median
}

// target returns the render delay to aim for.
func (e *estimator) target() time.Duration {
	e.update()
	return e.cached
}

func (e *estimator) update() {
	if !e.dirty {
		return
	}
	e.dirty = false
	e.median, e.cached = 0, 0
	if e.lateN > 0 {
		s := e.scratch[:e.lateN]
		copy(s, e.late[:e.lateN])
		e.median = order.Select(s, (e.lateN-1)/2)
		if e.interval() > 0 {
			e.cached = e.solve(e.late[:e.lateN])
		} else {
			// No interval yet (the first arrivals): a frame is late when
			// its state is later than the delay.
			k := int(math.Ceil((1-e.share)*float64(e.lateN))) - 1
			e.cached = order.Select(s, min(max(k, 0), e.lateN-1))
		}
	}
	e.cached = min(max(e.cached, e.minD), e.maxD)
}

// solve returns the least delay, to a microsecond, whose expected share of
// late frames over the lateness samples ls is at most the target share, the
// send interval being known.
func (e *estimator) solve(ls []time.Duration) time.Duration {
	iv, p := e.interval(), e.loss()
	lo, hi := ls[0], ls[0]
	for _, l := range ls {
		lo, hi = min(lo, l), max(hi, l)
	}
	// Every frame is late at a delay of the least lateness less an
	// interval, none at the greatest plus two (a state and the next lost).
	lo, hi = lo-iv, hi+2*iv+time.Microsecond
	for hi-lo > time.Microsecond {
		mid := lo + (hi-lo)/2
		if lateAt(ls, mid, iv, p) > e.share {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// lateAt returns the expected share of frames drawn past the newest regular
// state at render delay d, for states sent every iv, a share p of them lost,
// the others late by the samples ls (drawn independently).
//
// A frame at now draws render time now-d. The next state after the render
// time, sent u later (u uniform over [0, iv) from frame to frame), is there
// if it arrived, l ≤ d-u: the frame is late with probability
// late(d-l) = clamp(1 - (d-l)/iv, 0, 1). If that state was lost, the frame
// needs the one after it, sent iv later still: late(d-iv-l). With iv
// unknown (0) a frame is late when its state is later than d.
func lateAt(ls []time.Duration, d, iv time.Duration, p float64) float64 {
	late := func(slack time.Duration) float64 {
		if iv <= 0 {
			if slack < 0 {
				return 1
			}
			return 0
		}
		return min(max(1-float64(slack)/float64(iv), 0), 1)
	}
	var sum float64
	for _, l := range ls {
		sum += (1-p)*late(d-l) + p*late(d-iv-l)
	}
	return sum / float64(len(ls))
}
