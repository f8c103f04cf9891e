package soccer

import (
	"math"
	"time"

	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// The predictors the snapshots' deltas are coded against (replica.Predictor),
// in integers, so that server and client predict the very same steps
// whatever their floating point.

// playerPredictor predicts a player as it runs: its velocity turning toward
// the one it asks for (its Input) at the rules' acceleration, as Rules.Move
// turns it, and its position moved at the mean of the old velocity and the
// new (Refine), exact for a steady acceleration; the rest held.
type playerPredictor struct {
	acc    int64 // cm/s²
	lx, lz int64 // how far from the centre spot a player may stand, mm (Rules.standLimits)
}

func newPlayerPredictor(r Rules) playerPredictor {
	lx, lz := r.standLimits()
	return playerPredictor{acc: max(0, int64(math.Round(r.Accel*100))), lx: wire.Quantise(lx, 0.001), lz: wire.Quantise(lz, 0.001)}
}

func (playerPredictor) Depth() int { return 1 }

// leanMax bounds the velocities asked for that the prediction leans toward,
// cm/s (its sums of squares stay exact in a float64).
const leanMax = 1 << 24

// Predict leans the velocity toward the one asked for: that one if it is
// within acc·dt, else the velocity moved by acc·dt toward it (rounded half
// away from zero); but a player standing at the boards, running into them,
// stays there (Rules.clampPlayer stops it), its velocity across them zero.
// The position it leaves held: the codec refines it (Refine) from the
// velocity coded before any position is.
func (p playerPredictor) Predict(l *replica.Layout, pred []int64, hist []replica.Sample, t time.Duration) {
	replica.Hold{}.Predict(l, pred, hist, t)
	ix, iz, vx, vz := l.Input[0], l.Input[2], l.Vel[0], l.Vel[2]
	if ix < 0 || iz < 0 || vx < 0 || vz < 0 || l.Pos[0] < 0 || l.Pos[2] < 0 {
		return
	}
	dt := min(max(t-hist[0].Time, 0), time.Minute)
	wx, wz := pred[ix]-pred[vx], pred[iz]-pred[vz]
	m := wire.RoundDiv(min(p.acc, leanMax)*int64(dt), 1e9) // cm/s² × ns = 1e-9 cm/s
	if m > 0 && abs64(wx) <= leanMax && abs64(wz) <= leanMax {
		if l2 := wx*wx + wz*wz; l2 <= m*m {
			pred[vx], pred[vz] = pred[ix], pred[iz]
		} else {
			n := max(1, int64(math.Sqrt(float64(l2))))
			pred[vx], pred[vz] = pred[vx]+wire.RoundDiv(wx*m, n), pred[vz]+wire.RoundDiv(wz*m, n)
		}
	}
	x, z := pred[l.Pos[0]], pred[l.Pos[2]]
	if x >= p.lx && pred[vx] > 0 || x <= -p.lx && pred[vx] < 0 {
		pred[vx] = 0
	}
	if z >= p.lz && pred[vz] > 0 || z <= -p.lz && pred[vz] < 0 {
		pred[vz] = 0
	}
}

func (playerPredictor) Refine(l *replica.Layout, pred, cur []int64, hist []replica.Sample, t time.Duration) {
	l.Midway(pred, cur, hist[0], t)
}

// ballPredictor predicts the ball: its velocity held, its position moved
// at the mean of the old velocity and the new (Refine); its spin, once the
// new velocity is known, rolling at it if the ball was rolling, else held;
// and its rotation turned ahead by the mean of the old spin and the
// predicted one (replica.Layout.Turn).
type ballPredictor struct {
	rad int64 // the ball's radius, µm
}

func (ballPredictor) Depth() int { return 1 }

func (ballPredictor) Predict(l *replica.Layout, pred []int64, hist []replica.Sample, t time.Duration) {
	replica.Linear{}.Predict(l, pred, hist, t)
	l.Turn(pred, hist[0], t)
}

func (b ballPredictor) Refine(l *replica.Layout, pred, cur []int64, hist []replica.Sample, t time.Duration) {
	s := hist[0]
	l.Midway(pred, cur, s, t)
	w, v := l.AngVel, l.Vel
	if w[0] < 0 || w[2] < 0 || v[0] < 0 || v[2] < 0 {
		return
	}
	// Rolling: ω = v × (−ŷ)/r, (vz/r, ω_y, −vx/r); mm/s ÷ µm = 1e3 mrad/s.
	roll := func(vx, vz int64) (int64, int64) { return wire.RoundDiv(vz*1e6, b.rad), wire.RoundDiv(-vx*1e6, b.rad) }
	rx, rz := roll(int64(s.Q[v[0]]), int64(s.Q[v[2]]))
	if (rx != 0 || rz != 0) && abs64(int64(s.Q[w[0]])-rx) <= 2 && abs64(int64(s.Q[w[2]])-rz) <= 2 {
		pred[w[0]], pred[w[2]] = roll(cur[v[0]], cur[v[2]])
		l.Turn(pred, s, t)
	}
}

// radiusMicro is the ball's radius the spin prediction uses, micrometres
// (at least 1).
func radiusMicro(r Rules) int64 { return max(1, int64(math.Round(r.Ball.Radius*1e6))) }

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
