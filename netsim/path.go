package netsim

import (
	"math"
	"math/rand/v2"
	"time"
)

// HeaderBytes is the IPv4 + UDP header size added to each datagram's payload
// when counting wire bytes and serialisation time.
const HeaderBytes = 28

// MaxQueueDelay bounds a path's serialisation queue (used when BandwidthKbps
// is set): a datagram that would wait longer than this before starting to
// serialise is dropped (tail drop).
const MaxQueueDelay = 250 * time.Millisecond

// PathStats counts what a Path did. Every datagram sent is either lost or
// delivered once or twice: Delivered = Sent - Lost + Duplicated.
type PathStats struct {
	Sent       int64 // datagrams passed to Send
	Delivered  int64 // arrivals reported, duplicates included
	Lost       int64 // datagrams with no arrival (random or burst loss, blackout, full queue)
	Duplicated int64 // datagrams that arrived twice
	QueueDrops int64 // datagrams dropped by a full serialisation queue (included in Lost)
	WireBytes  int64 // payload + HeaderBytes for every datagram sent
}

// Path is one direction of a link. It is not safe for concurrent use.
//
// A datagram's fate (lost or not, duplicated or not, the jitter of each copy)
// is drawn from uniforms keyed by the path's seed, the datagram's send time and
// its index among the datagrams sent at that same instant — not from a
// sequential stream. So a protocol that sends one datagram more or less, or
// sends them with other sizes, leaves the fates of every other datagram as
// they were: a figure moves because the protocol changed what it sends when,
// not because every later random draw shifted. Latency spikes and loss
// bursts in time (Loss.BurstMs) come from separate streams that depend only
// on time. The exceptions: a bandwidth
// limit, where sizes set the serialisation time and so which datagrams a full
// queue drops; and burst loss, whose Gilbert–Elliott chain (see Loss) moves
// one step per datagram, fed by each datagram's keyed draw. The chain is kept
// per datagram because Loss.MeanBurst counts datagrams; an extra datagram
// changes nothing while the chain is in the loss-free state and its own draw
// keeps it there (1 - pGoodBad: 99 % on the wan preset), and otherwise two
// chains fed the same draws meet again after about one burst length (each
// step meets with probability pBadGood - pGoodBad). A bad state that is a
// process in time would be exactly stable, but a burst's length in datagrams
// would then depend on the sending rate, and MeanBurst would need a time
// unit. Burst loss starts in the loss-free state.
type Path struct {
	spk   rand.PCG // spike schedule
	stats PathStats

	latency time.Duration
	jitter  sampler
	dup     float64

	lossRate           float64
	burst              bool    // Gilbert–Elliott chain instead of independent loss
	pGoodBad, pBadGood float64 // per-datagram transition probabilities
	bad                bool    // chain state

	downMs, upMs       float64  // bursts in time: mean span down and mean span between; 0 = none
	dn                 rand.PCG // their schedule
	downStart, downEnd time.Duration

	spikes                         *Spikes
	spikeGapMs                     float64 // mean gap from a spike's end to the next start
	spikeStart, spikeEnd, spikeAdd time.Duration

	nsPerByte float64       // serialisation time; 0 = unlimited bandwidth
	busyUntil time.Duration // when the serialiser becomes idle

	blackouts [][2]time.Duration // [start, end)
	seed      uint64             // keys every datagram's draws

	lastSend time.Duration // send time of the latest datagram
	atLast   uint64        // datagrams sent so far at lastSend
}

