package soccer

import (
	"time"

	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/geom"
)

// Keys is what a person presses to play a player: a direction to run in
// (from WASD or the arrows), sprint, and a count of presses of the kick key.
type Keys struct {
	Dir    geom.Vec3 // on the ground; length at most 1 (longer is shortened)
	Sprint bool
	// Kicks counts the kick key's presses so far; each new press acts once: a
	// shot toward the opponents' goal (or a pass toward Dir, if Pass) when
	// the player has the ball in the view, a tackle otherwise.
	Kicks uint32
	Pass  bool
}

// Human turns a person's keys into inputs, using the client's view to choose
// what the kick key does. The zero value is ready to use.
type Human struct {
	// Pitch is where the goals are; the zero value means pitch.Default().
	Pitch pitch.Pitch

	seq     uint8
	kicks   uint32
	started bool
	last    Input
	actedAt time.Duration // server time of the last action
}

// Input returns the input for keys k in view v.
func (h *Human) Input(k Keys, v *View) Input {
	in := h.last
	in.Dir, in.Sprint = geom.V(k.Dir.X, 0, k.Dir.Z), k.Sprint
	if l := in.Dir.Len(); l > 1 {
		in.Dir = in.Dir.Scale(1 / l)
	}
	if !h.started {
		h.started, h.kicks = true, k.Kicks
	}
	if k.Kicks != h.kicks {
		h.kicks = k.Kicks
		h.seq++
		if v != nil {
			h.actedAt = v.Now
		}
		in.ActionSeq = h.seq
		in.Action, in.Aim, in.Power = ActionTackle, geom.Vec3{}, 0
		if v != nil && v.Ready && v.Possessor != NoPlayer && v.Possessor == v.Self {
			me := v.Player(v.Self)
			switch {
			case k.Pass && me != nil:
				in.Action, in.Aim, in.Power = ActionPass, k.Dir, 0.5
			case me != nil:
				pt := h.Pitch
				if pt.Length == 0 {
					pt = pitch.Default()
				}
				goal := geom.V(attackDir(me.Team)*pt.Length/2, 0, 0)
				in.Action, in.Aim, in.Power = ActionShot, goal.Sub(me.Pos), 0.8
			default:
				in.Action = ActionShot
			}
		}
	}
	h.last = in
	if v != nil && h.seq != 0 {
		in.ActionAge = max(0, v.Now-h.actedAt)
	}
	return in
}
