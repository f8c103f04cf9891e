package soccer_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
)

// An input travels as a few bytes; the same Move runs on the server and, for
// prediction, on the client.
func ExampleRules_Move() {
	rules := soccer.DefaultRules()
	in := soccer.Input{Dir: geom.V(1, 0, 0), Sprint: true}
	b := soccer.AppendInput(nil, in)
	var got soccer.Input
	if _, err := soccer.DecodeInput(&got, b); err != nil {
		panic(err)
	}
	s := soccer.PlayerState{}
	for range 60 { // one second of 60 Hz ticks
		s = rules.Move(s, got, false, time.Second/60)
	}
	fmt.Printf("%d bytes; after 1 s: %.1f m at %.1f m/s\n", len(b), s.Pos.X, s.Vel.Len())
	// Output: 6 bytes; after 1 s: 7.5 m at 9.0 m/s
}

// Rules left zero are the default match; set only what differs, and a
// negative value for a zero that is a setting of its own.
func ExampleRules_WithDefaults() {
	r := soccer.Rules{MaxPlayers: 10, KickTolerance: -1}.WithDefaults()
	fmt.Println(r.MaxPlayers, r.RunSpeed, r.KickTolerance, r.MaxRewind)
	// Output: 10 7 0 250ms
}

// A World steps a copy of the match by the server's own match step: here a
// ball passed along the grass from the server's match, a second on.
func ExampleWorld() {
	w, err := soccer.NewWorld(soccer.Rules{}, 60)
	if err != nil {
		panic(err)
	}
	t := soccer.Truth{Possessor: soccer.NoPlayer}
	t.Ball.Pos = geom.V(0, soccer.DefaultRules().Ball.Radius, 0)
	t.Ball.Vel = geom.V(10, 0, 0)
	w.SetTruth(&t)
	for range 60 {
		w.Step()
	}
	b := w.Ball()
	fmt.Printf("at %v: x %.1f m, %.1f m/s\n", w.Time().Round(time.Millisecond), b.Pos.X, b.Vel.Len())
	// Output: at 1s: x 6.8 m, 5.1 m/s
}
