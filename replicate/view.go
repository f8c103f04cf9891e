package replicate

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// valid reports whether every field of b that a mode reads is finite.
func valid(b kinematic.State) bool {
	r := b.Rot
	return b.Pos.IsFinite() && b.Vel.IsFinite() && b.AngVel.IsFinite() &&
		geom.V(r.W, r.X, r.Y).IsFinite() && !math.IsNaN(r.Z) && !math.IsInf(r.Z, 0)
}

// norm returns b with a unit rotation (the zero quaternion read as Identity).
func norm(b kinematic.State) kinematic.State {
	b.Rot = b.Rot.Norm()
	return b
}

// Frame is what a View renders for one client frame.
type Frame struct {
	Pos    geom.Vec3 // metres, including Offset
	Rot    geom.Quat // unit quaternion, including the rotation still being blended out
	Vel    geom.Vec3 // velocity of the motion shown, metres per second
	AngVel geom.Vec3 // radians per second

	// Time is the server time the frame shows: the render time of Interp
	// (behind now), now itself for the modes that predict the present.
	Time  time.Duration
	Delay time.Duration // now minus Time

	// Offset is the position correction still being blended out, metres
	// (included in Pos).
	Offset geom.Vec3

	Valid        bool // false until a first state has been received
	Extrapolated bool // Time is past the newest server state received
	Frozen       bool // held still for lack of data
	Cut          bool // the first frame at or after a Cut state
}

// View is the client's view of one replicated server-owned body. Receive
// takes each server state, with arrival the client's estimate of server time
// when it arrived; Render returns the frame to draw at now, the client's
// estimate of server time at the frame. Of a state's marks, every mode jumps
// to a Cut rather than blending, and only Interp uses a Knot; Input is not
// read. Both take the time as an argument:
// a View reads no clock, does no I/O and starts no goroutine. A View is not
// safe for concurrent use.
//
// Resim fits this interface only through a driver that performs its requests
// (WorldResim does, on a physics.World).
type View interface {
	Receive(s kinematic.State, arrival time.Duration)
	Render(now time.Duration) Frame
}

// BlendSpeed is the speed, metres per second, below which blending out a
// correction is taken to be invisible: 5 cm per 60 Hz frame, the lab's
// threshold for a visible jump, is 3 m/s; this leaves a sixth for the
// motion of the body itself to differ. A mode blends a correction only if doing so
// keeps within it (SnapDistance defaults to BlendSpeed times the correction
// time); a larger one is shown as a single jump, since blending it would show
// a wrong position for long and move the picture visibly in every frame of
// the blend anyway.
const BlendSpeed = 2.5

// ErrInvalidConfig is matched (errors.Is) by every *ConfigError.
var ErrInvalidConfig = errors.New("tether/replicate: invalid config")

// ConfigError reports a Config field out of its allowed range.
type ConfigError struct {
	Config string // the config type, such as "ResimConfig"
	Field  string // the field's name
	Value  any    // the value given
	Range  string // the allowed range
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("tether/replicate: %s.%s = %v out of range %s", e.Config, e.Field, e.Value, e.Range)
}

// Is makes errors.Is(err, ErrInvalidConfig) true.
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

// check helpers: each returns a *ConfigError when v is out of range.

func checkDur(cfg, field string, v, lo, hi time.Duration) error {
	if v != 0 && (v < lo || v > hi) {
		return &ConfigError{cfg, field, v, fmt.Sprintf("0 (default) or [%v, %v]", lo, hi)}
	}
	return nil
}

func checkFloat(cfg, field string, v, lo, hi float64) error {
	if math.IsNaN(v) || v != 0 && (v < lo || v > hi) {
		return &ConfigError{cfg, field, v, fmt.Sprintf("0 (default) or [%g, %g]", lo, hi)}
	}
	return nil
}

func orDur(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

func orFloat(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// tickOf returns the tick whose time is nearest to t.
func tickOf(t, tick time.Duration) int64 {
	if t >= 0 {
		return int64((t + tick/2) / tick)
	}
	return -int64((-t + tick/2) / tick)
}

// ceilTick returns the first tick at or after t.
func ceilTick(t, tick time.Duration) int64 {
	if t <= 0 {
		return -int64(-t / tick)
	}
	return int64((t + tick - 1) / tick)
}

// rotVec returns the rotation vector (axis times angle, radians, shortest
// way) that turns from into to.
func rotVec(from, to geom.Quat) geom.Vec3 {
	d := to.Mul(from.Conj())
	if d.W < 0 {
		d = d.Neg()
	}
	s := math.Sqrt(d.X*d.X + d.Y*d.Y + d.Z*d.Z)
	if s < 1e-12 {
		return geom.V(2*d.X, 2*d.Y, 2*d.Z)
	}
	angle := 2 * math.Atan2(s, d.W)
	return geom.V(d.X, d.Y, d.Z).Scale(angle / s)
}

// curve evaluates the motion between a (at tick time t0) and b (one tick
// later) at fraction u in [0, 1]: the cubic Hermite curve for position and
// velocity, slerp for rotation.
func curve(a, b kinematic.State, tick time.Duration, u float64) (pos, vel geom.Vec3, rot geom.Quat, angVel geom.Vec3) {
	u = min(max(u, 0), 1)
	pos, vel = geom.Hermite(a.Pos, a.Vel, b.Pos, b.Vel, tick.Seconds(), u)
	rot = geom.Slerp(a.Rot, b.Rot, u)
	angVel = a.AngVel.Lerp(b.AngVel, u)
	return
}

// smoother blends out a render correction: an offset in position and in
// rotation that decays exponentially, and a jump when it is too large.
type smoother struct {
	tau  time.Duration // time constant
	snap float64       // metres
	off  geom.Vec3
	rot  geom.Quat // the zero value means none
}

// add adds a correction of d metres and r (a rotation) and reports whether it
// was too large and cleared instead.
func (s *smoother) add(d geom.Vec3, r geom.Quat) bool {
	s.off = s.off.Add(d)
	if s.rot == (geom.Quat{}) {
		s.rot = geom.Identity
	}
	s.rot = r.Mul(s.rot).Norm()
	if s.off.Len() > s.snap {
		s.clear()
		return true
	}
	return false
}

func (s *smoother) clear() { s.off, s.rot = geom.Vec3{}, geom.Identity }

// decay blends out the share of the correction due over dt.
func (s *smoother) decay(dt time.Duration) {
	if dt <= 0 {
		return
	}
	k := math.Exp(-float64(dt) / float64(s.tau))
	s.off = s.off.Scale(k)
	if s.off.Len() < 1e-6 {
		s.off = geom.Vec3{}
	}
	if s.rot != (geom.Quat{}) && s.rot != geom.Identity {
		s.rot = geom.Slerp(geom.Identity, s.rot, k)
		if s.rot.Angle(geom.Identity) < 1e-7 {
			s.rot = geom.Identity
		}
	}
}

// apply returns pos and rot with the correction added.
func (s *smoother) apply(pos geom.Vec3, rot geom.Quat) (geom.Vec3, geom.Quat) {
	if s.rot == (geom.Quat{}) || s.rot == geom.Identity {
		return pos.Add(s.off), rot
	}
	return pos.Add(s.off), s.rot.Mul(rot).Norm()
}
