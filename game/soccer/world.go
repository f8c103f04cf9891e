package soccer

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// World is a copy of a match's world outside its server, stepped by the
// server's own match step: the pitch, the ball and a capsule per player slot
// (Rules.MaxPlayers). Its players run on at the velocity they have and turn
// at the rate they turn, for a copy knows no inputs; goals, restarts,
// kickoffs, kicks and tackles are the server's, and reach a copy as the
// server's states. A client's resim ball method re-simulates one
// (ClientGame.BallMethod); a tool can step one ahead from the server's Truth
// (SetTruth, Step). A World is not safe for concurrent use.
type World struct {
	match
	players []onPitch
}

// NewWorld returns a copy of the world of a match under rules (zero fields
// taking their defaults) stepping at tickHz, with the ball on the centre spot
// and every capsule parked off the pitch.
func NewWorld(rules Rules, tickHz int) (*World, error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	rules = rules.WithDefaults()
	w := &World{players: make([]onPitch, rules.MaxPlayers)}
	slots := make([]*onPitch, len(w.players))
	for i := range w.players {
		slots[i] = &w.players[i]
	}
	var err error
	if w.match, err = newMatch(rules, tickHz, slots); err != nil {
		return nil, err
	}
	return w, nil
}

// SetTruth sets the world to the match t: the ball; every player in play
// where it stands, its capsule running at its velocity, facing its way and
// not turning (what it does next is its inputs'), and when it may win the
// ball again; who has the ball, since when and from where; whether play is
// paused. The other capsules are parked off the pitch.
func (w *World) SetTruth(t *Truth) {
	w.now = t.Time
	w.world.SetBody(w.ball, t.Ball)
	w.possession = possession{possessor: -1, paused: t.Paused}
	for i := range w.players {
		p := &w.players[i]
		*p = onPitch{body: p.body}
		w.world.SetBody(p.body, physics.BodyState{Pos: parked(i)})
	}
	for _, pt := range t.Players {
		slot := int(pt.ID - FirstPlayerID)
		if pt.ID < FirstPlayerID || slot >= len(w.players) {
			continue
		}
		p := &w.players[slot]
		p.active, p.st, p.noTouchUntil = true, pt.PlayerState, pt.NoTouchUntil
		w.world.SetBody(p.body, physics.BodyState{Pos: pt.Pos, Vel: pt.Vel})
	}
	if slot := int(t.Possessor - FirstPlayerID); t.Possessor != NoPlayer && t.Possessor >= FirstPlayerID && slot < len(w.players) && w.players[slot].active {
		w.win(slot, t.CarryFrom, t.CarrySince)
	}
}

// Step advances the world one tick: every player in play turns at its rate
// and runs on at its capsule's velocity, and the match step does the rest
// (the server's step, without the inputs, goals and kicks).
func (w *World) Step() { w.stepTo(w.now + w.dt) }

// stepTo steps the world one tick, to server time now.
func (w *World) stepTo(now time.Duration) {
	h := w.dt.Seconds()
	for i := range w.players {
		if p := &w.players[i]; p.active {
			p.st.Yaw = geom.WrapAngle(p.st.Yaw + p.turn*h)
		}
	}
	w.step(now)
}

// Ball returns the ball's state.
func (w *World) Ball() physics.BodyState { return w.world.Body(w.ball) }

// Time returns the server time the world is at.
func (w *World) Time() time.Duration { return w.now }
