package wire

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func TestBitsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type field struct {
		kind int // 0 bits, 1 uint, 2 int
		v    uint64
		n, k int
	}
	for range 200 {
		var fs []field
		w := NewBitWriter([]byte{0xaa})
		want := 8
		for range rng.IntN(40) {
			f := field{kind: rng.IntN(3), n: rng.IntN(57), k: rng.IntN(33)}
			switch f.kind {
			case 0:
				f.v = rng.Uint64() & (1<<uint(f.n) - 1)
				w.Bits(f.v, f.n)
				want += f.n
			case 1:
				f.v = rng.Uint64() >> uint(rng.IntN(64)) & MaxCode
				w.Uint(f.v, f.k)
				want += UintBits(f.v, f.k)
			case 2:
				f.v = uint64(int64(rng.Uint64()) >> uint(rng.IntN(64)) >> 2)
				w.Int(int64(f.v), f.k)
				want += IntBits(int64(f.v), f.k)
			}
			fs = append(fs, f)
		}
		if w.Len() != want {
			t.Fatalf("Len %d, want %d", w.Len(), want)
		}
		b := w.Append()
		if len(b) != (want+7)/8 || b[0] != 0xaa {
			t.Fatalf("%d bytes for %d bits", len(b), want)
		}
		r := NewBitReader(b[1:])
		for i, f := range fs {
			var got uint64
			switch f.kind {
			case 0:
				got = r.Bits(f.n)
			case 1:
				got = r.Uint(f.k, f.v)
			case 2:
				got = uint64(r.Int(f.k, max(int64(f.v), -int64(f.v))))
			}
			if got != f.v {
				t.Fatalf("field %d (%+v): got %d (%v)", i, f, got, r.Err())
			}
		}
		if n, err := r.End(); err != nil || n != len(b)-1 {
			t.Fatalf("End: %d, %v; want %d", n, err, len(b)-1)
		}
	}
}

func TestBitsSmallCodes(t *testing.T) {
	// What a delta costs: zero is one bit at order 0, ±1 three.
	for _, tc := range []struct {
		v    int64
		k    int
		bits int
	}{{0, 0, 1}, {-1, 0, 3}, {1, 0, 3}, {0, 3, 4}, {7, 3, 6}, {-(1 << 20), 14, 29}} {
		if got := IntBits(tc.v, tc.k); got != tc.bits {
			t.Errorf("IntBits(%d, %d) = %d, want %d", tc.v, tc.k, got, tc.bits)
		}
	}
}

func TestBitReaderErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		read func(r *BitReader)
		want error
	}{
		{"empty", nil, func(r *BitReader) { r.Bool() }, ErrTruncated},
		{"cut code", []byte{0x00}, func(r *BitReader) { r.Uint(0, MaxCode) }, ErrTruncated},
		{"endless zeros", make([]byte, 16), func(r *BitReader) { r.Uint(0, MaxCode) }, ErrMalformed},
		{"over limit", []byte{0x04 | 0x01<<3}, func(r *BitReader) { r.Uint(0, 2) }, ErrMalformed},
		{"int over limit", []byte{0b11000}, func(r *BitReader) { r.Int(0, 1) }, ErrMalformed},
		{"padding set", []byte{0x81}, func(r *BitReader) { r.Bool() }, ErrMalformed},
	} {
		r := NewBitReader(tc.in)
		tc.read(&r)
		r.Bool() // errors stick
		if _, err := r.End(); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestBitWriterAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		w := NewBitWriter(buf[:0])
		w.Int(-1234, 4)
		w.Uint(99, 0)
		w.Bits(5, 3)
		buf = w.Append()
		r := NewBitReader(buf)
		r.Int(4, 1<<20)
		r.Uint(0, 1<<20)
		r.Bits(3)
		_, _ = r.End()
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// FuzzBitReader reads arbitrary bytes as a section of mixed fields; a
// section read without error must be the one its values write.
func FuzzBitReader(f *testing.F) {
	w := NewBitWriter(nil)
	w.Uint(3, 0)
	w.Int(-70000, 14)
	w.Bits(0x2f, 7)
	w.Int(2, 2)
	f.Add(w.Append(), uint8(0))
	f.Add([]byte{0xff, 0x00, 0x80}, uint8(5))
	f.Fuzz(func(t *testing.T, b []byte, k uint8) {
		order := int(k % 33)
		r := NewBitReader(b)
		u := r.Uint(0, 1<<40)
		i := r.Int(order, 1<<50)
		x := r.Bits(7)
		j := r.Int(2, 1<<10)
		n, err := r.End()
		if err != nil {
			return
		}
		w := NewBitWriter(nil)
		w.Uint(u, 0)
		w.Int(i, order)
		w.Bits(x, 7)
		w.Int(j, 2)
		if got := w.Append(); string(got) != string(b[:n]) {
			t.Fatalf("re-encoded %x, read %x", got, b[:n])
		}
	})
}
