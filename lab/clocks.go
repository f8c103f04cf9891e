package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/clock"
)

// clockView is how a client estimates the server's clock. Every client runs
// the client package's estimator (its pings ride with the other traffic);
// the baselines read only what their naive designs would have, and the
// client draws at their estimate instead (client.Config.ServerTime).
type clockView interface {
	// estimate returns the estimated server time at local time local.
	estimate(local time.Duration) (server time.Duration, ok bool)
	// bound returns the error bound the method claims, if it has one.
	bound(local time.Duration) (time.Duration, bool)
	// firstReply returns the true time of the first frame after the method
	// had what it needs from the server.
	firstReply() (time.Duration, bool)
}

// clockHooks sets the client's clock method and returns the client hooks it
// needs: a stand-in for the estimator's reading, and an observer of
// snapshots (nil for the estimator itself).
func (c *client) clockHooks(method string) (func(time.Duration) (time.Duration, bool), func(time.Duration, *tclient.Snapshot)) {
	switch method {
	case ClockOneShot:
		k := &oneShotClock{c: c}
		c.clock = k
		return k.estimate, nil
	case ClockUE4:
		k := &ue4Clock{c: c}
		c.clock = k
		return k.estimate, k.snapshot
	}
	return nil, nil // the estimator's clock is set once the client has joined
}

// estimatorClock is Tether's: the client package's estimator (four-timestamp
// pings, min-delay filter, drift regression, monotonic slewing, an error
// bound), read where the client reads it.
type estimatorClock struct {
	est   *clock.Estimator
	now   func() time.Duration // the true time
	first time.Duration
	got   bool
}

func (k *estimatorClock) estimate(local time.Duration) (time.Duration, bool) {
	k.observe()
	return k.est.Now(local)
}

func (k *estimatorClock) bound(local time.Duration) (time.Duration, bool) {
	return k.est.Bound(local), k.est.Ready()
}

func (k *estimatorClock) firstReply() (time.Duration, bool) { return k.first, k.got }

// observe notes the true time of the first frame after the estimator had a
// sample: its first reply, as the client read it.
func (k *estimatorClock) observe() {
	if !k.got && k.est.Stats().Samples > 0 {
		k.got, k.first = true, k.now()
	}
}

// oneShotClock is Cristian's algorithm done once: the first ping and its
// pong give offset = Ts + RTT/2 - Tc, never updated.
type oneShotClock struct {
	c      *client
	offset time.Duration
	rtt    time.Duration
	ready  bool
	first  time.Duration
}

func (k *oneShotClock) estimate(local time.Duration) (time.Duration, bool) {
	if !k.ready {
		x, ok := k.c.est.First()
		if !ok {
			return 0, false
		}
		k.rtt = x.Received - x.Sent - (x.ServerSend - x.ServerRecv)
		k.offset = x.ServerSend + k.rtt/2 - x.Received
		k.ready, k.first = true, k.c.now()
	}
	return local + k.offset, true
}

// bound is Cristian's: the server's time is within RTT/2 of the estimate when
// the reply arrives (drift is ignored, as the method ignores it).
func (k *oneShotClock) bound(time.Duration) (time.Duration, bool) { return k.rtt / 2, k.ready }

func (k *oneShotClock) firstReply() (time.Duration, bool) { return k.first, k.ready }

// ue4Clock is Unreal's replicated world time: the server's time arrives every
// ue4TimeInterval (here, the time of the first snapshot to arrive after each
// interval) and the client sets offset = received - local, with no lag
// correction.
type ue4Clock struct {
	offset time.Duration
	last   time.Duration // local time of the last update
	ready  bool
	first  time.Duration
	c      *client
}

// ue4TimeInterval is how often Unreal's game state replicates the server's
// world time by default.
const ue4TimeInterval = 5 * time.Second

func (k *ue4Clock) snapshot(local time.Duration, s *tclient.Snapshot) {
	if k.ready && local-k.last < ue4TimeInterval {
		return
	}
	k.offset, k.last = s.Time-local, local
	if !k.ready {
		k.ready = true
		k.first = k.c.now()
	}
}

func (k *ue4Clock) estimate(local time.Duration) (time.Duration, bool) {
	return local + k.offset, k.ready
}

func (k *ue4Clock) bound(time.Duration) (time.Duration, bool) { return 0, false }

func (k *ue4Clock) firstReply() (time.Duration, bool) { return k.first, k.ready }
