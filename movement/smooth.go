package movement

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
)

// Smoothing configures how a correction is hidden: the difference between
// where the character was drawn and where the corrected prediction puts it
// becomes a render offset that decays to zero. The zero value gives the
// defaults noted.
type Smoothing struct {
	// Time is the offset's decay time constant; 0 means 100 ms. Range
	// (0, 10 s].
	Time time.Duration
	// MaxSpeed caps how fast the offset decays, metres per second, so that
	// no frame moves the character by much more than its own motion; 0
	// means 2 (3.3 cm a frame at 60 Hz). Range (0, 1000].
	MaxSpeed float64
	// Snap is the offset, metres, beyond which the correction is shown at
	// once rather than blended (blending it would show a wrong place for
	// too long); 0 means 3. Range (0, 1e6].
	Snap float64
}

func (s *Smoothing) fill() error {
	if s.Time == 0 {
		s.Time = 100 * time.Millisecond
	}
	if s.MaxSpeed == 0 {
		s.MaxSpeed = 2
	}
	if s.Snap == 0 {
		s.Snap = 3
	}
	switch {
	case s.Time < 0 || s.Time > 10*time.Second:
		return configErr("Smoothing.Time", s.Time, "(0, 10s]")
	case !(s.MaxSpeed > 0 && s.MaxSpeed <= 1000):
		return configErr("Smoothing.MaxSpeed", s.MaxSpeed, "(0, 1000]")
	case !(s.Snap > 0 && s.Snap <= 1e6):
		return configErr("Smoothing.Snap", s.Snap, "(0, 1e6]")
	}
	return nil
}

// Offset is a render offset decaying to zero: exponentially with
// Smoothing.Time, never faster than Smoothing.MaxSpeed. The zero value is no
// offset.
type Offset struct {
	v    geom.Vec3
	at   time.Duration // when v was current
	live bool
}

// Add adds d to the offset at time now, after decaying it to now.
func (o *Offset) Add(d geom.Vec3, now time.Duration, s *Smoothing) {
	o.v = o.At(now, s).Add(d)
	o.at, o.live = now, o.v != geom.Vec3{}
}

// Clear removes the offset.
func (o *Offset) Clear() { *o = Offset{} }

// At returns the offset at time now and decays it to then. Times before the
// last call decay nothing.
func (o *Offset) At(now time.Duration, s *Smoothing) geom.Vec3 {
	if !o.live {
		return geom.Vec3{}
	}
	if dt := now - o.at; dt > 0 {
		l := o.v.Len()
		shrink := l * (1 - math.Exp(-float64(dt)/float64(s.Time)))
		shrink = math.Min(shrink, s.MaxSpeed*dt.Seconds())
		if l-shrink < 1e-6 {
			o.v, o.live = geom.Vec3{}, false
		} else {
			o.v = o.v.Scale((l - shrink) / l)
		}
		o.at = now
	}
	return o.v
}
