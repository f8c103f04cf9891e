package replica

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/tether-net/tether/wire"
)

// Config configures an Encoder. The zero value gives the defaults noted.
type Config struct {
	// Relevance, if set, weighs entity e for the client whose own entity is
	// viewer (nil if it has none in the world): 0 leaves e out of that
	// client's snapshots altogether (to the client it despawns), a larger
	// weight sends it sooner when the byte budget does not hold every
	// change. Nil weighs every entity 1. Near is a stock one.
	Relevance func(viewer, e *Entity) float64
	// OnSnapshot, if set, is called with the make-up of every snapshot
	// encoded.
	OnSnapshot func(Encoded)
	// OnEntity, if set, is called for every entity a snapshot refreshes
	// (sent, or unchanged from its prediction) as the client rebuilds it
	// (its declared fields as quantised, within a field's tolerance; its
	// State.Time the snapshot's), with what it cost, in bits: where a game
	// records what each client was sent (event.Seen) and measures what its
	// entities cost. e is valid only during the call.
	OnEntity func(client int, e *Entity, bits float64)
}

// Encoded is the make-up of one client's snapshot.
type Encoded struct {
	Client int
	Tick   uint64
	Time   time.Duration // its server time
	Bytes  int           // the layer's bytes of it
	Base   uint64        // the tick it was coded against; 0: whole
	// Unchanged entities were where their prediction said (a fraction of a
	// bit each); Sent went with their differences, Spawned whole; LeftOut
	// changed or new entities the budget did not hold; Held entities the
	// game held (Entity.Hold); Gone entities left the client's world.
	Unchanged, Sent, Spawned, LeftOut, Held, Gone int
	// Oversize says the snapshot did not fit the budget even with every
	// change left out.
	Oversize bool
	// KindBits are the bits spent on each kind's entities (Schema order).
	KindBits []float64
}

// Stats are an Encoder's counters.
type Stats struct {
	Snapshots  uint64 // snapshots encoded, all clients
	Deltas     uint64 // of which against a baseline
	LeftOut    uint64 // entities left out of them by the byte budget
	Oversize   uint64 // snapshots over the budget with every change left out
	Duplicates uint64 // entities dropped for an id already in the world
	BadKind    uint64 // entities dropped for a kind the schema does not have
	// KindBits are the bits spent on each kind's entities (Schema order),
	// all clients.
	KindBits [MaxKinds]float64
}

// Near returns a Relevance by distance from the viewer: weight 1 within
// near metres, falling as near/distance beyond, and 0 (not sent) beyond far
// metres if far > 0. Everything is weight 1 to a client without an entity.
func Near(near, far float64) func(viewer, e *Entity) float64 {
	return func(viewer, e *Entity) float64 {
		if viewer == nil || viewer.ID == e.ID {
			return 1
		}
		d := viewer.State.Pos.Sub(e.State.Pos).Len()
		switch {
		case far > 0 && d > far:
			return 0
		case d <= near:
			return 1
		}
		return near / d
	}
}

// Ring is how many snapshots an Encoder keeps per client, and a Decoder
// keeps, as baselines: a second of snapshots at 60 Hz. A client whose newest
// acknowledgement is older gets a whole snapshot.
const Ring = 64

// NoSelf is the own entity of a client that has none.
const NoSelf = ^uint32(0)

type prio struct {
	id  uint32
	acc float64
}

// view is what the encoder sent one client.
type view struct {
	self      uint32
	sent      wire.Baselines[table]
	next      table // the table the next snapshot builds: one the ring let go
	prio, tmp []prio
}

// Encoder is the server half of the layer: it keeps, for every client, the
// snapshots it sent as that client rebuilds them, and codes each snapshot
// of the World against the newest one the client acknowledged, within a
// byte budget. It is not safe for concurrent use.
type Encoder struct {
	s     *Schema
	cfg   Config
	world World
	views []*view
	m     models
	c     coder
	stats Stats

	// Scratch for one client's snapshot: the entities of the world
	// relevant to it, in order of id, and their values.
	items []item
	res   []int64 // residuals, N each (whole values for a spawn)
	rec   []int64 // the values as the client rebuilds them, N each
	order []int32 // indices into items, as choose sorted them
	gone  []bool  // by baseline record
	next  table   // the table a client never joined gets built in
	nt    *table  // the table of the snapshot being coded: e.next or its view's
	whole wholeCache
	hist  []Sample
	pred  []int64
	early []int32
	shown Entity  // an entity as its client rebuilds it (OnEntity)
	q32   []int32 // its values
	kbits []float64
}

