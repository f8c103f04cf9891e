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
	// suspectSlack is added to the sum of the two error bounds before a
	// sample is called a contradiction, in seconds.
	suspectSlack = 1e-3
	// spikeFactor times the median excess delay (delay above the window's
	// minimum) is the excess beyond which a sample is a delay spike and gets
	// no weight; spikeFloor is the least such threshold, in seconds.
	spikeFactor = 4
	spikeFloor  = 200e-6
	// scaleFloor is the least excess-delay scale used in the weights, in
	// seconds: timestamps travel as whole microseconds.
	scaleFloor = 5e-6
	// quantum bounds the offset error due to wire resolution, in seconds.
	quantum = 2e-6
	// driftSigmas is how many standard errors of the drift estimate the
	// bound's frequency uncertainty covers; driftFloor is added to it.
	driftSigmas = 4
	driftFloor  = 2e-6
	// calibrationSteps is the number of bisection steps of the excess scale.
	calibrationSteps = 12
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
	scratch []float64

	haveServer   bool
	serverEpoch  uint32
	newestSent   time.Duration // send time of the newest ping answered in this server epoch
	epochSamples int           // samples since the last restart or flush

	suspects  [suspectLimit]sample
	nsuspects int

	// fit: offset(L) = offRef + a + b*(L-midRef), a in seconds
	midRef, offRef time.Duration
	a, b, eps      float64
	minDelay       time.Duration
	spikeAbove     float64 // excess delay beyond which a sample is a spike, seconds
	scale          float64 // calibrated excess scale, seconds

	ready, everReady bool
	converging       bool
	epoch            uint32
	lastReplan       time.Duration
	cur, prev        plan
	hasPrev          bool

	stats Stats
}

type pending struct {
	id   uint32
	sent time.Duration
	live bool
}

