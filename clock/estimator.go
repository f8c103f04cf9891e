package clock

import (
	"math"
	"slices"
	"time"
)

const (
	// pendingSlots is how many outstanding pings are remembered; a pong for an
	// older one is stale.
	pendingSlots = 32
	// suspectLimit is how many consecutive samples must contradict the model
	// before the window is discarded in their favour.
	suspectLimit = 3
	// suspectSlack is the margin, in seconds, by which a sample must fall
	// outside the interval the window allows before it is a contradiction.
	suspectSlack = 1e-3
	// spikeFactor times the median excess round trip (above the window's
	// minimum) is the excess beyond which a sample is a delay spike and is left
	// out of the fit; spikeFloor is the least such threshold, in seconds.
	spikeFactor = 4
	spikeFloor  = 200e-6
	// quantum bounds the error of a server timestamp due to wire resolution,
	// in seconds.
	quantum = 1e-6
	// slopeSteps and rangeSteps are bisection steps for the drift (to about
	// 0.01 ppm) and for its feasible range (to about 1 ppm).
	slopeSteps = 20
	rangeSteps = 12
)

// Estimator is the client's estimate of the server's clock. It is a state
// machine without I/O: the caller passes the local time into every method,
// sends the pings it returns and hands it the pongs that come back. It is not
// safe for concurrent use.
type Estimator struct {
	cfg Config

	// ping schedule
	nextID    uint32
	pend      [pendingSlots]pending
	scheduled bool
	lastPing  time.Duration
	nextPing  time.Duration

	// window of samples, a ring of len(buf)
	buf     []sample
	head, n int

	haveServer   bool
	serverEpoch  uint32
	newestSent   time.Duration // send time of the newest ping answered in this server epoch
	epochSamples int           // samples since the last restart or flush
	epochStart   time.Duration // local time the first of them arrived

	suspects  [suspectLimit]sample
	nsuspects int

	// fit, in seconds relative to xRef (local) and yRef (offset): the forward
	// envelope F(x) = af + b*x lies under every forward point (t2-t1 at t1),
	// the backward envelope G(x) = ag + b*x over every backward point (t3-t4
	// at t4); the estimate is their mean.
	xRef, yRef        time.Duration
	af, ag, b         float64
	eps               float64 // drift uncertainty
	jf, jb            float64 // jitter scale of each direction, seconds
	minDelay          time.Duration
	spikeAbove        float64 // excess delay beyond which a sample is a spike, seconds
	sigmaB            float64
	varA, varB, covAB float64 // posterior (co)variances of the intercept and drift
	pts               points  // scratch, reused

	ready, everReady bool
	converging       bool
	epoch            uint32
	lastReplan       time.Duration
	cur, prev        plan
	freq             float64 // the output's base rate
	hasPrev          bool

	stats Stats
}

type pending struct {
	id   uint32
	sent time.Duration
	live bool
}

type sample struct {
	sent time.Duration // t1: local time the ping left
	recv time.Duration // t4: local time the pong arrived
	fwd  time.Duration // t2-t1: offset plus the forward delay
	bwd  time.Duration // t3-t4: offset minus the backward delay
}

func (s *sample) delay() time.Duration { return s.fwd - s.bwd }

// points holds the window as float64 seconds for the fit.
type points struct {
	xf, yf, xb, yb   []float64 // forward and backward points, spikes excluded
	gaps             []float64
	sx, sy, sx2, sy2 []float64
}

// Stats describes an Estimator's state as of the last pong.
type Stats struct {
	Pings        uint64 // pings issued by Ping
	Samples      uint64 // pongs accepted as samples
	Stale        uint64 // pongs ignored: unknown, duplicate or expired id, or a superseded server epoch
	Invalid      uint64 // pongs with impossible timestamps (negative round trip or delay)
	Spikes       uint64 // samples whose delay marked them as spikes on arrival (kept, without weight)
	Inconsistent uint64 // samples that contradicted the model beyond both error bounds
	Flushes      uint64 // windows discarded after suspectLimit consecutive contradictions
	Restarts     uint64 // server epoch changes seen
	Resets       uint64 // signalled output resets (equals Epoch())

	Window      int           // samples in the window
	MinDelay    time.Duration // least round trip minus server hold in the window
	Offset      time.Duration // estimated server time minus local time at the last pong
	DriftPPM    float64       // estimated server clock rate over local clock rate, minus 1, in ppm
	DriftErrPPM float64       // the drift uncertainty the bound assumes, ppm
	Lag         time.Duration // estimated server time minus output at the last pong
	Ready       bool          // Now has an output
	Converging  bool          // the output may still slew at ConvergeSlewPPM
}

