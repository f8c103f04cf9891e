package soccer

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// PlayerTruth is a player as the server has it.
type PlayerTruth struct {
	ID     uint32 // entity id
	Client int    // the client slot controlling it
	Team   uint8
	// Gen is its teleport generation, as snapshots carry it: it changes
	// where the player jumps, when the game moves it (a kickoff) or when a
	// predicted player's moves come back after an outage too long to blend.
	Gen uint8
	// PlayerState is where the player stands in the world now: what the
	// ball meets and snapshots carry.
	PlayerState
	// Predicted is set for a player its client predicts. Moved is then its
	// state after the newest of its moves applied, and MovedAt that move's
	// end (server time as the client stamped it, as accepted): the
	// authoritative path its client's prediction is measured against,
	// ahead of PlayerState, which replays it a little behind. MovedGen is
	// the teleport generation of Moved: it changes when the game moves the
	// player, not when only PlayerState jumps.
	Predicted bool
	Moved     PlayerState
	MovedAt   time.Duration
	MovedGen  uint8
	// NoTouchUntil is the server time before which the player cannot win
	// the ball (after kicking it or being tackled).
	NoTouchUntil time.Duration
}

// Truth is the match as the server has it after a tick: what clients are
// measured against.
type Truth struct {
	Tick    uint64
	Time    time.Duration // server time
	Ball    physics.BodyState
	BallGen uint8 // the ball's teleport generation, as snapshots carry it: a change is a cut
	// BallJumped says the ball's position jumped at this tick without a
	// teleport: a kick made as of an earlier tick and brought to the
	// present, or from where its client claimed the ball was, a ball
	// pushed out of a player, or a ball carried by a player that jumped (see
	// PlayerTruth.Gen). Snapshots send its state as a Cut.
	BallJumped bool
	Possessor  uint32 // entity id of the player with the ball, or NoPlayer
	// CarryFrom is where the ball was, in the possessor's frame (metres),
	// when it won the ball at server time CarrySince: the carry reaches the
	// dribble spot from there within Rules.CarryBlend. Zero when free.
	CarryFrom  geom.Vec3
	CarrySince time.Duration
	Players    []PlayerTruth
	Score      [2]int
	Paused     bool // between a goal and the kickoff
}

// Truth copies the match's current state into dst, reusing dst.Players.
func (g *Game) Truth(dst *Truth) {
	dst.Tick, dst.Time = g.tick, g.now
	dst.Ball, dst.BallGen, dst.BallJumped = g.world.Body(g.ball), g.ballGen, g.jumped
	dst.Ball.Rot = unit(dst.Ball.Rot)
	dst.Possessor, dst.CarryFrom, dst.CarrySince = NoPlayer, geom.Vec3{}, 0
	if g.possessor >= 0 {
		dst.Possessor, dst.CarryFrom, dst.CarrySince = FirstPlayerID+uint32(g.possessor), g.carryFrom, g.carrySince
	}
	dst.Players = dst.Players[:0]
	for i := range g.players {
		p := &g.players[i]
		if p.active {
			pt := PlayerTruth{ID: FirstPlayerID + uint32(i), Client: p.client, Team: p.team, Gen: p.gen, PlayerState: p.st, NoTouchUntil: p.noTouchUntil}
			if p.mv != nil {
				pt.Predicted, pt.Moved, pt.MovedAt, pt.MovedGen = true, p.mv.State(), p.mv.End(), p.movedGen
			}
			dst.Players = append(dst.Players, pt)
		}
	}
	dst.Score, dst.Paused = g.score, g.paused
}
