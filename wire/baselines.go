package wire

import (
	"iter"
	"math/bits"
)

// Baselines is the ring of snapshots a per-client delta codec keeps, each
// found by its tick: the server keeps one per client of what it sent that
// client, the client one of the snapshots it decoded and acknowledged. T is
// the game's table of a snapshot as its client rebuilds it. The ring holds
// the last n tables pushed; a tick older than those is no longer found, and
// a snapshot against it must go whole.
type Baselines[T any] struct {
	tables []T
	ticks  []uint64 // each table's tick; 0: unused
	next   int      // the oldest table, the next to reuse
	newest uint64
}

// NewBaselines returns an empty ring of n tables.
func NewBaselines[T any](n int) Baselines[T] {
	return Baselines[T]{tables: make([]T, n), ticks: make([]uint64, n)}
}

// Len returns the number of tables the ring holds at most (0: the zero
// Baselines, which holds none until replaced by NewBaselines).
func (b *Baselines[T]) Len() int { return len(b.tables) }

// Find returns the table of tick, or nil if the ring does not hold it (tick
// 0 never is).
func (b *Baselines[T]) Find(tick uint64) *T {
	if tick == 0 {
		return nil
	}
	for i, t := range b.ticks {
		if t == tick {
			return &b.tables[i]
		}
	}
	return nil
}

// Push makes the oldest table the one of tick and returns it as it was, for
// the caller to fill in: it may be the baseline the new table is rebuilt
// from. The ring must have been made by NewBaselines.
func (b *Baselines[T]) Push(tick uint64) *T {
	i := b.next
	b.next = (b.next + 1) % len(b.tables)
	b.ticks[i] = tick
	b.newest = max(b.newest, tick)
	return &b.tables[i]
}

// All yields the tables held, with their ticks, oldest pushed first:
// pushing them in that order into an empty ring of the same length makes a
// copy of b.
func (b *Baselines[T]) All() iter.Seq2[uint64, *T] {
	return func(yield func(uint64, *T) bool) {
		for k := range b.tables {
			i := (b.next + k) % len(b.tables)
			if b.ticks[i] != 0 && !yield(b.ticks[i], &b.tables[i]) {
				return
			}
		}
	}
}

// Newest returns the newest tick pushed (0: none).
func (b *Baselines[T]) Newest() uint64 { return b.newest }

// RoundDiv returns a/b rounded to the nearest integer, halves away from
// zero (b > 0): the rounding with which both sides of a delta codec
// extrapolate a quantised baseline, so they agree to the unit.
func RoundDiv(a, b int64) int64 {
	if a >= 0 {
		return (a + b/2) / b
	}
	return -((-a + b/2) / b)
}

// Isqrt returns ⌊√n⌋, 0 for n ≤ 0, in integers alone (Newton's method):
// the same on every machine, as a delta codec's predictions must be.
func Isqrt(n int64) int64 {
	if n <= 0 {
		return 0
	}
	x := uint64(n)
	r := uint64(1) << ((bits.Len64(x) + 1) / 2)
	for {
		next := (r + x/r) / 2
		if next >= r {
			return int64(r)
		}
		r = next
	}
}
