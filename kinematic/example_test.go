package kinematic_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// A ball just kicked: the state marks the kick as a knot, so a client's curve
// into it does not use the velocity leaving the kick.
func ExampleState() {
	kicked := kinematic.State{
		Time: 2 * time.Second,
		Pos:  geom.V(0, 0.11, 0),
		Vel:  geom.V(12, 3, 0),
		Rot:  geom.Identity,
		Knot: true,
	}
	fmt.Printf("at %v the ball leaves %v at %v m/s (knot %v)\n", kicked.Time, kicked.Pos, kicked.Vel, kicked.Knot)
	// Output:
	// at 2s the ball leaves {0 0.11 0} at {12 3 0} m/s (knot true)
}
