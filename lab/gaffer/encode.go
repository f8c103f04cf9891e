package gaffer

import (
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// Encoder is the server half: it keeps, per client, the snapshots it sent (a
// ring of the last Ring, like the article's), and encodes a World's bodies
// against the one the client acknowledged. It is not safe for concurrent
// use.
type Encoder struct {
	f       format
	clients map[int]*sent
	cur     []body // the world being encoded, quantised
	curW    *replica.World
	curTick uint64
	curOK   bool
	changed []int // indices of the bodies changed from the baseline
	stats   Stats
}

// Stats counts what an Encoder did.
type Stats struct {
	Snapshots uint64 // snapshots appended
	Initial   uint64 // of those, coded against the initial state
	Indexed   uint64 // of those, listing their changed bodies by index
	Bits      uint64 // the snapshots' bits, before padding each to a byte
	// Refused counts the Appends of a world whose number of bodies is not
	// Config.Bodies: they append nothing.
	Refused uint64
}

// sent is the snapshots sent to one client, by tick modulo Ring.
type sent struct {
	snaps [Ring]snapshot
}

// snapshot is a snapshot as both sides hold it: every body quantised.
type snapshot struct {
	tick   uint64
	ok     bool
	bodies []body
}

// store makes s the snapshot of tick holding bodies, reusing its memory.
func (s *snapshot) store(tick uint64, bodies []body) {
	s.tick, s.ok = tick, true
	s.bodies = append(s.bodies[:0], bodies...)
}

// NewEncoder returns an Encoder of the format cfg describes. It panics with
// Check's error if cfg is invalid.
func NewEncoder(cfg Config) *Encoder {
	if err := cfg.Check(); err != nil {
		panic(err)
	}
	return &Encoder{f: newFormat(cfg.withDefaults()), clients: map[int]*sent{}}
}

// Join starts keeping the snapshots sent to client; a client that joins
// again starts afresh.
func (e *Encoder) Join(client int) { e.clients[client] = &sent{} }

// Leave forgets client.
func (e *Encoder) Leave(client int) { delete(e.clients, client) }

// Stats returns the counts so far.
func (e *Encoder) Stats() Stats { return e.stats }

// Append appends client's snapshot of w for tick against the snapshot of
// tick acked if the encoder holds it (acked earlier than tick, by less than
// 2^16), else against the initial state (Config.Initial); the snapshot
// carries its baseline's tick, or that it is coded against the initial state,
// for the decoder to find it. A client never joined gets a snapshot against
// the initial state, and nothing is kept for it. A world of other than
// Config.Bodies bodies is refused: nothing is appended (Stats.Refused).
//
// w's bodies are its entities in the order added, body i being entity i;
// only their State.Pos and State.Rot are sent. w is quantised once for all
// the Appends of one tick, so it must not change between them.
func (e *Encoder) Append(dst []byte, client int, tick uint64, w *replica.World, acked uint64) []byte {
	if w.Len() != e.f.n {
		e.stats.Refused++
		return dst
	}
	if !e.curOK || e.curW != w || e.curTick != tick {
		e.cur = e.cur[:0]
		for i := range w.Len() {
			s := &w.Entity(i).State
			e.cur = append(e.cur, e.f.quantise(s.Pos, s.Rot))
		}
		e.curW, e.curTick, e.curOK = w, tick, true
	}
	h := e.clients[client]
	base, initial := e.f.initial, true
	if h != nil && acked < tick && tick-acked < 1<<16 {
		if s := &h.snaps[acked%Ring]; s.ok && s.tick == acked {
			base, initial = s.bodies, false
		}
	}
	e.stats.Snapshots++
	if initial {
		e.stats.Initial++
	}
	bw := wire.NewBitWriter(dst)
	n := bw.Len()
	e.encode(&bw, base, initial, acked)
	e.stats.Bits += uint64(bw.Len() - n)
	dst = bw.Append()
	if h != nil {
		h.snaps[tick%Ring].store(tick, e.cur)
	}
	return dst
}

// encode writes the snapshot of e.cur against base: the header, then the
// changed bodies by a changed bit each or by their indices, whichever is the
// shorter (the article's mock encoding).
func (e *Encoder) encode(w *wire.BitWriter, base []body, initial bool, baseTick uint64) {
	f := &e.f
	w.Bool(initial)
	if !initial {
		w.Bits(baseTick, 16)
	}
	e.changed = e.changed[:0]
	for i := range e.cur {
		if e.cur[i] != base[i] {
			e.changed = append(e.changed, i)
		}
	}
	cost, prev := f.cntBits, -1
	for _, i := range e.changed {
		cost += f.indexBits(i, prev)
		prev = i
	}
	byIndex := cost <= f.n
	w.Bool(!byIndex)
	if byIndex {
		e.stats.Indexed++
		w.Bits(uint64(len(e.changed)), f.cntBits)
		prev = -1
		for _, i := range e.changed {
			if prev < 0 {
				w.Bits(uint64(i), f.idxBits)
			} else {
				f.putOffset(w, i-prev)
			}
			prev = i
			f.putBody(w, &e.cur[i], &base[i])
		}
		return
	}
	next := 0
	for i := range e.cur {
		changed := next < len(e.changed) && e.changed[next] == i
		w.Bool(changed)
		if changed {
			next++
			f.putBody(w, &e.cur[i], &base[i])
		}
	}
}
