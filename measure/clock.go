package measure

import (
	"math"
	"time"
)

// ClockMetrics measure a client's estimate of server time, over the frames
// after the warm-up.
type ClockMetrics struct {
	// ErrMs is |estimate - true server time - (up - down base latency)/2|: the
	// error round trips can remove. RawErrMs is |estimate - true server time|.
	ErrMs    Stat `json:"err_ms"`
	RawErrMs Stat `json:"raw_err_ms"`
	// Backsteps counts frames whose estimate is earlier than the previous one.
	Backsteps int `json:"backsteps"`
	// MaxRatePPM is the largest |d estimate / d true - 1| over consecutive 1 s
	// windows after convergence (over the whole run if it never converged),
	// in parts per million; null when no whole window was measured.
	MaxRatePPM *float64 `json:"max_rate_ppm"`
	// ConvergeS is the time from the first clock reply until the error stays
	// within ConvergeWithinMs for the rest of the run; -1 if it never does.
	ConvergeS        float64 `json:"converge_s"`
	ConvergeWithinMs float64 `json:"converge_within_ms"`
	// BoundCoverage is the share of frames whose raw error is within the bound
	// the method reports; null for a method that reports none.
	BoundCoverage *float64 `json:"bound_coverage"`
	// NotReady counts frames after the warm-up with no estimate at all.
	NotReady int `json:"not_ready_frames"`
}

// Frame is what a client's clock gave at one render frame.
type Frame struct {
	T     time.Duration // true server time of the frame
	Est   time.Duration // the client's estimate of server time
	Ready bool          // the clock had an estimate
	Bound time.Duration // the error bound it reports; negative: none
}

// ClockMeter measures a client's clock frame by frame (ClockMetrics). Set its
// fields before the first frame.
type ClockMeter struct {
	WarmUp time.Duration // frames before it are not measured
	// Asym is the link's (up - down base latency)/2: the offset error no
	// round trip can see, taken out of ErrMs.
	Asym time.Duration
	// Within is the error the clock must stay within to have converged.
	Within time.Duration

	m                ClockMetrics
	err, raw         Series
	covered, bounded int
	prevEst          time.Duration
	hasPrev          bool
	// conv is the true time of the first frame since the newest one whose
	// error was not within Within (or that had no estimate).
	conv    time.Duration
	hasConv bool
	// all measures the rate over the frames after the warm-up, since over
	// those after conv: which one reports depends on whether the run ends
	// converged.
	all, since rateWindows
}

// NewClockMeter returns the meter of a client's clock over link: Asym is
// taken from its base latencies, and the clock must stay within 2 ms to have
// converged, or 5 ms on a link with latency spikes (the mobile preset).
func NewClockMeter(warmUp time.Duration, link Link) ClockMeter {
	within := 2 * time.Millisecond
	if link.Spikes {
		within = 5 * time.Millisecond
	}
	return ClockMeter{WarmUp: warmUp, Asym: (link.Up - link.Down) / 2, Within: within}
}

// rateWindows finds the largest |d estimate / d true - 1| over consecutive
// windows of at least a second.
type rateWindows struct {
	t, est time.Duration // where the current window starts
	open   bool
	n      int // windows measured
	worst  float64
}

func (w *rateWindows) add(t, est time.Duration) {
	if !w.open {
		w.t, w.est, w.open = t, est, true
		return
	}
	if t-w.t < time.Second {
		return
	}
	rate := float64(est-w.est)/float64(t-w.t) - 1
	w.worst = max(w.worst, math.Abs(rate)*1e6)
	w.t, w.est = t, est
	w.n++
}

// Add measures the next frame.
func (k *ClockMeter) Add(f Frame) {
	raw := f.Est - f.T
	if !f.Ready || (raw-k.Asym).Abs() > k.Within {
		k.hasConv = false
		k.since = rateWindows{}
	} else if !k.hasConv {
		k.conv, k.hasConv = f.T, true
	}
	if f.T < k.WarmUp {
		return
	}
	if !f.Ready {
		k.m.NotReady++
		return
	}
	k.err.Add(math.Abs(ms(raw - k.Asym)))
	k.raw.Add(math.Abs(ms(raw)))
	if k.hasPrev && f.Est < k.prevEst {
		k.m.Backsteps++
	}
	k.prevEst, k.hasPrev = f.Est, true
	if f.Bound >= 0 {
		k.bounded++
		if raw.Abs() <= f.Bound {
			k.covered++
		}
	}
	k.all.add(f.T, f.Est)
	if k.hasConv {
		k.since.add(f.T, f.Est)
	}
}

// Metrics returns the figures of the frames so far. firstReply is the true
// time of the client's first clock reply, if replied: ConvergeS counts from
// it.
func (k *ClockMeter) Metrics(firstReply time.Duration, replied bool) ClockMetrics {
	km := k.m
	km.ErrMs = k.err.Stat()
	km.RawErrMs = k.raw.Stat()
	if k.bounded > 0 {
		cov := Round(float64(k.covered) / float64(k.bounded))
		km.BoundCoverage = &cov
	}
	km.ConvergeWithinMs = ms(k.Within)
	km.ConvergeS = -1
	if k.hasConv && replied {
		km.ConvergeS = Round(max(0, k.conv-firstReply).Seconds())
	}
	w := k.all
	if k.hasConv {
		w = k.since
	}
	if w.n > 0 {
		r := Round(w.worst)
		km.MaxRatePPM = &r
	}
	return km
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
