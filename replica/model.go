package replica

import (
	"math/bits"

	"github.com/tether-net/tether/wire"
)

// The coding of an integer (a residual: the truth less the prediction):
//
//	zero       one adaptive bit, in a context of its own per component and
//	           per whether the component before it in the entity was zero
//	sign       one adaptive bit per component
//	length     m = |x| has n significant bits (n ≥ 1); n-1 in unary, each
//	           bit adaptive in a context of its own per component and place
//	mantissa   the bit below m's top one adaptive per component and n; the
//	           rest at even chance
//
// Every probability starts where it ended in the snapshot the delta is coded
// against (one half for a whole snapshot) and adapts as the snapshot goes:
// the models learn each component's spread from the entities coded before
// it and from the baseline's, on both sides alike, and nothing is fitted to
// one game offline.

// maxLen bounds the length of a coded magnitude: residuals of 32-bit values
// have at most 33 bits.
const maxLen = 34

// intModel is the adaptive model of one component's integers.
type intModel struct {
	zero   [2]wire.Prob
	sign   wire.Prob
	length [maxLen]wire.Prob
	mant   [maxLen]wire.Prob
}

func (m *intModel) reset() {
	m.zero = [2]wire.Prob{wire.ProbHalf, wire.ProbHalf}
	m.sign = wire.ProbHalf
	for i := range m.length {
		m.length[i], m.mant[i] = wire.ProbHalf, wire.ProbHalf
	}
}

// coder is what the encoder and the decoder share: the models, and the
// cost so far of what was coded (for the encoder's statistics), in
// 1/wire.CostUnit bits.
type coder struct {
	enc  wire.RangeEncoder
	dec  wire.RangeDecoder
	cost int
}

func (c *coder) bit(p *wire.Prob, b bool) {
	c.cost += p.Cost(b)
	c.enc.Bit(p, b)
}

func (c *coder) raw(v uint32, n int) {
	c.cost += n * wire.CostUnit
	c.enc.Bits(v, n)
}

// putInt codes x with m; prevZero says the component before was zero.
func (c *coder) putInt(m *intModel, x int64, prevZero bool) {
	if x == 0 {
		c.bit(&m.zero[b2i(prevZero)], false)
		return
	}
	c.bit(&m.zero[b2i(prevZero)], true)
	c.bit(&m.sign, x < 0)
	u := abs64(x)
	n := bits.Len64(u)
	for i := 1; i < n; i++ {
		c.bit(&m.length[i-1], true)
	}
	if n < maxLen {
		c.bit(&m.length[n-1], false)
	}
	if n >= 2 {
		c.bit(&m.mant[n-1], u>>(n-2)&1 != 0)
		rest := n - 2
		if rest > 32 {
			c.raw(uint32(u>>32)&(1<<(rest-32)-1), rest-32)
			rest = 32
		}
		c.raw(uint32(u)&uint32(uint64(1)<<rest-1), rest)
	}
}

// getInt decodes what putInt coded.
func (c *coder) getInt(m *intModel, prevZero bool) int64 {
	d := &c.dec
	if !d.Bit(&m.zero[b2i(prevZero)]) {
		return 0
	}
	neg := d.Bit(&m.sign)
	n := 1
	for n < maxLen && d.Bit(&m.length[n-1]) {
		n++
	}
	u := uint64(1)
	if n >= 2 {
		u = u<<1 | uint64(b2u32(d.Bit(&m.mant[n-1])))
		rest := n - 2
		if rest > 32 {
			u = u<<(rest-32) | uint64(d.Bits(rest-32))
			rest = 32
		}
		u = u<<rest | uint64(d.Bits(rest))
	}
	if u > 1<<40 { // beyond any residual of 32-bit values: malformed, kept in range
		u = 1 << 40
	}
	if neg {
		return -int64(u)
	}
	return int64(u)
}

// putUint and getUint code a count or a gap (non-negative) with m.
func (c *coder) putUint(m *intModel, x uint64) { c.putInt(m, int64(x), false) }

