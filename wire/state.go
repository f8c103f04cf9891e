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

// QState is a kinematic.State as AppendState quantises it, its Time and
// Input aside: what a codec packs on its own (a delta against a baseline)
// and turns back into the very state DecodeState gives.
type QState struct {
	Flags    byte     // FlagCut, FlagKnot, FlagSpin
	Pos, Vel [3]int64 // steps of PosUnit, VelUnit
	AngVel   [3]int64 // steps of AngVelUnit; zero without FlagSpin
	Rot      uint64   // smallest-three, RotBits per component (RotPackBits in all)
}

// The flags of a QState.
const (
	FlagCut  = flagCut
	FlagKnot = flagKnot
	FlagSpin = flagSpin
	// FlagMask is every flag.
	FlagMask = flagMask
)

// RotPackBits is the width of a packed rotation (QState.Rot).
const RotPackBits = 2 + 3*RotBits

// QuantiseState returns s quantised as AppendState encodes it.
func QuantiseState(s kinematic.State) QState {
	var q QState
	if s.Cut {
		q.Flags |= flagCut
	}
	if s.Knot {
		q.Flags |= flagKnot
	}
	q.Pos = quantVec(s.Pos, PosUnit)
	q.Vel = quantVec(s.Vel, VelUnit)
	q.Rot = geom.PackSmallestThree(s.Rot.Norm(), RotBits)
	if s.AngVel != (geom.Vec3{}) {
		q.Flags |= flagSpin
		q.AngVel = quantVec(s.AngVel, AngVelUnit)
	}
	return q
}

// State returns the state q stands for at time t, as DecodeState decodes it.
func (q QState) State(t time.Duration) kinematic.State {
	s := kinematic.State{Time: t, Cut: q.Flags&flagCut != 0, Knot: q.Flags&flagKnot != 0,
		Pos: vecOf(q.Pos, PosUnit), Vel: vecOf(q.Vel, VelUnit), Rot: geom.UnpackSmallestThree(q.Rot, RotBits)}
	if q.Flags&flagSpin != 0 {
		s.AngVel = vecOf(q.AngVel, AngVelUnit)
	}
	return s
}

func quantVec(v geom.Vec3, unit float64) [3]int64 {
	return [3]int64{Quantise(v.X, unit), Quantise(v.Y, unit), Quantise(v.Z, unit)}
}

func vecOf(v [3]int64, unit float64) geom.Vec3 {
	return geom.Vec3{X: float64(v[0]) * unit, Y: float64(v[1]) * unit, Z: float64(v[2]) * unit}
}

// AppendState appends the encoding of s to b and returns the extended buffer.
// It does not allocate when b has MaxStateSize bytes of room. Values beyond
// the quantiser's range are clamped; NaN encodes as zero. s.Input is not
// encoded: it is a game's, and a game that sends it encodes it itself.
func AppendState(b []byte, s kinematic.State) []byte {
	q := QuantiseState(s)
	b = append(b, q.Flags)
	b = AppendTime(b, s.Time)
	for _, v := range [...]*[3]int64{&q.Pos, &q.Vel} {
		for _, x := range v {
			b = binary.AppendVarint(b, x)
		}
	}
	var rot [6]byte
	for i := range rot {
		rot[i] = byte(q.Rot >> (8 * (5 - i)))
	}
	b = append(b, rot[:]...)
	if q.Flags&flagSpin != 0 {
		for _, x := range q.AngVel {
			b = binary.AppendVarint(b, x)
		}
	}
	return b
}

// DecodeState decodes a kinematic.State written by AppendState from the start
// of b and returns it with the number of bytes it took. Its Input is zero.
func DecodeState(b []byte) (kinematic.State, int, error) {
	var q QState
	r := NewReader(b)
	q.Flags = r.Byte()
	if q.Flags&^flagMask != 0 {
		r.Fail(ErrMalformed)
	}
	t := r.Time()
	for _, v := range [...]*[3]int64{&q.Pos, &q.Vel} {
		for i := range v {
			v[i] = r.Varint(maxQuantum)
		}
	}
	for range 6 {
		q.Rot = q.Rot<<8 | uint64(r.Byte())
	}
	if q.Rot>>RotPackBits != 0 {
		r.Fail(ErrMalformed)
	}
	if q.Flags&flagSpin != 0 {
		for i := range q.AngVel {
			q.AngVel[i] = r.Varint(maxQuantum)
		}
	}
	if err := r.Err(); err != nil {
		return kinematic.State{}, 0, err
	}
	return q.State(t), r.Offset(), nil
}
