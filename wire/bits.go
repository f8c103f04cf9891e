package wire

import "math/bits"

// BitWriter appends a bit-packed section to a byte slice: fields of any
// width, least significant bit first, and exponential-Golomb codes for
// integers that are mostly small (a delta against a baseline: zero costs one
// bit at order 0). Append pads the last byte with zero bits. The zero value
// appends to a nil slice; it allocates only when the slice's capacity runs
// out.
type BitWriter struct {
	b   []byte
	acc uint64 // bits not yet appended, fewer than 8 between calls
	n   uint
}

// NewBitWriter returns a BitWriter appending to dst.
func NewBitWriter(dst []byte) BitWriter { return BitWriter{b: dst} }

// MaxCode is the largest value Uint codes (and the largest magnitude of
// Int's zig-zag form): every code then fits 125 bits.
const MaxCode = 1<<62 - 1

// Bits writes the low n bits of v, n from 0 to 56.
func (w *BitWriter) Bits(v uint64, n int) {
	w.acc |= (v & (1<<uint(n) - 1)) << w.n
	w.n += uint(n)
	for w.n >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// Bool writes one bit.
func (w *BitWriter) Bool(v bool) {
	if v {
		w.Bits(1, 1)
	} else {
		w.Bits(0, 1)
	}
}

// Uint writes v (at most MaxCode; larger values are written as MaxCode) in
// the exponential-Golomb code of order k (0 to 32): v + 2^k has m bits; m-k-1
// zero bits, a one, then its m-1 low bits. Its length is UintBits(v, k).
func (w *BitWriter) Uint(v uint64, k int) {
	u := min(v, MaxCode) + 1<<uint(k)
	m := bits.Len64(u)
	w.Bits(0, m-k-1)
	w.Bits(1, 1)
	low := m - 1
	if low > 32 {
		w.Bits(u, 32)
		u >>= 32
		low -= 32
	}
	w.Bits(u, low)
}

// Int writes v zig-zag coded (0, -1, 1, -2, ... as 0, 1, 2, 3, ...) by Uint.
func (w *BitWriter) Int(v int64, k int) { w.Uint(zigzag(v), k) }

// Len returns the bits written so far, the appended bytes included.
func (w *BitWriter) Len() int { return len(w.b)*8 + int(w.n) }

// Append pads the section to a whole byte with zero bits and returns the
// slice with it appended. The writer is not to be used after.
func (w *BitWriter) Append() []byte {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc))
		w.acc, w.n = 0, 0
	}
	return w.b
}

// UintBits is the length in bits of v's code of order k (Uint).
func UintBits(v uint64, k int) int {
	m := bits.Len64(min(v, MaxCode) + 1<<uint(k))
	return 2*m - k - 1
}

// IntBits is the length in bits of v's code of order k (Int).
func IntBits(v int64, k int) int { return UintBits(zigzag(v), k) }

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// BitReader reads a section a BitWriter wrote. As with Reader, the first error
// sticks: later reads return zero, and Err reports it. Every value has one
// encoding: codes longer than needed, values beyond the caller's limit and
// padding bits that are not zero are ErrMalformed.
type BitReader struct {
	b   []byte
	i   int    // next byte of b to load
	acc uint64 // loaded bits not yet read
	n   uint
	err error
}

// NewBitReader returns a BitReader of a section starting at b's first byte.
func NewBitReader(b []byte) BitReader { return BitReader{b: b} }

// Err returns the first error met, ErrTruncated or ErrMalformed.
func (r *BitReader) Err() error { return r.err }

// Fail records err unless an error is already recorded.
func (r *BitReader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Bits reads n bits, n from 0 to 56.
func (r *BitReader) Bits(n int) uint64 {
	if r.err != nil {
		return 0
	}
	for r.n < uint(n) {
		if r.i >= len(r.b) {
			r.err = ErrTruncated
			return 0
		}
		r.acc |= uint64(r.b[r.i]) << r.n
		r.i++
		r.n += 8
	}
	v := r.acc & (1<<uint(n) - 1)
	r.acc >>= uint(n)
	r.n -= uint(n)
	return v
}

// Bool reads one bit.
func (r *BitReader) Bool() bool { return r.Bits(1) == 1 }

// Uint reads a value written by Uint with order k, at most limit.
func (r *BitReader) Uint(k int, limit uint64) uint64 {
	z := 0
	for r.err == nil && r.Bits(1) == 0 {
		z++
		if z+k > 62 {
			r.Fail(ErrMalformed)
		}
	}
	if r.err != nil {
		return 0
	}
	low := z + k
	u := uint64(1) << uint(low)
	if low > 32 {
		u |= r.Bits(32)
		low -= 32
		u |= r.Bits(low) << 32
	} else {
		u |= r.Bits(low)
	}
	v := u - 1<<uint(k)
	if r.err == nil && v > limit {
		r.err = ErrMalformed
	}
	if r.err != nil {
		return 0
	}
	return v
}

// Int reads a value written by Int with order k, within ±limit.
func (r *BitReader) Int(k int, limit int64) int64 {
	u := r.Uint(k, zigzag(limit))
	return int64(u>>1) ^ -int64(u&1)
}

// End ends the section: the padding bits of its last byte must be zero. It
// returns the bytes the section took and Err.
func (r *BitReader) End() (int, error) {
	if r.err == nil && r.acc != 0 {
		r.err = ErrMalformed
	}
	return r.i, r.err
}
