package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
)

// soccerBallView is a soccer client's way of showing the ball: the client's
// own (soccer.ClientGame.BallMethod, every method), or the oracle reference.
type soccerBallView interface {
	// render returns the ball drawn at frame f, whose clock is ready.
	render(f *tclient.Frame) ballFrame
}

// newSoccerBallView returns the ball method named method for soccer client sc.
func newSoccerBallView(method string, sc *soccerClient) soccerBallView {
	m := sc.match
	tickHz := m.sim.scen.TickHz
	if method == BallOracle {
		down := sc.c.spec.Link.Down
		delayMs := down.LatencyMs + meanJitterMs(down.Jitter)
		w, err := soccer.NewWorld(m.rules, tickHz)
		if err != nil {
			panic(err) // the lab's own rules
		}
		return &soccerOracle{
			world: w,
			truth: m.truth,
			now:   m.now,
			delay: time.Duration(delayMs * float64(time.Millisecond)),
		}
	}
	if method == BallOraclePlayers {
		return oraclePlayers{truth: &m.truth.ball.Truth}
	}
	return frameBall{game: sc.bot.Game()}
}

// oraclePlayers is the reference that knows every player's future motion:
// the tether client's frame, its render time and its interpolation between
// snapshots, but where the client extrapolates past the newest snapshot it
// draws the true ball at the render time (with every player known, the
// match's step is deterministic, so the truth is what it would compute).
type oraclePlayers struct{ truth *measure.Truth }

func (o oraclePlayers) render(f *tclient.Frame) ballFrame {
	b := fromEntity(f.Find(soccer.BallID))
	if b.ok && b.extrapolated {
		b.pos, b.extrapolated = o.truth.At(b.renderTime), false
	}
	return b
}

// frameBall is the ball the client package draws: by the tether method, with
// the timeline's interpolation and, in possession, at its possessor's drawn
// place; by the others, with their views (soccer.ClientGame.BallMethod).
type frameBall struct{ game *soccer.ClientGame }

func (b frameBall) resimTicks() (uint64, bool) {
	st, ok := b.game.ResimStats()
	return st.ResimTicks, ok
}

func (frameBall) render(f *tclient.Frame) ballFrame { return fromEntity(f.Find(soccer.BallID)) }

// soccerOracle is the oracle of the soccer game, a reference and not a
// method: at each frame it takes the server's exact match from one mean
// one-way delay ago (down base latency plus mean jitter) and steps it to now
// in a copy of the world (soccer.World), knowing nothing of later inputs:
// players run on as they ran, the ball rolls or is carried. It reads the true
// time, so no clock error touches it.
type soccerOracle struct {
	world *soccer.World
	truth *soccerTruth
	now   func() time.Duration
	delay time.Duration
}

func (o *soccerOracle) render(*tclient.Frame) ballFrame {
	now := o.now()
	tick := o.truth.tick
	k := min(int(max(0, now-o.delay)/tick), len(o.truth.ticks)-1)
	o.truth.restore(o.world, k)
	// Step to the ticks on either side of now, then draw between them.
	var a physics.BodyState
	b := o.world.Ball()
	t := time.Duration(k) * tick
	stepped := false
	for t < now {
		a = b
		t += tick
		o.world.Step()
		b = o.world.Ball()
		stepped = true
	}
	if t == now || !stepped {
		return ballFrame{ok: true, pos: b.Pos, renderTime: now}
	}
	u := 1 - float64(t-now)/float64(tick)
	pos, _ := geom.Hermite(a.Pos, a.Vel, b.Pos, b.Vel, tick.Seconds(), u)
	return ballFrame{ok: true, pos: pos, renderTime: now}
}
