package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
)

// Body is the state of one simulated rigid body at one moment of server time,
// as the server sends it in a snapshot.
type Body struct {
	Time   time.Duration // server time the state holds at
	Pos    geom.Vec3     // metres
	Vel    geom.Vec3     // metres per second
	Rot    geom.Quat     // unit quaternion
	AngVel geom.Vec3     // radians per second
	// Cut marks a discontinuity (a teleport, a kickoff reset): a client must
	// not interpolate from the previous state to this one.
	Cut bool
	// Knot marks a velocity discontinuity at this instant (a kick): Vel is the
	// velocity leaving it, and a client's curve arriving here must not use it.
	Knot bool
}

// Resolution of the quantised fields.
const (
	PosUnit    = 0.001 // metres per step
	VelUnit    = 0.001 // metres per second per step
	AngVelUnit = 0.001 // radians per second per step
	TimeUnit   = time.Microsecond
	RotBits    = 14 // bits per smallest-three component
)

// MaxBodySize is the largest encoding of a Body.
const MaxBodySize = 1 + binary.MaxVarintLen64 + 9*binary.MaxVarintLen64 + 6

const (
	flagCut  = 1 << 0
	flagKnot = 1 << 1
	flagSpin = 1 << 2 // angular velocity present (omitted when zero)
	flagMask = flagCut | flagKnot | flagSpin
)

// maxQuantum bounds every quantised component: ±2^40 steps, a billion metres,
// well past any world, and far from overflow.
const maxQuantum = 1 << 40

// Decoding errors; test with errors.Is.
var (
	ErrTruncated = errors.New("tether/wire: truncated message")
	ErrMalformed = errors.New("tether/wire: malformed message")
)

// AppendBody appends the encoding of s to b and returns the extended buffer. It
// does not allocate when b has MaxBodySize bytes of room. Values beyond the
// quantiser's range are clamped; NaN encodes as zero.
func AppendBody(b []byte, s Body) []byte {
	flags := byte(0)
	if s.Cut {
		flags |= flagCut
	}
	if s.Knot {
		flags |= flagKnot
	}
	if s.AngVel != (geom.Vec3{}) {
		flags |= flagSpin
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(s.Time/TimeUnit))
	b = appendVec(b, s.Pos, PosUnit)
	b = appendVec(b, s.Vel, VelUnit)
	var rot [6]byte
	v := geom.PackSmallestThree(s.Rot.Norm(), RotBits)
	for i := range rot {
		rot[i] = byte(v >> (8 * (5 - i)))
	}
	b = append(b, rot[:]...)
	if flags&flagSpin != 0 {
		b = appendVec(b, s.AngVel, AngVelUnit)
	}
	return b
}

func appendVec(b []byte, v geom.Vec3, unit float64) []byte {
	b = binary.AppendVarint(b, quantise(v.X, unit))
	b = binary.AppendVarint(b, quantise(v.Y, unit))
	return binary.AppendVarint(b, quantise(v.Z, unit))
}

func quantise(x, unit float64) int64 {
	if math.IsNaN(x) {
		return 0
	}
	return int64(math.Round(math.Max(-maxQuantum, math.Min(maxQuantum, x/unit))))
}

// DecodeBody decodes a Body from the start of b and returns it with the number
// of bytes it took.
func DecodeBody(b []byte) (Body, int, error) {
	var s Body
	r := reader{b: b}
	flags := r.byte()
	if r.err == nil && flags&^flagMask != 0 {
		return Body{}, 0, ErrMalformed
	}
	s.Cut = flags&flagCut != 0
	s.Knot = flags&flagKnot != 0
	s.Time = time.Duration(r.varint(math.MaxInt64/int64(TimeUnit))) * TimeUnit
	s.Pos = r.vec(PosUnit)
	s.Vel = r.vec(VelUnit)
	var v uint64
	for range 6 {
		v = v<<8 | uint64(r.byte())
	}
	if r.err == nil && v>>(2+3*RotBits) != 0 {
		r.err = ErrMalformed
	}
	s.Rot = geom.UnpackSmallestThree(v, RotBits)
	if flags&flagSpin != 0 {
		s.AngVel = r.vec(AngVelUnit)
	}
	if r.err != nil {
		return Body{}, 0, r.err
	}
	return s, r.n, nil
}

// reader decodes fields in sequence; the first error sticks.
type reader struct {
	b   []byte
	n   int
	err error
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.n >= len(r.b) {
		r.err = ErrTruncated
		return 0
	}
	r.n++
	return r.b[r.n-1]
}

func (r *reader) varint(limit int64) int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.n:])
	switch {
	case n == 0:
		r.err = ErrTruncated
	case n < 0 || x > limit || x < -limit || n != varintLen(x):
		r.err = ErrMalformed // overflowing, out of range, or not in shortest form
	}
	if r.err != nil {
		return 0
	}
	r.n += n
	return x
}

func (r *reader) vec(unit float64) geom.Vec3 {
	x := r.varint(maxQuantum)
	y := r.varint(maxQuantum)
	z := r.varint(maxQuantum)
	return geom.Vec3{X: float64(x) * unit, Y: float64(y) * unit, Z: float64(z) * unit}
}

// varintLen is the length of the shortest varint encoding of x.
func varintLen(x int64) int {
	u := uint64(x) << 1
	if x < 0 {
		u = ^u
	}
	n := 1
	for ; u >= 0x80; u >>= 7 {
		n++
	}
	return n
}
