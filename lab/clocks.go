package lab

import (
	"time"

	"github.com/tether-net/tether/clock"
)

// clockView is a client's way of estimating the server's clock.
type clockView interface {
	// start schedules the method's own traffic.
	start()
	// estimate returns the estimated server time at local time local.
	estimate(local time.Duration) (server time.Duration, ok bool)
	// bound returns the error bound the method claims, if it has one.
	bound(local time.Duration) (time.Duration, bool)
	// firstReply returns the true time the first clock reply arrived.
	firstReply() (time.Duration, bool)
}

func newClockView(method string, c *client) clockView {
	switch method {
	case ClockOneShot:
		return &oneShotClock{c: c}
	case ClockUE4:
		return &ue4Clock{c: c}
	default:
		return newTetherClock(c)
	}
}

// oneShotClock is Cristian's algorithm done once: one request at connect, offset
// = Ts + RTT/2 - Tc from its reply, never updated. A lost request is retried
// after oneShotRetry.
type oneShotClock struct {
	c      *client
	offset time.Duration
	rtt    time.Duration
	ready  bool
	first  time.Duration
}

const (
	oneShotRetry = time.Second
	// Request and reply sizes: a message type, an id, and the server's time.
	oneShotRequestBytes = 3
	oneShotReplyBytes   = 11
)

func (k *oneShotClock) start() { k.request() }

func (k *oneShotClock) request() {
	c := k.c
	sent := c.local()
	c.sendUp(oneShotRequestBytes, true, func() {
		c.sim.server.clockRequest(func(_, ts time.Duration) {
			c.sendDown(oneShotReplyBytes, true, func() {
				if k.ready {
					return
				}
				tc := c.local()
				k.rtt = tc - sent
				k.offset = ts + k.rtt/2 - tc
				k.ready = true
				k.first = c.sim.sched.Now()
			})
		})
	})
	c.sim.sched.After(oneShotRetry, func() {
		if !k.ready {
			k.request()
		}
	})
}

func (k *oneShotClock) estimate(local time.Duration) (time.Duration, bool) {
	return local + k.offset, k.ready
}

// bound is Cristian's: the server's time is within RTT/2 of the estimate when
// the reply arrives (drift is ignored, as the method ignores it).
func (k *oneShotClock) bound(time.Duration) (time.Duration, bool) { return k.rtt / 2, k.ready }

func (k *oneShotClock) firstReply() (time.Duration, bool) { return k.first, k.ready }

// ue4Clock is Unreal's replicated world time: the server sends its time every
// 5 s and the client sets offset = received - local, with no lag correction.
type ue4Clock struct {
	c      *client
	offset time.Duration
	ready  bool
	first  time.Duration
}

func (k *ue4Clock) start() {}

func (k *ue4Clock) worldTime(server time.Duration) {
	k.offset = server - k.c.local()
	if !k.ready {
		k.ready = true
		k.first = k.c.sim.sched.Now()
	}
}

func (k *ue4Clock) estimate(local time.Duration) (time.Duration, bool) {
	return local + k.offset, k.ready
}

func (k *ue4Clock) bound(time.Duration) (time.Duration, bool) { return 0, false }

func (k *ue4Clock) firstReply() (time.Duration, bool) { return k.first, k.ready }

// tetherClock is Tether's estimator: four-timestamp pings, min-delay filter,
// drift regression, monotonic slewing and an error bound.
type tetherClock struct {
	c      *client
	est    *clock.Estimator
	server clock.Responder
	buf    []byte
	first  time.Duration
	got    bool
}

// msgTypeBytes is the message-type byte every lab datagram starts with.
const msgTypeBytes = 1

func newTetherClock(c *client) *tetherClock {
	est, err := clock.NewEstimator(clock.Config{})
	if err != nil {
		panic(err) // the zero Config is valid
	}
	return &tetherClock{c: c, est: est, buf: make([]byte, 0, clock.MaxPongSize)}
}

func (k *tetherClock) start() { k.schedulePing() }

func (k *tetherClock) schedulePing() {
	c := k.c
	c.at(k.est.NextPing(c.local()), func() {
		p := k.est.Ping(c.local())
		size := msgTypeBytes + len(clock.AppendPing(k.buf[:0], p))
		c.sendUp(size, true, func() {
			c.sim.server.clockRequest(func(recv, send time.Duration) {
				pong := k.server.Pong(p, recv, send)
				size := msgTypeBytes + len(clock.AppendPong(k.buf[:0], pong))
				c.sendDown(size, true, func() {
					k.est.HandlePong(pong, c.local())
					if !k.got {
						k.got, k.first = true, c.sim.sched.Now()
					}
				})
			})
		})
		k.schedulePing()
	})
}

func (k *tetherClock) estimate(local time.Duration) (time.Duration, bool) { return k.est.Now(local) }

func (k *tetherClock) bound(local time.Duration) (time.Duration, bool) {
	return k.est.Bound(local), k.est.Ready()
}

func (k *tetherClock) firstReply() (time.Duration, bool) { return k.first, k.got }
