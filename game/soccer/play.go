package soccer

import (
	"math"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/server"
)

// The rules of play the server alone applies after the match step (step,
// step.go): goals, a ball put back over the boards, kickoffs, and the kicks
// and tackles its players' inputs ask for.

// kickoffState returns where the player in slot stands at a kickoff: its team's
// half, in a formation by its rank among its team's active players.
func (g *Game) kickoffState(slot int) PlayerState {
	p := &g.players[slot]
	rank := 0
	for i := range slot {
		if g.players[i].active && g.players[i].team == p.team {
			rank++
		}
	}
	spots := [...][2]float64{{-9, 0}, {-22, -14}, {-22, 14}, {-34, 0}, {-14, -26}, {-14, 26}, {-40, -18}, {-40, 18}, {-4, -20}, {-4, 20}, {-48, 0}}
	s := spots[rank%len(spots)]
	x, z := s[0]-float64(rank/len(spots))*2, s[1]
	yaw := 0.0
	if p.team == Away {
		x, z, yaw = -x, -z, math.Pi
	}
	return PlayerState{Pos: geom.V(x, 0, z), Yaw: yaw}
}

// attackDir is +1 for Home (attacking +X) and -1 for Away.
func attackDir(team uint8) float64 {
	if team == Home {
		return 1
	}
	return -1
}

// checkGoal scores a ball wholly over a goal line between the posts and under
// the crossbar.
func (g *Game) checkGoal(events server.Emitter) {
	b := g.world.Body(g.ball)
	pt := g.rules.Pitch
	r := g.rules.Ball.Radius
	if math.Abs(b.Pos.X) < pt.Length/2+r || math.Abs(b.Pos.Z) > pt.GoalWidth/2 || b.Pos.Y > pt.GoalHeight {
		return
	}
	team := Home
	if b.Pos.X < 0 {
		team = Away
	}
	g.score[team]++
	g.stats.Goals++
	if g.possessor >= 0 {
		g.possessor = -1
		g.knot = true
	}
	actor := NoPlayer
	if g.lastToucher >= 0 {
		actor = FirstPlayerID + uint32(g.lastToucher)
	}
	events.Emit(event.Event{Kind: EventGoal, Time: g.now, Entity: BallID, Actor: actor, Arg: uint32(team)})
	g.paused, g.pauseUntil = true, g.now+g.rules.GoalPause
}

// checkOut puts back a ball that left the field over the boards.
func (g *Game) checkOut(events server.Emitter) {
	b := g.world.Body(g.ball)
	pt := g.rules.Pitch
	lx, lz := pt.Length/2+pt.Margin, pt.Width/2+pt.Margin
	if b.Pos.IsFinite() && math.Abs(b.Pos.X) < lx+0.5 && math.Abs(b.Pos.Z) < lz+0.5 && b.Pos.Y > -0.5 {
		return
	}
	x, z := b.Pos.X, b.Pos.Z
	if !b.Pos.IsFinite() {
		x, z = 0, 0
	}
	in := geom.V(math.Max(-lx+2, math.Min(lx-2, x)), g.rules.Ball.Radius, math.Max(-lz+2, math.Min(lz-2, z)))
	g.world.SetBody(g.ball, physics.BodyState{Pos: in})
	g.possessor = -1
	g.ballGen++
	g.knot, g.restart = true, true
	g.stats.Restarts++
	events.Emit(event.Event{Kind: EventRestart, Time: g.now, Entity: BallID, Actor: NoPlayer, HasState: true,
		State: bodyOf(g.now, g.world.Body(g.ball), true, true)})
}

// Restart begins a new match at the next tick: the score back to 0-0 and
// everyone, the ball too, at the kickoff positions. A server that hosts
// one match after another calls it between them.
func (g *Game) Restart() {
	g.score = [2]int{}
	g.paused, g.pauseUntil = true, g.now
}

// resetKickoff teleports everyone to the kickoff positions.
func (g *Game) resetKickoff(events server.Emitter) {
	g.paused = false
	for i := range g.players {
		p := &g.players[i]
		if !p.active {
			continue
		}
		p.st, p.vel, p.turn = g.kickoffState(i), geom.Vec3{}, 0
		p.gen++
		g.teleportMoved(p)
		g.world.SetBody(p.body, physics.BodyState{Pos: p.st.Pos})
		g.world.SetVelocity(p.body, geom.Vec3{})
		p.noTouchUntil = 0
	}
	g.world.SetBody(g.ball, physics.BodyState{Pos: geom.V(0, g.rules.Ball.Radius, 0)})
	g.possessor, g.lastToucher = -1, -1
	g.ballGen++
	g.kickoff, g.knot = true, true
	g.stats.Kickoffs++
	events.Emit(event.Event{Kind: EventKickoff, Time: g.now, Entity: BallID, Actor: NoPlayer})
}

// actions runs the kicks and tackles asked for by inputs since the last tick.
func (g *Game) actions(events server.Emitter) {
	for i := range g.players {
		p := &g.players[i]
		if !p.active || !p.anyInput || p.in.ActionSeq == p.actionSeq {
			continue
		}
		p.actionSeq = p.in.ActionSeq
		switch p.in.Action {
		case ActionPass, ActionShot:
			if g.possessor == i {
				g.kick(i, events)
			}
		case ActionTackle:
			if g.possessor >= 0 && g.possessor != i && g.players[g.possessor].team != p.team && g.now >= p.tackleReady {
				g.tackle(i, events)
			}
		}
	}
}

