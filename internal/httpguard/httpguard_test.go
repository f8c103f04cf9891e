package httpguard

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

func TestHostAllowed(t *testing.T) {
	names := []string{"play.example."}
	for host, want := range map[string]bool{
		"127.0.0.1:80": true, "[::1]:9000": true, "localhost": true, "a.localhost:1": true,
		"PLAY.example:443": true, "play.example.": true,
		"evil.example": false, "evil.example:80": false, "": false,
	} {
		if got := HostAllowed(host, names); got != want {
			t.Errorf("%q: %v, want %v", host, got, want)
		}
	}
}

// serveCapped serves "ok" on loopback behind a Listener of max connections;
// a request for /slow is answered once release is closed.
func serveCapped(t *testing.T, max int) (l *Listener, addr string, release chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l = NewListener(ln, max)
	release = make(chan struct{})
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		io.WriteString(w, "ok")
	}),
		ConnState: l.ConnState, ReadHeaderTimeout: time.Minute}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	return l, ln.Addr().String(), release
}

// get sends a request for path on c and reports whether a response came.
func get(c net.Conn, path string) bool {
	io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// closedByServer reports whether the server closed c: a read ends before
// c's deadline.
func closedByServer(c net.Conn) bool {
	_, err := c.Read(make([]byte, 1))
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

// waitFor polls cond until it holds, failing after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// At the cap, a new connection closes the connection idle longest (a
// keep-alive between requests, or one that never sent a whole request
// header) and is served; with every connection serving a request, it is
// closed unserved, and the requests finish.
func TestListenerCap(t *testing.T) {
	l, addr, release := serveCapped(t, 2)
	idle := func(n int) func() bool {
		return func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.idle) == n }
	}
	closeAll := func(cs ...net.Conn) {
		for _, c := range cs {
			c.Close()
		}
		waitFor(t, "no connection open", func() bool { open, _, _ := l.Stats(); return open == 0 })
	}
	// Served one after the other, each idle before the next is dialled:
	// the server may mark them idle in either order otherwise.
	a := dial(t, addr)
	if !get(a, "/") {
		t.Fatal("the first connection was not served")
	}
	waitFor(t, "one idle connection", idle(1))
	b := dial(t, addr)
	if !get(b, "/") {
		t.Fatal("the second connection was not served")
	}
	waitFor(t, "the second idle after the first", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.idle) == 2 && l.seq == 4 // a new, a idle, b new, b idle
	})
	c := dial(t, addr)
	if !get(c, "/") {
		t.Fatal("a third connection was not served past idle ones")
	}
	if !closedByServer(a) {
		t.Fatal("the longest idle connection is still open")
	}
	// A silent connection and one halfway through its header are idle
	// too: the oldest goes first.
	closeAll(b, c)
	silent := dial(t, addr)
	waitFor(t, "one idle connection", idle(1))
	half := dial(t, addr)
	io.WriteString(half, "GET / HTTP/1.1\r\n")
	waitFor(t, "two idle connections", idle(2))
	g := dial(t, addr)
	if !get(g, "/") {
		t.Fatal("a connection past a silent one was not served")
	}
	if !closedByServer(silent) {
		t.Fatal("the silent connection is still open")
	}
	// Two connections whose requests are being served fill it.
	closeAll(half, g)
	e, f := dial(t, addr), dial(t, addr)
	io.WriteString(e, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	io.WriteString(f, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	waitFor(t, "two requests served", func() bool { open, _, _ := l.Stats(); return open == 2 && idle(0)() })
	if get(dial(t, addr), "/") {
		t.Fatal("a connection past the cap with none idle was served")
	}
	if open, evicted, refused := l.Stats(); open != 2 || evicted != 2 || refused != 1 {
		t.Fatalf("open %d, evicted %d, refused %d; want 2, 2, 1", open, evicted, refused)
	}
	close(release)
	for _, busy := range []net.Conn{e, f} {
		if resp, err := http.ReadResponse(bufio.NewReader(busy), nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("a busy connection was cut: %v", err)
		}
	}
}
