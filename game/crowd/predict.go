package crowd

import (
	"time"

	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// rolling is the crowd's predictor: a sphere on the floor rolls on in a
// straight line, slowed by rolling resistance (rollDecel) until it stops, as
// the physics has it between collisions; its height moves on at its
// vertical velocity. All in integers, the same on server and client.
type rolling struct{}

// rollDecel is how fast rolling resistance slows a sphere on the floor:
// the sphere's and the floor's coefficients times g, in thousandths of a
// velocity step (VelUnit) per second.
var rollDecel = int64(sphereMaterial.RollingResistance*1*9.81/velUnit*1000 + 0.5)

// velUnit is the replicated velocity's step, m/s (Schema's Velocity(20)).
const velUnit = 1.0 / 20

func (rolling) Depth() int { return 1 }

func (rolling) Predict(l *replica.Layout, pred []int64, hist []replica.Sample, t time.Duration) {
	replica.Hold{}.Predict(l, pred, hist, t)
	dt := int64((t - hist[0].Time) / time.Microsecond)
	x, y, z := l.Pos[0], l.Pos[1], l.Pos[2]
	vx, vy, vz := l.Vel[0], l.Vel[1], l.Vel[2]
	// Steps of position per velocity step per microsecond, as a ratio.
	num, den := l.PosScale, l.VelScale*1e6
	pred[y] += replica.MulDiv(pred[vy]*num, dt, den)
	// The speed on the floor, in thousandths of a step.
	s := wire.Isqrt(pred[vx]*pred[vx]+pred[vz]*pred[vz]) * 1000
	if s == 0 {
		return
	}
	// Rolling for dt, or until it stops: its mean velocity over the time
	// it moved is the mean of the first and the last.
	left := max(0, s-replica.MulDiv(rollDecel, dt, 1e6))
	moving := dt
	if left == 0 {
		moving = replica.MulDiv(s, 1e6, rollDecel)
	}
	for _, k := range [2][2]int{{x, vx}, {z, vz}} {
		v0 := pred[k[1]]
		v1 := replica.MulDiv(v0, left, s)
		pred[k[0]] += replica.MulDiv((v0+v1)*num, moving, 2*den)
		pred[k[1]] = v1
	}
}

// Refine moves the position at the mean of the velocity before and the one
// sent, exact for the steady slowing of rolling resistance (and for any
// steady acceleration, a sphere sliding after a kick); a sphere sent at
// rest is where Predict has it stop.
func (rolling) Refine(l *replica.Layout, pred, cur []int64, hist []replica.Sample, t time.Duration) {
	if cur[l.Vel[0]] == 0 && cur[l.Vel[2]] == 0 {
		return
	}
	l.Midway(pred, cur, hist[0], t)
}