// NewEstimator returns an Estimator configured by c (zero fields take their
// defaults). Its first ping is due at once.
func NewEstimator(c Config) (*Estimator, error) {
	c, err := c.resolve()
	if err != nil {
		return nil, err
	}
	return &Estimator{
		cfg:        c,
		lastReplan: math.MinInt64,
		newestSent: math.MinInt64,
		buf:        make([]sample, c.Window),
		pts: points{
			xf:   make([]float64, 0, c.Window),
			yf:   make([]float64, 0, c.Window),
			xb:   make([]float64, 0, c.Window),
			yb:   make([]float64, 0, c.Window),
			gaps: make([]float64, 0, c.Window),
			sx:   make([]float64, 0, c.Window),
			sy:   make([]float64, 0, c.Window),
			sx2:  make([]float64, 0, c.Window),
			sy2:  make([]float64, 0, c.Window),
		},
	}, nil
}

// PingDue reports whether a ping is due at local time local: the caller
// should then call Ping and send the result, on its own or appended to a
// packet it is sending anyway.
func (e *Estimator) PingDue(local time.Duration) bool {
	return !e.scheduled || local >= e.nextPing
}

// NextPing returns the local time the next ping is due (local itself if one
// is due now).
func (e *Estimator) NextPing(local time.Duration) time.Duration {
	if !e.scheduled || local >= e.nextPing {
		return local
	}
	return e.nextPing
}

// Ping returns a ping under a fresh id and records local as its send time;
// call it just before the ping is sent. The next ping is due one interval
// later, whether or not this one was due.
func (e *Estimator) Ping(local time.Duration) Ping {
	e.nextID++
	id := e.nextID
	e.pend[id%pendingSlots] = pending{id: id, sent: local, live: true}
	e.scheduled = true
	e.lastPing = local
	e.nextPing = local + e.interval()
	e.stats.Pings++
	return Ping{ID: id}
}

func (e *Estimator) interval() time.Duration {
	k := e.epochSamples - e.cfg.FastSamples
	switch {
	case k < 0:
		return e.cfg.FastPingInterval
	case k >= rampSamples:
		return e.cfg.SlowPingInterval
	}
	f, s := e.cfg.FastPingInterval, e.cfg.SlowPingInterval
	return f + (s-f)*time.Duration(k)/time.Duration(rampSamples)
}

// HandlePong feeds the estimator a pong received at local time local. Pongs
// are matched to pings by id: a pong for an unknown, already answered or
// long-superseded ping is ignored (counted in Stats.Stale), so lost,
// duplicated, reordered and stale pongs are harmless. A pong from a new server
// epoch, answering a ping sent after the newest ping answered in the current
// one, restarts the estimate: Now reports not ready until MinSamples samples
// of the new epoch arrive, then resumes with Epoch incremented.
func (e *Estimator) HandlePong(p Pong, local time.Duration) {
	slot := &e.pend[p.ID%pendingSlots]
	if !slot.live || slot.id != p.ID {
		e.stats.Stale++
		return
	}
	t1, t2, t3, t4 := slot.sent, p.Recv, p.Send, local
	rtt, hold := t4-t1, t3-t2
	if rtt < 0 || hold < 0 {
		slot.live = false
		e.stats.Invalid++
		return
	}
	delay := rtt - hold
	if delay < 0 {
		// The two clocks' rates differ, so a long hold can exceed the round
		// trip by up to the drift times the hold.
		if float64(-delay) > e.cfg.MaxDriftPPM*1e-6*float64(hold)+float64(2*wireUnit) {
			slot.live = false
			e.stats.Invalid++
			return
		}
		delay = 0
	}
	if e.haveServer && p.Epoch != e.serverEpoch {
		if t1 <= e.newestSent {
			e.stats.Stale++ // an answer from a server epoch already left behind
			return
		}
		e.restart()
	}
	slot.live = false
	if !e.haveServer {
		e.haveServer = true
	}
	e.serverEpoch = p.Epoch
	s := sample{sent: t1, recv: t4, fwd: t2 - t1, bwd: t3 - t4}
	e.stats.Samples++
	if e.n > 0 && e.contradicts(s) {
		e.stats.Inconsistent++
		e.suspects[e.nsuspects] = s
		e.nsuspects++
		if e.nsuspects < suspectLimit {
			return
		}
		// The world changed under the model (the server's clock jumped, or
		// the local one was suspended): start the window afresh.
		e.stats.Flushes++
		e.n, e.head, e.epochSamples = 0, 0, 0
		e.converging = true
		for _, q := range e.suspects[:e.nsuspects] {
			e.add(q)
		}
		e.nsuspects = 0
		e.pullPing()
	} else {
		e.nsuspects = 0
		e.add(s)
	}
	e.newestSent = max(e.newestSent, t1)
	e.refit()
	if sec(s.delay()-e.minDelay) > e.spikeAbove {
		e.stats.Spikes++
	}
	e.replan(local)
}

