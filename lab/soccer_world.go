package lab

import (
	"math"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// soccerWorld is a client's copy of the match world, for the methods that
// simulate the ball among the players (the soccer resim method and the
// oracle): the pitch, the ball and one capsule per player slot, with the state
// of the rules a step needs beside the bodies (soccerExtras). It steps as the
// server's soccer.Game does, as far as a client can know: each player runs on
// at its last known velocity and turns at its last known rate (its inputs are
// the server's to apply), a free ball is won by the nearest player touching
// it and then carried in front of that player, and a kick of the client's own
// player is applied like the server's (see kick). Goals, restarts, kickoffs
// and tackles are the server's: they reach the world as its states.
type soccerWorld struct {
	rules soccer.Rules
	dt    time.Duration
	w     *physics.World
	ball  physics.BodyID
	caps  []physics.BodyID // by player slot
	ex    soccerExtras
}

// soccerExtras is the part of the match state that is not in the bodies.
type soccerExtras struct {
	possessor  int           // player slot with the ball, -1 when free
	carryFrom  geom.Vec3     // the ball's place in the possessor's frame when won
	carrySince time.Duration // server time it was won
	paused     bool          // between a goal and the kickoff: nobody wins the ball
	players    []playerExtras
}

// playerExtras is what a step needs of a player beyond its capsule.
type playerExtras struct {
	active       bool
	yaw          float64       // radians about +Y (soccer.PlayerState.Yaw)
	turn         float64       // rad/s about +Y
	noTouchUntil time.Duration // cannot win the ball before (after kicking or losing it)
}

func (e *soccerExtras) copyFrom(o *soccerExtras) {
	players := append(e.players[:0], o.players...)
	*e = *o
	e.players = players
}

// newSoccerWorld returns the world of a match under rules stepping at
// tickHz, with players capsules parked off the pitch and the ball on the
// centre spot.
func newSoccerWorld(rules soccer.Rules, tickHz, players int) *soccerWorld {
	w, err := physics.NewWorld(physics.Config{StepHz: tickHz})
	if err != nil {
		panic(err) // the lab's own config
	}
	if _, err := rules.Pitch.AddTo(w); err != nil {
		panic(err)
	}
	b := rules.Ball
	b.Pos = geom.V(0, b.Radius, 0)
	ball, err := w.AddSphere(b)
	if err != nil {
		panic(err)
	}
	sw := &soccerWorld{rules: rules, dt: time.Second / time.Duration(tickHz), w: w, ball: ball}
	for i := range players {
		c := rules.Player
		c.Pos = parkedAt(i)
		id, err := w.AddCapsule(c)
		if err != nil {
			panic(err)
		}
		sw.caps = append(sw.caps, id)
	}
	sw.ex = soccerExtras{possessor: -1, players: make([]playerExtras, players)}
	return sw
}

// parkedAt is where the capsule of an inactive player slot waits, far off
// the pitch and apart from the others.
func parkedAt(slot int) geom.Vec3 { return geom.V(2000+3*float64(slot), 0, 2000) }

// step advances the world one tick, to server time to, as Game.Step does
// without inputs: players turn and run on, the world steps, players are kept
// inside the boards, then the ball is carried by its possessor or, if free,
// won by a player touching it.
func (sw *soccerWorld) step(to time.Duration) {
	h := sw.dt.Seconds()
	before := sw.w.Body(sw.ball)
	for i := range sw.ex.players {
		p := &sw.ex.players[i]
		if p.active {
			p.yaw = geom.WrapAngle(p.yaw + p.turn*h)
		}
	}
	sw.w.Step()
	lx := sw.rules.Pitch.Length/2 + sw.rules.Pitch.Margin - sw.rules.Edge
	lz := sw.rules.Pitch.Width/2 + sw.rules.Pitch.Margin - sw.rules.Edge
	for i := range sw.ex.players {
		if !sw.ex.players[i].active {
			continue
		}
		b := sw.w.Body(sw.caps[i])
		s := b
		if s.Pos.X > lx || s.Pos.X < -lx {
			s.Pos.X, s.Vel.X = math.Max(-lx, math.Min(lx, s.Pos.X)), 0
		}
		if s.Pos.Z > lz || s.Pos.Z < -lz {
			s.Pos.Z, s.Vel.Z = math.Max(-lz, math.Min(lz, s.Pos.Z)), 0
		}
		s.Pos.Y, s.Vel.Y = 0, 0
		if s != b {
			sw.w.SetBody(sw.caps[i], s)
		}
	}
	switch {
	case sw.ex.possessor >= 0:
		sw.carry(to, before)
	case !sw.ex.paused:
		sw.touch(to, before)
	}
}

// carry keeps the ball in front of its possessor at server time now, as
// Game.carry does: at the dribble spot, reached from where it was won within
// Rules.CarryBlend; its velocity is its motion over the tick from before.
func (sw *soccerWorld) carry(now time.Duration, before physics.BodyState) {
	r := sw.rules.Ball.Radius
	p := &sw.ex.players[sw.ex.possessor]
	off := geom.V(sw.rules.DribbleOffset, r, 0)
	if blend := sw.rules.CarryBlend; blend > 0 && now-sw.ex.carrySince < blend {
		u := float64(now-sw.ex.carrySince) / float64(blend)
		off = sw.ex.carryFrom.Lerp(off, u*u*(3-2*u))
	}
	base := sw.w.Body(sw.caps[sw.ex.possessor]).Pos
	pos := base.Add(soccer.PlayerState{Yaw: p.yaw}.Rot().Rotate(off))
	h := sw.dt.Seconds()
	v := pos.Sub(before.Pos).Scale(1 / h)
	w := geom.V(v.Z/r, 0, -v.X/r)
	rot := sw.w.Body(sw.ball).Rot
	if rot == (geom.Quat{}) {
		rot = geom.Identity
	}
	sw.w.SetBody(sw.ball, physics.BodyState{Pos: pos, Vel: v, AngVel: w, Rot: rot.Norm().Integrate(w, h)})
}

// touch gives a free ball to the nearest player touching it, as Game.touch
// does.
func (sw *soccerWorld) touch(now time.Duration, before physics.BodyState) {
	b := sw.w.Body(sw.ball)
	if b.Pos.Y > sw.rules.Player.Height+sw.rules.Ball.Radius {
		return
	}
	best, bestD := -1, sw.rules.Player.Radius+sw.rules.Ball.Radius+sw.rules.TouchMargin
	for i := range sw.ex.players {
		p := &sw.ex.players[i]
		if !p.active || now < p.noTouchUntil {
			continue
		}
		c := sw.w.Body(sw.caps[i]).Pos
		if d := sw.rules.TouchDistance(c, b.Pos); d <= bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return
	}
	c := sw.w.Body(sw.caps[best]).Pos
	sw.ex.possessor = best
	sw.ex.carryFrom = soccer.PlayerState{Yaw: sw.ex.players[best].yaw}.Rot().Conj().Rotate(b.Pos.Sub(c))
	sw.ex.carrySince = now
	sw.carry(now, before)
}
