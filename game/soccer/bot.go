package soccer

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/tether-net/tether/geom"
)

// Bot plays one player from what its client shows (a View), as a person
// would: it sees the match with its client's delay. With the ball it dribbles
// toward the opponents' goal, shoots when in range and passes when pressed or
// when it held the ball long enough; without it, the team's player nearest
// the ball chases it (and tackles an opponent who has it) while the others
// support an attack or guard their goal. Its choices are a function of the
// views it is given and its seed.
type Bot struct {
	rules Rules
	rng   *rand.Rand

	seq        uint8
	action     Action
	aim        geom.Vec3
	power      float64
	lastAction time.Duration // render time of the last action
	actedAt    time.Duration // its server time
	acted      bool

	dir       geom.Vec3 // the direction of the last input
	holding   bool
	holdSince time.Duration
	holdFor   time.Duration
	weave     float64
}

// actionGap is the least view time between two actions of a bot: its view
// lags, so it must not act twice on one situation.
const actionGap = 700 * time.Millisecond

// NewBot returns a bot for a match under rules (zero fields taking their
// defaults), its random choices seeded by seed.
func NewBot(rules Rules, seed uint64) *Bot {
	return &Bot{rules: rules.WithDefaults(), rng: rand.New(rand.NewPCG(seed, 0x626f74))}
}

func (b *Bot) act(a Action, aim geom.Vec3, power float64, v *View) {
	b.seq++
	b.action, b.aim, b.power = a, geom.V(aim.X, 0, aim.Z).Norm(), power
	b.lastAction, b.actedAt, b.acted = v.Time, v.Now, true
	b.holding = false
}

// withAction returns in with the last action, dated for frame v.
func (b *Bot) withAction(in Input, v *View) Input {
	in.Action, in.ActionSeq, in.Aim, in.Power = b.action, b.seq, b.aim, b.power
	if b.acted {
		in.ActionAge = max(0, v.Now-b.actedAt)
	}
	return in
}

// Decide returns the input for the frame v shows.
func (b *Bot) Decide(v *View) Input {
	in := b.withAction(Input{}, v)
	if !v.Ready || v.Self == NoPlayer {
		return in
	}
	me := v.Player(v.Self)
	if me == nil {
		return in
	}
	pt := b.rules.Pitch
	att := attackDir(me.Team)
	oppGoal := geom.V(att*pt.Length/2, 0, 0)
	ownGoal := oppGoal.Neg()
	ball := geom.V(v.Ball.X, 0, v.Ball.Z)
	canAct := !b.acted || v.Time-b.lastAction >= actionGap
	if v.Possessor != v.Self {
		b.holding = false
	}

	var target geom.Vec3
	sprint := false
	switch poss := v.Player(v.Possessor); {
	case v.Possessor == v.Self:
		if !b.holding {
			b.holding, b.holdSince = true, v.Time
			b.holdFor = 1500*time.Millisecond + time.Duration(b.rng.Int64N(int64(2500*time.Millisecond)))
			b.weave = b.rng.Float64()*2 - 1
		}
		held := v.Time - b.holdSince
		toGoal := oppGoal.Sub(me.Pos)
		dGoal := toGoal.Len()
		opp, dOpp := b.nearest(v, me.Pos, 1-me.Team)
		switch {
		case canAct && (dGoal < 34 || (dGoal < 50 && held > b.holdFor)):
			aimAt := oppGoal.Add(geom.V(0, 0, (b.rng.Float64()*2-1)*(pt.GoalWidth/2-0.9)))
			b.act(ActionShot, aimAt.Sub(ball), math.Max(0.35, math.Min(1, (dGoal-6)/20)), v)
		case canAct && (dOpp < 4 || held > b.holdFor):
			if mate := b.passTarget(v, me); mate != nil {
				lead := mate.Pos.Add(mate.Vel.Scale(0.6))
				d := lead.Sub(ball).Len()
				b.act(ActionPass, lead.Sub(ball), b.rules.PassPower(d+3), v)
			} else if held > 2*b.holdFor {
				b.act(ActionShot, toGoal, 0.7, v)
			}
		}
		dir := toGoal.Norm()
		side := geom.V(-dir.Z, 0, dir.X)
		dir = dir.Add(side.Scale(0.35 * b.weave))
		if opp != nil && dOpp < 7 {
			away := me.Pos.Sub(opp.Pos)
			away = geom.V(away.X, 0, away.Z).Norm()
			dir = dir.Add(away.Scale(0.8 * (7 - dOpp) / 7))
		}
		in.Dir = b.smooth(dir.Norm())
		in.Sprint = dOpp > 6
		return b.withAction(in, v)
	case poss != nil && poss.Team == me.Team:
		target = b.supportSpot(poss.Pos, me, att)
	case poss != nil:
		chase := poss.Pos.Add(poss.Vel.Scale(0.3))
		if b.closestOfTeam(v, me, chase) {
			target, sprint = chase, true
			// Not every chance is taken: a bot that always tackled at once
			// would never let an attack develop.
			if canAct && me.Pos.Dist(poss.Pos) < b.rules.TackleReach*0.85 && b.rng.Float64() < 0.08 {
				b.act(ActionTackle, poss.Pos.Sub(me.Pos), 0, v)
			}
		} else {
			target = b.guardSpot(ball, ownGoal, me)
		}
	default:
		lead := math.Min(1.2, me.Pos.Dist(ball)/8)
		chase := ball.Add(geom.V(v.BallVel.X, 0, v.BallVel.Z).Scale(lead))
		if b.closestOfTeam(v, me, chase) {
			target, sprint = chase, true
		} else if att*ball.X > -10 {
			target = b.supportSpot(ball, me, att)
		} else {
			target = b.guardSpot(ball, ownGoal, me)
		}
	}
	d := target.Sub(me.Pos)
	d = geom.V(d.X, 0, d.Z)
	if l := d.Len(); l > 0.3 {
		in.Dir = b.smooth(d.Scale(math.Min(1, l/3) / l))
	} else {
		b.dir = geom.Vec3{}
	}
	in.Sprint = sprint
	return b.withAction(in, v)
}