// restart forgets the window after the server's epoch changed.
func (e *Estimator) restart() {
	e.stats.Restarts++
	e.n, e.head, e.epochSamples, e.nsuspects = 0, 0, 0, 0
	e.newestSent = math.MinInt64
	e.ready = false
	e.hasPrev = false
	e.pullPing()
}

// pullPing brings the next ping forward after the interval shortened.
func (e *Estimator) pullPing() {
	if e.scheduled {
		e.nextPing = min(e.nextPing, e.lastPing+e.interval())
	}
}

func (e *Estimator) add(s sample) {
	if e.epochSamples == 0 {
		e.epochStart = s.recv
	}
	w := len(e.buf)
	e.buf[(e.head+e.n)%w] = s
	if e.n < w {
		e.n++
	} else {
		e.head = (e.head + 1) % w
	}
	e.epochSamples++
}

func (e *Estimator) at(i int) *sample { return &e.buf[(e.head+i)%len(e.buf)] }

func sec(d time.Duration) float64 { return d.Seconds() }

// offsetAt returns the estimated offset (server time minus local time) at
// local time l, in seconds relative to yRef.
func (e *Estimator) offsetAt(l time.Duration) float64 {
	return (e.af+e.ag)/2 + e.b*sec(l-e.xRef)
}

// target returns the estimated server time at local time l.
func (e *Estimator) target(l time.Duration) time.Duration {
	return l + e.yRef + time.Duration(math.Round(e.offsetAt(l)*1e9))
}

// limits returns the interval, in seconds relative to yRef, that the true
// offset at local time l must lie in given the window: a ping's forward point
// (t2-t1) is the offset plus a delay, so no lower than the offset when it
// left; a pong's backward point (t3-t4) is the offset minus a delay, so no
// higher. Each point is carried to l at the drift, plus or minus its
// uncertainty. The interval holds whatever the split of the delays.
func (e *Estimator) limits(l time.Duration) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	for i := range e.n {
		s := e.at(i)
		xf := sec(l - s.sent)
		hi = min(hi, sec(s.fwd-e.yRef)+quantum+e.b*xf+e.eps*math.Abs(xf))
		xb := sec(l - s.recv)
		lo = max(lo, sec(s.bwd-e.yRef)-quantum+e.b*xb-e.eps*math.Abs(xb))
	}
	return lo, hi
}

// modelBound returns a bound, in seconds, on the estimated offset's error at
// local time l.
func (e *Estimator) modelBound(l time.Duration) float64 {
	lo, hi := e.limits(l)
	c := e.offsetAt(l)
	return max(c-lo, hi-c, 0)
}

// contradicts reports whether s is impossible given the window: its forward
// point under the lowest offset the window allows, or its backward point over
// the highest.
func (e *Estimator) contradicts(s sample) bool {
	lo, _ := e.limits(s.sent)
	if sec(s.fwd-e.yRef)+quantum < lo-suspectSlack {
		return true
	}
	_, hi := e.limits(s.recv)
	return sec(s.bwd-e.yRef)-quantum > hi+suspectSlack
}

