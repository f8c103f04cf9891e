package soccer

import (
	"encoding/binary"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/replica"
)

// Schema returns the match's entity kinds as the replication layer sends
// them (package replica), numbered KindBall and KindPlayer:
//
//   - the ball: position in millimetres, velocity in millimetres per second,
//     rotation in 14-bit smallest-three, spin in milliradians per second,
//     its knot and cut marks, generation, and who carries it, where in the
//     carrier's frame and, while it still moves there, from where since when
//     (an attachment); up to two earlier samples: the state at a jump that
//     left it free, repeated for KnotRepeat, and the previous tick's;
//   - a player: position in millimetres and velocity in centimetres per
//     second on the ground, heading in 4096 steps of a turn, rate of turning
//     in steps of 8 mrad/s, the velocity its input asks for in centimetres
//     per second, team (Tag) and generation; one earlier sample, the
//     previous tick's, for the players who carried the ball then or now.
//
// Each kind's deltas are coded against soccer's own predictor, which needs
// rules (the players' acceleration, the boards, the ball's radius): both
// sides must declare the schema with the match's rules. A snapshot's meta is
// the flags and score DecodeScore reads.
func Schema(rules Rules) *replica.Schema {
	rules = rules.WithDefaults()
	s, err := replica.NewSchema(
		replica.Kind{Name: "ball", Earlier: 2, Predictor: ballPredictor{rad: radiusMicro(rules)}, Fields: []replica.Field{
			replica.Position(1000, replica.XYZ), replica.Velocity(1000, replica.XYZ),
			replica.Rotation(14), replica.AngularVelocity(1000, replica.XYZ),
			replica.Knot(), replica.Cut(), replica.Gen(), replica.Attach(1000),
		}},
		replica.Kind{Name: "player", Earlier: 1, Predictor: newPlayerPredictor(rules), Fields: []replica.Field{
			replica.Position(1000, replica.XZ), replica.Velocity(100, replica.XZ),
			replica.Yaw(4096), replica.AngularVelocity(125, replica.Y), replica.Input(100, replica.XZ),
			replica.Tag(), replica.Gen(),
		}},
	)
	if err != nil {
		panic(err) // the declarations above are valid
	}
	return s
}

// repState is what Replicate keeps for the layer until the tick's
// snapshots are encoded: the earlier samples it hands the world.
type repState struct {
	ball     [2]kinematic.State
	ballAtt  [2]replica.Attachment
	carriers [maxSlots][1]kinematic.State
}

// Replication implements server.Replicated. When a snapshot cannot hold
// every change (the byte budget), the ball and the players who carry it (or
// did at the previous tick: those with an earlier sample) go first.
func (g *Game) Replication() (*replica.Schema, replica.Config) {
	return Schema(g.rules), replica.Config{Relevance: func(_, e *replica.Entity) float64 {
		if e.Kind == KindBall || len(e.Earlier) > 0 || g.possessor >= 0 && e.ID == FirstPlayerID+uint32(g.possessor) {
			return mustGo
		}
		return 1
	}}
}

// mustGo is the weight of what a snapshot must hold (Replication).
const mustGo = 1 << 20

