package clock

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// This file is a small seeded link model that drives an Estimator and a
// Responder in virtual time, and measures what the lab measures.

// jitterDist draws one-way jitter (>= 0).
type jitterDist struct {
	kind  string // "none", "exp", "lognormal"
	mean  time.Duration
	p99   time.Duration // lognormal only
	mu    float64       // lognormal parameters of ln(jitter in seconds)
	sigma float64
}

func expJitter(mean time.Duration) jitterDist { return jitterDist{kind: "exp", mean: mean} }

// lognormalJitter returns a lognormal distribution with the given mean and
// 99th percentile.
func lognormalJitter(mean, p99 time.Duration) jitterDist {
	const z99 = 2.3263478740408408
	// ln p99 - ln mean = z*sigma - sigma^2/2; take the smaller root.
	l := math.Log(float64(p99) / float64(mean))
	sigma := z99 - math.Sqrt(z99*z99-2*l)
	mu := math.Log(mean.Seconds()) - sigma*sigma/2
	return jitterDist{kind: "lognormal", mean: mean, p99: p99, mu: mu, sigma: sigma}
}

func (j jitterDist) draw(r *rand.Rand) time.Duration {
	switch j.kind {
	case "exp":
		return time.Duration(r.ExpFloat64() * float64(j.mean))
	case "lognormal":
		return time.Duration(math.Exp(j.mu+j.sigma*r.NormFloat64()) * 1e9)
	}
	return 0
}

// direction is one way of a link.
type direction struct {
	base   time.Duration
	jitter jitterDist
	loss   float64 // long-run loss rate
	burst  float64 // mean loss burst length in packets; <= 1 means independent
	dup    float64 // probability a delivered packet is delivered twice

	bad bool // Gilbert-Elliott state
}

// lost decides whether the next packet is lost.
func (d *direction) lost(r *rand.Rand) bool {
	if d.loss <= 0 {
		return false
	}
	if d.burst <= 1 {
		return r.Float64() < d.loss
	}
	if d.bad {
		if r.Float64() < 1/d.burst {
			d.bad = false
		}
	} else if r.Float64() < d.loss/(d.burst*(1-d.loss)) {
		d.bad = true
	}
	return d.bad
}

type spike struct {
	at, length, extra time.Duration
	up                bool
}

// profile is a link and the client's clock, plus the figures to hold.
type profile struct {
	name       string
	up, down   direction
	offset     time.Duration // client clock minus true time at t = 0
	driftPPM   float64       // client clock rate minus 1, ppm
	spikes     bool          // one-direction spikes of +50..200 ms for 0.1..0.5 s every ~30 s
	blackoutAt time.Duration
	blackout   time.Duration
	restartAt  time.Duration // server clock restart (new epoch and origin); 0 = none
	jumpAt     time.Duration // server clock jump without an epoch change; 0 = none
	jump       time.Duration
	settleAt   time.Duration // start of the window of p99Settled; 0 = none
	duration   time.Duration

	// figures
	p99Limit  time.Duration // p99 of clock error
	convThr   time.Duration // error threshold for convergence
	convLimit time.Duration // convergence time limit from first reply
}

