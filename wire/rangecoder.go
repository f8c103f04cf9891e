package wire

import "math"

// A binary range coder with adaptive probabilities (the LZMA design): each
// bit is coded with a Prob, the estimated chance that it is 0, which moves
// toward what was coded. A bit as likely as its Prob says costs about
// -log2 of that chance, so a bit that is almost always the same costs a
// small fraction of one; Bits codes bits of even chance at one each.
//
// The output has no length of its own: it is the rest of its message. Its
// trailing zero bytes are left out, and the decoder reads zeros past the end,
// so a coder's flush costs between zero and four bytes, usually one or two.

// Prob is an adaptive probability: the chance that the next bit coded with
// it is 0, in units of 1/ProbOne. The zero value is not usable: start from
// ProbHalf (or a prior). Both sides of a channel must start every Prob at the
// same value and code the same bits with it.
type Prob uint16

// The range of a Prob.
const (
	probBits = 12
	ProbOne  = 1 << probBits // certainty, never reached
	ProbHalf = Prob(ProbOne / 2)
	// probShift sets the speed of adaptation: a Prob moves 1/16 of the way
	// to certainty with each bit, so it follows a change within a few dozen
	// bits, as a packet's worth of entities needs.
	probShift = 4
	probMin   = 1 << probShift // a Prob stays within [probMin, ProbOne-probMin]
	topValue  = 1 << 24
)

func (p *Prob) update(bit bool) {
	// Each way can only cross its own bound.
	if bit {
		*p = max(probMin, *p-*p>>probShift)
	} else {
		*p = min(ProbOne-probMin, *p+(ProbOne-*p)>>probShift)
	}
}

// Cost returns what coding bit with p costs, in 1/CostUnit bits (the ideal
// code length, which the coder reaches within a fraction of a percent).
func (p Prob) Cost(bit bool) int {
	if bit {
		p = ProbOne - p
	}
	return int(costTable[p])
}

// CostUnit is the unit of Prob.Cost: 1/CostUnit of a bit.
const CostUnit = 64

var costTable = func() (t [ProbOne + 1]uint16) {
	for i := 1; i <= ProbOne; i++ {
		t[i] = uint16(math.Round(-math.Log2(float64(i)/ProbOne) * CostUnit))
	}
	t[0] = t[1]
	return
}()

// RangeEncoder appends range-coded bits to a byte slice. Create one with
// NewRangeEncoder, code with Bit and Bits, and end with Finish; it allocates
// only when the slice's capacity runs out.
type RangeEncoder struct {
	b         []byte
	low       uint64 // 33 bits: a carry above 32
	rng       uint32
	cache     byte
	cacheSize int // bytes held back for a carry: cache, then cacheSize-1 0xFF
	started   bool
	start     int // len of the caller's bytes
}

// NewRangeEncoder returns an encoder appending to dst.
func NewRangeEncoder(dst []byte) RangeEncoder {
	return RangeEncoder{b: dst, rng: math.MaxUint32, cacheSize: 1, start: len(dst)}
}

// Bit codes bit with p and adapts p.
func (e *RangeEncoder) Bit(p *Prob, bit bool) {
	bound := (e.rng >> probBits) * uint32(*p)
	if bit {
		e.low += uint64(bound)
		e.rng -= bound
	} else {
		e.rng = bound
	}
	p.update(bit)
	for e.rng < topValue {
		e.rng <<= 8
		e.shift()
	}
}

// Ones codes a 1 with each of ps in turn and adapts it: Bit(&ps[i], true)
// for each i, in one call (a unary code's run).
func (e *RangeEncoder) Ones(ps []Prob) {
	for i := range ps {
		bound := (e.rng >> probBits) * uint32(ps[i])
		e.low += uint64(bound)
		e.rng -= bound
		ps[i].update(true)
		for e.rng < topValue {
			e.rng <<= 8
			e.shift()
		}
	}
}

// Bits codes the low n bits of v (n ≤ 32), most significant first, each at
// even chance: one bit each.
func (e *RangeEncoder) Bits(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		e.rng >>= 1
		if v>>uint(i)&1 != 0 {
			e.low += uint64(e.rng)
		}
		for e.rng < topValue {
			e.rng <<= 8
			e.shift()
		}
	}
}

// shift moves the top byte of low out, holding back bytes a carry may still
// change. The very first byte a range coder makes is always 0 and is not
// written.
func (e *RangeEncoder) shift() {
	if uint32(e.low) < 0xFF000000 || e.low >= 1<<32 {
		carry := byte(e.low >> 32)
		c := e.cache
		for ; e.cacheSize > 0; e.cacheSize-- {
			if e.started {
				e.b = append(e.b, c+carry)
			}
			e.started = true
			c = 0xFF
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

// Finish flushes the bits coded and returns the extended slice. It picks,
// within the final range, the value with the most trailing zero bits, and
// leaves out the zero bytes it ends with.
func (e *RangeEncoder) Finish() []byte {
	hi := e.low + uint64(e.rng) - 1
	for k := 32; k > 0; k-- {
		mask := uint64(1)<<uint(k) - 1
		if v := (e.low + mask) &^ mask; v <= hi {
			e.low = v
			break
		}
	}
	for range 5 {
		e.shift()
	}
	n := len(e.b)
	for n > e.start && e.b[n-1] == 0 {
		n--
	}
	return e.b[:n]
}

// Len returns the bytes the coder has written so far, beyond those held back
// for a carry and the flush: within 5 of what Finish would return.
func (e *RangeEncoder) Len() int { return len(e.b) - e.start + e.cacheSize }

// RangeDecoder reads what a RangeEncoder wrote. Past the end of its bytes it
// reads zeros; Overrun says how many.
type RangeDecoder struct {
	b    []byte
	code uint32
	rng  uint32
	over int
}

// NewRangeDecoder returns a decoder of b, the whole rest of a message.
func NewRangeDecoder(b []byte) RangeDecoder {
	d := RangeDecoder{b: b, rng: math.MaxUint32}
	for range 4 {
		d.code = d.code<<8 | uint32(d.next())
	}
	return d
}

func (d *RangeDecoder) next() byte {
	if len(d.b) == 0 {
		d.over++
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Bit decodes a bit coded with p and adapts p as the encoder did.
func (d *RangeDecoder) Bit(p *Prob) bool {
	bound := (d.rng >> probBits) * uint32(*p)
	bit := d.code >= bound
	if bit {
		d.code -= bound
		d.rng -= bound
	} else {
		d.rng = bound
	}
	p.update(bit)
	for d.rng < topValue {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return bit
}

// Bits decodes n bits (n ≤ 32) coded with RangeEncoder.Bits.
func (d *RangeDecoder) Bits(n int) uint32 {
	var v uint32
	for range n {
		d.rng >>= 1
		bit := d.code >= d.rng
		if bit {
			d.code -= d.rng
		}
		v = v<<1 | b2u(bit)
		for d.rng < topValue {
			d.rng <<= 8
			d.code = d.code<<8 | uint32(d.next())
		}
	}
	return v
}

// Overrun returns how many zero bytes the decoder has read past the end of
// its input: a handful at most for what an encoder wrote (the zeros it left
// out, and the coder's lookahead), more for input cut short.
func (d *RangeDecoder) Overrun() int { return d.over }

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
