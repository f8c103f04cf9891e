package pitch_test

import (
	"fmt"

	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// Build the server's world for a ball drill and shoot at the post.
func ExamplePitch_AddTo() {
	w, err := physics.NewWorld(physics.Config{})
	if err != nil {
		panic(err)
	}
	surfaces, err := pitch.Default().AddTo(w)
	if err != nil {
		panic(err)
	}
	b := pitch.DefaultBall()
	b.Pos = geom.V(41.5, 0.11, 3.72)
	b.Vel = geom.V(30, 2, 0)
	ball, err := w.AddSphere(b)
	if err != nil {
		panic(err)
	}
	for range 60 {
		w.Step()
		for _, c := range w.Contacts() {
			if c.Body == ball && c.Speed > 1 {
				fmt.Printf("the ball hit the %v at %.0f m/s\n", surfaces.Of(c.Shape), c.Speed)
			}
		}
	}
	// Output:
	// the ball hit the post at 26 m/s
	// the ball hit the grass at 1 m/s
}
