package soccer

import (
	"cmp"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/timeline"
)

// ClientGame is the soccer game's side of a client: it implements client.Game,
// and client.Predictor for the own player (its AppendInput and Reply
// movement.Predicting's; Own is the prediction, nil before the first
// predicted frame: its statistics, its state).
type ClientGame struct {
	movement.Predicting[PlayerState, MoveInput]

	// Rules are the match's, every field as it plays by it
	// (Rules.WithDefaults; NewClientGame fills them).
	Rules Rules
	// Ball and Player are the timeline configurations of the ball and of the
	// players; without an Extrapolate of its own, the ball gets its
	// ballistic extrapolation on the pitch (BallExtrapolator) and a player
	// its motion under its input held (PlayerExtrapolator). Without a
	// CorrectionTime of its own, the ball blends a correction (a kick heard
	// late) out with a 50 ms time constant, as the drill's ball does, rather
	// than the timeline's 100 ms: still no faster than 2 m/s, so no visible
	// jump, and wrong for half as long.
	Ball, Player timeline.Config
	// Prediction turns on the prediction of the own player (package
	// movement): each frame's input moves it in that frame, and the server
	// acknowledges or adjusts its moves. Set it before the first frame.
	Prediction bool
	// Movement configures the prediction.
	Movement movement.ClientConfig
	// BallMethod is how the ball is shown (package replicate): "" or
	// MethodTether draws it from its timeline, at its carrier's feet while
	// carried. MethodSeed, MethodVelocity and MethodPredictive show it by
	// their view over the client's own copy of the pitch and ball (stepping
	// at TickHz), fed the ball's states as the snapshots carry them.
	// MethodResim re-simulates the whole match world (a World: the ball and
	// every player, stepped by the server's match step) from the snapshots,
	// and predicts the own player's kicks in it (PrepareInput); it is made
	// for a client that does not predict its own player (Prediction off):
	// the server applies a predicted player's kick when its moves arrive,
	// where its world replays it, not as of when its client kicked, and the
	// prediction then misses by decimetres. Whatever the
	// method, who has the ball comes from the snapshots
	// (client.Entity.Holder), not from where the ball is drawn. Set it
	// before the first snapshot.
	BallMethod replicate.Method
	// TickHz is the server's tick rate, for BallMethod's copy of the world;
	// 0 means 60.
	TickHz int
	// LateShare is the render clock's target share of frames drawn past the
	// newest snapshot (timeline.Config.LateShare): smaller draws the match
	// further in the past with fewer corrections. 0 means
	// timeline.DefaultLateShare.
	LateShare float64

	shown    client.Entity
	hasShown bool
	resim    *resimBall // BallMethod MethodResim, once made
}

// NewClientGame returns the client side of a match under rules (zero fields
// taking their defaults), with default timelines.
func NewClientGame(rules Rules) *ClientGame {
	return &ClientGame{Rules: rules.WithDefaults()}
}

// View implements client.Viewer: the ball's view for a BallMethod other
// than MethodTether, or nil (as for rules that do not validate).
func (g *ClientGame) View(_ uint32, kind uint8) replicate.View {
	switch {
	case kind != KindBall, g.BallMethod == "", g.BallMethod == replicate.MethodTether:
		return nil
	case g.BallMethod == replicate.MethodResim:
		if r := g.resimBall(); r != nil {
			return r
		}
		return nil
	}
	w, ball, err := g.Rules.BallWorld(cmp.Or(g.TickHz, 60))
	if err != nil {
		return nil
	}
	v, err := replicate.NewView(g.BallMethod, w, ball)
	if err != nil {
		return nil
	}
	return v
}

// resimBall returns the resim method's world, made at the first call, or nil
// if BallMethod is not MethodResim or the world cannot be made.
func (g *ClientGame) resimBall() *resimBall {
	if g.resim == nil && g.BallMethod == replicate.MethodResim {
		g.resim, _ = newResimBall(g.Rules, cmp.Or(g.TickHz, 60))
	}
	return g.resim
}

// Placed implements client.Watcher: under BallMethod MethodResim, the
// snapshot's states (the ball with its possessor, the players, the pause)
// go to the re-simulated world.
func (g *ClientGame) Placed(s *client.Snapshot, arrival time.Duration) {
	if r := g.resimBall(); r != nil {
		r.snapshot(s, arrival)
	}
}

// PrepareInput is to be called with every input the client sends, decided
// at frame f, before it is encoded (AppendInput) and given to the client.
// Under BallMethod MethodResim, an input that kicks (a new ActionSeq with a
// pass or a shot) while the re-simulated world has the ball at the own
// player's feet is predicted there at once, and it and the inputs after it
// that may still be the first to reach the server claim where the ball left
// from (KickFrom) and the aim it left with. Otherwise in is left as it is.
func (g *ClientGame) PrepareInput(in *Input, f *client.Frame) {
	if g.resim != nil {
		g.resim.input(in, f)
	}
}

// PredictedKicks returns the own kicks predicted so far (BallMethod
// MethodResim), oldest first; the slice is the game's, valid until the next
// frame.
func (g *ClientGame) PredictedKicks() []PredictedKick {
	if g.resim == nil {
		return nil
	}
	return g.resim.kicks
}

// ResimStats returns the counters of the resim method's re-simulation, and
// false if BallMethod is not MethodResim.
func (g *ClientGame) ResimStats() (replicate.ResimStats, bool) {
	if g.resim == nil {
		return replicate.ResimStats{}, false
	}
	return g.resim.r.Stats(), true
}

// BallExtrapolator returns the ballistic extrapolation of the ball on the
// grass under rules.
func BallExtrapolator(rules Rules) timeline.Ballistic {
	return timeline.Ballistic{
		Gravity:      geom.V(0, -gravity, 0),
		Floor:        rules.Ball.Radius,
		Restitution:  rules.Ball.Material.Restitution * rules.Pitch.Grass.Restitution,
		RollingDecel: rules.rollDecel(),
	}
}

// Timeline implements client.Game.
func (g *ClientGame) Timeline(kind uint8) timeline.Config {
	if kind == KindBall {
		c := g.Ball
		if c.Extrapolate == nil {
			c.Extrapolate = BallExtrapolator(g.Rules).Extrapolate
		}
		if c.CorrectionTime == 0 {
			c.CorrectionTime = 50 * time.Millisecond
		}
		return c
	}
	c := g.Player
	if c.Extrapolate == nil {
		c.Extrapolate = PlayerExtrapolator(g.Rules)
	}
	return c
}

// RenderClock implements client.Game: the render clock the match is drawn
// at, by LateShare. The players move by their inputs, which no client can
// foresee, and the carried ball with them: past the newest snapshot a player
// can only be extrapolated in a straight line, and a turn then shows as a
// correction when the next snapshot comes. The timeline's default share
// (one frame in twenty) was measured for that: on wan and mobile matches it
// draws at about the delay of the quantile policy it replaced, with fewer
// pops (see the lab's -sweep).
func (g *ClientGame) RenderClock() timeline.Config {
	return timeline.Config{LateShare: g.LateShare}
}