func profiles() []profile {
	const ms = time.Millisecond
	return []profile{
		{name: "lan",
			up:       direction{base: ms / 2, jitter: expJitter(200 * time.Microsecond)},
			down:     direction{base: ms / 2, jitter: expJitter(200 * time.Microsecond)},
			p99Limit: ms / 10, convThr: 2 * ms, convLimit: 2 * time.Second},
		{name: "broadband",
			up:       direction{base: 25 * ms, jitter: expJitter(5 * ms), loss: 0.01},
			down:     direction{base: 25 * ms, jitter: expJitter(5 * ms), loss: 0.01},
			p99Limit: ms, convThr: 2 * ms, convLimit: 2 * time.Second},
		{name: "wan",
			up:     direction{base: 40 * ms, jitter: lognormalJitter(10*ms, 60*ms), loss: 0.03, burst: 3, dup: 0.01},
			down:   direction{base: 60 * ms, jitter: lognormalJitter(10*ms, 60*ms), loss: 0.03, burst: 3, dup: 0.01},
			offset: 37 * time.Second, driftPPM: 100,
			p99Limit: 2 * ms, convThr: 2 * ms, convLimit: 2 * time.Second},
		{name: "mobile",
			up:       direction{base: 75 * ms, jitter: expJitter(15 * ms), loss: 0.05},
			down:     direction{base: 75 * ms, jitter: expJitter(15 * ms), loss: 0.05},
			spikes:   true,
			driftPPM: -200,
			p99Limit: 4 * ms, convThr: 5 * ms, convLimit: 5 * time.Second},
		{name: "drift+500",
			up:     direction{base: 40 * ms, jitter: lognormalJitter(10*ms, 60*ms)},
			down:   direction{base: 60 * ms, jitter: lognormalJitter(10*ms, 60*ms)},
			offset: -3 * time.Second, driftPPM: 500,
			p99Limit: 2 * ms, convThr: 2 * ms, convLimit: 2 * time.Second},
		{name: "drift-500",
			up:     direction{base: 40 * ms, jitter: lognormalJitter(10*ms, 60*ms)},
			down:   direction{base: 60 * ms, jitter: lognormalJitter(10*ms, 60*ms)},
			offset: -3 * time.Second, driftPPM: -500,
			p99Limit: 2 * ms, convThr: 2 * ms, convLimit: 2 * time.Second},
		{name: "asym", // all of the base delay one way: the bound must still cover
			up:       direction{base: 2 * ms, jitter: expJitter(ms)},
			down:     direction{base: 98 * ms, jitter: expJitter(ms)},
			offset:   -5 * time.Second,
			driftPPM: 50,
			p99Limit: ms / 2, convThr: 2 * ms, convLimit: 2 * time.Second},
		{name: "lossy",
			up:         direction{base: 25 * ms, jitter: expJitter(5 * ms), loss: 0.10},
			down:       direction{base: 25 * ms, jitter: expJitter(5 * ms), loss: 0.10},
			blackoutAt: 20 * time.Second, blackout: 2 * time.Second,
			p99Limit: 2 * ms, convThr: 2 * ms, convLimit: 2 * time.Second},
	}
}

func profileByName(name string) profile {
	for _, p := range profiles() {
		if p.name == name {
			return p
		}
	}
	panic("no profile " + name)
}

