package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// Reader decodes a message field by field, for the codecs built on this
// package. The first error sticks: later reads return zero values, and Err
// reports it. Varints must be in their shortest form and within the limit
// the caller gives, so every message has one encoding.
type Reader struct {
	b   []byte
	n   int
	err error
}

// NewReader returns a Reader of b, starting at its first byte.
func NewReader(b []byte) Reader { return Reader{b: b} }

// Offset is the number of bytes read so far.
func (r *Reader) Offset() int { return r.n }

// Err returns the first error met, wrapping ErrTruncated or ErrMalformed.
func (r *Reader) Err() error { return r.err }

// Fail records err unless an error is already recorded.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Done records ErrMalformed if bytes remain unread, and returns Err.
func (r *Reader) Done() error {
	if r.err == nil && r.n != len(r.b) {
		r.err = ErrMalformed
	}
	return r.err
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
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

// Uvarint reads an unsigned varint no larger than limit.
func (r *Reader) Uvarint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.n:])
	switch {
	case n == 0:
		r.err = ErrTruncated
	case n < 0 || v > limit || n != UvarintLen(v):
		r.err = ErrMalformed
	}
	if r.err != nil {
		return 0
	}
	r.n += n
	return v
}

// Varint reads a signed (zig-zag) varint within ±limit.
func (r *Reader) Varint(limit int64) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.n:])
	switch {
	case n == 0:
		r.err = ErrTruncated
	case n < 0 || v > limit || v < -limit || n != varintLen(v):
		r.err = ErrMalformed
	}
	if r.err != nil {
		return 0
	}
	r.n += n
	return v
}

// Float64 reads a float64 written by AppendFloat64: exact, and finite (NaN
// and infinities are ErrMalformed).
func (r *Reader) Float64() float64 {
	if r.err != nil {
		return 0
	}
	if len(r.b)-r.n < 8 {
		r.err = ErrTruncated
		return 0
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.n:]))
	if math.IsNaN(x) || math.IsInf(x, 0) {
		r.err = ErrMalformed
		return 0
	}
	r.n += 8
	return x
}

// AppendFloat64 appends x exactly, in 8 bytes (little-endian IEEE 754), for
// a state that must arrive bit for bit (a predicted character's, which an
// adjustment restores).
func AppendFloat64(b []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}

// Time reads a time written by AppendTime.
func (r *Reader) Time() time.Duration {
	return time.Duration(r.Varint(math.MaxInt64/int64(TimeUnit))) * TimeUnit
}

// AppendTime appends t in whole TimeUnits as a signed varint.
func AppendTime(b []byte, t time.Duration) []byte {
	return binary.AppendVarint(b, int64(t/TimeUnit))
}

// Vec reads a vector written by AppendVec with the same unit.
func (r *Reader) Vec(unit float64) geom.Vec3 {
	x := r.Varint(maxQuantum)
	y := r.Varint(maxQuantum)
	z := r.Varint(maxQuantum)
	return geom.Vec3{X: float64(x) * unit, Y: float64(y) * unit, Z: float64(z) * unit}
}

// AppendVec appends v quantised to steps of unit, each component a signed
// varint, clamped to the quantiser's range (NaN as zero).
func AppendVec(b []byte, v geom.Vec3, unit float64) []byte {
	b = binary.AppendVarint(b, Quantise(v.X, unit))
	b = binary.AppendVarint(b, Quantise(v.Y, unit))
	return binary.AppendVarint(b, Quantise(v.Z, unit))
}

// Quantise returns x in whole steps of unit, rounded, clamped to ±2^40 steps;
// NaN gives 0.
func Quantise(x, unit float64) int64 {
	if math.IsNaN(x) {
		return 0
	}
	return int64(math.Round(math.Max(-maxQuantum, math.Min(maxQuantum, x/unit))))
}

// State reads a kinematic.State written by AppendState.
func (r *Reader) State() kinematic.State {
	if r.err != nil {
		return kinematic.State{}
	}
	b, n, err := DecodeState(r.b[r.n:])
	r.Sub(n, err, ErrTruncated)
	return b
}

// Rest returns the bytes not yet read and consumes them.
func (r *Reader) Rest() []byte {
	if r.err != nil {
		return nil
	}
	b := r.b[r.n:]
	r.n = len(r.b)
	return b
}

// Remaining returns the bytes not yet read, without consuming them, for a
// nested decoder whose result goes to Sub.
func (r *Reader) Remaining() []byte {
	if r.err != nil {
		return nil
	}
	return r.b[r.n:]
}

// Sub accounts for a nested decoder that read n bytes of Remaining with err:
// an error matching truncated becomes ErrTruncated, any other ErrMalformed.
func (r *Reader) Sub(n int, err, truncated error) {
	switch {
	case r.err != nil:
	case err == nil:
		r.n += n
	case errors.Is(err, truncated):
		r.err = ErrTruncated
	default:
		r.err = ErrMalformed
	}
}

// UvarintLen returns the length, bytes, of the shortest unsigned varint
// encoding of v (binary.AppendUvarint's).
func UvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// varintLen is the length of the shortest zig-zag varint encoding of x.
func varintLen(x int64) int {
	u := uint64(x) << 1
	if x < 0 {
		u = ^u
	}
	return UvarintLen(u)
}
