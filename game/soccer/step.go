package soccer

import (
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// match is what the match step reads and writes: the physics world (the
// pitch, the ball, a capsule per player slot) and, beside the bodies, who
// has the ball and how each player stands. The server's Game and a client's
// World are stepped by the same function, step; what drives the players
// before it (their inputs and moves on the server, their last known motion
// on a client) and what follows it (goals, kicks, tackles: the server's
// alone) is theirs.
type match struct {
	rules Rules
	world *physics.World
	ball  physics.BodyID
	slots []*onPitch    // by player slot
	now   time.Duration // server time of the tick last stepped
	dt    time.Duration // the tick

	possession
	// prevBall is the ball as the tick being stepped found it.
	prevBall physics.BodyState
	// carrierJump is how far the ball's carrier was moved this tick by its
	// driver, not by its run (the server's predicted player whose moves came
	// back after an outage): the carried ball's velocity leaves it out.
	carrierJump geom.Vec3
}

// possession is who has the ball and how it is carried.
type possession struct {
	possessor  int           // player slot, -1 when free
	carryFrom  geom.Vec3     // where the ball was, in its possessor's frame, when won (metres)
	carrySince time.Duration // server time it was won
	carryOff   geom.Vec3     // where it is now, in its possessor's frame (metres)
	paused     bool          // between a goal and the kickoff: nobody wins the ball
}

// onPitch is a player as the match step moves it.
type onPitch struct {
	active bool
	body   physics.BodyID
	// st is where the player stands (its capsule's base, Y 0), the velocity
	// it runs at (m/s; its driver's) and the way it faces.
	st   PlayerState
	vel  geom.Vec3 // its motion over the last tick, pushes included, m/s
	turn float64   // its turn over the last tick, rad/s about +Y
	// noTouchUntil is the server time before which it cannot win the ball
	// (after kicking it or being tackled).
	noTouchUntil time.Duration
	// follows is set for a player the step puts at next instead of letting
	// the physics move it: the server's predicted players, whose moves give
	// their path.
	follows bool
	next    PlayerState
}

// newMatch returns the match world under rules (filled) stepping at tickHz:
// the pitch, the ball on the centre spot and a parked capsule for each of
// the rules' player slots, described by slots (which it fills).
func newMatch(rules Rules, tickHz int, slots []*onPitch) (match, error) {
	w, ball, caps, err := newWorld(rules, tickHz)
	if err != nil {
		return match{}, err
	}
	for i, id := range caps {
		slots[i].body = id
	}
	return match{rules: rules, world: w, ball: ball, slots: slots, dt: time.Second / time.Duration(tickHz),
		possession: possession{possessor: -1}}, nil
}

// step is the match step: it advances the match one tick, to server time
// now. The physics world steps (each player's capsule at the velocity its
// driver set, the ball among them, bouncing off the pitch and the players);
// each player the physics moved is kept inside the boards (clampPlayer), and
// one that follows a path is put at its next place; then the ball is carried
// in front of its possessor (carry) or, free and the match not paused, won
// by the nearest eligible player touching it (touch). It returns the slot of
// the player who won the ball, or -1.
func (m *match) step(now time.Duration) int {
	m.prevBall = m.world.Body(m.ball)
	m.now = now
	h := m.dt.Seconds()
	m.world.Step()
	for _, p := range m.slots {
		if !p.active {
			continue
		}
		from := p.st.Pos
		if p.follows {
			m.world.SetBody(p.body, physics.BodyState{Pos: p.next.Pos})
			p.st = p.next
		} else {
			b := m.world.Body(p.body)
			st := m.rules.clampPlayer(PlayerState{Pos: geom.V(b.Pos.X, 0, b.Pos.Z), Vel: p.st.Vel, Yaw: p.st.Yaw})
			if st.Pos != b.Pos {
				// Stopped by the boards: its capsule too, along the axes
				// it met them.
				v := geom.V(b.Vel.X, 0, b.Vel.Z)
				if st.Pos.X != b.Pos.X {
					v.X = 0
				}
				if st.Pos.Z != b.Pos.Z {
					v.Z = 0
				}
				m.world.SetBody(p.body, physics.BodyState{Pos: st.Pos, Vel: v})
			}
			p.st = st
		}
		// The motion this tick, pushes by other players included, so that
		// curves through the states agree with it.
		p.vel = p.st.Pos.Sub(from).Scale(1 / h)
	}
	switch {
	case m.possessor >= 0:
		m.carry()
	case !m.paused:
		return m.touch()
	}
	return -1
}

// carry keeps the ball in front of its possessor, rolling with it: at
// DribbleOffset ahead on the ground, reached within CarryBlend of winning it
// from wherever it was touched. Its velocity is its motion over the tick.
func (m *match) carry() {
	p := m.slots[m.possessor]
	r := m.rules.Ball.Radius
	prev := m.world.Body(m.ball)
	m.carryOff = m.carryBlend().At(m.rules.dribbleSpot(), m.now)
	pos := p.st.Pos.Add(p.st.Rot().Rotate(m.carryOff))
	v := pos.Sub(m.prevBall.Pos.Add(m.carrierJump)).Scale(1 / m.dt.Seconds())
	w := geom.V(v.Z/r, 0, -v.X/r)
	m.world.SetBody(m.ball, physics.BodyState{Pos: pos, Vel: v, AngVel: w, Rot: unit(prev.Rot).Integrate(w, m.dt.Seconds())})
}

// carryBlend is the ball's way from where it was won to the dribble spot.
func (m *match) carryBlend() client.Blend {
	return client.Blend{From: m.carryFrom, Since: m.carrySince, Span: m.rules.CarryBlend}
}

// dribbleSpot is where the ball is carried, in the player's frame.
func (r Rules) dribbleSpot() geom.Vec3 { return geom.V(r.DribbleOffset, r.Ball.Radius, 0) }

func unit(q geom.Quat) geom.Quat {
	if q == (geom.Quat{}) {
		return geom.Identity
	}
	return q.Norm()
}

// touch gives a free ball to the nearest eligible player touching it, and
// returns its slot, or -1.
func (m *match) touch() int {
	b := m.world.Body(m.ball)
	best := m.toucher(b.Pos, m.now, func(i int) (PlayerState, bool) { return m.slots[i].st, true })
	if best < 0 {
		return -1
	}
	p := m.slots[best]
	m.win(best, p.st.Rot().Conj().Rotate(b.Pos.Sub(p.st.Pos)), m.now)
	m.carry()
	return best
}

// toucher returns the eligible player nearest a ball at pos at time t, within
// reach of touching it, or -1 for none; at(i) says where active player i
// stood then, and false if unknown.
func (m *match) toucher(pos geom.Vec3, t time.Duration, at func(i int) (PlayerState, bool)) int {
	if pos.Y > m.rules.Player.Height+m.rules.Ball.Radius {
		return -1
	}
	best, bestD := -1, m.rules.Player.Radius+m.rules.Ball.Radius+m.rules.TouchMargin
	for i, p := range m.slots {
		if !p.active || t < p.noTouchUntil {
			continue
		}
		st, ok := at(i)
		if !ok {
			continue
		}
		if d := m.rules.TouchDistance(st.Pos, pos); d <= bestD {
			best, bestD = i, d
		}
	}
	return best
}

// win gives the ball to player i at time since, from offset from in its
// frame, where the carry starts.
func (m *match) win(i int, from geom.Vec3, since time.Duration) {
	m.possessor = i
	m.carryFrom, m.carrySince = from, since
}

// kicked returns the ball b kicked by input in (a pass or a shot) of a
// player standing as kicker: its velocity and spin as Rules.Kick gives them,
// aimed by Rules.KickAim. The server kicks so, and a client predicting its
// own kick kicks its own world's ball so.
func (r Rules) kicked(b physics.BodyState, in Input, kicker PlayerState) physics.BodyState {
	aim := r.KickAim(in.Aim, kicker, b.Pos)
	b.Vel, b.AngVel = r.Kick(in.Action, aim, in.Power)
	return b
}

// BallWorld returns a physics world stepping at tickHz that holds the pitch
// and the ball alone (at rest where Rules.Ball puts it): where a client or a
// tool follows the ball's flight without the players.
func (r Rules) BallWorld(tickHz int) (*physics.World, physics.BodyID, error) {
	w, err := physics.NewWorld(physics.Config{StepHz: tickHz})
	if err != nil {
		return nil, 0, err
	}
	if _, err := r.Pitch.AddTo(w); err != nil {
		return nil, 0, err
	}
	ball, err := w.AddSphere(r.Ball)
	if err != nil {
		return nil, 0, err
	}
	return w, ball, nil
}

// newWorld builds the match's physics world: the pitch, the ball on the centre
// spot and a parked capsule for each player.
func newWorld(rules Rules, tickHz int) (*physics.World, physics.BodyID, []physics.BodyID, error) {
	rules.Ball.Pos = geom.V(0, rules.Ball.Radius, 0)
	w, ball, err := rules.BallWorld(tickHz)
	if err != nil {
		return nil, 0, nil, err
	}
	caps := make([]physics.BodyID, rules.MaxPlayers)
	for i := range caps {
		c := rules.Player
		c.Pos = parked(i)
		if caps[i], err = w.AddCapsule(c); err != nil {
			return nil, 0, nil, err
		}
	}
	return w, ball, caps, nil
}

// parked is where an unused player capsule waits, far outside the pitch.
func parked(i int) geom.Vec3 { return geom.V(1000+3*float64(i), 0, 1000) }
