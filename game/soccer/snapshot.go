package soccer

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/wire"
)

// The flags of a snapshot's Meta (Replicate), before the score.
const (
	snapPlayers = 1 << 0 // the snapshot holds the players: always
	snapPaused  = 1 << 1 // paused after a goal
	snapMask    = snapPlayers | snapPaused
)

// Score is the state of the match a frame shows.
type Score struct {
	Home, Away int
	Paused     bool // between a goal and the kickoff
}

// sendState is what snapshots need of the ticks before the newest.
type sendState struct {
	prevSent      bool          // the previous tick was sent
	tick          uint64        // the tick last sent
	prevTime      time.Duration // the previous tick's server time
	prevPossessor int           // who had the ball at the previous tick (player slot, -1: free)
	prevCarryOff  geom.Vec3     // where, in its frame, metres
	repeat        knotState     // repeated in regular snapshots for KnotRepeat
}

// keepPrevious notes, before a tick is stepped, what its snapshots need of
// the tick before: whether it was sent, its time, who had the ball and
// where, and every player's pose.
func (g *Game) keepPrevious() {
	g.sent.prevSent = g.tick > 0 && g.sent.tick == g.tick
	g.sent.prevTime = g.now
	g.sent.prevPossessor, g.sent.prevCarryOff = g.possessor, g.carryOff
	for i := range g.players {
		p := &g.players[i]
		p.prev = g.pose(i)
	}
}

// keepKnot keeps the ball's state of a tick whose jump left it free (a
// kick, a bounce), not teleported, for regular snapshots to repeat.
func (g *Game) keepKnot() {
	if g.knot && g.possessor < 0 && !g.kickoff && !g.restart {
		g.sent.repeat = knotState{ok: true, tick: g.tick, t: g.now, gen: g.ballGen, ball: g.world.Body(g.ball), cut: g.jumped}
	}
}

// sentPose is a player's state as snapshots send it.
type sentPose struct {
	gen  uint8
	st   PlayerState
	vel  geom.Vec3 // the motion of the tick before
	turn float64   // rad/s
	want geom.Vec3 // the velocity it runs toward (Game.wants; kinematic.State.Input)
}

// pose returns the pose of the player in slot i as the last tick left it.
func (g *Game) pose(i int) sentPose {
	p := &g.players[i]
	return sentPose{gen: p.gen, st: p.st, vel: p.vel, turn: p.turn, want: p.want}
}

// KnotRepeat is how long after a jump of the ball's motion regular snapshots
// repeat its state at the jump: beyond a burst of a few lost snapshots.
const KnotRepeat = 300 * time.Millisecond

// knotState is the ball's state at its newest jump that left it free.
type knotState struct {
	ok   bool
	tick uint64
	t    time.Duration
	gen  uint8
	ball physics.BodyState
	cut  bool // the ball's position jumped at it (Game.jumped)
}

// bodyOf is b as the state at server time t, its zero rotation read as
// geom.Identity, with the marks given.
func bodyOf(t time.Duration, b physics.BodyState, knot, cut bool) kinematic.State {
	s := b.State(t)
	s.Rot, s.Knot, s.Cut = unit(s.Rot), knot, cut
	return s
}

// DecodeScore decodes the Meta of a soccer snapshot (client.Frame.Meta).
func DecodeScore(meta []byte) (Score, error) {
	r := wire.NewReader(meta)
	flags := r.Byte()
	s := Score{Home: int(r.Uvarint(1 << 20)), Away: int(r.Uvarint(1 << 20)), Paused: flags&snapPaused != 0}
	if flags&^snapMask != 0 {
		r.Fail(ErrMalformed)
	}
	return s, r.Err()
}