// wholeCache is the whole snapshot of a tick, coded once for every client
// that gets one.
type wholeCache struct {
	ok      bool
	tick    uint64
	t       time.Duration
	version uint64 // the world's
	bytes   []byte
	table   table
	kbits   []float64
	enc     Encoded
}

// item is an entity of the world relevant to the client being coded.
type item struct {
	ent    int32   // its index in the world's entities
	base   int32   // its record in the baseline, or -1
	off    int32   // its values in Encoder.res and rec
	cost   int32   // what sending it cost in the last pass, 1/CostUnit bits
	weight float64 // its relevance times its kind's priority
	prio   float64 // what choose sorted by
	kind   uint8
	class  uint8
	send   bool
}

const (
	clsUnchanged uint8 = iota
	clsChanged
	clsNew
	clsHeld // in the baseline, held by the game (Entity.Hold)
)

// NewEncoder returns an encoder of worlds of schema s.
func NewEncoder(s *Schema, cfg Config) *Encoder {
	e := &Encoder{s: s, cfg: cfg}
	e.m.init(s)
	e.kbits = make([]float64, len(s.kinds))
	return e
}

// World returns the world the game fills each tick.
func (e *Encoder) World() *World { return &e.world }

// Stats returns the counters.
func (e *Encoder) Stats() Stats { return e.stats }

// Join starts keeping baselines for client, whose own entity is self
// (NoSelf for none); a client joined again starts afresh.
func (e *Encoder) Join(client int, self uint32) {
	for client >= len(e.views) {
		e.views = append(e.views, nil)
	}
	e.views[client] = &view{self: self, sent: wire.NewBaselines[table](Ring)}
}

// Leave forgets client.
func (e *Encoder) Leave(client int) {
	if client < len(e.views) {
		e.views[client] = nil
	}
}

// Append appends client's snapshot of the world for tick (at server time
// t, as the snapshot's header says it) against the snapshot of tick acked
// if the encoder still holds it, else whole, within budget bytes (0 or
// less: no budget). A client never joined gets a whole snapshot, and
// nothing is kept for it. When the budget does not hold every change, the
// entities left out longest and weighed most go first; those left out gain
// weight, and the snapshot is never dropped: at worst it carries the
// entities it must account for and no change (Encoded.Oversize if even that
// does not fit).
func (e *Encoder) Append(dst []byte, client int, tick uint64, t time.Duration, acked uint64, budget int) []byte {
	w := &e.world
	w.prepare(e.s, t)
	var v *view
	if client >= 0 && client < len(e.views) {
		v = e.views[client]
	}
	var base *table
	e.nt = &e.next
	if v != nil {
		e.nt = &v.next
		if acked < tick {
			base = v.sent.Find(acked)
		}
	}
	start := len(dst)
	if budget <= 0 {
		budget = math.MaxInt
	}
	// A whole snapshot that held every entity is the same for every client
	// of the tick (without relevance or a per-entity observer): coded once.
	shared := base == nil && e.cfg.Relevance == nil && e.cfg.OnEntity == nil
	if c := &e.whole; shared && c.ok && c.tick == tick && c.t == t && c.version == e.world.version && string(c.table.meta) == string(e.world.Meta) && budget >= len(c.bytes) {
		out := append(dst, c.bytes...)
		e.nt.copyOf(&c.table)
		enc := c.enc
		enc.Client = client
		if v != nil {
			v.prio = v.prio[:0]
		}
		for i, b := range c.kbits {
			e.stats.KindBits[i] += b
		}
		e.commit(v, tick, enc)
		return out
	}
	e.classify(v, base, t)
	for k := range e.items {
		it := &e.items[k]
		it.send = it.class != clsUnchanged && it.class != clsHeld
	}
	out := e.pass(dst, base, tick, acked, t)
	if len(out)-start > budget {
		// Send by priority what the measured costs say fits, then shrink
		// until it does: the models adapt to what goes, so the second
		// pass's costs differ a little from the first's.
		head := 3 // the flush's bytes, and a whole snapshot's header
		if base != nil {
			head = 2 + wire.UvarintLen(tick-acked)
		}
		e.choose(v, budget-head)
		for {
			out = e.pass(dst, base, tick, acked, t)
			if len(out)-start <= budget || !e.drop() {
				break
			}
		}
	}
	// What was sent, as the client will rebuild it.
	enc := Encoded{Client: client, Tick: tick, Time: t, Bytes: len(out) - start, KindBits: e.kbits}
	if base != nil {
		enc.Base = acked
	}
	enc.Oversize = enc.Bytes > budget
	e.account(&enc, v, client)
	if shared && enc.LeftOut == 0 {
		c := &e.whole
		c.ok, c.tick, c.t, c.version = true, tick, t, e.world.version
		c.bytes = append(c.bytes[:0], out[start:]...)
		c.table.copyOf(e.nt)
		c.kbits = append(c.kbits[:0], e.kbits...)
		c.enc = enc
		c.enc.KindBits = c.kbits
	}
	e.commit(v, tick, enc)
	return out
}

