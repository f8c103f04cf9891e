package udp

import (
	"net/netip"
	"time"
)

// batchSize is the most datagrams one read or write system call moves.
const batchSize = 64

// readBufSize holds any datagram the protocol sends, with room to spare.
const readBufSize = 2048

// batcher moves many datagrams per system call (recvmmsg and sendmmsg on
// Linux, batch_linux.go) without allocating. Its receive half (recv,
// received) is used by the Server's goroutine only, its send half (queue,
// full, send) under the Server's mutex.
type batcher interface {
	// recv reads up to batchSize datagrams without waiting: n = 0 when the
	// socket is empty.
	recv() (n int, err error)
	// received returns datagram i of the last recv: its payload (valid until
	// the next recv) and its source.
	received(i int) (p []byte, from netip.AddrPort)
	// stamp returns the kernel's arrival time for datagram i of the last
	// recv, or the zero time if it gave none.
	stamp(i int) time.Time
	// queue copies p, for to, into the batch; it reports false if to cannot
	// be reached from this socket. The batch must not be full.
	queue(p []byte, to netip.AddrPort) bool
	full() bool
	// send writes the batch and empties it; it returns the number of
	// datagrams that failed.
	send() (failed int)
}

// reader reads datagrams: a batch per system call through a batcher, or one
// per call through packetIO when the connection offers no batching (not a
// *net.UDPConn, or not Linux). Only the Server's goroutine uses it.
type reader struct {
	pio packetIO
	b   batcher
	at  []time.Time // arrival of each datagram of the last read, on the Server's clock

	// Without batching: the one datagram of the last read.
	buf  []byte
	n    int
	from netip.AddrPort
}

func newReader(pio packetIO, b batcher) *reader {
	r := &reader{pio: pio, b: b}
	if b != nil {
		r.at = make([]time.Time, batchSize)
	} else {
		r.at = make([]time.Time, 1)
		r.buf = make([]byte, readBufSize)
	}
	return r
}

// batched reports whether read takes what the socket holds without waiting.
func (r *reader) batched() bool { return r.b != nil }

// read reads datagrams. When batched it reads up to batchSize without
// waiting, n = 0 when the socket is empty; otherwise it blocks until one
// arrives or the read deadline passes (an error matching
// os.ErrDeadlineExceeded). Datagram i is then datagram(i), valid until the
// next read. now is the Server's clock: a datagram's arrival is the kernel's
// timestamp on it, as a time on that clock, or the time read returned.
func (r *reader) read(now func() time.Time) (n int, err error) {
	if r.b == nil {
		r.n, r.from, err = r.pio.read(r.buf)
		if err != nil {
			return 0, err
		}
		r.at[0] = now()
		return 1, nil
	}
	n, err = r.b.recv()
	if n == 0 || err != nil {
		return 0, err
	}
	t, wall := now(), time.Now()
	for i := range n {
		r.at[i] = t
		if stamp := r.b.stamp(i); !stamp.IsZero() {
			if age := wall.Sub(stamp); age > 0 && age < time.Second {
				r.at[i] = t.Add(-age)
			}
		}
	}
	return n, nil
}

func (r *reader) datagram(i int) ([]byte, netip.AddrPort, time.Time) {
	if r.b == nil {
		return r.buf[:r.n], r.from, r.at[0]
	}
	p, from := r.b.received(i)
	return p, from, r.at[i]
}

// writer sends datagrams: queued and written a batch per system call through
// a batcher, or one at a time through packetIO. The Server's mutex guards it.
type writer struct {
	pio packetIO
	b   batcher
}

// write queues p for to (or, without batching, sends it at once); it
// returns the number of datagrams that failed to go out.
func (w writer) write(p []byte, to netip.AddrPort) (failed int) {
	if w.b == nil {
		if w.pio.write(p, to) != nil {
			return 1
		}
		return 0
	}
	if w.b.full() {
		failed = w.b.send()
	}
	if !w.b.queue(p, to) {
		failed++
	}
	return failed
}

// flush sends what is queued; it returns the number of datagrams that failed.
func (w writer) flush() (failed int) {
	if w.b == nil {
		return 0
	}
	return w.b.send()
}