// refit recomputes the spike threshold, the two delay envelopes with their
// common slope (the drift), and the drift's uncertainty.
//
// The forward points of a window lie above the line offset(x) + the forward
// base delay, the backward points below offset(x) - the backward base delay;
// jitter only ever adds delay. So the filter fits a lower envelope to the
// forward points and an upper envelope to the backward ones, with one slope,
// minimising the sum of the points' distances from their envelope, each
// direction scaled by its jitter, plus a Laplace prior on the drift: the
// maximum a posteriori line for exponential jitter. Each envelope is biased
// by about its jitter over its number of points, which is subtracted. Their
// mean is the estimate: it differs from the true offset by half the
// difference of the two base delays (which no round trip can observe) and by
// what is left of the jitter.
func (e *Estimator) refit() {
	newest := e.at(e.n - 1)
	e.xRef, e.yRef = newest.recv, newest.bwd
	p := &e.pts
	d1 := time.Duration(math.MaxInt64)
	for i := range e.n {
		d1 = min(d1, e.at(i).delay())
	}
	e.minDelay = d1
	p.gaps = p.gaps[:0]
	for i := range e.n {
		p.gaps = append(p.gaps, sec(e.at(i).delay()-d1))
	}
	e.spikeAbove = max(spikeFactor*median(p.gaps), spikeFloor)
	p.xf, p.yf, p.xb, p.yb = p.xf[:0], p.yf[:0], p.xb[:0], p.yb[:0]
	for i := range e.n {
		s := e.at(i)
		if sec(s.delay()-d1) > e.spikeAbove {
			continue
		}
		p.xf = append(p.xf, sec(s.sent-e.xRef))
		p.yf = append(p.yf, sec(s.fwd-e.yRef))
		p.xb = append(p.xb, sec(s.recv-e.xRef))
		p.yb = append(p.yb, sec(s.bwd-e.yRef))
	}
	maxDrift := e.cfg.MaxDriftPPM * 1e-6
	nf, nb := float64(len(p.xf)), float64(len(p.xb))
	if slopeBlocks == -3 {
		e.posterior(maxDrift)
		e.eps = e.driftRange(maxDrift)
		return
	}
	if slopeBlocks == -2 {
		e.b = p.slopeWLS(maxDrift)
	} else if slopeBlocks < 0 {
		e.b = p.slopeQuantile(maxDrift)
	} else if slopeBlocks == 0 {
		e.b = p.slopeLP(e.jf, e.jb, maxDrift)
	} else {
		for range 2 {
			e.b = p.slope(e.b, e.jf, e.jb, maxDrift)
		}
	}
	if oracleDrift != nil {
		e.b = *oracleDrift
	}
	b := e.b
	e.jf = p.jitter(p.xf, p.yf, b, 1)
	e.jb = p.jitter(p.xb, p.yb, b, -1)
	if penaltyK > 0 {
		lam := penaltyK * p.slopeSpread(b, e.jf, e.jb, maxDrift)
		e.sigmaB = lam / penaltyK
		i := argPenal(p.xf, p.yf, b, lam, 1)
		j := argPenal(p.xb, p.yb, b, lam, -1)
		if penaltyInValue {
			e.af = p.yf[i] - b*p.xf[i] - lam*p.xf[i] - e.jf/nf
			e.ag = p.yb[j] - b*p.xb[j] + lam*p.xb[j] + e.jb/nb
		} else {
			e.af = p.yf[i] - b*p.xf[i] - e.jf/nf
			e.ag = p.yb[j] - b*p.xb[j] + e.jb/nb
		}
	} else if oracleLambda != nil {
		lam := math.Abs(b-*oracleLambda) + 5e-6
		bestF, bestG := math.Inf(1), math.Inf(-1)
		for i := range p.xf {
			bestF = min(bestF, p.yf[i]-b*p.xf[i]-lam*p.xf[i])
			bestG = max(bestG, p.yb[i]-b*p.xb[i]+lam*p.xb[i])
		}
		e.af = bestF - e.jf/nf
		e.ag = bestG + e.jb/nb
	} else if recentM > 0 && len(p.xf) > recentM {
		k := len(p.xf) - recentM
		nf, nb = float64(recentM), float64(recentM)
		i := k + argExtreme(p.xf[k:], p.yf[k:], b, 1)
		e.af = p.yf[i] - b*p.xf[i] - e.jf/nf
		j := k + argExtreme(p.xb[k:], p.yb[k:], b, -1)
		e.ag = p.yb[j] - b*p.xb[j] + e.jb/nb
	} else {
		i := argExtreme(p.xf, p.yf, b, 1)
		e.af = p.yf[i] - b*p.xf[i] - e.jf/nf
		j := argExtreme(p.xb, p.yb, b, -1)
		e.ag = p.yb[j] - b*p.xb[j] + e.jb/nb
	}
	e.eps = e.driftRange(maxDrift)
}

var temperature = 2.0

var priorK = 4.0

var freqTau = 0.0

var fastJ = 0.0

var readyFloor = 0.05

var debugReady func(e *Estimator, l time.Duration)
var convSamples = 0
var freqK = 2.0

