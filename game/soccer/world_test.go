package soccer

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

// TestWorldStepsAsGame: a World set to the server's match steps it as the
// server does, bit for bit, while no input changes it: a ball rolls into a
// standing player who may not win it yet, stops against its capsule, and is
// won when it may, and carried to the dribble spot.
func TestWorldStepsAsGame(t *testing.T) {
	m := newRig(t, 3)
	m.place(0, geom.V(3, 0, 0.2), 0)
	m.place(1, geom.V(-9, 0, 20), 0)
	m.place(2, geom.V(-16, 0, 20), 2)
	m.ball(geom.V(-2, DefaultRules().Ball.Radius, 0), geom.V(11, 0, 0.4))
	m.g.players[0].noTouchUntil = 2 * time.Second
	tr := m.truth()
	w, err := NewWorld(DefaultRules(), 60)
	if err != nil {
		t.Fatal(err)
	}
	w.SetTruth(&tr)
	won := false
	for k := range 180 {
		m.step(1)
		w.Step()
		tr = m.truth()
		if b := m.g.world.Body(m.g.ball); w.Time() != tr.Time || w.Ball() != b {
			t.Fatalf("tick %d: world ball %+v at %v, server's %+v at %v", k+1, w.Ball(), w.Time(), b, tr.Time)
		}
		possessor := NoPlayer
		if w.possessor >= 0 {
			possessor = FirstPlayerID + uint32(w.possessor)
		}
		if possessor != tr.Possessor {
			t.Fatalf("tick %d: world possessor %d, server's %d", k+1, possessor, tr.Possessor)
		}
		won = won || tr.Possessor != NoPlayer
	}
	if !won || tr.Possessor != FirstPlayerID {
		t.Fatalf("possessor at the end %d, want the first player", tr.Possessor)
	}
}
