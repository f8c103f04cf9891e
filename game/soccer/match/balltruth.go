package match

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
)

// contactSpeed is the impact speed, m/s, above which a contact of the ball
// inside a step is taken as a bounce.
const contactSpeed = 0.5

// BallTruth is the soccer ball's true trajectory (Truth), recovered from
// the server's match after every tick (soccer.Truth) as exactly as that
// allows: the one truth the lab, tether demo and a Meter measure the soccer
// ball against.
//
// Where the ball flew free over the tick, a private world with the pitch
// and the ball alone steps it from the earlier tick: when that lands on the
// later tick's position, as it does unless a player got in the way, its
// velocity on arrival and any bounce inside the step are the server's (a
// kick at the later tick changes only the velocity leaving it). Where a
// player got in the way, the ball follows the earlier tick's flight up to
// where the two ticks' flights pass closest and the later tick's after it.
// A carried ball moves with its carrier: at its place in the carrier's
// frame, the carrier's pose and that place both taken linearly between the
// ticks (the server's carry rule, at the lab's pose of the player between
// ticks). A ball whose generation changed in a tick was put there (a
// kickoff or a restart): it stays on the earlier tick's motion until then.
// A ball the server moved at a tick (Truth.BallJumped: a kick made as of an
// earlier tick and brought to the present, or from where its client claimed
// the ball was, or a ball pushed out of a player) stays on the earlier
// tick's motion until then too, and jumps there; no frame across that jump
// counts as a pop, whatever the method draws, as across a teleport. (A kick
// made as of an earlier tick can move the ball metres in one tick: distance
// tells nothing.) Where ticks are missing (a live server that skipped
// some), the ball between them is the cubic through both ticks.
type BallTruth struct {
	Truth measure.Truth
	tick  time.Duration
	world *physics.World // the pitch and the ball alone
	wball physics.BodyID
	prev  soccer.Truth // the match after the previous tick
}

// NewBallTruth starts the ball's trajectory of a server playing by rules (the
// zero value: the defaults) at tickHz, at the match start.
func NewBallTruth(rules soccer.Rules, tickHz int, start *soccer.Truth) (*BallTruth, error) {
	w, ball, err := rules.WithDefaults().BallWorld(tickHz)
	if err != nil {
		return nil, fmt.Errorf("tether/match: ball truth: %w", err)
	}
	b := &BallTruth{Truth: measure.Truth{G: w.Gravity()}, tick: time.Second / time.Duration(tickHz), world: w, wball: ball}
	b.Truth.Add(measure.Sample{T: start.Time, Pos: start.Ball.Pos, Vel: start.Ball.Vel, VelIn: start.Ball.Vel})
	b.keep(start)
	return b, nil
}

// keep copies t as the previous tick's match.
func (b *BallTruth) keep(t *soccer.Truth) {
	players := append(b.prev.Players[:0], t.Players...)
	b.prev = *t
	b.prev.Players = players
}

// Tick adds the ball's sample of the server's match after its next tick.
func (b *BallTruth) Tick(t *soccer.Truth) {
	a, prev := &b.prev.Ball, &b.prev
	pt := measure.Sample{T: t.Time, Pos: t.Ball.Pos, Vel: t.Ball.Vel, VelIn: t.Ball.Vel}
	h := b.tick.Seconds()
	switch {
	case t.BallGen != prev.BallGen:
		pt.Cut = true
	case t.BallJumped:
		pt.Jump = true
	case t.Time-prev.Time != b.tick:
		// Ticks missing: nothing is known of the steps between.
	case prev.Possessor != soccer.NoPlayer:
		// Carried over the step (and perhaps kicked or poked at its end).
		pt.VelIn = t.Ball.Pos.Sub(a.Pos).Scale(1 / h)
		if t.Possessor == prev.Possessor || t.Possessor == soccer.NoPlayer {
			b.carry(&pt, t)
		}
	default:
		b.world.SetBody(b.wball, *a)
		b.world.Step()
		s := b.world.Body(b.wball)
		if s.Pos.Dist(t.Ball.Pos) < 1e-9 {
			pt.VelIn = s.Vel
			for _, c := range b.world.Contacts() {
				if c.Body == b.wball && c.Speed > contactSpeed {
					pt.Contact, pt.ContactAt = true, t.Time-b.tick+c.At
					break
				}
			}
			break
		}
		// A player got in the way: the contact is where the flights from
		// both ticks pass closest.
		tc := measure.ClosestApproach(a.Pos, a.Vel, t.Ball.Pos, t.Ball.Vel, h)
		pt.Contact, pt.ContactAt = true, t.Time-b.tick+time.Duration(tc*float64(time.Second))
	}
	b.Truth.Add(pt)
	b.keep(t)
}

// carry marks pt, the step into t, as carried by the previous tick's
// possessor, if that player was in play at both ends and not teleported
// between: the ball is then at its place in the player's frame, taken
// between the two ticks.
func (b *BallTruth) carry(pt *measure.Sample, t *soccer.Truth) {
	find := func(ps []soccer.PlayerTruth) *soccer.PlayerTruth {
		for i := range ps {
			if ps[i].ID == b.prev.Possessor {
				return &ps[i]
			}
		}
		return nil
	}
	from, to := find(b.prev.Players), find(t.Players)
	if from == nil || to == nil || from.Gen != to.Gen {
		return
	}
	pose := func(p soccer.PlayerState, ball geom.Vec3) measure.Attachment {
		return measure.Attachment{Pos: p.Pos, Yaw: p.Yaw, Off: p.Rot().Conj().Rotate(ball.Sub(p.Pos))}
	}
	pt.Attached = true
	pt.Frame = [2]measure.Attachment{pose(from.PlayerState, b.prev.Ball.Pos), pose(to.PlayerState, pt.Pos)}
}
