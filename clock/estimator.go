package clock

import (
	"math"
	"time"
)

const (
	// pendingSlots is how many outstanding pings are remembered; a pong for an
	// older one is stale.
	pendingSlots = 32
	// suspectLimit is how many consecutive samples must contradict the window
	// before it is discarded in their favour.
	suspectLimit = 3
	// rateLimit is the rate error (ppm of true time) the steady output keeps
	// under: slew plus drift error.
	rateLimit = 950e-6
	// slewSigmas is how many standard deviations of the drift estimate the
	// steady slew rate leaves room for under rateLimit.
	slewSigmas = 2
	// planDelay is how long after a pong's receive time the output path it
	// plans takes over.
	planDelay = 100 * time.Millisecond
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

	// the window: a ring of len(buf) samples
	buf     []sample
	head, n int

	haveServer   bool
	serverEpoch  uint32
	newestSent   time.Duration // send time of the newest ping answered in this server epoch
	epochSamples int           // samples since the last restart or flush
	epochStart   time.Duration // local time the first of them arrived

	suspects  [suspectLimit]sample
	nsuspects int

	first    Exchange // the first valid exchange
	hasFirst bool

	f filter

	// output
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

// Stats describes an Estimator's state as of the last pong. Lag is the gap
// the output is closing from the moment its current path took over.
type Stats struct {
	Pings        uint64 // pings issued by Ping
	Samples      uint64 // pongs matched to a ping with possible timestamps
	Stale        uint64 // pongs ignored: unknown, duplicate or expired id, or a superseded server epoch
	Invalid      uint64 // pongs with impossible timestamps (negative round trip, hold or delay)
	Spikes       uint64 // samples whose round trip marked them as delay spikes (kept, left out of the fit)
	Inconsistent uint64 // samples that the window proved impossible (held back; see Flushes)
	Flushes      uint64 // windows discarded after consecutive impossible samples
	Restarts     uint64 // server epoch changes seen
	Resets       uint64 // signalled output resets; equals Epoch()

	Window        int           // samples in the window
	MinDelay      time.Duration // least round trip minus server hold in the window
	Offset        time.Duration // estimated server time minus local time at the last pong
	DriftPPM      float64       // estimated server clock rate over local clock rate, minus 1, in ppm
	DriftSigmaPPM float64       // the drift estimate's standard deviation, ppm
	Spread        time.Duration // the estimate's statistical error (one sigma) at the last pong
	Lag           time.Duration // estimated server time minus output at the last pong
	Ready         bool          // Now has an output
	Converging    bool          // the output may still slew at ConvergeSlewPPM
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
		buf:        make([]sample, c.Window),
		f:          newFilter(c.Window, c.MaxDriftPPM*1e-6),
		lastReplan: math.MinInt64,
		newestSent: math.MinInt64,
	}, nil
}

// Exchange is one ping and its pong: the four timestamps.
type Exchange struct {
	Sent       time.Duration // local time the ping left
	ServerRecv time.Duration // server time it arrived
	ServerSend time.Duration // server time the pong left
	Received   time.Duration // local time the pong arrived
}

// First returns the first exchange the estimator took (whatever came of it),
// and whether there was one: all that Cristian's one-shot method has, for a
// baseline to compare with.
func (e *Estimator) First() (Exchange, bool) { return e.first, e.hasFirst }

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

// interval is the ping interval: half the fast one for the first
// BurstSamples samples of an epoch, fast until FastSamples, then lengthening
// evenly to slow over as many again.
func (e *Estimator) interval() time.Duration {
	fast, slow := e.cfg.FastPingInterval, e.cfg.SlowPingInterval
	k, ramp := e.epochSamples-e.cfg.FastSamples, e.cfg.FastSamples
	switch {
	case e.epochSamples < e.cfg.BurstSamples:
		return fast / 2
	case k < 0:
		return fast
	case k >= ramp:
		return slow
	}
	return fast + (slow-fast)*time.Duration(k)/time.Duration(ramp)
}

