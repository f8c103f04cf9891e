package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
)

// soccerBallView is a soccer client's way of showing the ball: the client's
// own (soccer.ClientGame.BallMethod, every method), or a reference.
type soccerBallView interface {
	// render returns the ball drawn at frame f, whose clock is ready.
	render(f *tclient.Frame) measure.Drawn
}

// newSoccerBallView returns the ball method named method for client c of
// match sm.
func newSoccerBallView(method string, sm *soccerMatch, c *client) soccerBallView {
	switch method {
	case BallOracle:
		down := c.spec.Link.Down
		w, err := soccer.NewWorld(soccer.DefaultRules(), sm.sim.scen.TickHz)
		if err != nil {
			panic(err) // the lab's own rules
		}
		if sm.ticks == nil {
			var start soccer.Truth
			sm.v.Truth(&start)
			sm.ticks = []soccer.Truth{restorable(&start)}
		}
		return &soccerOracle{world: w, sm: sm, delay: msDur(down.LatencyMs + meanJitterMs(down.Jitter))}
	case BallOraclePlayers:
		return oraclePlayers{sm.meter}
	}
	return frameBall{}
}

// oraclePlayers is the reference that knows every player's future motion:
// the tether client's frame, its render time and its interpolation between
// snapshots, but where the client extrapolates past the newest snapshot it
// draws the true ball at the render time (with every player known, the
// match's step is deterministic, so the truth is what it would compute).
type oraclePlayers struct{ meter *match.Meter }

func (o oraclePlayers) render(f *tclient.Frame) measure.Drawn {
	b := match.FrameBall(0, f)
	if b.OK && b.Extrapolated {
		b.Pos, _ = o.meter.BallAt(b.RenderTime)
		b.Extrapolated = false
	}
	return b
}

// frameBall is the ball the client package draws: by the tether method, with
// the timeline's interpolation and, in possession, at its possessor's drawn
// place; by the others, with their views (soccer.ClientGame.BallMethod).
type frameBall struct{}

func (frameBall) render(f *tclient.Frame) measure.Drawn { return match.FrameBall(0, f) }

// soccerOracle is the oracle of the soccer game, a reference and not a
// method: at each frame it takes the server's exact match from one mean
// one-way delay ago (down base latency plus mean jitter) and steps it to now
// in a copy of the world (soccer.World), knowing nothing of later inputs:
// players run on as they ran, the ball rolls or is carried. It reads the true
// time, so no clock error touches it.
type soccerOracle struct {
	world *soccer.World
	sm    *soccerMatch
	delay time.Duration
}

// restorable returns what of the server's match after a tick the oracle
// restores: the ball, who has it and who may not win it, and the players at
// their running velocity, facing as they did and not turning (what the
// server does next is unknown).
func restorable(after *soccer.Truth) soccer.Truth {
	t := *after
	t.Players = make([]soccer.PlayerTruth, 0, len(after.Players))
	for _, p := range after.Players {
		t.Players = append(t.Players, soccer.PlayerTruth{ID: p.ID, PlayerState: p.PlayerState, NoTouchUntil: p.NoTouchUntil})
	}
	return t
}

func (o *soccerOracle) render(*tclient.Frame) measure.Drawn {
	now := o.sm.now()
	tick := o.sm.sim.tick
	sm := o.sm
	k := min(int(max(0, now-o.delay)/tick), sm.first+len(sm.ticks)-1)
	o.world.SetTruth(&sm.ticks[k-sm.first])
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
		return measure.Drawn{OK: true, Pos: b.Pos, RenderTime: now}
	}
	u := 1 - float64(t-now)/float64(tick)
	pos, _ := geom.Hermite(a.Pos, a.Vel, b.Pos, b.Vel, tick.Seconds(), u)
	return measure.Drawn{OK: true, Pos: pos, RenderTime: now}
}
