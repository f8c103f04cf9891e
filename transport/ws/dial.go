package ws

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Conn is a client's net.PacketConn over one WebSocket (or a Datagrams
// session): WriteTo sends each
// datagram as a binary message (whatever the address), and ReadFrom reports
// each message received as coming from the address last written to. Create
// it with Dial.
type Conn struct {
	p      *peer
	in     inbox
	done   chan struct{} // closed when the reader has ended
	mu     sync.Mutex
	remote *net.UDPAddr
	closed bool
}

// clientQueue is how many datagrams a Conn holds for its reader.
const clientQueue = 256

// Dial opens a WebSocket to url (ws:// or wss://) and returns it as a
// net.PacketConn, ready for tether/transport/udp.Dial. ctx bounds the
// opening handshake only.
func Dial(ctx context.Context, url string) (*Conn, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(maxReadLimit)
	return newConn(wsCarrier{c}), nil
}

// NewConn returns a client's net.PacketConn over d (a session of another
// carrier, such as package tether/transport/wt's WebTransport), as Dial
// does over a WebSocket. Close closes d.
func NewConn(d Datagrams) *Conn { return newConn(dgCarrier{d}) }

func newConn(c carrier) *Conn {
	conn := &Conn{p: newPeer(c, nil), in: newInbox(clientQueue), done: make(chan struct{})}
	go conn.p.write()
	go conn.read()
	return conn
}

func (c *Conn) read() {
	defer close(c.done)
	defer c.p.drop()
	for {
		b, text, oversize, err := c.p.c.read(context.Background(), maxReadLimit)
		if err != nil {
			return
		}
		if oversize || text {
			continue
		}
		c.mu.Lock()
		from := c.remote
		c.mu.Unlock()
		c.in.offer(datagram{b: b, from: from}) // a full queue loses it, as a socket would
	}
}

// ReadFrom reads the next datagram. Once the WebSocket has closed it
// returns net.ErrClosed.
func (c *Conn) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case <-c.done:
		select {
		case d := <-c.in.q:
			return copy(b, d.b), d.from, nil
		default:
			return 0, nil, net.ErrClosed
		}
	default:
	}
	n, from, err := c.in.read(b, c.done)
	return n, from, err
}

// WriteTo queues b to be sent; a full queue drops it.
func (c *Conn) WriteTo(b []byte, addr net.Addr) (int, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return 0, net.ErrClosed
	}
	if ua, ok := addr.(*net.UDPAddr); ok {
		c.remote = ua
	}
	c.mu.Unlock()
	c.p.send(b)
	return len(b), nil
}

// Close closes the WebSocket.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	close(c.in.done)
	c.p.drop() // the writer sends what is queued and closes the WebSocket
	<-c.done
	return nil
}

// LocalAddr returns an unspecified address: a WebSocket client has no
// datagram address of its own.
func (c *Conn) LocalAddr() net.Addr { return &net.UDPAddr{} }

// SetDeadline sets the read deadline; writes never wait.
func (c *Conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline sets the deadline of ReadFrom.
func (c *Conn) SetReadDeadline(t time.Time) error { c.in.setDeadline(t); return nil }

// SetWriteDeadline does nothing: writes never wait.
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }
