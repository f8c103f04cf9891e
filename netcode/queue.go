package netcode

import "net/netip"

// outQueue holds encoded packets waiting to be taken by Transmit. Buffers are
// reused, so the steady state does not allocate; it is bounded by limit.
type outQueue struct {
	items []outPacket
	head  int
	n     int
	limit int
}

type outPacket struct {
	to  netip.AddrPort
	buf []byte
}

// slot returns an empty buffer with room for MaxPacketSize bytes, or nil if
// the queue is full.
func (q *outQueue) slot() []byte {
	if q.n == len(q.items) {
		if q.n >= q.limit {
			return nil
		}
		q.items = append(q.items, outPacket{buf: make([]byte, 0, MaxPacketSize)})
	}
	return q.items[q.n].buf[:0]
}

// commit queues b (which must come from slot) for to.
func (q *outQueue) commit(to netip.AddrPort, b []byte) {
	q.items[q.n].to = to
	q.items[q.n].buf = b
	q.n++
}

// pop returns the oldest queued packet; it stays valid until the next slot call.
func (q *outQueue) pop() ([]byte, netip.AddrPort, bool) {
	if q.head == q.n {
		q.head, q.n = 0, 0
		return nil, netip.AddrPort{}, false
	}
	it := q.items[q.head]
	q.head++
	if q.head == q.n {
		q.head, q.n = 0, 0
	}
	return it.buf, it.to, true
}

func (q *outQueue) reset() { q.head, q.n = 0, 0 }
