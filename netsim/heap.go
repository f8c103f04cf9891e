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
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&q[p]) {
			break
		}
		q[i] = q[p]
		i = p
	}
	q[i] = e
}

// pop removes and returns the earliest element; h must not be empty.
func (h *timedHeap[T]) pop() timed[T] {
	q := *h
	top := q[0]
	n := len(q) - 1
	last := q[n]
	q[n] = timed[T]{} // release references
	q = q[:n]
	*h = q
	if n == 0 {
		return top
	}
	// Move the hole at the root down to where last belongs.
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && q[c+1].before(&q[c]) {
			c++
		}
		if !q[c].before(&last) {
			break
		}
		q[i] = q[c]
		i = c
	}
	q[i] = last
	return top
}
