package timeline

import "time"

// Clock is a render clock: it learns from a stream's arrivals how late and
// how often its states come, and runs a render time that far behind now (see
// the package documentation on the render delay).
//
// Every Timeline has one of its own unless Config.Clock gives it a shared
// one. Entities whose states come in the same stream (the entities of one
// snapshot) should share a clock, so that every frame draws them all at the
// same moment: with a clock each, a ball carried by a player and the player
// would be drawn at render times a few milliseconds apart, and the ball would
// be drawn where the player was not. A shared clock is fed by its owner, once
// per state of the stream, with Arrived; a timeline does not feed it.
//
// A Clock does no I/O, reads no clock and is not safe for concurrent use.
type Clock struct {
	est     estimator
	started bool
	now, rt time.Duration // latest now given to Advance, and its render time
	scale   float64
	newest  time.Duration // newest state time arrived
	any     bool
}

// NewClock returns a render clock configured by the render delay fields of c
// (SendInterval, MinDelay, MaxDelay, LateShare, Window; the others are
// ignored), or a *ConfigError
// naming the field of c that is out of range.
func NewClock(c Config) (*Clock, error) {
	c.Clock = nil
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	return newClock(c), nil
}

// newClock returns a render clock for c, which has its defaults filled in.
func newClock(c Config) *Clock {
	k := &Clock{scale: 1}
	k.est.init(c)
	return k
}

// Arrived records that the stream's state for server time t arrived at
// arrival, the client's estimate of server time then. Give it the regular
// states of the stream only (one per snapshot), not the extra ones a server
// sends at contacts or repeats: they would read as a shorter send interval.
func (k *Clock) Arrived(t, arrival time.Duration) {
	if k.any && t == k.newest {
		return
	}
	k.est.lateness(arrival - t)
	switch {
	case !k.any:
		k.any, k.newest = true, t
	case t > k.newest:
		k.est.appended(t - k.newest)
		k.newest = t
	default:
		k.est.filled()
	}
}

// Advance moves the render time on to now, the estimated server time of the
// frame being drawn, and returns it. The first call starts the render time
// one target delay behind now; later ones advance it by the time elapsed
// times a rate within [MinScale, MaxScale] that steers the delay to its
// target. A now not after the previous one leaves the render time where it
// is, so every timeline sharing the clock gets the same render time for a
// frame.
func (k *Clock) Advance(now time.Duration) time.Duration {
	target := k.est.target()
	if !k.started {
		k.started, k.now, k.rt = true, now, now-target
		return k.rt
	}
	if now > k.now {
		dnow := now - k.now
		k.scale = controlScale(k.now-k.rt, target)
		k.now = now
		k.rt += time.Duration(float64(dnow) * k.scale)
	}
	return k.rt
}

// Reset forgets the arrivals and restarts the render time at the next
// Advance, keeping the configuration; use it when the clock's epoch changes.
func (k *Clock) Reset() {
	*k = Clock{est: k.est.reset(), scale: 1}
}

// Target returns the render delay aimed for.
func (k *Clock) Target() time.Duration { return k.est.target() }
