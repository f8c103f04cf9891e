package netsim

import (
	"net"
	"os"
	"sync"
	"time"
)

// MaxPending bounds the datagrams a PacketConn holds for later delivery;
// copies beyond it are dropped and counted in ConnStats.Overflow.
const MaxPending = 4096

// PacketConn wraps a real net.PacketConn so that datagrams written through it
// are delayed, dropped and duplicated by a Direction model in real time, with
// the time since NewPacketConn as the path's clock. Reads pass straight
// through. Wrap each endpoint with its outgoing direction.
//
// WriteTo never blocks: it copies the datagram, decides its fate and returns
// len(b) even when the model drops it, as a network would. A background
// goroutine writes the copies to the underlying connection when they are due;
// errors from those writes are counted in ConnStats.WriteErrors. Close stops
// the goroutine, discards what is pending and closes the underlying
// connection. PacketConn is safe for concurrent use.
type PacketConn struct {
	conn  net.PacketConn
	start time.Time
	wake  chan struct{} // buffered(1): the queue's head may have changed
	done  chan struct{} // closed by Close
	exit  chan struct{} // closed when the goroutine returns

	mu            sync.Mutex
	path          *Path
	arrivals      []time.Duration // scratch for Path.Send
	queue         timedHeap[datagram]
	seq           uint64
	free          [][]byte // recycled datagram buffers
	writeDeadline time.Time
	closed        bool
	overflow      int64
	writeErrs     int64
}

type datagram struct {
	data []byte
	addr net.Addr
}

var _ net.PacketConn = (*PacketConn)(nil)

// ConnStats counts what a PacketConn did.
type ConnStats struct {
	Path        PathStats // the model's fates of datagrams written
	Overflow    int64     // copies dropped because MaxPending were already waiting
	WriteErrors int64     // failed writes to the underlying connection
}

// NewPacketConn wraps conn, applying out (validated as by LinkConfig.Validate;
// it panics if invalid) to every datagram written, with fates keyed by seed
// and each write's time since NewPacketConn (see Path): real time never repeats
// exactly, so two runs do not see the same fates.
func NewPacketConn(conn net.PacketConn, out Direction, seed uint64) *PacketConn {
	c := &PacketConn{
		conn:  conn,
		start: time.Now(),
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
		exit:  make(chan struct{}),
		path:  NewPath(out, nil, seed),
	}
	go c.run()
	return c
}

// WriteTo schedules b for delivery to addr according to the model.
func (c *PacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, &net.OpError{Op: "write", Net: c.conn.LocalAddr().Network(), Addr: addr, Err: net.ErrClosed}
	}
	if !c.writeDeadline.IsZero() && !time.Now().Before(c.writeDeadline) {
		return 0, &net.OpError{Op: "write", Net: c.conn.LocalAddr().Network(), Addr: addr, Err: os.ErrDeadlineExceeded}
	}
	c.arrivals = c.path.Send(time.Since(c.start), len(b), c.arrivals[:0])
	for _, at := range c.arrivals {
		if len(c.queue) >= MaxPending {
			c.overflow++
			continue
		}
		c.seq++
		c.queue.push(timed[datagram]{at: at, seq: c.seq, v: datagram{append(c.buffer(), b...), addr}})
	}
	if len(c.arrivals) > 0 {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	return len(b), nil
}

// buffer returns an empty recycled buffer, or nil.
func (c *PacketConn) buffer() []byte {
	if n := len(c.free); n > 0 {
		b := c.free[n-1]
		c.free = c.free[:n-1]
		return b
	}
	return nil
}

// run writes queued datagrams when they are due.
func (c *PacketConn) run() {
	defer close(c.exit)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		c.mu.Lock()
		wait := time.Duration(-1)
		for len(c.queue) > 0 && !c.closed {
			if d := c.queue[0].at - time.Since(c.start); d > 0 {
				wait = d
				break
			}
			o := c.queue.pop().v
			c.mu.Unlock()
			_, err := c.conn.WriteTo(o.data, o.addr)
			c.mu.Lock()
			if err != nil {
				c.writeErrs++
			}
			c.free = append(c.free, o.data[:0])
		}
		c.mu.Unlock()
		var due <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			due = timer.C
		}
		select {
		case <-c.done:
			return
		case <-c.wake:
		case <-due:
		}
	}
}

// Close stops delivery, discards pending datagrams and closes the underlying
// connection. It waits for the background goroutine to finish.
func (c *PacketConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return &net.OpError{Op: "close", Net: c.conn.LocalAddr().Network(), Err: net.ErrClosed}
	}
	c.closed = true
	c.queue, c.free = nil, nil
	c.mu.Unlock()
	close(c.done)
	err := c.conn.Close() // unblocks a write in progress
	<-c.exit
	return err
}

// Stats returns the counters so far.
func (c *PacketConn) Stats() ConnStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ConnStats{Path: c.path.Stats(), Overflow: c.overflow, WriteErrors: c.writeErrs}
}

// ReadFrom reads from the underlying connection.
func (c *PacketConn) ReadFrom(b []byte) (int, net.Addr, error) { return c.conn.ReadFrom(b) }

// LocalAddr returns the underlying connection's local address.
func (c *PacketConn) LocalAddr() net.Addr { return c.conn.LocalAddr() }

// SetDeadline sets the read and write deadlines.
func (c *PacketConn) SetDeadline(t time.Time) error {
	c.SetWriteDeadline(t)
	return c.conn.SetReadDeadline(t)
}

// SetReadDeadline sets the underlying connection's read deadline.
func (c *PacketConn) SetReadDeadline(t time.Time) error { return c.conn.SetReadDeadline(t) }

// SetWriteDeadline makes WriteTo fail once t has passed (a zero t never).
// Since WriteTo never blocks, it affects only calls made after t; delayed
// delivery of datagrams already accepted is not affected.
func (c *PacketConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.writeDeadline = t
	c.mu.Unlock()
	return nil
}