// posterior computes the target line as the posterior mean over the drift.
func (e *Estimator) posterior(maxDrift float64) {
	p := &e.pts
	nf, nb := float64(len(p.xf)), float64(len(p.xb))
	bMAP := p.slopeLP(e.jf, e.jb, maxDrift)
	e.jf = p.jitter(p.xf, p.yf, bMAP, 1)
	e.jb = p.jitter(p.xb, p.yb, bMAP, -1)
	bMAP = p.slopeLP(e.jf, e.jb, maxDrift)
	var sxf, syf, sxb, syb float64
	for i := range p.xf {
		sxf += p.xf[i]
		syf += p.yf[i]
		sxb += p.xb[i]
		syb += p.yb[i]
	}
	prior := priorK / maxDrift
	jf, jb := e.jf*temperature, e.jb*temperature
	// obj returns the negative log posterior of drift b (up to a constant)
	// and the intercept of the estimate at that drift.
	obj := func(b float64) (o, a float64) {
		i := argExtreme(p.xf, p.yf, b, 1)
		mf := p.yf[i] - b*p.xf[i]
		j := argExtreme(p.xb, p.yb, b, -1)
		mb := p.yb[j] - b*p.xb[j]
		o = (syf-b*sxf-nf*mf)/jf + (nb*mb-syb+b*sxb)/jb + prior*math.Abs(b)
		a = (mf - e.jf/nf + mb + e.jb/nb) / 2
		return o, a
	}
	o0, _ := obj(bMAP)
	const span = 12 // posterior mass beyond exp(-span) of the peak is ignored
	edge := func(from, to float64) float64 {
		if o, _ := obj(to); o-o0 < span {
			return to
		}
		lo, hi := from, to
		for range rangeSteps {
			mid := (lo + hi) / 2
			if o, _ := obj(mid); o-o0 < span {
				lo = mid
			} else {
				hi = mid
			}
		}
		return hi
	}
	bLo, bHi := edge(bMAP, -maxDrift), edge(bMAP, maxDrift)
	const grid = 33
	var sw, sb, sa, sbb, saa, sab float64
	for k := range grid {
		b := bLo + (bHi-bLo)*float64(k)/(grid-1)
		o, a := obj(b)
		w := math.Exp(o0 - o)
		sw += w
		sb += w * b
		sa += w * a
		sbb += w * b * b
		saa += w * a * a
		sab += w * a * b
	}
	e.b = sb / sw
	a := sa / sw
	e.af, e.ag = a, a
	e.varB = max(sbb/sw-e.b*e.b, 0)
	e.varA = max(saa/sw-a*a, 0)
	e.covAB = sab/sw - a*e.b
}

// driftRange returns how far the true drift may be from the estimate: the
// slopes of the lines that separate every forward point (above) from every
// backward point (below) form an interval holding the true drift, as does
// [-maxDrift, maxDrift].
func (e *Estimator) driftRange(maxDrift float64) float64 {
	b := e.b
	lower, upper := -maxDrift, maxDrift
	if e.separation(b) >= 0 {
		if e.separation(lower) < 0 {
			lo, hi := lower, b
			for range rangeSteps {
				mid := (lo + hi) / 2
				if e.separation(mid) >= 0 {
					hi = mid
				} else {
					lo = mid
				}
			}
			lower = lo
		}
		if e.separation(upper) < 0 {
			lo, hi := b, upper
			for range rangeSteps {
				mid := (lo + hi) / 2
				if e.separation(mid) >= 0 {
					lo = mid
				} else {
					hi = mid
				}
			}
			upper = hi
		}
	}
	return max(b-lower, upper-b)
}

// separation returns the least vertical distance, in seconds, between the
// forward points above and the backward points below a line of slope f.
// It is concave in f.
func (e *Estimator) separation(f float64) float64 {
	top, bottom := math.Inf(1), math.Inf(-1)
	for i := range e.n {
		s := e.at(i)
		top = min(top, sec(s.fwd-e.yRef)+quantum-f*sec(s.sent-e.xRef))
		bottom = max(bottom, sec(s.bwd-e.yRef)-quantum-f*sec(s.recv-e.xRef))
	}
	return top - bottom
}

// slopeBlocks is how many blocks of consecutive samples the drift is
// estimated from.
var slopeBlocks = -3

var oracleDrift *float64

// slope estimates the drift: the window is cut into blocks of equal numbers
// of samples, each block's forward minimum and backward maximum (with the
// drift b0 removed) are its envelope points, and a least-squares line with
// one slope and an intercept per direction goes through them, with a normal
// prior on the drift (zero, standard deviation maxDrift/2). Equal counts
// give every block minimum the same bias, so sampling faster at times does
// not tilt the line.
func (p *points) slope(b0, jf, jb, maxDrift float64) float64 {
	n := len(p.xf)
	k := min(slopeBlocks, n/2)
	if k < 2 {
		return 0
	}
	var sxyF, sxxF, sxyB, sxxB float64
	var mxF, myF, mxB, myB float64
	// Two passes: means, then sums of squares. Blocks are recomputed; they
	// are cheap.
	for pass := range 2 {
		for blk := range k {
			lo, hi := blk*n/k, (blk+1)*n/k
			i := lo + argExtreme(p.xf[lo:hi], p.yf[lo:hi], b0, 1)
			j := lo + argExtreme(p.xb[lo:hi], p.yb[lo:hi], b0, -1)
			if pass == 0 {
				mxF += p.xf[i] / float64(k)
				myF += p.yf[i] / float64(k)
				mxB += p.xb[j] / float64(k)
				myB += p.yb[j] / float64(k)
				continue
			}
			dx := p.xf[i] - mxF
			sxxF += dx * dx
			sxyF += dx * (p.yf[i] - myF)
			dx = p.xb[j] - mxB
			sxxB += dx * dx
			sxyB += dx * (p.yb[j] - myB)
		}
	}
	m := float64(n) / float64(k)
	noise := (jf*jf + jb*jb) / (2 * m * m) // variance of a block extreme
	prior := maxDrift / 2
	b := (sxyF + sxyB) / (sxxF + sxxB + noise/(prior*prior))
	return max(-maxDrift, min(maxDrift, b))
}

