package udp

import (
	"errors"
	"net"
	"net/netip"
	"time"

	"golang.org/x/net/ipv4"
)

// batchSize is the most datagrams one read or write system call moves.
const batchSize = 64

// readBufSize holds any datagram the protocol sends, with room to spare.
const readBufSize = 2048

// batcher is what x/net's ipv4 and ipv6 PacketConns offer: recvmmsg and
// sendmmsg on Linux.
type batcher interface {
	ReadBatch(ms []ipv4.Message, flags int) (int, error)
	WriteBatch(ms []ipv4.Message, flags int) (int, error)
}

// reader reads datagrams into preallocated buffers: batchSize per system
// call through a batcher, or one per call through packetIO when the
// connection offers no batching (not a *net.UDPConn, or not Linux). Only the
// Server's goroutine uses it.
type reader struct {
	pio  packetIO
	b    batcher
	ms   []ipv4.Message
	bufs [][]byte
	n    []int
	from []netip.AddrPort
	at   []time.Time // arrival, on the Server's clock
}

func newReader(pio packetIO, b batcher) *reader {
	k := 1
	if b != nil {
		k = batchSize
	}
	r := &reader{pio: pio, b: b, ms: make([]ipv4.Message, k), bufs: make([][]byte, k), n: make([]int, k), from: make([]netip.AddrPort, k), at: make([]time.Time, k)}
	for i := range r.bufs {
		r.bufs[i] = make([]byte, readBufSize)
		r.ms[i].Buffers = [][]byte{r.bufs[i]}
		if b != nil {
			r.ms[i].OOB = make([]byte, oobSize)
		}
	}
	return r
}

// canDrain reports whether read(false) can take what the socket holds
// without waiting.
func (r *reader) canDrain() bool { return r.b != nil }

// read reads up to batchSize datagrams (one without batching). With wait it blocks until one arrives
// or the read deadline passes (an error matching os.ErrDeadlineExceeded);
// without, it returns at once, with n = 0 when the socket is empty (only
// when canDrain). Datagram i is then datagram(i), valid until the next read.
// now is the Server's clock: a datagram's arrival is the kernel's timestamp
// on it, as a time on that clock, or the time read returned.
func (r *reader) read(wait bool, now func() time.Time) (n int, err error) {
	if r.b == nil {
		n, from, err := r.pio.read(r.bufs[0])
		if err != nil {
			return 0, err
		}
		r.n[0], r.from[0], r.at[0] = n, from, now()
		return 1, nil
	}
	flags := 0
	if !wait {
		// The read deadline has usually passed when draining, and a past
		// deadline fails a read before it looks at the socket.
		if err := r.pio.conn.SetReadDeadline(time.Time{}); err != nil {
			return 0, err
		}
		flags = dontWait
	}
	n, err = r.b.ReadBatch(r.ms, flags)
	if !wait && isWouldBlock(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	t, wall := now(), time.Now()
	for i := 0; i < n; i++ {
		m := &r.ms[i]
		r.n[i] = m.N
		r.at[i] = t
		if stamp, ok := arrivalStamp(m.OOB[:m.NN]); ok {
			if age := wall.Sub(stamp); age > 0 && age < time.Second {
				r.at[i] = t.Add(-age)
			}
		}
		if ua, ok := m.Addr.(*net.UDPAddr); ok {
			r.from[i] = ua.AddrPort()
		} else {
			r.from[i] = netip.AddrPort{} // refused by the protocol as an unknown address
		}
	}
	return n, nil
}

func (r *reader) datagram(i int) ([]byte, netip.AddrPort, time.Time) {
	return r.bufs[i][:r.n[i]], r.from[i], r.at[i]
}

// writer queues datagrams and sends them batchSize per system call through
// a batcher, or one at a time through packetIO. The Server's mutex guards it.
type writer struct {
	pio    packetIO
	b      batcher
	ms     []ipv4.Message
	bufs   [][]byte
	addrs  []net.UDPAddr
	ips    [][16]byte
	queued int
}

func newWriter(pio packetIO, b batcher) *writer {
	w := &writer{pio: pio, b: b}
	if b != nil {
		w.ms = make([]ipv4.Message, batchSize)
		w.bufs = make([][]byte, batchSize)
		w.addrs = make([]net.UDPAddr, batchSize)
		w.ips = make([][16]byte, batchSize)
		for i := range w.ms {
			w.bufs[i] = make([]byte, 0, readBufSize)
			w.ms[i].Buffers = [][]byte{nil}
			w.ms[i].Addr = &w.addrs[i]
		}
	}
	return w
}

// write queues p for to (or, without batching, sends it at once); it
// returns the number of datagrams that failed to go out.
func (w *writer) write(p []byte, to netip.AddrPort) (failed int) {
	if w.b == nil {
		if w.pio.write(p, to) != nil {
			return 1
		}
		return 0
	}
	if w.queued == len(w.ms) {
		failed = w.flush()
	}
	i := w.queued
	w.bufs[i] = append(w.bufs[i][:0], p...)
	w.ms[i].Buffers[0] = w.bufs[i]
	a := &w.addrs[i]
	if ip := to.Addr().Unmap(); ip.Is4() {
		v4 := ip.As4()
		a.IP = append(w.ips[i][:0], v4[:]...)
	} else {
		w.ips[i] = ip.As16()
		a.IP = w.ips[i][:]
		a.Zone = ip.Zone()
	}
	a.Port = int(to.Port())
	w.queued++
	return failed
}

// flush sends what is queued; it returns the number of datagrams that failed.
func (w *writer) flush() (failed int) {
	for i := 0; i < w.queued; {
		n, err := w.b.WriteBatch(w.ms[i:w.queued], 0)
		i += n
		if err != nil {
			failed++ // the datagram at i could not be sent: skip it
			i++
		}
	}
	w.queued = 0
	return failed
}

func isWouldBlock(err error) bool { return errors.Is(err, errWouldBlock) }
