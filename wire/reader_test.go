package wire

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

func TestReaderRoundTrip(t *testing.T) {
	b := []byte{7}
	b = AppendTime(b, -1500*time.Millisecond)
	b = AppendVec(b, geom.V(1.25, -0.5, 3), 0.001)
	b = append(b, 0x96, 0x01) // 150 as a uvarint
	r := NewReader(b)
	if r.Byte() != 7 || r.Time() != -1500*time.Millisecond || r.Vec(0.001) != geom.V(1.25, -0.5, 3) || r.Uvarint(1000) != 150 {
		t.Fatal("fields did not come back")
	}
	if err := r.Done(); err != nil || r.Offset() != len(b) {
		t.Fatalf("Done: %v at %d of %d", err, r.Offset(), len(b))
	}
}

func TestReaderErrorsStick(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		read func(r *Reader)
		want error
	}{
		{"empty", nil, func(r *Reader) { r.Byte() }, ErrTruncated},
		{"cut varint", []byte{0x80}, func(r *Reader) { r.Uvarint(1 << 62) }, ErrTruncated},
		{"over limit", []byte{0x96, 0x01}, func(r *Reader) { r.Uvarint(100) }, ErrMalformed},
		{"overlong", []byte{0x81, 0x00}, func(r *Reader) { r.Uvarint(1 << 62) }, ErrMalformed},
		{"overlong signed", []byte{0x80, 0x00}, func(r *Reader) { r.Varint(1 << 62) }, ErrMalformed},
		{"trailing", []byte{1, 2, 3}, func(r *Reader) { r.Byte() }, ErrMalformed},
		{"nested truncated", []byte{1}, func(r *Reader) { r.Sub(0, errors.New("x: short"), nil); r.Byte() }, ErrMalformed},
	} {
		r := NewReader(tc.in)
		tc.read(&r)
		r.Byte() // reads after an error return zero and keep the first error
		if err := r.Done(); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestQuantise(t *testing.T) {
	if Quantise(0.0015, 0.001) != 2 || Quantise(-1e300, 1) != -maxQuantum || Quantise(nan(), 1) != 0 {
		t.Fatal("Quantise rounds, clamps and zeroes NaN")
	}
}

func nan() float64 { return math.NaN() }

// Float64 reads back exactly what AppendFloat64 wrote, and refuses a short
// buffer, NaN and infinities.
func TestFloat64(t *testing.T) {
	for _, x := range []float64{0, -0.1, math.Pi, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		b := AppendFloat64(nil, x)
		r := NewReader(b)
		if got := r.Float64(); got != x || r.Done() != nil {
			t.Fatalf("%v: got %v, %v", x, got, r.Err())
		}
		r = NewReader(b[:7])
		if r.Float64(); !errors.Is(r.Err(), ErrTruncated) {
			t.Fatalf("%v in 7 bytes: %v", x, r.Err())
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		r := NewReader(AppendFloat64(nil, x))
		if r.Float64(); !errors.Is(r.Err(), ErrMalformed) {
			t.Fatalf("%v: %v", x, r.Err())
		}
	}
}
