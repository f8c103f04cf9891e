package soccer

import (
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// lagComp is the server's lag compensation: the history of the ball's and
// every player's poses, one entry a tick over the last Rules.MaxRewind (and
// a few ticks more), in which a tackle is judged and a kick made as of the
// moment its client acted; and a second world like the match's, in which a
// ball kicked in the past is brought to the present (catchUp).
type lagComp struct {
	history *event.History
	world   *physics.World
	ball    physics.BodyID
	caps    []physics.BodyID // by player slot
}

// newLagComp returns the lag compensation of a match under rules (filled)
// stepping at tickHz.
func newLagComp(rules Rules, tickHz int) (lagComp, error) {
	var l lagComp
	var err error
	if l.world, l.ball, l.caps, err = newWorld(rules, tickHz); err != nil {
		return l, err
	}
	depth := int(rules.MaxRewind/(time.Second/time.Duration(tickHz))) + 3
	l.history, err = event.NewHistory(depth, rules.MaxPlayers+1)
	return l, err
}

// catchUp brings a ball kicked back ticks ago, in state b then, to the
// present, in the rewind world: the pitch, the ball and every player's
// capsule run along its recorded path (History), so that the ball meets the
// players it would have. A player touching it on the way wins it then, as
// touch would have had it, and carries it now.
func (g *Game) catchUp(b physics.BodyState, back int) {
	at := func(i int, t time.Duration) (PlayerState, bool) {
		p := &g.players[i]
		if t >= g.now {
			return p.st, true
		}
		pose, ok := g.lag.history.At(FirstPlayerID+uint32(i), t)
		return PlayerState{Pos: pose.Pos, Yaw: YawOfRot(pose.Rot)}, ok
	}
	g.lag.world.SetBody(g.lag.ball, b)
	for k := back; k > 0; k-- {
		from, to := g.now-time.Duration(k)*g.dt, g.now-time.Duration(k-1)*g.dt
		for i, id := range g.lag.caps {
			a, ok1 := at(i, from)
			c, ok2 := at(i, to)
			if !g.players[i].active || !ok1 || !ok2 {
				g.lag.world.SetBody(id, physics.BodyState{Pos: parked(i)})
				g.lag.world.SetVelocity(id, geom.Vec3{})
				continue
			}
			g.lag.world.SetBody(id, physics.BodyState{Pos: a.Pos})
			g.lag.world.SetVelocity(id, c.Pos.Sub(a.Pos).Scale(1/g.dt.Seconds()))
		}
		g.lag.world.Step()
		ball := g.lag.world.Body(g.lag.ball)
		if q := g.toucher(ball.Pos, to, func(i int) (PlayerState, bool) { return at(i, to) }); q >= 0 {
			st, _ := at(q, to)
			g.win(q, st.Rot().Conj().Rotate(ball.Pos.Sub(st.Pos)), to)
			g.wonBy(q)
			g.carry()
			return
		}
	}
	g.world.SetBody(g.ball, g.lag.world.Body(g.lag.ball))
}

// recordPoses adds this tick's poses to the rewind history.
func (g *Game) recordPoses() {
	g.lag.history.Begin(g.now)
	b := g.world.Body(g.ball)
	g.lag.history.Add(BallID, event.Pose{Pos: b.Pos, Rot: b.Rot})
	for i := range g.players {
		p := &g.players[i]
		if p.active {
			g.lag.history.Add(FirstPlayerID+uint32(i), event.Pose{Pos: p.st.Pos, Rot: p.st.Rot()})
		}
	}
}