// commit keeps the table of the snapshot of tick just coded for v's client,
// and counts it.
func (e *Encoder) commit(v *view, tick uint64, enc Encoded) {
	if v != nil {
		// A tick encoded again for the client (a benchmark's) replaces its
		// table rather than filling the ring with copies.
		slot := v.sent.Find(tick)
		if slot == nil {
			slot = v.sent.Push(tick)
		}
		*slot, *e.nt = *e.nt, *slot
	}
	e.stats.Snapshots++
	if enc.Base != 0 {
		e.stats.Deltas++
	}
	if enc.Oversize {
		e.stats.Oversize++
	}
	e.stats.LeftOut += uint64(enc.LeftOut)
	if e.cfg.OnSnapshot != nil {
		e.cfg.OnSnapshot(enc)
	}
}

// classify lists the world's entities relevant to v's client, finds each
// one's baseline record and prediction, and its class.
func (e *Encoder) classify(v *view, base *table, t time.Duration) {
	w := &e.world
	s := e.s
	e.stats.Duplicates += uint64(w.dups)
	w.dups = 0
	var viewer *Entity
	if v != nil && v.self != NoSelf {
		if i, ok := slices.BinarySearchFunc(w.byID, v.self, func(i int32, id uint32) int { return cmp.Compare(w.ents[i].ID, id) }); ok {
			viewer = &w.ents[w.byID[i]]
		}
	}
	// Room for every entity and its values: no growing in the loop.
	e.items = slices.Grow(e.items[:0], len(w.byID))
	e.res = slices.Grow(e.res[:0], len(w.q))
	e.rec = slices.Grow(e.rec[:0], len(w.q))
	nbase := 0
	if base != nil {
		nbase = len(base.recs)
	}
	e.gone = slices.Grow(e.gone[:0], nbase)[:nbase]
	for i := range e.gone {
		e.gone[i] = true
	}
	j := 0 // the next baseline record
	for _, i := range w.byID {
		ent := &w.ents[i]
		wt := 1.0
		if e.cfg.Relevance != nil {
			if wt = e.cfg.Relevance(viewer, ent); !(wt > 0) {
				continue
			}
		}
		l := &s.kinds[ent.Kind]
		wt *= l.weight
		q := w.values(s, i)
		b := int32(-1)
		for base != nil && j < nbase && base.recs[j].id < ent.ID {
			j++
		}
		if base != nil && j < nbase && base.recs[j].id == ent.ID && base.recs[j].kind == ent.Kind {
			b = int32(j)
			e.gone[j] = false
		}
		o := len(e.rec)
		it := item{ent: i, base: b, off: int32(o), weight: wt, kind: ent.Kind}
		e.rec, e.res = e.rec[:o+l.N], e.res[:o+l.N]
		rec, res := e.rec[o:], e.res[o:]
		if b < 0 {
			for k, x := range q {
				res[k], rec[k] = int64(x), int64(x)
			}
			it.class = clsNew
			e.items = append(e.items, it)
			continue
		}
		if ent.Hold {
			clear(res)
			clear(rec)
			it.class = clsHeld
			e.items = append(e.items, it)
			continue
		}
		e.hist = base.history(s, &base.recs[b], e.hist[:0])
		e.pred = slices.Grow(e.pred[:0], l.N)[:l.N]
		l.pred.Predict(&l.Layout, e.pred, e.hist, t)
		l.clamp(e.pred)
		cls := clsUnchanged
		if len(ent.Earlier) > 0 && l.Earlier > 0 {
			cls = clsChanged
		}
		for j, k := range l.order {
			if j == l.nvel && l.refine != nil {
				l.refine.Refine(&l.Layout, e.pred, rec, e.hist, t)
				l.clamp(e.pred)
			}
			if !l.special[k] { // a plain difference
				r := int64(q[k]) - e.pred[k]
				res[k], rec[k] = r, int64(q[k])
				if r != 0 {
					cls = clsChanged
				}
				continue
			}
			r := l.residual(k, q, e.pred)
			if c := &l.comps[k]; c.tol > 0 && abs64(r) <= uint64(c.tol) {
				r = 0
			}
			if r != 0 {
				cls = clsChanged
			}
			res[k] = r
			rec[k], _ = l.value(k, r, rec, e.pred)
		}
		it.class = cls
		e.items = append(e.items, it)
	}
}

