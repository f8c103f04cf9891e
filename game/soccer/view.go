package soccer

import (
	"cmp"
	"math"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/timeline"
	"github.com/tether-net/tether/wire"
)

// ClientGame is the soccer game's side of a client: it implements client.Game,
// and client.Predictor for the own player.
type ClientGame struct {
	// Rules are the match's, every field as it plays by it
	// (Rules.WithDefaults; NewClientGame fills them).
	Rules Rules
	// Ball and Player are the timeline configurations of the ball and of the
	// players; without an Extrapolate of its own, the ball gets its
	// ballistic extrapolation on the pitch (BallExtrapolator) and a player
	// its motion under its input held (PlayerExtrapolator).
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
	// and predicts the own player's kicks in it (PrepareInput). Whatever the
	// method, who has the ball comes from the snapshots
	// (client.Entity.Holder), not from where the ball is drawn. Set it
	// before the first snapshot.
	BallMethod replicate.Method
	// TickHz is the server's tick rate, for BallMethod's copy of the world;
	// 0 means 60.
	TickHz int

	own      *movement.Client[PlayerState, MoveInput]
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
	w, err := physics.NewWorld(physics.Config{StepHz: cmp.Or(g.TickHz, 60)})
	if err != nil {
		return nil
	}
	if _, err := g.Rules.Pitch.AddTo(w); err != nil {
		return nil
	}
	ball, err := w.AddSphere(g.Rules.Ball)
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
		return c
	}
	c := g.Player
	if c.Extrapolate == nil {
		c.Extrapolate = PlayerExtrapolator(g.Rules)
	}
	return c
}

// DecodeSnapshot implements client.Game: the ball (with its possessor as
// parent, at the offset in the possessor's frame the server carries it at)
// and the players, whose Tag is their team.
func (g *ClientGame) DecodeSnapshot(s *client.Snapshot, b []byte) error {
	return decodeSnapshot(s, b, g.Rules)
}

func decodeSnapshot(s *client.Snapshot, b []byte, rules Rules) error {
	r := wire.NewReader(b)
	flags := r.Byte()
	r.Uvarint(1 << 20)
	r.Uvarint(1 << 20)
	metaEnd := r.Offset()
	gen := r.Byte()
	nb := r.Byte()
	if flags&^snapMask != 0 || nb < 1 || nb > 3 {
		r.Fail(ErrMalformed)
	}
	for range nb {
		parent, off := client.NoParent, geom.Vec3{}
		var blend client.Blend
		var age time.Duration // of the blend, at the state
		if pos := r.Uvarint(1 << 33); pos > 1 {
			parent = uint32(pos>>1 - 1)
			off = r.Vec(0.001)
			if pos&1 != 0 {
				blend.From, blend.Span = r.Vec(0.001), rules.CarryBlend
				age = time.Duration(r.Uvarint(uint64(time.Hour/time.Microsecond))) * time.Microsecond
			}
		} else if pos == 1 {
			r.Fail(ErrMalformed)
		}
		w := r.State()
		if r.Err() != nil {
			break
		}
		if blend.Span > 0 {
			blend.Since = w.Time - age
		}
		s.Entities = append(s.Entities, client.EntityState{
			ID: BallID, Kind: KindBall, Gen: gen, Parent: parent, Offset: off, Blend: blend,
			State: w,
		})
	}
	players := len(s.Entities)
	if r.Err() == nil && flags&snapPlayers != 0 {
		n := r.Uvarint(64)
		for range n {
			id := r.Uvarint(math.MaxUint32)
			team, pgen := r.Byte(), r.Byte()
			st := readPose(&r, s.Time)
			if r.Err() != nil {
				break
			}
			if team > Away || id == uint64(BallID) {
				r.Fail(ErrMalformed)
				break
			}
			s.Entities = append(s.Entities, client.EntityState{
				ID: uint32(id), Kind: KindPlayer, Tag: team, Gen: pgen, Parent: client.NoParent, State: st,
			})
		}
	}
	if r.Err() == nil && flags&snapCarriers != 0 {
		age := time.Duration(r.Uvarint(uint64(time.Second/time.Microsecond))) * time.Microsecond
		n := int(r.Byte())
		if flags&snapPlayers == 0 || n < 1 || n > 2 {
			r.Fail(ErrMalformed)
		}
		for range n {
			id := r.Uvarint(math.MaxUint32)
			st := readPose(&r, s.Time-age)
			if r.Err() != nil {
				break
			}
			// The carrier is one of the players above, whose team and
			// generation it has.
			k := players
			for k < len(s.Entities) && s.Entities[k].ID != uint32(id) {
				k++
			}
			if k == len(s.Entities) || age == 0 {
				r.Fail(ErrMalformed)
				break
			}
			e := s.Entities[k]
			e.State = st
			s.Entities = append(s.Entities, e)
		}
	}
	if err := r.Done(); err != nil {
		return err
	}
	s.Meta = b[:metaEnd]
	return nil
}

