package soccer

import (
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
)

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