// residual returns component k of values q less its prediction, the
// shorter way round for a wrapping one; a rotation whose largest component
// is not the predicted one sends its other components whole.
func (l *layout) residual(k int, q []int32, pred []int64) int64 {
	x := int64(q[k])
	switch {
	case l.comps[k].wrap > 0:
		return wrapDiff(x-pred[k], l.comps[k].wrap)
	case l.Rot >= 0 && k > l.Rot && k < l.Rot+4 && int64(q[l.Rot]) != pred[l.Rot]:
		return x
	}
	return x - pred[k]
}

// value is residual's inverse: component k from its residual r, the
// components before it in q already decoded; ok false if out of range.
func (l *layout) value(k int, r int64, q []int64, pred []int64) (int64, bool) {
	c := &l.comps[k]
	var x int64
	switch {
	case c.wrap > 0:
		if x = pred[k] + r; x < 0 || x >= c.wrap { // the divisions only when needed
			x = (x%c.wrap + c.wrap) % c.wrap
		}
	case l.Rot >= 0 && k > l.Rot && k < l.Rot+4 && q[l.Rot] != pred[l.Rot]:
		x = r
	default:
		x = pred[k] + r
	}
	return x, x >= c.lo && x <= c.hi
}

// pass appends the snapshot with the entities item.send marks, measuring what
// each costs, and builds e.nt, the table the client will rebuild.
func (e *Encoder) pass(dst []byte, base *table, tick, acked uint64, t time.Duration) []byte {
	s, w := e.s, &e.world
	if base != nil {
		dst = binary.AppendUvarint(dst, tick-acked)
	} else {
		dst = append(dst, 0, byte(s.print), byte(s.print>>8))
	}
	nt := e.nt
	nt.reset()
	e.m.start(base, nt)
	e.c = coder{enc: wire.NewRangeEncoder(dst)}
	c, m := &e.c, &e.m
	clear(e.kbits)
	// The meta.
	same := base != nil && string(base.meta) == string(w.Meta)
	if base != nil {
		c.bit(m.metaSame, same)
	}
	if !same {
		c.putUint(m.metaLen, uint64(len(w.Meta)))
		for _, b := range w.Meta {
			c.raw(uint32(b), 8)
		}
	}
	nt.meta = append(nt.meta, w.Meta...)
	// The baseline's entities, in order of id.
	k := 0 // the next of e.items
	if base != nil {
		for j := range base.recs {
			r := &base.recs[j]
			km := &m.kinds[r.kind]
			mv := base.moving(s, r)
			if e.gone[j] {
				c.putSymbol(km, symGone, mv)
				continue
			}
			for e.items[k].base != int32(j) {
				k++
			}
			it := &e.items[k]
			from := c.cost
			switch {
			case it.class == clsUnchanged:
				c.putSymbol(km, symUnchanged, mv)
				nt.add(s, r.id, r.kind, e.recOf(k), t, base, r)
			case it.send:
				c.putSymbol(km, symSent, mv)
				m.touch(km, grpDelta)
				e.putValues(k, km.delta, t)
				nt.add(s, r.id, r.kind, e.recOf(k), t, base, r)
			default:
				c.putSymbol(km, symLeftOut, mv)
				nt.keep(s, base, r)
			}
			it.cost = int32(c.cost - from)
			e.kbits[r.kind] += float64(c.cost-from) / wire.CostUnit
			k++
		}
	}
	// The new ones: their count, then each one's id (as the gap from the
	// previous one's), kind and values whole.
	n := 0
	for k := range e.items {
		if it := &e.items[k]; it.class == clsNew && it.send {
			n++
		}
	}
	c.putUint(m.count, uint64(n))
	next := uint32(0)
	for k := range e.items {
		it := &e.items[k]
		if it.class != clsNew || !it.send {
			continue
		}
		ent := &w.ents[it.ent]
		from := c.cost
		c.putUint(m.gap, uint64(ent.ID-next))
		next = ent.ID + 1
		if len(s.kinds) > 1 {
			c.putTree(m.kind, uint32(ent.Kind), bits.Len(uint(len(s.kinds)-1)))
		}
		km := &m.kinds[ent.Kind]
		m.touch(km, grpWhole)
		e.putValues(k, km.whole, t)
		nt.add(s, ent.ID, ent.Kind, e.recOf(k), t, nil, nil)
		it.cost = int32(c.cost - from)
		e.kbits[ent.Kind] += float64(c.cost-from) / wire.CostUnit
	}
	nt.sortRecs()
	m.save(nt)
	return c.enc.Finish()
}

