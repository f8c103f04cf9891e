package lab

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/physics"
)

// oracleBall is a reference, not a method: the present as well as a client
// could know it without seeing kicks made in the last one-way delay. At
// each frame it takes the server's exact state from one one-way delay ago (the
// mean delay from the server to this client: base latency plus mean jitter)
// and advances it to now with the exact physics, knowing nothing of later
// kicks. It reads the true time, so no clock error touches it.
type oracleBall struct {
	c      *client
	world  *physics.World
	ball   physics.BodyID
	delay  time.Duration
	states *[]physics.BodyState // the server's ball leaving every tick, from time 0
}

func newOracleBall(c *client, tickHz int, states *[]physics.BodyState) *oracleBall {
	w, ball := newBallWorld(tickHz)
	down := c.spec.Link.Down
	delayMs := down.LatencyMs + meanJitterMs(down.Jitter)
	return &oracleBall{c: c, world: w, ball: ball, delay: time.Duration(delayMs * float64(time.Millisecond)), states: states}
}

// render returns the oracle's ball at true time now.
func (o *oracleBall) render(now time.Duration) measure.Drawn {
	tick := o.c.sim.tick
	pts := *o.states
	k := int(max(0, now-o.delay) / tick)
	if k >= len(pts) {
		k = len(pts) - 1
	}
	o.world.SetBody(o.ball, pts[k])
	// Step to the ticks on either side of now, then draw between them.
	var a, b physics.BodyState
	b = pts[k]
	t := time.Duration(k) * tick
	for t < now {
		a = b
		o.world.Step()
		b = o.world.Body(o.ball)
		t += tick
	}
	if t == now || a == (physics.BodyState{}) {
		return measure.Drawn{OK: true, Pos: b.Pos, RenderTime: now}
	}
	u := 1 - float64(t-now)/float64(tick)
	pos, _ := geom.Hermite(a.Pos, a.Vel, b.Pos, b.Vel, tick.Seconds(), u)
	return measure.Drawn{OK: true, Pos: pos, RenderTime: now}
}

// meanJitterMs is the mean of a jitter distribution, milliseconds.
func meanJitterMs(j netsim.Jitter) float64 {
	if j.Dist == "uniform" {
		return j.MaxMs / 2
	}
	return j.MeanMs
}
