package ws

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tether-net/tether/netsim"
)

// ErrClosed is returned by operations on a closed Listener or Conn.
var ErrClosed = errors.New("tether/transport/ws: closed")

// datagram is one message received, with the address of its peer.
type datagram struct {
	b    []byte
	from *net.UDPAddr
}

// inbox is the bounded queue of datagrams received, read with a deadline.
type inbox struct {
	q    chan datagram
	done chan struct{} // closed on Close

	mu       sync.Mutex
	deadline time.Time
}

func newInbox(n int) inbox { return inbox{q: make(chan datagram, n), done: make(chan struct{})} }

// offer queues d without waiting; it reports false if the queue is full.
func (in *inbox) offer(d datagram) bool {
	select {
	case in.q <- d:
		return true
	default:
		return false
	}
}

// read waits for a datagram until the read deadline, Close, or (if not
// nil) ended is closed.
func (in *inbox) read(b []byte, ended <-chan struct{}) (int, net.Addr, error) {
	select {
	case d := <-in.q:
		return copy(b, d.b), d.from, nil
	default:
	}
	in.mu.Lock()
	dl := in.deadline
	in.mu.Unlock()
	var expired <-chan time.Time
	if !dl.IsZero() {
		wait := time.Until(dl)
		if wait <= 0 {
			return 0, nil, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case d := <-in.q:
		return copy(b, d.b), d.from, nil
	case <-expired:
		return 0, nil, os.ErrDeadlineExceeded
	case <-in.done:
		return 0, nil, net.ErrClosed
	case <-ended:
		return 0, nil, net.ErrClosed
	}
}

func (in *inbox) setDeadline(t time.Time) {
	in.mu.Lock()
	in.deadline = t
	in.mu.Unlock()
}

// Datagrams is a browser's session over another carrier than a WebSocket,
// which a Listener serves as one of its peers (ServeDatagrams) and a Conn
// as its server (NewConn): package tether/transport/wt's WebTransport
// sessions.
type Datagrams interface {
	// ReceiveDatagram waits for the next datagram until ctx is done or the
	// session ends (an error).
	ReceiveDatagram(ctx context.Context) ([]byte, error)
	// SendDatagram sends b, waiting while the carrier's own queue is full;
	// it returns an error once the session has ended.
	SendDatagram(b []byte) error
	// Close ends the session, telling the other side why (empty for a
	// normal close).
	Close(reason string) error
}

// carrier is what a peer's datagrams travel over: a WebSocket or a
// Datagrams session.
type carrier interface {
	// read returns the next message of at most max bytes; oversize
	// reports a longer one (with no bytes), text a WebSocket text message.
	read(ctx context.Context, max int) (b []byte, text, oversize bool, err error)
	write(b []byte) error
	// close ends the carrier, telling the other side why: policy is true
	// for a peer cut off for its rate.
	close(policy bool, reason string)
	closeNow()
}

// wsCarrier is a WebSocket.
type wsCarrier struct{ c *websocket.Conn }

func (w wsCarrier) read(ctx context.Context, max int) ([]byte, bool, bool, error) {
	typ, b, oversize, err := readMessage(ctx, w.c, max)
	return b, err == nil && !oversize && typ != websocket.MessageBinary, oversize, err
}

func (w wsCarrier) write(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return w.c.Write(ctx, websocket.MessageBinary, b)
}

func (w wsCarrier) close(policy bool, reason string) {
	code := websocket.StatusNormalClosure
	if policy {
		code = websocket.StatusPolicyViolation
	}
	w.c.Close(code, reason)
}

func (w wsCarrier) closeNow() { w.c.CloseNow() }

// dgCarrier is a Datagrams session.
type dgCarrier struct{ d Datagrams }

func (d dgCarrier) read(ctx context.Context, max int) ([]byte, bool, bool, error) {
	b, err := d.d.ReceiveDatagram(ctx)
	if len(b) > max {
		return nil, false, true, err
	}
	return b, false, false, err
}

func (d dgCarrier) write(b []byte) error        { return d.d.SendDatagram(b) }
func (d dgCarrier) close(_ bool, reason string) { d.d.Close(reason) }
func (d dgCarrier) closeNow()                   { d.d.Close("") }

// peer is one WebSocket or Datagrams session: a goroutine writes what is
// queued on out.
type peer struct {
	c    carrier
	addr *net.UDPAddr
	// up and down, with ListenerConfig.Link, are the emulated link's
	// directions: the peer's datagrams and those to it.
	up, down *netsim.PacketConn
	out      chan []byte
	gone     chan struct{} // closed when the peer is dropped
	once     sync.Once
}

// outboxSize is how many datagrams wait for one WebSocket's writer.
const outboxSize = 64

// writeTimeout bounds one message's write: a peer that takes no data for
// that long is cut off.
const writeTimeout = 5 * time.Second

func newPeer(c carrier, addr *net.UDPAddr) *peer {
	return &peer{c: c, addr: addr, out: make(chan []byte, outboxSize), gone: make(chan struct{})}
}

// send queues a copy of b; it reports false if the outbox is full or the
// peer is gone.
func (p *peer) send(b []byte) bool {
	select {
	case <-p.gone:
		return false
	default:
	}
	select {
	case p.out <- append([]byte(nil), b...):
		return true
	default:
		return false
	}
}

// write sends queued datagrams until the peer is dropped, then what is
// still queued (a disconnect's packets), and closes its carrier.
func (p *peer) write() {
	defer p.c.closeNow()
	for {
		select {
		case <-p.gone:
			for {
				select {
				case b := <-p.out:
					if !p.writeOne(b) {
						return
					}
				default:
					p.c.close(false, "")
					return
				}
			}
		case b := <-p.out:
			if !p.writeOne(b) {
				return
			}
		}
	}
}

func (p *peer) writeOne(b []byte) bool { return p.c.write(b) == nil }

// drop ends the peer: its writer stops and closes its carrier.
func (p *peer) drop() { p.once.Do(func() { close(p.gone) }) }

// readMessage reads one message into a new slice of at most max bytes. A
// longer message is read to its end (up to the WebSocket's read limit) and
// reported as oversize, with no bytes.
func readMessage(ctx context.Context, c *websocket.Conn, max int) (typ websocket.MessageType, b []byte, oversize bool, err error) {
	typ, r, err := c.Reader(ctx)
	if err != nil {
		return 0, nil, false, err
	}
	buf := make([]byte, max+1)
	n := 0
	for n < len(buf) {
		k, err := r.Read(buf[n:])
		n += k
		if errors.Is(err, io.EOF) {
			return typ, buf[:n:n], false, nil
		}
		if err != nil {
			return 0, nil, false, err
		}
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return 0, nil, false, err
	}
	return typ, nil, true, nil
}