// putValues codes entity k's residuals with models ms, then its earlier
// samples if its kind has them.
func (e *Encoder) putValues(k int, ms []intModel, t time.Duration) {
	s, w, c := e.s, &e.world, &e.c
	it := &e.items[k]
	ent := &w.ents[it.ent]
	l := &s.kinds[it.kind]
	res := e.res[it.off : int(it.off)+l.N]
	prev := false
	for j, i := range l.order {
		c.putInt(&ms[i], res[i], j > 0 && prev)
		prev = res[i] == 0
	}
	if l.Earlier == 0 {
		return
	}
	km := &e.m.kinds[ent.Kind]
	n := min(len(ent.Earlier), l.Earlier)
	e.m.touch(km, grpEarlyN)
	if n > 0 {
		e.m.touch(km, grpEarly)
	}
	c.putUint(km.earlyN, uint64(n))
	cur := e.recOf(k)
	e.early = slices.Grow(e.early[:0], l.N)[:l.N]
	q := e.early
	for i, st := range ent.Earlier[:n] {
		// The sample's time goes as whole microseconds before the
		// snapshot's, truncated as the snapshot's is.
		age := max(0, t-st.Time.Truncate(time.Microsecond))
		c.putUint(km.earlyAg, uint64(age/time.Microsecond))
		x := *ent
		x.State, x.Attach = st, Attachment{}
		if i < len(ent.EarlierAttach) {
			x.Attach = ent.EarlierAttach[i]
		}
		l.quantise(q, &x)
		prev := false
		for i := range q {
			r := l.residual(i, q, cur)
			c.putInt(&km.early[i], r, prev)
			prev = r == 0
		}
	}
}

// rebuilt returns entity k as its client rebuilds it from the snapshot of
// server time t: its declared fields quantised (and held within a field's
// tolerance), the others zero.
func (e *Encoder) rebuilt(k int, t time.Duration) *Entity {
	ent := &e.world.ents[e.items[k].ent]
	l := &e.s.kinds[ent.Kind]
	rec := e.recOf(k)
	e.q32 = slices.Grow(e.q32[:0], len(rec))[:len(rec)]
	for i, x := range rec {
		e.q32[i] = int32(x)
	}
	e.shown = Entity{ID: ent.ID, Kind: ent.Kind}
	l.entity(&e.shown, e.q32, t)
	return &e.shown
}