// NewPath returns a path with direction d, outages blackouts, and random
// streams seeded from seed. It panics if d or a blackout is invalid (see
// LinkConfig.Validate).
func NewPath(d Direction, blackouts []Blackout, seed uint64) *Path {
	if err := (LinkConfig{Up: d, Blackouts: blackouts}).Validate(); err != nil {
		panic(err)
	}
	p := &Path{
		latency:  msDur(d.LatencyMs),
		jitter:   newSampler(d.Jitter),
		dup:      d.Dup,
		lossRate: d.Loss.Rate,
	}
	p.seed = mix(seed, 1)
	p.spk.Seed(mix(seed, 3), mix(seed, 4))
	if b := d.Loss.MeanBurst; b > 1 {
		p.burst = true
		p.pBadGood = 1 / b
		p.pGoodBad = d.Loss.Rate / (1 - d.Loss.Rate) / b
	}
	if b := d.Loss.BurstMs; b > 0 && d.Loss.Rate > 0 {
		p.downMs, p.upMs = b, b*(1-d.Loss.Rate)/d.Loss.Rate
		p.dn.Seed(mix(seed, 5), mix(seed, 6))
	}
	if s := d.Spikes; s != nil {
		c := *s
		p.spikes = &c
		p.spikeGapMs = (s.EveryS - (s.LenS[0]+s.LenS[1])/2) * 1e3
	}
	if d.BandwidthKbps > 0 {
		p.nsPerByte = 8e9 / (d.BandwidthKbps * 1e3)
	}
	for _, b := range blackouts {
		at := sDur(b.AtS)
		p.blackouts = append(p.blackouts, [2]time.Duration{at, at + sDur(b.LenS)})
	}
	return p
}

// Send reports the arrival times of a datagram of size payload bytes sent at
// now, appending 0 (lost), 1 or 2 (duplicated) times to arrivals and returning
// the extended slice; two times are appended in increasing order. It does not
// allocate when arrivals has room.
//
// A datagram waits for the serialiser if bandwidth is limited, then takes the
// base latency, plus any spike in progress at now, plus its own jitter (each
// copy of a duplicate draws its own). Datagrams are not kept in order. A
// datagram sent during a blackout, or a copy that would arrive during one, is
// lost. size counts toward WireBytes and, with a bandwidth limit, sets the
// serialisation time. Calls should come in non-decreasing order of now: the
// spike schedule and the serialisation queue only move forward.
func (p *Path) Send(now time.Duration, size int, arrivals []time.Duration) []time.Duration {
	uLoss, uDup, uJit1, uJit2 := p.draws(now)
	p.stats.Sent++
	p.stats.WireBytes += int64(size) + HeaderBytes
	lost := p.lose(now, uLoss) // always advances the burst chain
	depart := now
	if p.nsPerByte > 0 {
		start := max(now, p.busyUntil)
		if start-now > MaxQueueDelay {
			p.stats.QueueDrops++
			p.stats.Lost++
			return arrivals
		}
		depart = start + time.Duration(math.Round(float64(size+HeaderBytes)*p.nsPerByte))
		p.busyUntil = depart
	}
	if lost || p.blackedOut(now) {
		p.stats.Lost++
		return arrivals
	}
	base := depart + p.latency + p.spike(now)
	n := len(arrivals)
	if a := base + p.jitter.delay(uJit1); !p.blackedOut(a) {
		arrivals = append(arrivals, a)
	}
	if uDup < p.dup {
		if a := base + p.jitter.delay(uJit2); !p.blackedOut(a) {
			arrivals = append(arrivals, a)
		}
	}
	switch len(arrivals) - n {
	case 0:
		p.stats.Lost++
	case 2:
		p.stats.Duplicated++
		if arrivals[n+1] < arrivals[n] {
			arrivals[n], arrivals[n+1] = arrivals[n+1], arrivals[n]
		}
	}
	p.stats.Delivered += int64(len(arrivals) - n)
	return arrivals
}

// Stream returns a second path over the same link: the same direction,
// blackouts, latency spikes and loss bursts in time (their schedules depend
// only on time), but per-datagram fates (loss, duplication, jitter) keyed by
// a seed of their own, numbered n, with their own Gilbert–Elliott state and
// counters. Two datagrams sent
// at the same instant, one on each stream, draw independent fates. A bandwidth
// limit is not shared between streams.
func (p *Path) Stream(n uint64) *Path {
	q := *p
	q.seed = mix(p.seed, 1000+n)
	q.stats, q.bad, q.busyUntil, q.lastSend, q.atLast = PathStats{}, false, 0, 0, 0
	return &q
}

// Stats returns the path's counters so far.
func (p *Path) Stats() PathStats { return p.stats }

