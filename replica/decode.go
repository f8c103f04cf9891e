package replica

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/tether-net/tether/wire"
)

// MaxEntities is the most entities a decoder accepts in one snapshot.
const MaxEntities = 1 << 16

// ErrFingerprint is a whole snapshot of another schema than the decoder's.
var ErrFingerprint = errors.New("tether/replica: snapshot of another schema")

// Decoder is the client half of the layer: it decodes the snapshots of an
// Encoder of the same schema, keeping the last Ring it decodes as
// baselines. It is not safe for concurrent use.
type Decoder struct {
	s    *Schema
	kept wire.Baselines[table]
	m    models
	c    coder
	next table
	hist []Sample
	pred []int64
	q    []int64
	cur  []int64 // an entity's values, which its earlier samples are coded against
	eq   []int64 // an earlier sample's
	q32  []int32
	news []record
}

// NewDecoder returns a decoder of snapshots of schema s.
func NewDecoder(s *Schema) *Decoder {
	d := &Decoder{s: s, kept: wire.NewBaselines[table](Ring)}
	d.m.init(s)
	return d
}

// Decoded is what Decode makes of a snapshot.
type Decoded struct {
	// Entities are those the snapshot refreshes (sent, or unchanged from
	// their prediction), in order of id, each preceded by its earlier
	// samples, oldest first; not those left out by the budget.
	Entities []Entity
	Meta     []byte // the match's meta; valid until the next Decode
	Base     uint64 // the tick it was decoded against; 0: whole
	// Keep says the decoder kept it as a baseline (it is newer than any
	// kept): the client acknowledges its tick.
	Keep bool
	// Gone are the entities the newest snapshot decoded before this one
	// held and this one does not: they left the client's world (despawned,
	// or no longer relevant to the client). Set for a snapshot newer than
	// any decoded (Keep), in order of id.
	Gone []uint32
}

// Decode decodes the layer's bytes b of the snapshot of tick, at server
// time t (as its header says), appending its entities to out.Entities. A
// snapshot against a baseline not kept is ErrNoBaseline; bad bytes are an
// error wrapping wire.ErrMalformed, ErrFingerprint or wire.ErrTruncated, and
// change nothing.
func (d *Decoder) Decode(out *Decoded, tick uint64, t time.Duration, b []byte) error {
	r := wire.NewReader(b)
	dist := r.Uvarint(1 << 40)
	var base *table
	if dist == 0 {
		print := uint16(r.Byte()) | uint16(r.Byte())<<8
		if r.Err() == nil && print != d.s.print {
			return ErrFingerprint
		}
	} else if dist >= tick {
		return fmt.Errorf("%w: baseline %d ticks before tick %d", wire.ErrMalformed, dist, tick)
	} else if base = d.kept.Find(tick - dist); base == nil {
		return ErrNoBaseline
	}
	if r.Err() != nil {
		return r.Err()
	}
	first := len(out.Entities)
	out.Gone = out.Gone[:0]
	err := d.body(out, base, t, r.Remaining())
	if err == nil && d.c.dec.Overrun() > 64 {
		err = wire.ErrTruncated
	}
	if err != nil {
		out.Entities = out.Entities[:first]
		return err
	}
	out.Base = 0
	if base != nil {
		out.Base = tick - dist
	}
	out.Keep = tick > d.kept.Newest()
	if out.Keep {
		if prev := d.kept.Find(d.kept.Newest()); prev != nil {
			out.Gone = gone(out.Gone, prev, &d.next)
		}
		slot := d.kept.Push(tick)
		*slot, d.next = d.next, *slot
		out.Meta = slot.meta
	} else {
		out.Meta = d.next.meta
	}
	return nil
}