// recOf returns entity k's values as the client rebuilds them.
func (e *Encoder) recOf(k int) []int64 {
	it := &e.items[k]
	return e.rec[it.off : int(it.off)+e.s.kinds[it.kind].N]
}

// choose marks in item.send the changed and new entities that fit room bits
// (the costs the last pass measured), by priority: what each accumulated
// while left out of earlier snapshots plus what it gains now, weighed.
func (e *Encoder) choose(v *view, roomBytes int) {
	room := roomBytes * 8 * wire.CostUnit
	e.order = e.order[:0]
	for k := range e.items {
		it := &e.items[k]
		if it.class == clsUnchanged || it.class == clsHeld {
			continue
		}
		if it.send {
			room += int(it.cost) // the pass's fixed part is what remains
		}
		it.prio = e.acc(v, int32(k))
		e.order = append(e.order, int32(k))
	}
	room -= e.c.cost
	slices.SortFunc(e.order, func(a, b int32) int {
		if c := cmp.Compare(e.items[b].prio, e.items[a].prio); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, k := range e.order {
		it := &e.items[k]
		it.send = int(it.cost) <= room
		if it.send {
			room -= int(it.cost)
		}
	}
}

// The priority a changed entity gains each snapshot it is left out of: one
// plus the binary digits of how far off the client would have it (its
// residuals summed), so the worse go first but none waits much longer than
// another; a new entity, which the client does not draw at all, gains
// newWeight. Both times its weight.
const newWeight = 64

// acc returns entity k's priority now: what it accumulated, plus its gain.
func (e *Encoder) acc(v *view, k int32) float64 {
	it := &e.items[k]
	var gain float64
	if it.class == clsNew {
		gain = newWeight
	} else {
		off := uint64(0)
		for _, r := range e.res[it.off : int(it.off)+e.s.kinds[it.kind].N] {
			off += abs64(r)
		}
		gain = float64(1 + bits.Len64(off))
	}
	gain *= it.weight
	if v == nil {
		return gain
	}
	id := e.world.ents[it.ent].ID
	if i, ok := slices.BinarySearchFunc(v.prio, id, func(p prio, id uint32) int { return cmp.Compare(p.id, id) }); ok {
		return v.prio[i].acc + gain
	}
	return gain
}

// drop unmarks the eighth of the sent entities of lowest priority (e.order,
// as choose sorted it), at least one; false if none was sent.
func (e *Encoder) drop() bool {
	sent := 0
	for _, k := range e.order {
		if e.items[k].send {
			sent++
		}
	}
	n := max(1, sent/8)
	for i := len(e.order) - 1; i >= 0 && n > 0; i-- {
		if it := &e.items[e.order[i]]; it.send {
			it.send = false
			n--
		}
	}
	return sent > 0
}

// account counts what the final pass sent, hands each entity refreshed to
// OnEntity, and keeps the priorities of those left out for v.
func (e *Encoder) account(enc *Encoded, v *view, client int) {
	w := &e.world
	if v != nil {
		v.tmp = v.tmp[:0]
	}
	for k := range e.items {
		it := &e.items[k]
		switch {
		case it.class == clsUnchanged:
			enc.Unchanged++
		case it.class == clsHeld:
			enc.Held++
			continue
		case it.send && it.class == clsNew:
			enc.Spawned++
		case it.send:
			enc.Sent++
		default:
			enc.LeftOut++
			if v != nil {
				v.tmp = append(v.tmp, prio{id: w.ents[it.ent].ID, acc: e.acc(v, int32(k))})
			}
			continue
		}
		if e.cfg.OnEntity != nil {
			e.cfg.OnEntity(client, e.rebuilt(k, enc.Time), float64(it.cost)/wire.CostUnit)
		}
	}
	for _, g := range e.gone {
		if g {
			enc.Gone++
		}
	}
	if v != nil {
		v.prio, v.tmp = v.tmp, v.prio
	}
	for i, b := range e.kbits {
		e.stats.KindBits[i] += b
	}
}
