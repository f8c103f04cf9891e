package netsim

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// Router is a server's socket shared by many emulated links: datagrams to
// each routed peer go through that peer's own Direction (a PacketConn over
// the shared socket, as NewPacketConn); datagrams to any other address, and
// reads, pass straight through. Wrap each client's own socket with its link's
// other direction. Router is safe for concurrent use.
type Router struct {
	raw *net.UDPConn
	mu  sync.Mutex
	out map[netip.AddrPort]*PacketConn
}

var _ net.PacketConn = (*Router)(nil)

// NewRouter returns a Router over raw, which it then owns.
func NewRouter(raw *net.UDPConn) *Router {
	return &Router{raw: raw, out: map[netip.AddrPort]*PacketConn{}}
}

// Route sends the datagrams to peer to through direction d, its random
// streams seeded from seed (d is validated as by NewPacketConn).
func (r *Router) Route(to netip.AddrPort, d Direction, seed uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out[to] = NewPacketConn(shared{r.raw}, d, seed)
}

// ReadFrom reads from the shared socket.
func (r *Router) ReadFrom(b []byte) (int, net.Addr, error) { return r.raw.ReadFrom(b) }

// WriteTo writes b to addr through addr's route, if it has one.
func (r *Router) WriteTo(b []byte, addr net.Addr) (int, error) {
	var to netip.AddrPort
	if ua, ok := addr.(*net.UDPAddr); ok {
		to = ua.AddrPort()
		to = netip.AddrPortFrom(to.Addr().Unmap(), to.Port())
	}
	r.mu.Lock()
	c := r.out[to]
	r.mu.Unlock()
	if c == nil {
		return r.raw.WriteTo(b, addr)
	}
	return c.WriteTo(b, addr)
}

// Close closes every route and the socket.
func (r *Router) Close() error {
	r.mu.Lock()
	out := r.out
	r.out = map[netip.AddrPort]*PacketConn{}
	r.mu.Unlock()
	for _, c := range out {
		c.Close()
	}
	return r.raw.Close()
}

// LocalAddr returns the socket's address.
func (r *Router) LocalAddr() net.Addr { return r.raw.LocalAddr() }

// SetDeadline sets the socket's deadlines.
func (r *Router) SetDeadline(t time.Time) error { return r.raw.SetDeadline(t) }

// SetReadDeadline sets the socket's read deadline.
func (r *Router) SetReadDeadline(t time.Time) error { return r.raw.SetReadDeadline(t) }

// SetWriteDeadline sets the socket's write deadline.
func (r *Router) SetWriteDeadline(t time.Time) error { return r.raw.SetWriteDeadline(t) }

// shared is the router's socket as one route sees it: closing a route leaves
// the socket open for the others.
type shared struct{ *net.UDPConn }

func (shared) Close() error { return nil }