// Replicate implements server.Replicated: the score, the ball and every
// player. An extra snapshot (at a kick, a contact) holds the players
// (replica.Entity.Hold) but at a kickoff: a client that has them keeps them
// as it had them, and its timelines get the players' states at the regular
// snapshots' even times only.
//
// When the ball's motion jumped and the previous tick was not sent, the
// ball's state of the previous tick comes first, so a client's curve has the
// state before the jump as well as the one after, unless the ball was
// teleported; so it does in a regular snapshot while a ball just won moves
// to its carrier's feet (Rules.CarryBlend). For KnotRepeat after a jump that
// left the ball free (a kick, a bounce), each regular snapshot repeats the
// state at the jump first, so that a client that lost the snapshot of the
// jump still has it, and its curve still turns where the ball did.
//
// A regular snapshot also holds the state at the previous tick, when that
// was not sent, of the player who had the ball then or has it now: a
// carried ball is drawn at its carrier's drawn place, and the carrier, moved
// by its inputs, turns between ticks in ways no curve through every other
// tick can follow.
func (g *Game) Replicate(w *replica.World) {
	g.sent.tick = g.tick
	flags := byte(snapPlayers)
	if g.paused {
		flags |= snapPaused
	}
	w.Meta = append(w.Meta, flags)
	w.Meta = binary.AppendUvarint(w.Meta, uint64(g.score[0]))
	w.Meta = binary.AppendUvarint(w.Meta, uint64(g.score[1]))
	// The previous tick is worth sending when it was not, and the ball was
	// not teleported since (its state would go with the new generation, and
	// a client would cut at it, a tick early and where the ball was).
	between := !g.sent.prevSent && g.tick > 1 && !g.kickoff && !g.restart
	blending := g.possessor >= 0 && g.sent.prevPossessor == g.possessor && g.sent.prevTime-g.carrySince < g.rules.CarryBlend
	prev := between && (g.knot || w.Regular && blending)
	repeat := w.Regular && g.sent.repeat.ok && g.sent.repeat.gen == g.ballGen && g.sent.repeat.t < g.now && g.now-g.sent.repeat.t <= KnotRepeat &&
		!(prev && g.sent.repeat.t >= g.sent.prevTime)
	r := &g.rep
	n := 0
	if repeat {
		r.ball[n] = bodyOf(g.sent.repeat.t, g.sent.repeat.ball, true, g.sent.repeat.cut)
		r.ballAtt[n] = replica.Attachment{}
		n++
	}
	if prev {
		r.ball[n] = bodyOf(g.sent.prevTime, g.prevBall, false, false)
		if g.sent.prevPossessor == g.possessor && g.carrySince <= g.sent.prevTime {
			r.ballAtt[n] = attachment(g.possessor, g.rules.dribbleSpot(), g.carryBlend(), g.sent.prevTime)
		} else {
			r.ballAtt[n] = attachment(g.sent.prevPossessor, g.sent.prevCarryOff, client.Blend{}, g.sent.prevTime)
		}
		n++
	}
	w.Add(replica.Entity{
		ID: BallID, Kind: KindBall, Gen: g.ballGen,
		State:   bodyOf(g.now, g.world.Body(g.ball), g.knot && !g.kickoff, g.jumped),
		Attach:  attachment(g.possessor, g.rules.dribbleSpot(), g.carryBlend(), g.now),
		Earlier: r.ball[:n], EarlierAttach: r.ballAtt[:n],
	})
	for i := range g.players {
		p := &g.players[i]
		if !p.active {
			continue
		}
		e := replica.Entity{ID: FirstPlayerID + uint32(i), Kind: KindPlayer, Tag: p.team, Gen: p.gen, State: g.pose(i).state(g.now),
			Hold: !w.Regular && !g.kickoff}
		if w.Regular && between && (i == g.possessor || i == g.sent.prevPossessor) && p.prev.gen == p.gen {
			// Timed so that its age in the snapshot is the time since the
			// previous tick rounded to whole microseconds.
			r.carriers[i][0] = p.prev.state(g.now.Truncate(time.Microsecond) - (g.now - g.sent.prevTime).Round(time.Microsecond))
			e.Earlier = r.carriers[i][:]
		}
		w.Add(e)
	}
}

// attachment is who has the ball in a state at server time t (player slot,
// -1 for none) and its place in the player's frame; and, while b still
// moves it there, where it was won and when.
func attachment(possessor int, place geom.Vec3, b client.Blend, t time.Duration) replica.Attachment {
	if possessor < 0 {
		return replica.Attachment{}
	}
	a := replica.Attachment{On: true, Parent: FirstPlayerID + uint32(possessor), Offset: place}
	if b.Span > 0 && t < b.Since+b.Span {
		a.From, a.Since, a.Span = b.From, b.Since, b.Span
	}
	return a
}

// state is the pose as a state at server time t.
func (p sentPose) state(t time.Duration) kinematic.State {
	return kinematic.State{Time: t, Pos: geom.V(p.st.Pos.X, 0, p.st.Pos.Z), Vel: geom.V(p.vel.X, 0, p.vel.Z),
		Rot: yawRot(p.st.Yaw), AngVel: geom.V(0, p.turn, 0), Input: geom.V(p.want.X, 0, p.want.Z)}
}

// Schema implements client.Replicated.
func (g *ClientGame) Schema() *replica.Schema { return Schema(g.Rules) }