// kick kicks the ball at player i's feet as of the moment its client made
// the kick: at the tick nearest the input's Sent time less its ActionAge
// (the input that first carried the kick may have been lost), but not before
// the player won the ball, nor more than MaxRewind ago. The ball leaves from
// where it was at that tick, or from where the input claims it was if that is
// within KickTolerance, and is brought to the present (catchUp). A client that
// predicts its own kick in its estimate of the present (package replicate's
// Resim) then needs no correction for the time its input took to arrive, nor
// for its estimate of where its own player stood; everyone else sees the ball
// leave that much further along. A predicted player (moves) kicks when its
// moves arrive: the world has it replayed behind its client, and the ball
// with it.
func (g *Game) kick(i int, events server.Emitter) {
	p := &g.players[i]
	b, kicker := g.world.Body(g.ball), p.st
	from := b.Pos
	back := 0
	if p.mv == nil && p.acted > 0 {
		acted, _ := event.RewindTo(g.now, p.acted, g.rules.MaxRewind)
		acted = max(acted, g.carrySince)
		back = int((g.now - acted + g.dt/2) / g.dt)
	}
	at := g.now - time.Duration(back)*g.dt
	if back > 0 {
		ball, ok1 := g.lag.history.At(BallID, at)
		pl, ok2 := g.lag.history.At(FirstPlayerID+uint32(i), at)
		if ok1 && ok2 {
			b.Pos, b.Rot = ball.Pos, ball.Rot
			kicker = PlayerState{Pos: pl.Pos, Yaw: YawOfRot(pl.Rot)}
		} else {
			back, at = 0, g.now
		}
	}
	if c := p.kickFrom; c != (geom.Vec3{}) && c.Dist(b.Pos) <= g.rules.KickTolerance {
		b.Pos = c
		g.stats.KicksClaimed++
	}
	b = g.rules.kicked(b, p.in, kicker)
	g.world.SetBody(g.ball, b)
	g.possessor = -1
	p.noTouchUntil = at + g.rules.KickNoTouch
	if back > 0 {
		g.catchUp(b, back)
		g.stats.KicksBackdated++
	}
	if g.possessor < 0 {
		// Out of any player it was pressed into (a defender at the
		// dribble), here and not by the next step: the state sent is the
		// one the ball flies from.
		g.world.Separate(g.ball)
	}
	g.knot = true
	g.jumped = g.jumped || g.world.Body(g.ball).Pos != from
	g.stats.Kicks++
	if p.in.Action == ActionShot {
		g.stats.Shots++
	} else {
		g.stats.Passes++
	}
	events.Emit(event.Event{Kind: EventKick, Time: g.now, Entity: BallID, Actor: FirstPlayerID + uint32(i), Arg: uint32(p.in.Action),
		HasState: true, State: bodyOf(g.now, g.world.Body(g.ball), true, g.jumped)})
}

// tackle judges a tackle by player i on the ball's possessor where the
// tackling client saw both: at the server time it was showing, clamped to
// MaxRewind.
func (g *Game) tackle(i int, events server.Emitter) {
	p := &g.players[i]
	p.tackleReady = g.now + g.rules.TackleCooldown
	g.stats.Tackles++
	at, clamped := event.RewindTo(g.now, p.actedView, g.rules.MaxRewind)
	if clamped {
		g.stats.RewindsClamped++
	}
	if at < g.now {
		g.stats.Rewinds++
	}
	v := g.possessor
	tp, ok1 := g.lag.history.At(FirstPlayerID+uint32(i), at)
	vp, ok2 := g.lag.history.At(FirstPlayerID+uint32(v), at)
	if !ok1 {
		tp.Pos = p.st.Pos
	}
	if !ok2 {
		vp.Pos = g.players[v].st.Pos
	}
	if math.Hypot(tp.Pos.X-vp.Pos.X, tp.Pos.Z-vp.Pos.Z) > g.rules.TackleReach {
		return
	}
	g.stats.TacklesWon++
	victim := &g.players[v]
	victim.noTouchUntil = g.now + g.rules.TackledNoTouch
	dir := victim.st.Pos.Sub(p.st.Pos)
	dir = geom.V(dir.X, 0, dir.Z).Norm()
	if dir.Len2() == 0 {
		dir = p.st.Forward()
	}
	b := g.world.Body(g.ball)
	from := b.Pos
	b.Vel = dir.Scale(g.rules.TacklePoke).Add(geom.V(victim.st.Vel.X, 0, victim.st.Vel.Z).Scale(0.5))
	b.AngVel = geom.V(b.Vel.Z/g.rules.Ball.Radius, 0, -b.Vel.X/g.rules.Ball.Radius)
	g.world.SetBody(g.ball, b)
	g.world.Separate(g.ball)
	g.possessor = -1
	g.lastToucher = i
	g.knot = true
	g.jumped = g.jumped || g.world.Body(g.ball).Pos != from
	events.Emit(event.Event{Kind: EventTackle, Time: g.now, Entity: BallID, Actor: FirstPlayerID + uint32(i), Arg: FirstPlayerID + uint32(v),
		HasState: true, State: bodyOf(g.now, g.world.Body(g.ball), true, g.jumped)})
}
