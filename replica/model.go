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
	ones := m.length[:n-1]
	for _, p := range ones {
		c.cost += p.Cost(true)
	}
	c.enc.Ones(ones)
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
	// kind's entity before it: [moving][prev][bit], flat.
	sym             []wire.Prob
	prev            uint8
	delta, whole    []intModel // by component: against a prediction, and whole
	early           []intModel // an earlier sample against the entity's values
	earlyN, earlyAg *intModel
	n               int // the kind's components
	grp             int // its first group of integer models (models.groups)
}

// A kind's integer models fall in four groups, at kindModels.grp on: those
// of deltas, of whole values, of earlier samples' values, and of their
// count and ages (earlyN, earlyAg). A snapshot touches a group as a whole
// or not at all.
const (
	grpDelta = iota
	grpWhole
	grpEarly
	grpEarlyN
)

// models are every adaptive model of a snapshot, in two blocks (every
// integer model, every other probability) that a table saves and a
// snapshot starts from with a copy each.
//
// Most snapshots leave some kinds' groups of integer models as their
// baseline had them (a kind's whole values are coded only for a new
// entity), and the block a snapshot starts in often holds the same
// contents already: each group carries a version, and starting copies only
// the groups whose version differs. A version names one content of a group
// in this models' blocks: 0 every probability at a half, a fresh serial
// each time a snapshot changes the group.
type models struct {
	kinds    []kindModels
	ints     []intModel
	probs    []wire.Prob
	vers     []uint64 // by group: the version of its contents in ints
	groups   [][2]int // by group: its span of ints, [from, to)
	dirty    []bool   // by group: touched by the snapshot being coded
	serial   uint64   // the newest version handed out
	global   int      // ints from here on are in no group: always copied
	metaSame *wire.Prob
	metaLen  *intModel
	count    *intModel   // new entities
	gap      *intModel   // a new entity's id less the previous one's plus one
	kind     []wire.Prob // 2·MaxKinds
	fresh    intModel    // every probability at a half
}

func (m *models) init(s *Schema) {
	n := 3
	for i := range s.kinds {
		n += 3*s.kinds[i].N + 2
	}
	m.ints = make([]intModel, n)
	m.probs = make([]wire.Prob, 24*len(s.kinds)+1+2*MaxKinds)
	m.kinds = make([]kindModels, len(s.kinds))
	a := 0
	for i := range m.kinds {
		k := &m.kinds[i]
		k.n, k.grp = s.kinds[i].N, len(m.groups)
		m.groups = append(m.groups, [2]int{a, a + k.n}, [2]int{a + k.n, a + 2*k.n}, [2]int{a + 2*k.n, a + 3*k.n}, [2]int{a + 3*k.n, a + 3*k.n + 2})
		a += 3*k.n + 2
	}
	m.global = a
	m.vers = unknownVers(len(m.groups))
	m.dirty = make([]bool, len(m.groups))
	m.bind()
	m.fresh.reset()
}

// verUnknown is the version of a group whose contents are not known (a
// block just made): it matches no table's.
const verUnknown = ^uint64(0)

func unknownVers(n int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = verUnknown
	}
	return v
}

// forget makes unknown the groups touched by a snapshot not saved (a
// decoding given up): their contents are no longer what their versions say.
func (m *models) forget() {
	for g, d := range m.dirty {
		if d {
			m.vers[g], m.dirty[g] = verUnknown, false
		}
	}
}

// touch notes that the snapshot being coded uses (and so changes) group g
// of kind k's integer models (grpDelta, grpWhole, grpEarly or grpEarlyN),
// before it does.
func (m *models) touch(k *kindModels, g int) { m.dirty[k.grp+g] = true }