var slopeQ = 0.1

var recentM = 0

var rampSamples = 80

var readyCap = 3

var oracleLambda *float64

var penaltyK = 0.0
var penaltyInValue = false

// argPenal returns the envelope support point when each point's distance
// above (sign 1) or below (sign -1) the line of slope b is penalised by lam
// per second of age (x <= 0).
func argPenal(x, y []float64, b, lam, sign float64) int {
	best, at := math.Inf(1), 0
	for i := range x {
		if v := sign*(y[i]-b*x[i]) - lam*x[i]; v < best {
			best, at = v, i
		}
	}
	return at
}

// slopeSpread estimates the drift estimate's standard error from the spread
// of the slopes of interleaved quarters of the window.
func (p *points) slopeSpread(b, jf, jb, maxDrift float64) float64 {
	const parts = 4
	n := len(p.xf)
	if n < 4*parts {
		return maxDrift
	}
	full := *p
	var sum, sum2 float64
	for k := range parts {
		p.sx, p.sy, p.sx2, p.sy2 = p.sx[:0], p.sy[:0], p.sx2[:0], p.sy2[:0]
		for i := k; i < n; i += parts {
			p.sx = append(p.sx, full.xf[i])
			p.sy = append(p.sy, full.yf[i])
			p.sx2 = append(p.sx2, full.xb[i])
			p.sy2 = append(p.sy2, full.yb[i])
		}
		sub := points{xf: p.sx, yf: p.sy, xb: p.sx2, yb: p.sy2}
		bk := sub.slopeLP(jf, jb, maxDrift)
		sum += bk
		sum2 += (bk - b) * (bk - b)
	}
	_ = sum
	return math.Sqrt(sum2/parts) / 2
}

// quantileResid sorts scratch and returns the q-quantile of y - b*x and the
// mean check loss about it.
func (p *points) quantileResid(x, y []float64, b, q float64) (a, loss float64) {
	r := p.gaps[:0]
	for i := range x {
		r = append(r, y[i]-b*x[i])
	}
	slices.Sort(r)
	a = r[int(q*float64(len(r)-1)+0.5)]
	for _, v := range r {
		if v > a {
			loss += q * (v - a)
		} else {
			loss += (1 - q) * (a - v)
		}
	}
	p.gaps = r
	return a, loss / float64(len(r))
}

// slopeQuantile fits a common slope to the lower quantile of the forward
// points and the upper quantile of the backward points.
func (p *points) slopeQuantile(maxDrift float64) float64 {
	if len(p.xf) < 3 {
		return 0
	}
	q := slopeQ
	_, sf := p.quantileResid(p.xf, p.yf, 0, q)
	_, sb := p.quantileResid(p.xb, p.yb, 0, 1-q)
	sf, sb = max(sf, quantum), max(sb, quantum)
	sp := maxDrift / 2
	grad := func(b float64) float64 {
		var g float64
		af, _ := p.quantileResid(p.xf, p.yf, b, q)
		for i := range p.xf {
			u := p.yf[i] - b*p.xf[i] - af
			switch {
			case u > 0:
				g -= p.xf[i] * q / sf
			case u < 0:
				g -= p.xf[i] * (q - 1) / sf
			}
		}
		ab, _ := p.quantileResid(p.xb, p.yb, b, 1-q)
		for i := range p.xb {
			u := p.yb[i] - b*p.xb[i] - ab
			switch {
			case u > 0:
				g -= p.xb[i] * (1 - q) / sb
			case u < 0:
				g -= p.xb[i] * (-q) / sb
			}
		}
		return g + b/(sp*sp)
	}
	lo, hi := -maxDrift, maxDrift
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
	return (lo + hi) / 2
}