// smooth low-passes the running direction over about 100 ms of frames, as a
// person's hand would: no flicker from one frame to the next.
func (b *Bot) smooth(d geom.Vec3) geom.Vec3 {
	if b.dir == (geom.Vec3{}) {
		b.dir = d
		return d
	}
	b.dir = b.dir.Lerp(d, 0.2)
	return b.dir
}

// nearest returns the player of team nearest to p, and its distance.
func (b *Bot) nearest(v *View, p geom.Vec3, team uint8) (*PlayerView, float64) {
	var best *PlayerView
	bd := math.Inf(1)
	for i := range v.Players {
		q := &v.Players[i]
		if q.Team != team {
			continue
		}
		if d := q.Pos.Dist(p); d < bd {
			best, bd = q, d
		}
	}
	return best, bd
}

// closestOfTeam reports whether me is its team's player nearest to p (ties to
// the lower id).
func (b *Bot) closestOfTeam(v *View, me *PlayerView, p geom.Vec3) bool {
	dm := me.Pos.Dist(p)
	for i := range v.Players {
		q := &v.Players[i]
		if q.Team != me.Team || q.ID == me.ID {
			continue
		}
		if d := q.Pos.Dist(p); d < dm || (d == dm && q.ID < me.ID) {
			return false
		}
	}
	return true
}

// passTarget returns the teammate best placed for a pass: ahead, open, within
// range.
func (b *Bot) passTarget(v *View, me *PlayerView) *PlayerView {
	att := attackDir(me.Team)
	var best *PlayerView
	bs := math.Inf(-1)
	for i := range v.Players {
		q := &v.Players[i]
		if q.Team != me.Team || q.ID == me.ID {
			continue
		}
		d := q.Pos.Dist(me.Pos)
		if d < 5 || d > 40 {
			continue
		}
		_, open := b.nearest(v, q.Pos, 1-me.Team)
		s := att*(q.Pos.X-me.Pos.X)*0.5 + math.Min(open, 10) - 0.1*d
		if s > bs {
			best, bs = q, s
		}
	}
	return best
}

// supportSpot is where to wait for a pass from a teammate (or a loose ball) at
// p: ahead of it and to one side.
func (b *Bot) supportSpot(p geom.Vec3, me *PlayerView, att float64) geom.Vec3 {
	side := 1.0
	if me.Pos.Z < p.Z {
		side = -1
	}
	pt := b.rules.Pitch
	x := math.Max(-pt.Length/2+4, math.Min(pt.Length/2-4, p.X+att*12))
	z := math.Max(-pt.Width/2+4, math.Min(pt.Width/2-4, p.Z+side*14))
	return geom.V(x, 0, z)
}

// guardSpot is between the ball and the own goal.
func (b *Bot) guardSpot(ball, ownGoal geom.Vec3, me *PlayerView) geom.Vec3 {
	s := ownGoal.Add(ball.Sub(ownGoal).Scale(0.45))
	side := 2.0
	if me.ID%2 == 0 {
		side = -2
	}
	return s.Add(geom.V(0, 0, side))
}