// bind points the models' views into m.ints and m.probs.
func (m *models) bind() {
	a, p := 0, 0
	for i := range m.kinds {
		k := &m.kinds[i]
		n := k.n
		k.sym = m.probs[p : p+24 : p+24]
		p += 24
		k.delta, k.whole, k.early = m.ints[a:a+n:a+n], m.ints[a+n:a+2*n:a+2*n], m.ints[a+2*n:a+3*n:a+3*n]
		a += 3 * n
		k.earlyN, k.earlyAg = &m.ints[a], &m.ints[a+1]
		a += 2
	}
	m.metaLen, m.count, m.gap = &m.ints[a], &m.ints[a+1], &m.ints[a+2]
	m.metaSame = &m.probs[p]
	m.kind = m.probs[p+1:]
}

// reset starts every model afresh, as a snapshot does.
func (m *models) reset() {
	for g, sp := range m.groups {
		if m.vers[g] != 0 {
			for i := sp[0]; i < sp[1]; i++ {
				m.ints[i] = m.fresh
			}
			m.vers[g] = 0
		}
	}
	for i := m.global; i < len(m.ints); i++ {
		m.ints[i] = m.fresh
	}
	for i := range m.probs {
		m.probs[i] = wire.ProbHalf
	}
	for i := range m.kinds {
		m.kinds[i].prev = symUnchanged
	}
}

// list returns every probability of m in the order doc/wire.md saves them
// (§5.5).
func (m *models) list() []wire.Prob {
	var out []wire.Prob
	ints := func(ms ...*intModel) {
		for _, im := range ms {
			out = append(out, im.zero[0], im.zero[1], im.sign)
			for i := range im.length {
				out = append(out, im.length[i], im.mant[i])
			}
		}
	}
	for i := range m.kinds {
		k := &m.kinds[i]
		out = append(out, k.sym...)
		for j := range k.delta {
			ints(&k.delta[j], &k.whole[j], &k.early[j])
		}
		ints(k.earlyN, k.earlyAg)
	}
	out = append(out, *m.metaSame)
	ints(m.metaLen, m.count, m.gap)
	return append(out, m.kind...)
}

// save keeps every probability of m in t, the table start was given to
// code into: t takes back its blocks, as the snapshot left them.
func (m *models) save(t *table) {
	for g, d := range m.dirty {
		if d {
			m.serial++
			m.vers[g] = m.serial
			m.dirty[g] = false
		}
	}
	m.swap(t)
}

// swap exchanges m's blocks with t's (made if t has none), which keep
// their contents, and their versions say them.
func (m *models) swap(t *table) {
	ni, np, ng := len(m.ints), len(m.probs), len(m.groups)
	t.ints, m.ints = m.ints, t.ints
	t.probs, m.probs = m.probs, t.probs
	t.vers, m.vers = m.vers, t.vers
	if cap(m.ints) < ni || cap(m.vers) < ng {
		m.ints = make([]intModel, ni)
		m.vers = unknownVers(ng)
	}
	if cap(m.probs) < np {
		m.probs = make([]wire.Prob, np)
	}
	m.ints, m.probs, m.vers = m.ints[:ni], m.probs[:np], m.vers[:ng]
	m.bind()
}

// start readies m for a snapshot coded against table t, as its coding left
// the models (nil: a whole snapshot, every one at a half), and to be saved
// in table into. m codes in into's blocks: a table that held an earlier
// snapshot of the same client, whose groups mostly have the versions of
// t's already.
func (m *models) start(t, into *table) {
	m.forget()
	m.swap(into)
	if t == nil || len(t.ints) != len(m.ints) || len(t.probs) != len(m.probs) || len(t.vers) != len(m.vers) {
		m.reset()
		return
	}
	for g, sp := range m.groups {
		if m.vers[g] != t.vers[g] {
			copy(m.ints[sp[0]:sp[1]], t.ints[sp[0]:sp[1]])
			m.vers[g] = t.vers[g]
		}
	}
	copy(m.ints[m.global:], t.ints[m.global:])
	copy(m.probs, t.probs)
	for i := range m.kinds {
		m.kinds[i].prev = symUnchanged
	}
}

func (c *coder) putSymbol(k *kindModels, sym uint8, moving bool) {
	o := (b2i(moving)*4 + int(k.prev)) * 3
	p := k.sym[o : o+3]
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
	o := (b2i(moving)*4 + int(k.prev)) * 3
	p := k.sym[o : o+3]
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