// slopeWLS regresses the midpoints on time, weighting by excess delay with a
// calibrated scale.
func (p *points) slopeWLS(maxDrift float64) float64 {
	n := len(p.xf)
	if n < 3 {
		return 0
	}
	dmin := math.Inf(1)
	for i := range n {
		dmin = min(dmin, p.yf[i]-p.yb[i])
	}
	fit := func(scale float64) (b, chi2 float64) {
		var s0, sx, sxx, sy, sxy float64
		for i := range n {
			exc := p.yf[i] - p.yb[i] - dmin
			w := 12 / ((exc + scale) * (exc + scale))
			x, y := (p.xf[i]+p.xb[i])/2, (p.yf[i]+p.yb[i])/2
			s0 += w
			sx += w * x
			sxx += w * x * x
			sy += w * y
			sxy += w * x * y
		}
		sxxp := sxx + 1/(maxDrift*maxDrift/4)
		det := s0*sxxp - sx*sx
		a := (sxxp*sy - sx*sxy) / det
		b = (s0*sxy - sx*sy) / det
		for i := range n {
			exc := p.yf[i] - p.yb[i] - dmin
			w := 12 / ((exc + scale) * (exc + scale))
			x, y := (p.xf[i]+p.xb[i])/2, (p.yf[i]+p.yb[i])/2
			r := y - a - b*x
			chi2 += w * r * r
		}
		return b, chi2
	}
	lo, hi := 1e-6, 0.1
	b, chi := fit(lo)
	if chi <= float64(n-2) {
		return max(-maxDrift, min(maxDrift, b))
	}
	for range 14 {
		mid := math.Sqrt(lo * hi)
		bb, c := fit(mid)
		if c > float64(n-2) {
			lo = mid
		} else {
			hi, b = mid, bb
		}
	}
	return max(-maxDrift, min(maxDrift, b))
}

