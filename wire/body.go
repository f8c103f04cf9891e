package wire

import (
	"encoding/binary"
	"errors"
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
	b = AppendTime(b, s.Time)
	b = AppendVec(b, s.Pos, PosUnit)
	b = AppendVec(b, s.Vel, VelUnit)
	var rot [6]byte
	v := geom.PackSmallestThree(s.Rot.Norm(), RotBits)
	for i := range rot {
		rot[i] = byte(v >> (8 * (5 - i)))
	}
	b = append(b, rot[:]...)
	if flags&flagSpin != 0 {
		b = AppendVec(b, s.AngVel, AngVelUnit)
	}
	return b
}

// DecodeBody decodes a Body from the start of b and returns it with the number
// of bytes it took.
func DecodeBody(b []byte) (Body, int, error) {
	var s Body
	r := NewReader(b)
	flags := r.Byte()
	if flags&^flagMask != 0 {
		r.Fail(ErrMalformed)
	}
	s.Cut = flags&flagCut != 0
	s.Knot = flags&flagKnot != 0
	s.Time = r.Time()
	s.Pos = r.Vec(PosUnit)
	s.Vel = r.Vec(VelUnit)
	var v uint64
	for range 6 {
		v = v<<8 | uint64(r.Byte())
	}
	if v>>(2+3*RotBits) != 0 {
		r.Fail(ErrMalformed)
	}
	s.Rot = geom.UnpackSmallestThree(v, RotBits)
	if flags&flagSpin != 0 {
		s.AngVel = r.Vec(AngVelUnit)
	}
	if err := r.Err(); err != nil {
		return Body{}, 0, err
	}
	return s, r.Offset(), nil
}