// event is a scheduled packet arrival.
type event struct {
	at   time.Duration // true time
	seq  int           // tie-break, for determinism
	fire func()
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// result holds what one run measured.
type result struct {
	p99, maxErr  time.Duration // clock error after warm-up
	maxRatePPM   float64       // over 1 s windows after convergence
	maxRateAt    time.Duration
	converge     time.Duration // from first reply; -1 if never
	coverage     float64       // share of ready frames with |raw error| <= bound
	uncovered    int
	backsteps    int
	notReady     int // frames after warm-up without an estimate
	upKbps       float64
	downKbps     float64
	pingHz       float64 // over the whole run
	resets       uint32
	stats        Stats
	meanBound    time.Duration
	restartReady time.Duration // after a restart: time from restart to ready again
	p99Settled   time.Duration // p99 of the error from the profile's settleAt
}

const (
	frameHz    = 60
	serverHz   = 60
	warmUp     = 2 * time.Second
	headerSize = 28
)

// simulate runs the estimator over profile p with the given seed.
func simulate(p profile, seed uint64, cfg Config) result {
	r := rand.New(rand.NewPCG(seed, 0x7e7e))
	est, err := NewEstimator(cfg)
	if err != nil {
		panic(err)
	}
	dur := p.duration
	if dur == 0 {
		dur = 60 * time.Second
	}
	drift := p.driftPPM * 1e-6
	local := func(t time.Duration) time.Duration {
		return p.offset + t + time.Duration(math.Round(float64(t)*drift))
	}
	var spikes []spike
	if p.spikes {
		for t := time.Duration(5+r.Float64()*20) * time.Second; t < dur; t += time.Duration((20 + r.Float64()*20) * 1e9) {
			spikes = append(spikes, spike{
				at:     t,
				length: time.Duration((0.1 + r.Float64()*0.4) * 1e9),
				extra:  time.Duration((50 + r.Float64()*150) * 1e6),
				up:     r.IntN(2) == 0,
			})
		}
	}
	up, down := p.up, p.down
	// Server clock: true time, or after a restart true time minus a new origin.
	serverEpoch := uint32(r.IntN(100))
	serverNow := func(t time.Duration) (time.Duration, uint32) {
		if p.restartAt > 0 && t >= p.restartAt {
			return t - p.restartAt + 17*time.Second, serverEpoch + 1
		}
		if p.jumpAt > 0 && t >= p.jumpAt {
			return t + p.jump, serverEpoch
		}
		return t, serverEpoch
	}
	trueServer := func(t time.Duration) time.Duration { s, _ := serverNow(t); return s }

	var q eventQueue
	seq := 0
	schedule := func(at time.Duration, f func()) {
		seq++
		heap.Push(&q, event{at: at, seq: seq, fire: f})
	}
	blackedOut := func(t time.Duration) bool {
		return p.blackout > 0 && t >= p.blackoutAt && t < p.blackoutAt+p.blackout
	}
	oneWay := func(d *direction, isUp bool, t time.Duration) time.Duration {
		delay := d.base + d.jitter.draw(r)
		for _, s := range spikes {
			if s.up == isUp && t >= s.at && t < s.at+s.length {
				delay += s.extra
			}
		}
		return delay
	}
	// send schedules delivery of a datagram over d, with loss and duplicates.
	send := func(d *direction, isUp bool, t time.Duration, deliver func(at time.Duration)) {
		if blackedOut(t) || d.lost(r) {
			return
		}
		at := t + oneWay(d, isUp, t)
		schedule(at, func() { deliver(at) })
		if d.dup > 0 && r.Float64() < d.dup {
			at2 := t + oneWay(d, isUp, t)
			schedule(at2, func() { deliver(at2) })
		}
	}

	var upBytes, downBytes int
	firstReply := time.Duration(-1)
	var wbuf [MaxPongSize]byte
	serverRecv := func(at time.Duration, pingBytes []byte) {
		ping, _, err := DecodePing(pingBytes)
		if err != nil {
			panic(err)
		}
		recv, epoch := serverNow(at)
		// The server answers at its next tick.
		tick := time.Second / serverHz
		sendAt := (at/tick + 1) * tick
		sendS, _ := serverNow(sendAt)
		if sendS < recv { // restart between receive and send: answer at once
			sendAt, sendS = at, recv
		}
		pong := Responder{Epoch: epoch}.Pong(ping, recv, sendS)
		b := AppendPong(wbuf[:0], pong)
		downBytes += len(b) + headerSize
		enc := slices.Clone(b)
		schedule(sendAt, func() {
			send(&down, false, sendAt, func(at time.Duration) {
				pg, _, err := DecodePong(enc)
				if err != nil {
					panic(err)
				}
				if firstReply < 0 {
					firstReply = at
				}
				est.HandlePong(pg, local(at))
			})
		})
	}

	frame := time.Second / frameHz
	nFrames := int(dur / frame)
	ests := make([]time.Duration, nFrames)
	readyAt := make([]bool, nFrames)
	errs := make([]time.Duration, 0, nFrames)
	asym := (p.up.base - p.down.base) / 2
	var res result
	var boundSum float64
	var boundN int
	prevEst, prevEpoch, havePrev := time.Duration(0), uint32(0), false
	errAt := make([]time.Duration, nFrames)
	restartReady := time.Duration(-1)
	var settled []time.Duration
	for i := range nFrames {
		t := time.Duration(i) * frame
		for len(q) > 0 && q[0].at <= t {
			ev := heap.Pop(&q).(event)
			ev.fire()
		}
		L := local(t)
		if est.PingDue(L) {
			ping := est.Ping(L)
			b := AppendPing(wbuf[:0], ping)
			upBytes += len(b) + headerSize
			enc := slices.Clone(b)
			send(&up, true, t, func(at time.Duration) { serverRecv(at, enc) })
		}
		s, ok := est.Now(L)
		ests[i], readyAt[i] = s, ok
		truth := trueServer(t)
		errAt[i] = time.Duration(math.MaxInt64)
		if ok {
			e := s - truth - asym
			errAt[i] = max(e, -e)
			if havePrev && est.Epoch() == prevEpoch && s < prevEst {
				res.backsteps++
			}
			prevEst, prevEpoch, havePrev = s, est.Epoch(), true
			raw := s - truth
			bound := est.Bound(L)
			changed := p.restartAt > 0 && t >= p.restartAt && est.Epoch() == 0 ||
				p.jumpAt > 0 && t >= p.jumpAt && t < p.jumpAt+10*time.Second
			if t >= warmUp && !changed {
				if max(raw, -raw) > bound {
					res.uncovered++
				}
				boundSum += float64(bound)
				boundN++
			}
			if p.restartAt > 0 && t >= p.restartAt && restartReady < 0 && est.Epoch() > 0 {
				restartReady = t - p.restartAt
			}
		}
		if p.settleAt > 0 && t >= p.settleAt && ok {
			settled = append(settled, errAt[i])
		}
		if t >= warmUp {
			if ok {
				errs = append(errs, errAt[i])
			} else {
				res.notReady++
			}
		}
	}
	slices.Sort(errs)
	if len(errs) > 0 {
		res.p99 = errs[int(math.Ceil(0.99*float64(len(errs))))-1]
		res.maxErr = errs[len(errs)-1]
	}
	if boundN > 0 {
		res.coverage = 1 - float64(res.uncovered)/float64(boundN)
		res.meanBound = time.Duration(boundSum / float64(boundN))
	}
	// Convergence: the first frame after which the error stays within the
	// threshold (ignoring frames around a server restart, which resets).
	res.converge = -1
	if firstReply >= 0 {
		lastBad := -1
		for i := range nFrames {
			t := time.Duration(i) * frame
			if p.restartAt > 0 && t >= p.restartAt {
				break
			}
			if t >= firstReply && errAt[i] > p.convThr {
				lastBad = i
			}
		}
		conv := time.Duration(lastBad+1) * frame
		res.converge = max(conv-firstReply, 0)
		// Rate over 1 s windows after convergence.
		start := max(lastBad+1, 0)
		for i := start + frameHz; i < nFrames; i++ {
			j := i - frameHz
			ti, tj := time.Duration(i)*frame, time.Duration(j)*frame
			if p.restartAt > 0 && ti >= p.restartAt && tj < p.restartAt+5*time.Second {
				continue
			}
			if !readyAt[i] || !readyAt[j] {
				continue
			}
			dT := float64(trueServer(ti) - trueServer(tj))
			rate := float64(ests[i]-ests[j])/dT - 1
			if math.Abs(rate)*1e6 > res.maxRatePPM {
				res.maxRatePPM = math.Abs(rate) * 1e6
				res.maxRateAt = ti
			}
		}
	}
	secs := dur.Seconds()
	res.upKbps = float64(upBytes) * 8 / secs / 1000
	res.downKbps = float64(downBytes) * 8 / secs / 1000
	res.stats = est.Stats()
	res.pingHz = float64(res.stats.Pings) / secs
	res.resets = est.Epoch()
	res.restartReady = restartReady
	if len(settled) > 0 {
		slices.Sort(settled)
		res.p99Settled = settled[int(math.Ceil(0.99*float64(len(settled))))-1]
	}
	return res
}
