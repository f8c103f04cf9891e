package replica

import (
	"cmp"
	"slices"
	"time"
)

// World is what a game replicates at one tick: every entity, and the
// match's meta (a score). The game fills it each tick (Reset, then Add);
// the Encoder codes it for every client. It is reused from tick to tick, so
// filling it allocates nothing once it has grown.
type World struct {
	ents []Entity
	// Meta is the game's match state (a score, a phase), at most MaxMeta
	// bytes; it goes to a client whenever it differs from its baseline's.
	Meta []byte
	// Regular says the tick's snapshot is a regular one, not one the game
	// asked for besides (server.Game's Step): the server sets it before
	// the game fills the world. Reset leaves it.
	Regular bool

	prepared bool
	at       time.Duration // the time it was prepared at
	version  uint64        // changed by every Reset and Add
	byID     []int32       // indices of ents sorted by id
	ids      []uint32      // the ids of ents, in their order
	q        []int32       // quantised values, N per entity, in order of ents
	qoff     []int32
	dups     int
}

// MaxMeta is the most bytes of World.Meta.
const MaxMeta = 64

// Reset empties the world for the next tick.
func (w *World) Reset() {
	w.ents, w.Meta, w.prepared = w.ents[:0], w.Meta[:0], false
	w.version++
}

// Add adds an entity. Its Earlier samples are not copied: they must stay
// unchanged until the tick's snapshots are encoded. An entity of an id
// already added is dropped at encoding (counted in Stats.Duplicates).
func (w *World) Add(e Entity) {
	w.ents = append(w.ents, e)
	w.prepared = false
	w.version++
}

// Len returns the number of entities added.
func (w *World) Len() int { return len(w.ents) }

// Entity returns the i'th entity added.
func (w *World) Entity(i int) *Entity { return &w.ents[i] }

// prepare sorts the entities by id and quantises them with s, at the
// snapshot's time t (an entity's State.Time, if the game left it zero).
func (w *World) prepare(s *Schema, t time.Duration) {
	if w.prepared && w.at == t {
		return
	}
	w.prepared, w.at = true, t
	w.byID, w.q, w.qoff = w.byID[:0], w.q[:0], w.qoff[:0]
	w.ids = slices.Grow(w.ids[:0], len(w.ents))[:len(w.ents)]
	for i := range w.ents {
		ent := &w.ents[i]
		if ent.State.Time == 0 {
			ent.State.Time = t
		}
		w.ids[i] = ent.ID
		w.qoff = append(w.qoff, int32(len(w.q)))
		if int(ent.Kind) >= len(s.kinds) {
			continue
		}
		w.byID = append(w.byID, int32(i))
		l := &s.kinds[ent.Kind]
		n := len(w.q)
		w.q = slices.Grow(w.q, l.N)[:n+l.N]
		l.quantise(w.q[n:n+l.N], ent)
	}
	byID := func(a, b int32) int { return cmp.Compare(w.ids[a], w.ids[b]) }
	if !slices.IsSortedFunc(w.byID, byID) { // a game often adds in order
		slices.SortStableFunc(w.byID, byID)
	}
	// Drop duplicate ids, keeping the first added.
	w.dups = 0
	out := w.byID[:0]
	for _, i := range w.byID {
		if n := len(out); n > 0 && w.ids[out[n-1]] == w.ids[i] {
			w.dups++
			continue
		}
		out = append(out, i)
	}
	w.byID = out
}

// values returns the quantised values of entity i.
func (w *World) values(s *Schema, i int32) []int32 {
	o := w.qoff[i]
	return w.q[o : o+int32(s.kinds[w.ents[i].Kind].N)]
}
