// Package httpguard holds what Tether's HTTP servers (the page of package
// web, the admin endpoints of tether serve) share against hostile clients:
// the Host allow-list that defeats DNS rebinding, and a listener that caps
// the connections a server keeps open.
package httpguard

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// HostAllowed reports whether a request's Host header (host, with or
// without a port) names an IP address, localhost (or a name under
// .localhost) or one of names. A page on another site that re-points its
// own name at a server's address (DNS rebinding) sends that name, which is
// none of these.
func HostAllowed(host string, names []string) bool {
	if name, _, err := net.SplitHostPort(host); err == nil {
		host = name
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return true
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, n := range names {
		if strings.EqualFold(strings.TrimSuffix(n, "."), host) {
			return true
		}
	}
	return false
}

// Listener caps the connections an http.Server keeps open, those it
// hijacked (WebSockets) included, so that idle or slow clients cannot take
// every file descriptor of the process: past the cap, a new connection
// closes the one idle longest, or is itself closed when none is idle. A
// connection is idle while it has no request being served: a keep-alive
// between requests, or a new connection that has not yet sent a whole
// request header (a client that connects and stays silent, or sends its
// header a byte at a time, holds no place a newcomer needs). Set the
// server's ConnState to the Listener's ConnState.
type Listener struct {
	net.Listener
	max int

	mu      sync.Mutex
	open    int                 // accepted, not yet closed
	idle    map[net.Conn]uint64 // idle connections, by when they went idle
	seq     uint64              // counts idle transitions
	evicted uint64
	refused uint64
}

// NewListener returns ln capped at max connections open at once.
func NewListener(ln net.Listener, max int) *Listener {
	return &Listener{Listener: ln, max: max, idle: make(map[net.Conn]uint64)}
}

// Accept waits for the next connection within the cap.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		var oldest net.Conn
		if l.open >= l.max {
			for ic, at := range l.idle {
				if oldest == nil || at < l.idle[oldest] {
					oldest = ic
				}
			}
		}
		switch {
		case l.open < l.max:
		case oldest != nil:
			delete(l.idle, oldest)
			l.evicted++
			// Closed aside: a TLS connection's close may wait to write.
			go oldest.Close()
		default:
			l.refused++
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.open++
		l.mu.Unlock()
		return &conn{Conn: c, l: l}, nil
	}
}

// ConnState tracks which connections are idle (new or between requests);
// it is an http.Server.ConnState.
func (l *Listener) ConnState(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s == http.StateNew || s == http.StateIdle {
		l.seq++
		l.idle[c] = l.seq
	} else {
		delete(l.idle, c)
	}
}

// Stats returns the connections open now, those closed idle to make room
// and those refused for want of it.
func (l *Listener) Stats() (open int, evicted, refused uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.evicted, l.refused
}

// conn is an accepted connection, counted open until its first Close.
type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
