package arena

import "github.com/tether-net/tether/replica"

// Schema returns the arena's replication schema, the same for the server
// and every client: one kind, the player (KindPlayer), its position and
// velocity on the ground, its aim, its health (Tag) and its teleport
// generation. A delta predicts a player running on at its velocity
// (replica.Linear: a line through two samples, replica.Extrapolate, costs
// 14 % more bits on arena-wan, as the bots' turns and aims follow no
// curve).
func Schema() *replica.Schema { return schema }

var schema = func() *replica.Schema {
	s, err := replica.NewSchema(replica.Kind{Name: "player", Fields: []replica.Field{
		replica.Position(posSteps, replica.XZ), replica.Velocity(velSteps, replica.XZ),
		replica.Yaw(aimSteps), replica.Tag(), replica.Gen(),
	}})
	if err != nil {
		panic(err) // a valid declaration
	}
	return s
}()

// The precision players are sent at, what the game needs of them. A
// position to the centimetre: a hit is judged against a circle of
// HitRadius (half a metre), and the server's rewind history keeps what each
// client was sent (event.Seen; bots on arena-wan, 20 seeds: the server
// agrees with the shooter's judgement on 99.43 % of hitscan shots, 99.47 %
// at the millimetre). Not Within(1): a position held a centimetre off and
// then corrected makes others' drawn motion jerk (TestOthersDoNotWobble:
// drawn acceleration p50 14 m/s² on wan against 4.5 on a perfect link),
// for 2 % of the bandwidth. A velocity to 0.1 m/s: a curve's tangent (a run's
// direction is an input of 1/127 steps, 4.7 cm/s of RunSpeed); an error of
// 5 cm/s over a snapshot's 33 ms moves the curve by half a millimetre. An
// aim to 1/256 of a turn (1.4°): it is only drawn (a hitscan shot's aim
// travels with its move, at 1/65536), and the bots' own aim wavers by 2.3°
// from frame to frame.
const (
	posSteps = 100 // per metre
	velSteps = 10  // per metre per second
	aimSteps = 256 // per turn
)