// draws returns the four uniforms in (0, 1) of a datagram sent at now (loss,
// duplication, jitter of each copy): a hash of the path's seed, now, and how
// many datagrams were sent at now before it.
func (p *Path) draws(now time.Duration) (loss, dup, jit1, jit2 float64) {
	if now != p.lastSend || p.stats.Sent == 0 {
		p.lastSend, p.atLast = now, 0
	}
	key := mix(mix(p.seed, uint64(now)), p.atLast)
	p.atLast++
	return hashUnit(mix(key, 1)), hashUnit(mix(key, 2)), hashUnit(mix(key, 3)), hashUnit(mix(key, 4))
}

func unit(r *rand.PCG) float64 { return hashUnit(r.Uint64()) }

// hashUnit maps 64 random bits to a uniform in the open interval (0, 1).
func hashUnit(x uint64) float64 { return (float64(x>>11) + 0.5) * 0x1p-53 }

// lose advances the loss model by one datagram sent at now and reports
// whether it is lost.
func (p *Path) lose(now time.Duration, u float64) bool {
	if p.downMs > 0 {
		return p.down(now)
	}
	if !p.burst {
		return u < p.lossRate
	}
	if p.bad {
		p.bad = u >= p.pBadGood
	} else {
		p.bad = u < p.pGoodBad
	}
	return p.bad
}

func (p *Path) blackedOut(t time.Duration) bool {
	for _, b := range p.blackouts {
		if t >= b[0] && t < b[1] {
			return true
		}
	}
	return false
}

// down reports whether t falls in a loss burst in time (Loss.BurstMs). The
// schedule comes from its own stream, two draws per burst (the span before
// it and its length, both exponential), so it depends only on time.
func (p *Path) down(t time.Duration) bool {
	for t >= p.downEnd {
		p.downStart = p.downEnd + msDur(-p.upMs*math.Log(unit(&p.dn)))
		p.downEnd = p.downStart + msDur(-p.downMs*math.Log(unit(&p.dn)))
	}
	return t >= p.downStart
}

// spike returns the extra latency in force at t. The schedule comes from its
// own stream, three draws per spike, so it depends only on time.
func (p *Path) spike(t time.Duration) time.Duration {
	if p.spikes == nil {
		return 0
	}
	for t >= p.spikeEnd {
		s := p.spikes
		gap := -p.spikeGapMs * math.Log(unit(&p.spk))
		length := s.LenS[0] + (s.LenS[1]-s.LenS[0])*unit(&p.spk)
		p.spikeAdd = msDur(s.ExtraMs[0] + (s.ExtraMs[1]-s.ExtraMs[0])*unit(&p.spk))
		p.spikeStart = p.spikeEnd + msDur(gap)
		p.spikeEnd = p.spikeStart + sDur(length)
	}
	if t >= p.spikeStart {
		return p.spikeAdd
	}
	return 0
}

// mix derives a well-spread 64-bit value from seed and a stream number
// (a SplitMix64 step).
func mix(seed, stream uint64) uint64 {
	z := seed + stream*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Link is a client's two paths and its clock.
type Link struct {
	Up, Down *Path // client -> server, server -> client
	Clock    Clock
}

// NewLink builds a link from c with Up and Down seeded independently from
// seed. It panics if c is invalid (see LinkConfig.Validate).
func NewLink(c LinkConfig, seed uint64) *Link {
	if err := c.Validate(); err != nil {
		panic(err)
	}
	return &Link{
		Up:    NewPath(c.Up, c.Blackouts, mix(seed, 101)),
		Down:  NewPath(c.Down, c.Blackouts, mix(seed, 102)),
		Clock: c.Clock,
	}
}

// Local maps true time t to the client's local clock:
// OffsetS + t*(1 + DriftPPM*1e-6), rounded to the nanosecond.
func (c Clock) Local(t time.Duration) time.Duration {
	return sDur(c.OffsetS) + t + time.Duration(math.Round(float64(t)*c.DriftPPM*1e-6))
}

// True is the inverse of Local: it maps a local clock reading to true time,
// to within a nanosecond.
func (c Clock) True(local time.Duration) time.Duration {
	return time.Duration(math.Round(float64(local-sDur(c.OffsetS)) / (1 + c.DriftPPM*1e-6)))
}
