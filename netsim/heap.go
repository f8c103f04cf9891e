package netsim

import "time"

// timed is a value due at a time; seq breaks ties in insertion order.
type timed[T any] struct {
	at  time.Duration
	seq uint64
	v   T
}

func (a *timed[T]) before(b *timed[T]) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// timedHeap is a binary min-heap by (at, seq).
type timedHeap[T any] []timed[T]

func (h *timedHeap[T]) push(e timed[T]) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// pop removes and returns the earliest element; h must not be empty.
func (h *timedHeap[T]) pop() timed[T] {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = timed[T]{} // release references
	q = q[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(q) {
			break
		}
		if c+1 < len(q) && q[c+1].before(&q[c]) {
			c++
		}
		if !q[c].before(&q[i]) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	*h = q
	return top
}