// PlayerView is a player as a client draws it.
type PlayerView struct {
	ID      uint32
	Team    uint8
	Pos     geom.Vec3 // base, metres
	Vel     geom.Vec3 // m/s
	Forward geom.Vec3 // unit, the way it faces
}

// View is the match as one client shows it, in soccer terms: what a bot
// decides from and what a page draws.
type View struct {
	Ready     bool          // the client's clock is ready and the ball known
	Time      time.Duration // the render time shown
	Now       time.Duration // the client's estimate of the server's time now
	Self      uint32        // the client's own player, or NoPlayer
	Ball      geom.Vec3
	BallVel   geom.Vec3
	BallRot   geom.Quat
	Possessor uint32 // player with the ball as the snapshots have it at Time (however the ball is drawn), or NoPlayer
	Players   []PlayerView
	Score     Score
}

// FromFrame fills v from a client frame, reusing v.Players.
func (v *View) FromFrame(f *client.Frame) {
	v.Players = v.Players[:0]
	v.Ready, v.Possessor, v.Self = false, NoPlayer, NoPlayer
	if f.HasSelf {
		v.Self = f.Self
	}
	if !f.Ready {
		return
	}
	v.Time, v.Now = f.RenderTime, f.Server
	for i := range f.Entities {
		e := &f.Entities[i]
		switch e.Kind {
		case KindBall:
			v.Ready = true
			v.Ball, v.BallVel, v.BallRot = e.Pos, e.Vel, e.Rot
			if e.Holder != client.NoParent {
				v.Possessor = e.Holder
			}
		case KindPlayer:
			v.Players = append(v.Players, PlayerView{ID: e.ID, Team: e.Tag, Pos: e.Pos, Vel: e.Vel, Forward: e.Rot.Rotate(geom.V(1, 0, 0))})
		}
	}
	if s, err := DecodeScore(f.Meta); err == nil {
		v.Score = s
	}
}

// Player returns the player id in the view, or nil.
func (v *View) Player(id uint32) *PlayerView {
	for i := range v.Players {
		if v.Players[i].ID == id {
			return &v.Players[i]
		}
	}
	return nil
}

// RenderClock implements client.Game: the render clock the match is drawn
// at. The players move by their inputs, which no client can foresee, and the
// carried ball with them: past the newest snapshot a player can only be
// extrapolated in a straight line, and a turn then shows as a correction. So
// the delay covers the 90th percentile of the snapshots' lateness plus the
// whole send interval: the snapshot after the one the render time is leaving
// has then almost always arrived, and the match is interpolated.
func (g *ClientGame) RenderClock() timeline.Config {
	return timeline.Config{Quantile: 0.9, IntervalShare: 1, QuantileInterval: 1}
}

// readPose reads a player's state at time t as appendPose wrote it.
func readPose(r *wire.Reader, t time.Duration) kinematic.State {
	x, z := r.Varint(maxQuant), r.Varint(maxQuant)
	vx, vz := r.Varint(maxQuant), r.Varint(maxQuant)
	yaw := float64(u16(r)) / 65536 * 2 * math.Pi
	turn := float64(r.Varint(maxQuant)) / 1000
	wx, wz := r.Varint(maxQuant), r.Varint(maxQuant)
	return kinematic.State{Time: t, Pos: geom.V(float64(x)/1000, 0, float64(z)/1000),
		Vel: geom.V(float64(vx)/100, 0, float64(vz)/100), Rot: yawRot(yaw), AngVel: geom.V(0, turn, 0),
		Input: geom.V(float64(vx+wx)/100, 0, float64(vz+wz)/100)}
}
