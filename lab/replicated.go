package lab

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replicate"
)

// replicatedBall shows the ball with one of Unreal's physics replication
// modes from package replicate, each simulating the ball in a private copy of
// the server's world.
type replicatedBall struct {
	view  replicate.View
	resim *replicate.WorldResim[replicate.NoInput] // set for the resim method
}

func newReplicatedBall(method string, tickHz int) *replicatedBall {
	w, ball := newBallWorld(tickHz)
	tick := time.Second / time.Duration(tickHz)
	var (
		b   replicatedBall
		err error
	)
	switch method {
	case BallVelocity:
		b.view, err = replicate.NewVelocity(replicate.VelocityConfig{Tick: tick}, replicate.NewWorldSim(w, ball))
	case BallPredictive:
		b.view, err = replicate.NewPredictive(replicate.PredictiveConfig{Tick: tick}, replicate.NewWorldSim(w, ball))
	default:
		b.resim, err = replicate.NewWorldResim[replicate.NoInput](replicate.ResimConfig{Tick: tick}, w, ball, nil)
		b.view = b.resim
	}
	if err != nil {
		panic(err) // the lab's own config
	}
	return &b
}

func (b *replicatedBall) receive(s kinematic.State, arrival time.Duration) {
	b.view.Receive(s, arrival)
}

func (b *replicatedBall) render(now time.Duration) ballFrame {
	f := b.view.Render(now)
	return ballFrame{ok: f.Valid, pos: f.Pos, rot: f.Rot, renderTime: f.Time, extrapolated: f.Extrapolated, frozen: f.Frozen, cut: f.Cut}
}

// resimTicks returns how many ticks the resim method has re-simulated.
func (b *replicatedBall) resimTicks() (uint64, bool) {
	if b.resim == nil {
		return 0, false
	}
	return b.resim.Resim().Stats().ResimTicks, true
}

// oracleBall is a reference, not a method: the present as well as a client
// could know it without seeing kicks made in the last one-way delay. At
// each frame it takes the server's exact state from one one-way delay ago (the
// mean delay from the server to this client: base latency plus mean jitter)
// and advances it to now with the exact physics, knowing nothing of later
// kicks. It reads the true time, so no clock error touches it.
type oracleBall struct {
	c     *client
	world *physics.World
	ball  physics.BodyID
	delay time.Duration
}

func newOracleBall(c *client, tickHz int) *oracleBall {
	w, ball := newBallWorld(tickHz)
	down := c.spec.Link.Down
	delayMs := down.LatencyMs + meanJitterMs(down.Jitter)
	return &oracleBall{c: c, world: w, ball: ball, delay: time.Duration(delayMs * float64(time.Millisecond))}
}

func (*oracleBall) receive(kinematic.State, time.Duration) {}

func (o *oracleBall) render(time.Duration) ballFrame {
	now := o.c.sim.sched.Now()
	tick := o.c.sim.tick
	pts := o.c.sim.server.states
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
		return ballFrame{ok: true, pos: b.Pos, rot: b.Rot, renderTime: now}
	}
	u := 1 - float64(t-now)/float64(tick)
	pos, _ := geom.Hermite(a.Pos, a.Vel, b.Pos, b.Vel, tick.Seconds(), u)
	return ballFrame{ok: true, pos: pos, rot: geom.Slerp(a.Rot, b.Rot, u), renderTime: now}
}

// meanJitterMs is the mean of a jitter distribution, milliseconds.
func meanJitterMs(j netsim.Jitter) float64 {
	if j.Dist == "uniform" {
		return j.MaxMs / 2
	}
	return j.MeanMs
}
