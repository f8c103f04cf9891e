package physics_test

import (
	"fmt"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// A ball dropped from 2 m bounces on grass; each step reports its contacts, and
// the bounces are the ones with a real impact speed.
func Example() {
	w, err := physics.NewWorld(physics.Config{}) // 60 Hz, Earth's gravity
	if err != nil {
		panic(err)
	}
	grass := physics.Material{Restitution: 1, Friction: 1, RollingResistance: 1}
	if _, err := w.AddPlane(physics.Plane{Normal: geom.V(0, 1, 0), Material: grass}); err != nil {
		panic(err)
	}
	ball, err := w.AddSphere(physics.Sphere{
		Pos: geom.V(0, 2.11, 0), Radius: 0.11, Mass: 0.43, Inertia: 2.0 / 3 * 0.43 * 0.11 * 0.11,
		Material: physics.Material{Restitution: 0.65, Friction: 0.5, RollingResistance: 0.1},
	})
	if err != nil {
		panic(err)
	}
	history := make([]physics.BodyState, 0, 1)
	for tick := range 120 {
		w.Step()
		for _, c := range w.Contacts() {
			if c.Speed > 0.5 {
				fmt.Printf("tick %d: bounce at %.2f m/s\n", tick, c.Speed)
			}
		}
		if tick == 59 {
			history = w.Save(history) // a snapshot for rollback
		}
	}
	fmt.Printf("after 2 s: height %.3f m\n", w.Body(ball).Pos.Y)
	_ = w.Restore(history)
	fmt.Printf("restored to 1 s: height %.3f m\n", w.Body(ball).Pos.Y)
	// Output:
	// tick 38: bounce at 6.26 m/s
	// tick 88: bounce at 4.07 m/s
	// after 2 s: height 0.131 m
	// restored to 1 s: height 0.941 m
}