type sample struct {
	mid    time.Duration // local time at the exchange's midpoint
	offset time.Duration // measured server time minus local time at mid
	delay  time.Duration // round trip minus the server's hold
	rtt    time.Duration // round trip, local time
	sent   time.Duration // local time the ping left
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
		cfg:     c,
		buf:     make([]sample, c.Window),
		scratch: make([]float64, 0, c.Window),
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
	if e.epochSamples < e.cfg.FastSamples {
		return e.cfg.FastPingInterval
	}
	return e.cfg.SlowPingInterval
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
	s := sample{
		mid:    t1 + rtt/2,
		offset: ((t2 - t1) + (t3 - t4)) / 2,
		delay:  delay,
		rtt:    rtt,
		sent:   t1,
	}
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
	if sec(s.delay-e.minDelay) > e.spikeAbove {
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

// modelOffset returns the fitted offset at local time l, in seconds relative
// to offRef.
func (e *Estimator) modelOffset(l time.Duration) float64 {
	return e.a + e.b*sec(l-e.midRef)
}

// halfWidth returns the half-width, in seconds, of the interval around a
// sample's measured offset that holds the true offset whatever the split of
// its delay between the two directions.
func (e *Estimator) halfWidth(s *sample) float64 {
	return sec(s.delay)/2 + (math.Abs(e.b)+e.eps)*sec(s.rtt)/2 + quantum
}

// modelBound returns a bound, in seconds, on the fitted offset's error at
// local time l: for every sample, the true offset lies within its half-width
// of the sample's measured offset, and drifts from there by at most eps per
// second.
func (e *Estimator) modelBound(l time.Duration) float64 {
	best := math.Inf(1)
	for i := range e.n {
		s := e.at(i)
		resid := math.Abs(e.modelOffset(s.mid) - sec(s.offset-e.offRef))
		c := resid + e.halfWidth(s) + e.eps*math.Abs(sec(l-s.mid))
		best = min(best, c)
	}
	return best
}

// contradicts reports whether s's interval and the model's cannot both hold
// the true offset.
func (e *Estimator) contradicts(s sample) bool {
	dev := math.Abs(sec(s.offset-e.offRef) - e.modelOffset(s.mid))
	return dev > e.halfWidth(&s)+e.modelBound(s.mid)+suspectSlack
}

// refit recomputes the minimum delay, the spike threshold and the weighted
// regression of offset on local time over the window.
func (e *Estimator) refit() {
	newest := e.at(e.n - 1)
	e.midRef, e.offRef = newest.mid, newest.offset
	d1, d2, d3 := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for i := range e.n {
		d := e.at(i).delay
		switch {
		case d < d1:
			d1, d2, d3 = d, d1, d2
		case d < d2:
			d2, d3 = d, d2
		case d < d3:
			d3 = d
		}
	}
	e.minDelay = d1
	// The weights model each sample's offset error as uniform over its excess
	// delay plus the (unknown) excess of the best sample, estimated from the
	// spacing of the lowest delays.
	scale := scaleFloor
	switch {
	case e.n >= 3:
		scale = max(scale, sec(d3-d1)/2)
	case e.n == 2:
		scale = max(scale, sec(d2-d1))
	}
	ex := e.scratch[:0]
	for i := range e.n {
		ex = append(ex, sec(e.at(i).delay-d1))
	}
	slices.Sort(ex)
	e.spikeAbove = max(spikeFactor*ex[len(ex)/2], spikeFloor)

	// The offset error of a sample whose delay exceeds the best one's by exc
	// is modelled as uniform over exc + scale, where scale stands for the
	// best sample's own (unknown) excess over the path's true minimum. The
	// scale is calibrated so that the residuals fit the model: chi-squared
	// per degree of freedom of one.
	lo, hi := scaleFloor, max(scaleFloor, e.spikeAbove)
	f := e.fit(lo, d1)
	if f.used > 3 && f.chi2 > float64(f.used-2) {
		if g := e.fit(hi, d1); g.chi2 > float64(g.used-2) {
			f = g
		} else {
			for range calibrationSteps {
				mid := math.Sqrt(lo * hi)
				g := e.fit(mid, d1)
				if g.chi2 > float64(g.used-2) {
					lo = mid
				} else {
					hi, f = mid, g
				}
			}
		}
	} else if f.used <= 3 {
		f = e.fit(max(scale, ex[len(ex)/2]), d1)
	}
	e.a, e.b, e.scale = f.a, f.b, f.scale
	k := 1.0
	if f.used > 2 {
		k = max(1, f.chi2/float64(f.used-2))
	}
	sigmaB := math.Sqrt(k * f.varB)
	maxDrift := e.cfg.MaxDriftPPM * 1e-6
	e.eps = min(driftSigmas*sigmaB+driftFloor, math.Abs(e.b)+maxDrift)
}

type fitResult struct {
	a, b, varB, chi2, scale float64
	used                    int
}

// fit is a weighted least-squares line through the window's offsets with the
// given excess scale, ignoring spikes. A prior on the drift (zero, with
// standard deviation MaxDriftPPM) keeps the slope sane while the window spans
// little time.
func (e *Estimator) fit(scale float64, d1 time.Duration) fitResult {
	var s0, sx, sxx, sy, sxy float64
	for i := range e.n {
		s := e.at(i)
		exc := sec(s.delay - d1)
		if exc > e.spikeAbove {
			continue
		}
		w := 12 / ((exc + scale) * (exc + scale))
		x, y := sec(s.mid-e.midRef), sec(s.offset-e.offRef)
		s0 += w
		sx += w * x
		sxx += w * x * x
		sy += w * y
		sxy += w * x * y
	}
	maxDrift := e.cfg.MaxDriftPPM * 1e-6
	sxxp := sxx + 1/(maxDrift*maxDrift)
	det := s0*sxxp - sx*sx
	f := fitResult{scale: scale}
	f.a = (sxxp*sy - sx*sxy) / det
	f.b = (s0*sxy - sx*sy) / det
	f.varB = s0 / det
	for i := range e.n {
		s := e.at(i)
		exc := sec(s.delay - d1)
		if exc > e.spikeAbove {
			continue
		}
		w := 12 / ((exc + scale) * (exc + scale))
		r := sec(s.offset-e.offRef) - f.a - f.b*sec(s.mid-e.midRef)
		f.chi2 += w * r * r
		f.used++
	}
	return f
}

// target returns the estimated server time at local time l.
func (e *Estimator) target(l time.Duration) time.Duration {
	return l + e.offRef + time.Duration(math.Round(e.modelOffset(l)*1e9))
}

// replan fixes the output path from local time l on.
func (e *Estimator) replan(l time.Duration) {
	l = max(l, e.lastReplan)
	e.lastReplan = l
	tgt := e.target(l)
	bound0 := e.modelBound(l) * 1e9
	eps := e.eps
	if !e.ready {
		if e.epochSamples < e.cfg.MinSamples {
			return
		}
		e.ready = true
		if e.everReady {
			e.epoch++
			e.stats.Resets++
		}
		e.everReady = true
		e.converging = true
		e.hasPrev = false
		e.cur = newPlan(l, tgt, e.b, 0, 0, 1, 1, bound0, eps)
		return
	}
	out := e.cur.out(l)
	gap := tgt - out
	if gap > e.cfg.ResetAbove || gap < -e.cfg.ResetAbove {
		e.epoch++
		e.stats.Resets++
		e.converging = true
		e.hasPrev = false
		e.cur = newPlan(l, tgt, e.b, 0, 0, 1, 1, bound0, eps)
		return
	}
	fastAbove := math.Inf(1)
	if e.converging {
		if e.epochSamples >= e.cfg.FastSamples && gap <= e.cfg.FastSlewAbove && gap >= -e.cfg.FastSlewAbove {
			e.converging = false
		} else {
			fastAbove = float64(e.cfg.FastSlewAbove)
		}
	}
	e.prev, e.hasPrev = e.cur, true
	e.cur = newPlan(l, out, e.b, float64(gap), fastAbove,
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