func (d *Decoder) body(out *Decoded, base *table, t time.Duration, b []byte) error {
	s := d.s
	first := len(out.Entities)
	nt := &d.next
	nt.reset()
	d.m.start(base, nt)
	d.c = coder{dec: wire.NewRangeDecoder(b)}
	c, m := &d.c, &d.m
	if base == nil || !c.dec.Bit(m.metaSame) {
		n := c.getUint(m.metaLen)
		if n > MaxMeta {
			return fmt.Errorf("%w: meta of %d bytes", wire.ErrMalformed, n)
		}
		for range n {
			nt.meta = append(nt.meta, byte(c.dec.Bits(8)))
		}
	} else {
		nt.meta = append(nt.meta, base.meta...)
	}
	if base != nil {
		for j := range base.recs {
			r := &base.recs[j]
			l := &s.kinds[r.kind]
			km := &m.kinds[r.kind]
			switch c.getSymbol(km, base.moving(s, r)) {
			case symGone:
				continue
			case symLeftOut:
				nt.keep(s, base, r)
				continue
			case symUnchanged:
				d.predict(l, base, r, t)
				for j, k := range l.order {
					if j == l.nvel && l.refine != nil {
						l.refine.Refine(&l.Layout, d.pred, d.q, d.hist, t)
						l.clamp(d.pred)
					}
					d.q[k], _ = l.value(k, 0, d.q, d.pred)
				}
			case symSent:
				d.predict(l, base, r, t)
				m.touch(km, grpDelta)
				if err := d.getValues(out, l, km.delta, true, r.id, r.kind, t); err != nil {
					return err
				}
			}
			nt.add(s, r.id, r.kind, d.q, t, base, r)
			d.emit(out, l, r.id, r.kind, t)
		}
	}
	n := c.getUint(m.count)
	if n > MaxEntities {
		return fmt.Errorf("%w: %d new entities", wire.ErrMalformed, n)
	}
	next := uint64(0)
	d.news = d.news[:0]
	for range n {
		id := next + c.getUint(m.gap)
		if id > 1<<32-1 {
			return fmt.Errorf("%w: entity id %d", wire.ErrMalformed, id)
		}
		next = id + 1
		kind := uint8(0)
		if len(s.kinds) > 1 {
			k := c.getTree(m.kind, bits.Len(uint(len(s.kinds)-1)))
			if int(k) >= len(s.kinds) {
				return fmt.Errorf("%w: kind %d", wire.ErrMalformed, k)
			}
			kind = uint8(k)
		}
		l := &s.kinds[kind]
		d.pred = slices.Grow(d.pred[:0], l.N)[:l.N]
		clear(d.pred)
		d.q = slices.Grow(d.q[:0], l.N)[:l.N]
		m.touch(&m.kinds[kind], grpWhole)
		if err := d.getValues(out, l, m.kinds[kind].whole, false, uint32(id), kind, t); err != nil {
			return err
		}
		nt.add(s, uint32(id), kind, d.q, t, nil, nil)
		d.emit(out, l, uint32(id), kind, t)
		if c.dec.Overrun() > 64 {
			return wire.ErrTruncated
		}
	}
	nt.sortRecs()
	m.save(nt)
	for i := 1; i < len(nt.recs); i++ {
		if nt.recs[i].id == nt.recs[i-1].id {
			return fmt.Errorf("%w: entity %d twice", wire.ErrMalformed, nt.recs[i].id)
		}
	}
	// The new entities came after the baseline's: in order of id only if
	// none was new.
	if n > 0 {
		slices.SortStableFunc(out.Entities[first:], func(a, b Entity) int { return cmp.Compare(a.ID, b.ID) })
	}
	return nil
}

// predict sets d.pred to r's prediction at t, and sizes d.q.
func (d *Decoder) predict(l *layout, base *table, r *record, t time.Duration) {
	d.hist = base.history(d.s, r, d.hist[:0])
	d.pred = slices.Grow(d.pred[:0], l.N)[:l.N]
	l.pred.Predict(&l.Layout, d.pred, d.hist, t)
	l.clamp(d.pred)
	d.q = slices.Grow(d.q[:0], l.N)[:l.N]
}

// getValues decodes an entity's values against d.pred with models ms into
// d.q, then its earlier samples, which it appends to out.
func (d *Decoder) getValues(out *Decoded, l *layout, ms []intModel, delta bool, id uint32, kind uint8, t time.Duration) error {
	c := &d.c
	prev := false
	for j, k := range l.order {
		if j == l.nvel && l.refine != nil && delta {
			l.refine.Refine(&l.Layout, d.pred, d.q, d.hist, t)
			l.clamp(d.pred)
		}
		r := c.getInt(&ms[k], j > 0 && prev)
		prev = r == 0
		x, ok := l.value(k, r, d.q, d.pred)
		if !ok {
			return fmt.Errorf("%w: entity %d component %d out of range", wire.ErrMalformed, id, k)
		}
		d.q[k] = x
	}
	if l.Earlier == 0 {
		return nil
	}
	km := &d.m.kinds[kind]
	d.m.touch(km, grpEarlyN)
	n := c.getUint(km.earlyN)
	if n > uint64(l.Earlier) {
		return fmt.Errorf("%w: entity %d has %d earlier samples", wire.ErrMalformed, id, n)
	}
	if n > 0 {
		d.m.touch(km, grpEarly)
	}
	d.cur = append(d.cur[:0], d.q...)
	d.eq = slices.Grow(d.eq[:0], l.N)[:l.N]
	cur, q := d.cur, d.eq
	for range n {
		age := time.Duration(c.getUint(km.earlyAg)) * time.Microsecond
		if age > time.Minute {
			return fmt.Errorf("%w: entity %d: an earlier sample %v before", wire.ErrMalformed, id, age)
		}
		prev := false
		for k := range q {
			r := c.getInt(&km.early[k], prev)
			prev = r == 0
			x, ok := l.value(k, r, q, cur)
			if !ok {
				return fmt.Errorf("%w: entity %d component %d out of range", wire.ErrMalformed, id, k)
			}
			q[k] = x
		}
		d.append(out, l, id, kind, q, t-age)
	}
	return nil
}

// emit appends the entity of values d.q at t to out.
func (d *Decoder) emit(out *Decoded, l *layout, id uint32, kind uint8, t time.Duration) {
	d.append(out, l, id, kind, d.q, t)
}

// append appends to out the entity of values q at t, filled in place.
func (d *Decoder) append(out *Decoded, l *layout, id uint32, kind uint8, q []int64, t time.Duration) {
	d.q32 = slices.Grow(d.q32[:0], len(q))[:len(q)]
	for i, x := range q {
		d.q32[i] = int32(x)
	}
	out.Entities = append(out.Entities, Entity{})
	e := &out.Entities[len(out.Entities)-1]
	e.ID, e.Kind = id, kind
	l.entity(e, d.q32, t)
}

// gone appends to dst the ids of the records of a not in b (both sorted).
func gone(dst []uint32, a, b *table) []uint32 {
	j := 0
	for _, r := range a.recs {
		for j < len(b.recs) && b.recs[j].id < r.id {
			j++
		}
		if j == len(b.recs) || b.recs[j].id != r.id {
			dst = append(dst, r.id)
		}
	}
	return dst
}