func (c *coder) getUint(m *intModel) uint64 {
	x := c.getInt(m, false)
	if x < 0 {
		return 0
	}
	return uint64(x)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func b2u32(b bool) uint32 { return uint32(b2i(b)) }

// An entity of the baseline is, in the new snapshot, one of these.
const (
	symUnchanged uint8 = iota // where the prediction says
	symSent                   // sent, as its differences from the prediction
	symLeftOut                // changed, but left out by the budget: as in the baseline
	symGone                   // gone from the client's world
)

// kindModels are the models of one kind's entities.
type kindModels struct {
	// sym codes an entity's symbol in three bits (changed? sent? gone?), in
	// contexts of whether its prediction moves it and of the symbol of the
	// kind's entity before it.
	sym             [2][4][3]wire.Prob
	prev            uint8
	delta, whole    []intModel // by component: against a prediction, and whole
	early           []intModel // an earlier sample against the entity's values
	earlyN, earlyAg intModel
}

// models are every adaptive model of a snapshot.
type models struct {
	kinds    []kindModels
	metaSame wire.Prob
	metaLen  intModel
	count    intModel // new entities
	gap      intModel // a new entity's id less the previous one's plus one
	kind     [2 * MaxKinds]wire.Prob
	all      []*wire.Prob // every probability, in the order of each
}

func (m *models) init(s *Schema) {
	m.kinds = make([]kindModels, len(s.kinds))
	for i := range m.kinds {
		n := s.kinds[i].N
		k := &m.kinds[i]
		k.delta, k.whole, k.early = make([]intModel, n), make([]intModel, n), make([]intModel, n)
	}
	m.each(func(p *wire.Prob) { m.all = append(m.all, p) })
}

// reset starts every model afresh, as a snapshot does.
func (m *models) reset() {
	for i := range m.kinds {
		k := &m.kinds[i]
		for a := range k.sym {
			for b := range k.sym[a] {
				for c := range k.sym[a][b] {
					k.sym[a][b][c] = wire.ProbHalf
				}
			}
		}
		k.prev = symUnchanged
		for j := range k.delta {
			k.delta[j].reset()
			k.whole[j].reset()
			k.early[j].reset()
		}
		k.earlyN.reset()
		k.earlyAg.reset()
	}
	m.metaSame = wire.ProbHalf
	m.metaLen.reset()
	m.count.reset()
	m.gap.reset()
	for i := range m.kind {
		m.kind[i] = wire.ProbHalf
	}
}

// each calls f with every probability of m, in a fixed order.
func (m *models) each(f func(p *wire.Prob)) {
	ints := func(ms ...*intModel) {
		for _, im := range ms {
			f(&im.zero[0])
			f(&im.zero[1])
			f(&im.sign)
			for i := range im.length {
				f(&im.length[i])
				f(&im.mant[i])
			}
		}
	}
	for i := range m.kinds {
		k := &m.kinds[i]
		for a := range k.sym {
			for b := range k.sym[a] {
				for c := range k.sym[a][b] {
					f(&k.sym[a][b][c])
				}
			}
		}
		for j := range k.delta {
			ints(&k.delta[j], &k.whole[j], &k.early[j])
		}
		ints(&k.earlyN, &k.earlyAg)
	}
	f(&m.metaSame)
	ints(&m.metaLen, &m.count, &m.gap)
	for i := range m.kind {
		f(&m.kind[i])
	}
}

// save appends every probability of m to dst, in the order of each.
func (m *models) save(dst []wire.Prob) []wire.Prob {
	for _, p := range m.all {
		dst = append(dst, *p)
	}
	return dst
}

// start readies m for a snapshot coded against a table whose coding left
// the probabilities saved (nil: a whole snapshot, every one at a half).
func (m *models) start(saved []wire.Prob) {
	m.reset()
	if len(saved) != len(m.all) {
		return
	}
	for i, p := range m.all {
		*p = saved[i]
	}
}

func (c *coder) putSymbol(k *kindModels, sym uint8, moving bool) {
	p := &k.sym[b2i(moving)][k.prev]
	k.prev = sym
	c.bit(&p[0], sym != symUnchanged)
	if sym == symUnchanged {
		return
	}
	c.bit(&p[1], sym == symSent)
	if sym == symSent {
		return
	}
	c.bit(&p[2], sym == symGone)
}

func (c *coder) getSymbol(k *kindModels, moving bool) uint8 {
	p := &k.sym[b2i(moving)][k.prev]
	d := &c.dec
	sym := symUnchanged
	switch {
	case !d.Bit(&p[0]):
	case d.Bit(&p[1]):
		sym = symSent
	case d.Bit(&p[2]):
		sym = symGone
	default:
		sym = symLeftOut
	}
	k.prev = sym
	return sym
}

// putTree codes the n low bits of v, most significant first, each in the
// context of the bits before it (a binary tree of 2^n probabilities).
func (c *coder) putTree(p []wire.Prob, v uint32, n int) {
	node := 1
	for i := n - 1; i >= 0; i-- {
		b := v>>uint(i)&1 != 0
		c.bit(&p[node], b)
		node = node<<1 | b2i(b)
	}
}

func (c *coder) getTree(p []wire.Prob, n int) uint32 {
	node := 1
	for range n {
		node = node<<1 | b2i(c.dec.Bit(&p[node]))
	}
	return uint32(node - 1<<n)
}
