package replica

import (
	"cmp"
	"slices"
	"time"

	"github.com/tether-net/tether/wire"
)

// record is one entity as a snapshot's table holds it: its newest samples,
// newest first, as both sides rebuilt them.
type record struct {
	id    uint32
	kind  uint8
	n     uint8 // samples held, 1 to the kind's depth
	times [maxDepth]time.Duration
	off   int32 // its samples in table.vals: depth × N values, newest first
}

// table is a snapshot as its client rebuilt it: every entity it holds,
// sorted by id, with the match's meta.
type table struct {
	recs []record
	vals []int32
	meta []byte
	// The models as its coding left them (models.save).
	ints  []intModel
	probs []wire.Prob
	vers  []uint64 // the versions of ints' groups (models.vers)
}

func (t *table) reset() {
	t.recs, t.vals, t.meta, t.ints, t.probs, t.vers = t.recs[:0], t.vals[:0], t.meta[:0], t.ints[:0], t.probs[:0], t.vers[:0]
}

// copyOf makes t a copy of u, reusing t's memory.
func (t *table) copyOf(u *table) {
	t.recs = append(t.recs[:0], u.recs...)
	t.vals = append(t.vals[:0], u.vals...)
	t.meta = append(t.meta[:0], u.meta...)
	t.ints = append(t.ints[:0], u.ints...)
	t.probs = append(t.probs[:0], u.probs...)
	t.vers = append(t.vers[:0], u.vers...)
}

// history returns the samples of r, newest first, in dst.
func (t *table) history(s *Schema, r *record, dst []Sample) []Sample {
	l := &s.kinds[r.kind]
	for i := range int(r.n) {
		o := int(r.off) + i*l.N
		dst = append(dst, Sample{Time: r.times[i], Q: t.vals[o : o+l.N]})
	}
	return dst
}

// add appends a record of id and kind whose newest sample is q at time t,
// after the samples of prev (a record of from, or nil) unless the sample
// starts a new generation.
func (t *table) add(s *Schema, id uint32, kind uint8, q []int64, tm time.Duration, from *table, prev *record) {
	l := &s.kinds[kind]
	r := record{id: id, kind: kind, n: 1, off: int32(len(t.vals))}
	r.times[0] = tm
	o := len(t.vals)
	t.vals = slices.Grow(t.vals, l.depth*l.N)[:o+len(q)]
	for i, x := range q {
		t.vals[o+i] = int32(x)
	}
	keep := 0
	if prev != nil && prev.kind == kind {
		keep = min(int(prev.n), l.depth-1)
		if g := l.gen; g >= 0 && int64(from.vals[prev.off+int32(g)]) != q[g] {
			keep = 0 // a jump: the samples before it predict nothing
		}
	}
	for i := range keep {
		o := int(prev.off) + i*l.N
		t.vals = append(t.vals, from.vals[o:o+l.N]...)
		r.times[1+i] = prev.times[i]
	}
	r.n += uint8(keep)
	// Room for the depth, so every record's samples are the same size.
	n := len(t.vals)
	t.vals = t.vals[:n+(l.depth-int(r.n))*l.N]
	clear(t.vals[n:])
	t.recs = append(t.recs, r)
}

// keep appends r of from unchanged (an entity left out).
func (t *table) keep(s *Schema, from *table, r *record) {
	l := &s.kinds[r.kind]
	c := *r
	c.off = int32(len(t.vals))
	t.vals = append(t.vals, from.vals[r.off:int(r.off)+l.depth*l.N]...)
	t.recs = append(t.recs, c)
}

// sortRecs puts the records in order of id (they are unique).
func (t *table) sortRecs() {
	byID := func(a, b record) int { return cmp.Compare(a.id, b.id) }
	if !slices.IsSortedFunc(t.recs, byID) {
		slices.SortFunc(t.recs, byID)
	}
}

// moving reports whether r's newest sample has a velocity: the entity is
// moving, and a change from its prediction likelier than for one at rest
// (the context of its symbol).
func (t *table) moving(s *Schema, r *record) bool {
	l := &s.kinds[r.kind]
	for _, v := range l.Vel {
		if v >= 0 && t.vals[int(r.off)+v] != 0 {
			return true
		}
	}
	return false
}
