package soccer

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/wire"
)

// Decoding errors, the wire package's; test with errors.Is.
var (
	ErrTruncated = wire.ErrTruncated
	ErrMalformed = wire.ErrMalformed
)

// MaxInputSize is the largest encoding of an Input.
const MaxInputSize = 18

const (
	inSprint = 1 << 0
	inAim    = 1 << 1
	inAge    = 1 << 2
	inFrom   = 1 << 3
	inMask   = inSprint | inAim | inAge | inFrom
)

// AppendInput appends the encoding of in to b: Dir as two signed bytes (steps
// of 1/127), the action and its sequence, the aim as an angle in 65536 steps
// of a turn (when set), the action's age in milliseconds as a byte (when
// between 1 and 255), the kick's claimed origin as three signed 24-bit
// millimetre counts (when set), the power in 255 steps. It does not allocate
// when b has MaxInputSize bytes of room.
func AppendInput(b []byte, in Input) []byte {
	flags := byte(0)
	if in.Sprint {
		flags |= inSprint
	}
	aim := geom.V(in.Aim.X, 0, in.Aim.Z)
	if aim.Len2() > 1e-12 && aim.IsFinite() {
		flags |= inAim
	}
	age := (in.ActionAge + time.Millisecond/2) / time.Millisecond
	if age > 0 && in.ActionAge <= MaxActionAge {
		flags |= inAge
	}
	from := in.KickFrom
	if from != (geom.Vec3{}) && from.IsFinite() && math.Abs(from.X) <= MaxKickFrom && math.Abs(from.Y) <= MaxKickFrom && math.Abs(from.Z) <= MaxKickFrom {
		flags |= inFrom
	}
	dir := geom.V(in.Dir.X, 0, in.Dir.Z)
	if l := dir.Len(); l > 1 {
		dir = dir.Scale(1 / l)
	} else if !(l >= 0) {
		dir = geom.Vec3{}
	}
	b = append(b, flags, byte(int8(math.Round(dir.X*127))), byte(int8(math.Round(dir.Z*127))), byte(in.Action), in.ActionSeq)
	if flags&inAim != 0 {
		a := uint16(int64(math.Round(yawOf(aim)/(2*math.Pi)*65536)) & 0xffff)
		b = binary.LittleEndian.AppendUint16(b, a)
	}
	if flags&inAge != 0 {
		b = append(b, byte(age))
	}
	if flags&inFrom != 0 {
		for _, x := range [3]float64{from.X, from.Y, from.Z} {
			mm := int32(math.Round(x * 1000))
			b = append(b, byte(mm), byte(mm>>8), byte(mm>>16))
		}
	}
	p := in.Power
	if !(p >= 0) {
		p = 0
	}
	return append(b, byte(math.Round(math.Min(1, p)*255)))
}

// DecodeInput decodes an Input from the start of b into in and returns the
// number of bytes it took.
func DecodeInput(in *Input, b []byte) (int, error) {
	if len(b) < 6 {
		return 0, ErrTruncated
	}
	flags := b[0]
	if flags&^inMask != 0 || Action(b[3]) >= numActions || int8(b[1]) == -128 || int8(b[2]) == -128 {
		return 0, ErrMalformed
	}
	*in = Input{Sprint: flags&inSprint != 0, Action: Action(b[3]), ActionSeq: b[4]}
	in.Dir = geom.V(float64(int8(b[1]))/127, 0, float64(int8(b[2]))/127)
	if l := in.Dir.Len(); l > 1 {
		in.Dir = in.Dir.Scale(1 / l)
	}
	n := 5
	if flags&inAim != 0 {
		if len(b) < n+2 {
			return 0, ErrTruncated
		}
		a := float64(binary.LittleEndian.Uint16(b[n:])) / 65536 * 2 * math.Pi
		in.Aim = forward(a)
		n += 2
	}
	if flags&inAge != 0 {
		if len(b) < n+1 {
			return 0, ErrTruncated
		}
		in.ActionAge = time.Duration(b[n]) * time.Millisecond
		n++
	}
	if flags&inFrom != 0 {
		if len(b) < n+9 {
			return 0, ErrTruncated
		}
		var c [3]float64
		for i := range c {
			mm := int32(uint32(b[n])|uint32(b[n+1])<<8|uint32(b[n+2])<<16) << 8 >> 8 // sign-extended
			c[i] = float64(mm) / 1000
			n += 3
		}
		in.KickFrom = geom.V(c[0], c[1], c[2])
	}
	if len(b) < n+1 {
		return 0, ErrTruncated
	}
	in.Power = float64(b[n]) / 255
	return n + 1, nil
}