func (p *points) slopeLP(jf, jb, maxDrift float64) float64 {
	prior := 4 / maxDrift
	nf, nb := float64(len(p.xf)), float64(len(p.xb))
	var sumf, sumb float64
	for i := range p.xf {
		sumf += p.xf[i]
		sumb += p.xb[i]
	}
	slope := func(b float64) float64 {
		xf := p.xf[argExtreme(p.xf, p.yf, b, 1)]
		xb := p.xb[argExtreme(p.xb, p.yb, b, -1)]
		g := (nf*xf-sumf)/jf + (sumb-nb*xb)/jb
		switch {
		case b > 0:
			g += prior
		case b < 0:
			g -= prior
		}
		return g
	}
	lo, hi := -maxDrift, maxDrift
	switch {
	case slope(lo) >= 0:
		return lo
	case slope(hi) <= 0:
		return hi
	}
	for range slopeSteps {
		mid := (lo + hi) / 2
		if slope(mid) > 0 {
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

// argExtreme returns the index of the point lowest (sign 1) or highest
// (sign -1) under a line of slope b: the envelope's support point.
func argExtreme(x, y []float64, b, sign float64) int {
	best, at := math.Inf(1), 0
	for i := range x {
		if v := sign * (y[i] - b*x[i]); v < best {
			best, at = v, i
		}
	}
	return at
}

// jitter estimates a direction's jitter scale in seconds from the points'
// distances to their envelope of slope b.
func (p *points) jitter(x, y []float64, b, sign float64) float64 {
	i := argExtreme(x, y, b, sign)
	base := y[i] - b*x[i]
	p.gaps = p.gaps[:0]
	for k := range x {
		p.gaps = append(p.gaps, sign*(y[k]-b*x[k]-base))
	}
	if len(p.gaps) < 2 {
		return quantum
	}
	var sum float64
	for _, g := range p.gaps {
		sum += g
	}
	return max(sum/float64(len(p.gaps)-1), quantum)
}

// spread returns the estimate's statistical error in seconds: each envelope
// lies about its jitter over its number of points from the base delay, with
// about as much spread.
func (e *Estimator) spread() float64 {
	nf, nb := float64(len(e.pts.xf)), float64(len(e.pts.xb))
	// The jitter scales come from few points early on: allow for them being
	// low by two standard errors.
	// Nor, on any real path, is the jitter much below a twentieth of the
	// round trip.
	floor := sec(e.minDelay) * readyFloor
	jf, jb := max(e.jf, floor), max(e.jb, floor)
	return math.Hypot(jf/nf*(1+2/math.Sqrt(nf)), jb/nb*(1+2/math.Sqrt(nb))) / 2
}

// median sorts v and returns its upper median.
func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// replan fixes the output path from local time l on.
func (e *Estimator) replan(l time.Duration) {
	l = max(l, e.lastReplan)
	e.lastReplan = l
	tgt := e.target(l)
	bound0 := e.modelBound(l) * 1e9
	eps := e.eps
	if !e.ready {
		if e.epochSamples < e.cfg.MinSamples ||
			e.spread() > e.cfg.ReadyError.Seconds() && l-e.epochStart < e.cfg.ReadyWithin {
			return
		}
		if debugReady != nil {
			debugReady(e, l)
		}
		e.ready = true
		if e.everReady {
			e.epoch++
			e.stats.Resets++
		}
		e.everReady = true
		e.converging = true
		e.hasPrev = false
		e.freq = e.b
		e.cur = newPlan(l, tgt, tgt, e.b, e.b, 0, 1, 1, bound0, eps)
		return
	}
	out := e.cur.out(l)
	// The output's base rate learns how the estimate actually moves between
	// pongs (re-anchoring on new samples corrects a drift estimate that is
	// still poor), within the drift's uncertainty of the estimate.
	if freqTau > 0 {
		dt := sec(l - e.cur.at)
		seen := tgt - (e.cur.out0 + (e.cur.tgt0 - e.cur.out0) + (l - e.cur.at) + time.Duration(math.Round(e.freq*float64(l-e.cur.at))))
		_ = dt
		e.freq += sec(seen) / freqTau
		lim := freqK * math.Sqrt(e.varB)
		e.freq = max(e.b-lim, min(e.b+lim, e.freq))
	} else {
		e.freq = e.b
	}
	gap := tgt - out
	if gap > e.cfg.ResetAbove || gap < -e.cfg.ResetAbove {
		e.epoch++
		e.stats.Resets++
		e.converging = true
		e.hasPrev = false
		e.freq = e.b
		e.cur = newPlan(l, tgt, tgt, e.b, e.b, 0, 1, 1, bound0, eps)
		return
	}
	fastAbove := math.Inf(1)
	if e.converging {
		fa := max(e.cfg.FastSlewAbove, time.Duration((e.jf+e.jb)*1e9*fastJ))
		if gap <= fa && gap >= -fa && e.epochSamples >= convSamples {
			e.converging = false
		} else {
			fastAbove = float64(fa)
		}
	}
	e.prev, e.hasPrev = e.cur, true
	e.cur = newPlan(l, out, tgt, e.freq, e.b, fastAbove,
		e.cfg.ConvergeSlewPPM*1e-6, e.cfg.SlewPPM*1e-6, bound0, eps)
}

// Now returns the estimated server time at local time local, and whether the
// estimate is ready. Within an epoch it never decreases as local increases,
// never steps, and departs from the estimated server rate by at most SlewPPM
// (ConvergeSlewPPM while converging). It is a fixed function of local time
// between pongs: calling it does not change the estimator.
func (e *Estimator) Now(local time.Duration) (server time.Duration, ok bool) {
	if !e.ready {
		return 0, false
	}
	p := &e.cur
	if local < p.at && e.hasPrev {
		p = &e.prev
	}
	return p.out(local), true
}

// Bound returns a bound on |Now(local) - true server time|: half the round
// trip of the sample that bounds the estimate best, plus that sample's
// residual against the fit, plus its age times the drift uncertainty, plus the
// output's current slew lag. It holds whatever the split of the round trip
// between the two directions. Before the estimate is ready it returns the
// largest Duration.
func (e *Estimator) Bound(local time.Duration) time.Duration {
	if !e.ready {
		return math.MaxInt64
	}
	p := &e.cur
	if local < p.at && e.hasPrev {
		p = &e.prev
	}
	return p.bound(local)
}

// Epoch returns the output epoch: 0 from the first ready moment, incremented
// by every signalled reset (a server restart, or an error beyond ResetAbove).
// Compare it between frames: across a change, Now may step in either
// direction.
func (e *Estimator) Epoch() uint32 { return e.epoch }

// Ready reports whether Now has an output.
func (e *Estimator) Ready() bool { return e.ready }

// Stats returns counters and the estimator's state as of the last pong.
func (e *Estimator) Stats() Stats {
	s := e.stats
	s.Window = e.n
	s.Ready = e.ready
	s.Converging = e.converging
	if e.n > 0 {
		s.MinDelay = e.minDelay
		s.Offset = e.target(e.lastReplan) - e.lastReplan
		s.DriftPPM = e.b * 1e6
		s.DriftErrPPM = e.eps * 1e6
	}
	if e.ready {
		s.Lag = time.Duration(math.Round(e.cur.lag(float64(e.lastReplan - e.cur.at))))
	}
	return s
}
