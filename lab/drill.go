package lab

import (
	gdrill "github.com/tether-net/tether/game/drill"
	"github.com/tether-net/tether/physics"
)

// gravity is the physics world's default, m/s².
const gravity = 9.81

// contactKnotSpeed is the impact speed, m/s, above which a contact of the
// ball inside a step is taken as a bounce.
const contactKnotSpeed = 0.5

// newBallWorld returns the ball drill's world stepping at tickHz (package
// game/drill): the private world of every client method that simulates the
// ball, and of the oracle.
func newBallWorld(tickHz int) (*physics.World, physics.BodyID) {
	w, ball, err := gdrill.NewWorld(tickHz)
	if err != nil {
		panic(err) // the scenario's tick rate was validated
	}
	return w, ball
}
