package reliable

// msgQueue is a first-in first-out queue of messages packed in one buffer,
// which it reuses without allocating once it has grown: drained, it starts
// again at the front; about to grow while messages have been read, it first
// moves the unread ones to the front.
type msgQueue struct {
	buf  []byte
	lens []int
	pos  int // bytes read
	idx  int // messages read
}

// unread returns the number of bytes queued and not yet read.
func (q *msgQueue) unread() int { return len(q.buf) - q.pos }

// push appends a copy of msg.
func (q *msgQueue) push(msg []byte) {
	if q.idx > 0 && len(q.buf)+len(msg) > cap(q.buf) {
		n := copy(q.buf, q.buf[q.pos:])
		q.buf = q.buf[:n]
		k := copy(q.lens, q.lens[q.idx:])
		q.lens = q.lens[:k]
		q.pos, q.idx = 0, 0
	}
	q.buf = append(q.buf, msg...)
	q.lens = append(q.lens, len(msg))
}

// peek returns the length of the next message, and false if there is none.
func (q *msgQueue) peek() (int, bool) {
	if q.idx == len(q.lens) {
		return 0, false
	}
	return q.lens[q.idx], true
}

// pop returns the next message, which must exist (peek); it stays valid until
// the next push.
func (q *msgQueue) pop() []byte {
	l := q.lens[q.idx]
	msg := q.buf[q.pos : q.pos+l]
	q.pos += l
	q.idx++
	if q.idx == len(q.lens) {
		q.buf, q.lens, q.pos, q.idx = q.buf[:0], q.lens[:0], 0, 0
	}
	return msg
}
