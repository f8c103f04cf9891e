package replicate

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// crowdWorld returns the pitch with the ball and 22 players in two lines,
// every player walking in a seeded direction.
func crowdWorld(tb testing.TB, seed uint64) (*physics.World, physics.BodyID, []physics.BodyID) {
	tb.Helper()
	w, ball := pitchWorld(tb)
	rng := rand.New(rand.NewPCG(seed, 22))
	var players []physics.BodyID
	for i := range 22 {
		c := pitch.DefaultPlayer()
		side := float64(i/11)*2 - 1
		c.Pos = geom.V(side*(4+float64(i%11)*3), 0, float64(i%11)*4-20)
		a := rng.Float64() * 2 * math.Pi
		c.Vel = geom.V(math.Cos(a)*3, 0, math.Sin(a)*3)
		id, err := w.AddCapsule(c)
		if err != nil {
			tb.Fatal(err)
		}
		players = append(players, id)
	}
	return w, ball, players
}

// steer is the crowd's input: the velocity of player 0, the local player.
func steer(players []physics.BodyID) func(w *physics.World, tick int64, in geom.Vec3) {
	return func(w *physics.World, tick int64, in geom.Vec3) { w.SetVelocity(players[0], in) }
}

// ticks returns the server time of tick n.
func ticks(n int64) time.Duration { return time.Duration(n) * hTick }