// HandlePong feeds the estimator a pong received at local time local (stamp
// it when the datagram arrived, not when a frame got round to it). Pongs are
// matched to pings by id: a pong for an unknown, already answered or
// long-superseded ping is ignored (counted in Stats.Stale), so lost,
// duplicated, reordered and stale pongs are harmless. A pong from a new server
// epoch, answering a ping sent after the newest ping answered in the current
// one, restarts the estimate: Now reports not ready until the new epoch has
// enough samples, then resumes with Epoch incremented.
func (e *Estimator) HandlePong(p Pong, local time.Duration) {
	slot := &e.pend[p.ID%pendingSlots]
	if !slot.live || slot.id != p.ID {
		e.stats.Stale++
		return
	}
	t1, t2, t3, t4 := slot.sent, p.Recv, p.Send, local
	s := sample{sent: t1, recv: t4, fwd: t2 - t1, bwd: t3 - t4}
	if !e.hasFirst && t4 >= t1 && t3 >= t2 {
		e.first, e.hasFirst = Exchange{Sent: t1, ServerRecv: t2, ServerSend: t3, Received: t4}, true
	}
	// A negative delay is possible only through the clocks' rate difference
	// over the server's hold (or wire rounding).
	slack := time.Duration(e.cfg.MaxDriftPPM*1e-6*float64(t3-t2)) + 2*wireUnit
	if t4 < t1 || t3 < t2 || s.delay() < -slack {
		slot.live = false
		e.stats.Invalid++
		return
	}
	if e.haveServer && p.Epoch != e.serverEpoch {
		if t1 <= e.newestSent {
			e.stats.Stale++ // an answer from a server epoch already left behind
			return
		}
		e.restart()
	}
	slot.live = false
	e.haveServer, e.serverEpoch = true, p.Epoch
	e.stats.Samples++
	if e.n > 0 && e.f.contradicts(&s) {
		e.stats.Inconsistent++
		e.suspects[e.nsuspects] = s
		e.nsuspects++
		if e.nsuspects < suspectLimit {
			return
		}
		// The world changed under the window (the server's clock jumped, or
		// the local one stood still while suspended): start it afresh.
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
	if e.f.refit(e) {
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

// at returns the i-th oldest sample of the window.
func (e *Estimator) at(i int) *sample { return &e.buf[(e.head+i)%len(e.buf)] }

// replan fixes the output path. A new path takes over planDelay after the
// pong's receive time l, so that a pong stamped a little before the caller's
// latest Now (processed late) never rewrites an output already returned.
func (e *Estimator) replan(l time.Duration) {
	l = max(l, e.lastReplan)
	e.lastReplan = l
	f := &e.f
	if !e.ready {
		if e.epochSamples < e.cfg.MinSamples ||
			f.spread() > e.cfg.ReadyError.Seconds() && l-e.epochStart < e.cfg.ReadyWithin {
			return
		}
		e.ready = true
		if e.everReady {
			e.epoch++
			e.stats.Resets++
		}
		e.everReady = true
		e.start(l)
		return
	}
	at := max(l+planDelay, e.cur.at)
	out := e.cur.out(at)
	gap := f.target(at) - out
	if gap > e.cfg.ResetAbove || gap < -e.cfg.ResetAbove {
		e.epoch++
		e.stats.Resets++
		e.start(l)
		return
	}
	fastAbove := math.Inf(1)
	if e.converging {
		if gap <= e.cfg.FastSlewAbove && gap >= -e.cfg.FastSlewAbove {
			e.converging = false
		} else {
			fastAbove = float64(e.cfg.FastSlewAbove)
		}
	}
	// While the drift is uncertain so is the output's true rate: slew more
	// gently, so that slew plus drift error stays within the rate limit.
	slow := e.cfg.SlewPPM * 1e-6
	slow = max(min(slow, rateLimit-slewSigmas*f.sigmaB), slow/5)
	e.prev, e.hasPrev = e.cur, true
	e.cur = newPlan(at, out, f.b, float64(gap), fastAbove, e.cfg.ConvergeSlewPPM*1e-6, slow,
		f.bound(at)*1e9, f.eps)
}

// start begins an output path at the estimate, at local time l: the first
// ready moment of an epoch, or a reset.
func (e *Estimator) start(l time.Duration) {
	f := &e.f
	e.converging = true
	e.hasPrev = false
	e.cur = newPlan(l, f.target(l), f.b, 0, 0, 0, 0, f.bound(l)*1e9, f.eps)
}

// Now returns the estimated server time at local time local, and whether the
// estimate is ready. Within an epoch it never decreases as local increases
// and never steps; it runs at the estimated server rate plus a slew of at
// most SlewPPM (ConvergeSlewPPM while converging). It is a fixed function of
// local time, re-planned by each pong from 100 ms after the pong's receive
// time on, so pongs handled up to 100 ms after they were stamped never alter
// an output already returned. Calling it changes nothing.
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

// Bound returns a bound on |Now(local) - true server time|: the tightest
// interval the window's samples allow for the true offset, whatever the split
// of each round trip between the two directions (so at least half the least
// round trip), widened by the drift uncertainty over the time since, plus the
// output's current slew lag. Before the estimate is ready it returns the
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
// Compare it between frames: across a change, Now may step either way.
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
		f := &e.f
		s.MinDelay = f.minDelay
		s.Offset = f.target(e.lastReplan) - e.lastReplan
		s.DriftPPM = f.b * 1e6
		s.DriftSigmaPPM = f.sigmaB * 1e6
		s.Spread = time.Duration(f.spread() * 1e9)
	}
	if e.ready {
		s.Lag = time.Duration(math.Round(e.cur.lag(0)))
	}
	return s
}
