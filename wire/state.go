package wire

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// Resolution of the quantised fields.
const (
	PosUnit    = 0.001 // metres per step
	VelUnit    = 0.001 // metres per second per step
	AngVelUnit = 0.001 // radians per second per step
	TimeUnit   = time.Microsecond
	RotBits    = 14 // bits per smallest-three component
)

// MaxStateSize is the largest encoding of a kinematic.State.
const MaxStateSize = 1 + binary.MaxVarintLen64 + 9*binary.MaxVarintLen64 + 6

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

// AppendState appends the encoding of s to b and returns the extended buffer.
// It does not allocate when b has MaxStateSize bytes of room. Values beyond
// the quantiser's range are clamped; NaN encodes as zero. s.Input is not
// encoded: it is a game's, and a game that sends it encodes it itself.
func AppendState(b []byte, s kinematic.State) []byte {
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

// DecodeState decodes a kinematic.State written by AppendState from the start
// of b and returns it with the number of bytes it took. Its Input is zero.
func DecodeState(b []byte) (kinematic.State, int, error) {
	var s kinematic.State
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
		return kinematic.State{}, 0, err
	}
	return s, r.Offset(), nil
}
