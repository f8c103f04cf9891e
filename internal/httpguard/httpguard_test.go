package httpguard

import (
	"bufio"
	"io"
	"net"
	"net/http"
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

// serveCapped serves "ok" on loopback behind a Listener of max connections.
func serveCapped(t *testing.T, max int) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(ln, max)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
		ConnState: l.ConnState, ReadHeaderTimeout: time.Minute}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	return l, ln.Addr().String()
}

// get sends a request on c and reports whether a response came.
func get(c net.Conn) bool {
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
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

// At the cap, a new connection closes the longest idle keep-alive and is
// served; with none idle, it is closed unserved.
func TestListenerCap(t *testing.T) {
	l, addr := serveCapped(t, 2)
	idle := func(n int) func() bool {
		return func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.idle) == n }
	}
	a, b := dial(t, addr), dial(t, addr)
	if !get(a) || !get(b) {
		t.Fatal("the first two connections were not served")
	}
	waitFor(t, "two idle connections", idle(2))
	c := dial(t, addr)
	if !get(c) {
		t.Fatal("a third connection was not served past idle ones")
	}
	if _, err := a.Read(make([]byte, 1)); err == nil {
		t.Fatal("the longest idle connection is still open")
	}
	// Two new connections that began a request header (not idle) fill it.
	b.Close()
	c.Close()
	waitFor(t, "no connection open", func() bool { open, _, _ := l.Stats(); return open == 0 })
	e, f := dial(t, addr), dial(t, addr)
	io.WriteString(e, "GET / HTTP/1.1\r\n")
	io.WriteString(f, "GET / HTTP/1.1\r\n")
	waitFor(t, "two connections open", func() bool { open, _, _ := l.Stats(); return open == 2 })
	if get(dial(t, addr)) {
		t.Fatal("a connection past the cap with none idle was served")
	}
	if open, evicted, refused := l.Stats(); open != 2 || evicted != 1 || refused != 1 {
		t.Fatalf("open %d, evicted %d, refused %d; want 2, 1, 1", open, evicted, refused)
	}
	io.WriteString(e, "Host: x\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(e), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a busy connection was cut: %v", err)
	}
}
