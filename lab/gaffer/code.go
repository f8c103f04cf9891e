package gaffer

import "github.com/tether-net/tether/wire"

// The bit-level codes of the format, shared by the encoder and the decoder
// (doc.go describes them).

// diffRange returns the bound r of the differences a code with a large part
// of large bits holds: [-r, r).
func diffRange(large int) int32 { return 1<<(large-1) + smallRange }

// putDiff writes d, within ±diffRange(large), as a small flag and 5 bits, or
// the flag clear and large bits. A large code c in [-2^(large-1),
// 2^(large-1)) stands for the differences beyond the small range: c - 16 if
// negative, c + 16 otherwise, so that no difference has two codes.
func putDiff(w *wire.BitWriter, d int32, large int) {
	if d >= -smallRange && d < smallRange {
		w.Bool(true)
		w.Bits(uint64(d+smallRange), smallBits)
		return
	}
	w.Bool(false)
	c := d - smallRange
	if d < 0 {
		c = d + smallRange
	}
	w.Bits(uint64(c+1<<(large-1)), large)
}

// getDiff reads what putDiff wrote.
func getDiff(r *wire.BitReader, large int) int32 {
	if r.Bool() {
		return int32(r.Bits(smallBits)) - smallRange
	}
	c := int32(r.Bits(large)) - 1<<(large-1)
	if c < 0 {
		return c - smallRange
	}
	return c + smallRange
}

// indexBits is the length of the code of changed body i's index after
// changed body prev's, -1 for none.
func (f *format) indexBits(i, prev int) int {
	if prev < 0 {
		return f.idxBits
	}
	switch off := i - prev; {
	case off <= offsetNear:
		return 1 + 3
	case off <= offsetMid:
		return 1 + 1 + 5
	}
	return 1 + 1 + f.idxBits
}

// putOffset writes the offset off >= 1 from a changed body's index to the
// next one's: a one and off-1 on 3 bits for [1, 8]; a zero, a one and off-9
// on 5 bits for [9, 40]; two zeros and off on the width of an index for
// larger ones.
func (f *format) putOffset(w *wire.BitWriter, off int) {
	switch {
	case off <= offsetNear:
		w.Bool(true)
		w.Bits(uint64(off-1), 3)
	case off <= offsetMid:
		w.Bits(0b10, 2) // a zero, then a one: least significant bit first
		w.Bits(uint64(off-offsetNear-1), 5)
	default:
		w.Bits(0, 2)
		w.Bits(uint64(off), f.idxBits)
	}
}

// getOffset reads what putOffset wrote; a large offset must be above 40.
func (f *format) getOffset(r *wire.BitReader) int {
	if r.Bool() {
		return int(r.Bits(3)) + 1
	}
	if r.Bool() {
		return int(r.Bits(5)) + offsetNear + 1
	}
	off := int(r.Bits(f.idxBits))
	if off <= offsetMid {
		r.Fail(wire.ErrMalformed)
	}
	return off
}

// posRelative reports whether every component of b's position differs from
// base's by a difference a relative position holds.
func posRelative(b, base *body) bool {
	r := diffRange(posLarge)
	for i := range 3 {
		if d := b.pos[i] - base.pos[i]; d < -r || d >= r {
			return false
		}
	}
	return true
}

// rotRelative reports whether b's rotation can be sent as differences from
// base's: the same largest component, and every difference held.
func rotRelative(b, base *body) bool {
	if b.big != base.big {
		return false
	}
	r := diffRange(rotLarge)
	for i := range 3 {
		if d := int32(b.small[i]) - int32(base.small[i]); d < -r || d >= r {
			return false
		}
	}
	return true
}

// putBody writes changed body b against its baseline base: the position's
// changed flag and, if changed, the position relative to base's or absolute;
// then the rotation's likewise.
func (f *format) putBody(w *wire.BitWriter, b, base *body) {
	moved := b.pos != base.pos
	w.Bool(moved)
	if moved {
		rel := posRelative(b, base)
		w.Bool(rel)
		if rel {
			for i := range 3 {
				putDiff(w, b.pos[i]-base.pos[i], posLarge)
			}
		} else {
			w.Bits(uint64(b.pos[0]+f.half), f.hBits)
			w.Bits(uint64(b.pos[1]), f.vBits)
			w.Bits(uint64(b.pos[2]+f.half), f.hBits)
		}
	}
	turned := b.big != base.big || b.small != base.small
	w.Bool(turned)
	if turned {
		rel := rotRelative(b, base)
		w.Bool(rel)
		if rel {
			for i := range 3 {
				putDiff(w, int32(b.small[i])-int32(base.small[i]), rotLarge)
			}
		} else {
			w.Bits(uint64(b.big), 2)
			for i := range 3 {
				w.Bits(uint64(int32(b.small[i])+rotSteps), RotBits)
			}
		}
	}
}

// getBody reads into b what putBody wrote against base. Every state has one
// code: a body sent unchanged, a difference of zero, an absolute value that
// is the baseline's or that a relative one holds, and values out of range are
// wire.ErrMalformed.
func (f *format) getBody(r *wire.BitReader, b, base *body) {
	*b = *base
	moved := r.Bool()
	if moved {
		if r.Bool() {
			for i := range 3 {
				b.pos[i] = base.pos[i] + getDiff(r, posLarge)
			}
		} else {
			b.pos[0] = int32(r.Bits(f.hBits)) - f.half
			b.pos[1] = int32(r.Bits(f.vBits))
			b.pos[2] = int32(r.Bits(f.hBits)) - f.half
			if posRelative(b, base) {
				r.Fail(wire.ErrMalformed)
			}
		}
		if b.pos == base.pos || !f.inBounds(b) {
			r.Fail(wire.ErrMalformed)
		}
	}
	turned := r.Bool()
	if turned {
		if r.Bool() {
			for i := range 3 {
				v := int32(base.small[i]) + getDiff(r, rotLarge)
				if v < -rotSteps || v > rotSteps {
					r.Fail(wire.ErrMalformed)
				}
				b.small[i] = int16(v)
			}
		} else {
			b.big = uint8(r.Bits(2))
			for i := range 3 {
				v := int32(r.Bits(RotBits)) - rotSteps
				if v > rotSteps {
					r.Fail(wire.ErrMalformed)
				}
				b.small[i] = int16(v)
			}
			if rotRelative(b, base) {
				r.Fail(wire.ErrMalformed)
			}
		}
		if b.big == base.big && b.small == base.small || !unit(b) {
			r.Fail(wire.ErrMalformed)
		}
	}
	if !moved && !turned {
		r.Fail(wire.ErrMalformed)
	}
}

// unit reports whether b's smallest three are those of a unit quaternion:
// their squares, in units of 1/(√2·rotSteps), sum to at most one.
func unit(b *body) bool {
	var sum int32
	for _, x := range b.small {
		sum += int32(x) * int32(x)
	}
	return sum <= 2*rotSteps*rotSteps
}

// inBounds reports whether b's position is within the bounds.
func (f *format) inBounds(b *body) bool {
	p := &b.pos
	return p[0] >= -f.half && p[0] < f.half && p[1] >= 0 && p[1] < f.height && p[2] >= -f.half && p[2] < f.half
}
