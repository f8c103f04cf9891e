package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// get requests path from addr with the given Host header.
func get(t *testing.T, addr, host, path string) int {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A page on another site that re-points its name at the view (DNS
// rebinding) sends its own name as Host: refused, for the page and the
// WebSocket alike.
func TestHostAllowList(t *testing.T) {
	addr := serve(t, NewHubConfig(HubConfig{Hosts: []string{"pitch.example"}}))
	for host, want := range map[string]int{
		addr:                      http.StatusOK,
		"localhost:8080":          http.StatusOK,
		"[::1]:8080":              http.StatusOK,
		"192.0.2.7":               http.StatusOK,
		"pitch.example:8080":      http.StatusOK,
		"PITCH.example.":          http.StatusOK,
		"rebind.attacker.example": http.StatusMisdirectedRequest,
		"attacker.example:8080":   http.StatusMisdirectedRequest,
	} {
		if got := get(t, addr, host, "/"); got != want {
			t.Errorf("Host %q: status %d, want %d", host, got, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws://"+addr+"/ws", &websocket.DialOptions{Host: "attacker.example:8080"})
	if err == nil || resp == nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("WebSocket with a foreign Host: %v", err)
	}
}

// WebSockets beyond MaxPages, or beyond MaxPagesPerAddr from one address
// (so that one visitor cannot lock everyone else out of MaxPages), are
// refused with 503 until one of them leaves.
func TestMaxPages(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  HubConfig
		free func(h *Hub) bool // whether the first page's place is free again
	}{
		// Freed when the handler returns, after the page leaves Stats.
		{"MaxPages", HubConfig{MaxPages: 2}, func(h *Hub) bool { return len(h.slots) < 2 }},
		{"MaxPagesPerAddr", HubConfig{MaxPagesPerAddr: 2}, func(h *Hub) bool {
			h.addrMu.Lock()
			defer h.addrMu.Unlock()
			return h.pagesByAddr[netip.MustParseAddr("127.0.0.1")] < 2
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := NewHubConfig(c.cfg)
			addr := serve(t, h)
			a := dial(t, addr)
			dial(t, addr)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, resp, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil); err == nil || resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("third page: %v", err)
			}
			if h.Stats().RefusedPages != 1 {
				t.Fatalf("stats %+v", h.Stats())
			}
			a.Close(websocket.StatusNormalClosure, "")
			waitFor(t, "a free page place", func() bool { return c.free(h) })
			dial(t, addr)
		})
	}
}

// A page sending beyond MaxInputHz has the excess ignored, and is cut off
// once the excess reaches twice the rate.
func TestInputRate(t *testing.T) {
	h := NewHubConfig(HubConfig{MaxInputHz: 10})
	addr := serve(t, h)
	c := dial(t, addr)
	read(t, c) // the pitch
	for range 25 {
		write(t, c, `{"type":"keys","up":true}`)
	}
	waitFor(t, "25 messages counted", func() bool { s := h.Stats(); return s.Inputs+s.InputsLimited == 25 })
	if s := h.Stats(); s.Inputs > 12 || s.InputsLimited < 13 {
		t.Fatalf("25 messages at once with MaxInputHz 10: %+v", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 40 {
		if c.Write(ctx, websocket.MessageText, []byte(`{"type":"keys"}`)) != nil {
			break
		}
	}
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("flooding page: %v, want closed for policy violation", err)
			}
			break
		}
	}
}

// The play endpoints (HubConfig.Play) are behind the same Host check as
// the view.
func TestPlayBehindHostCheck(t *testing.T) {
	play := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	addr := serve(t, NewHubConfig(HubConfig{Play: play}))
	if got := get(t, addr, addr, "/play/token"); got != http.StatusTeapot {
		t.Errorf("own Host: status %d, want the play handler's %d", got, http.StatusTeapot)
	}
	if got := get(t, addr, "rebind.attacker.example", "/play/token"); got != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: status %d, want %d", got, http.StatusMisdirectedRequest)
	}
}

// POST /play/frames takes the page's own posts only: another origin's
// (a CORS simple request, text/plain, no preflight), one without an Origin,
// one not JSON, or a body over 1 MiB is refused before the meter sees it.
func TestPlayFramesOwnOrigin(t *testing.T) {
	taken := 0
	play, err := NewPlay(PlayConfig{Addr: netip.MustParseAddrPort("127.0.0.1:0"), NoWebTransport: true,
		Token:  func() ([]byte, error) { return nil, nil },
		Serve:  func(conn net.PacketConn) error { t.Cleanup(func() { conn.Close() }); return nil },
		Client: func() ([]byte, []byte, error) { return nil, nil, nil },
		Frames: func(body io.Reader) error {
			_, err := io.Copy(io.Discard, body)
			if err == nil {
				taken++
			}
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(play)
	defer hs.Close()
	post := func(origin, contentType string, size int) int {
		req, _ := http.NewRequest("POST", hs.URL+"/play/frames", strings.NewReader(strings.Repeat(" ", size)))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		origin, contentType string
		size, want          int
	}{
		{"http://evil.example", "text/plain", 10, http.StatusForbidden},
		{"http://evil.example", "application/json", 10, http.StatusForbidden},
		{"", "application/json", 10, http.StatusForbidden},
		{hs.URL, "text/plain", 10, http.StatusUnsupportedMediaType},
		{hs.URL, "application/json", 2 << 20, http.StatusRequestEntityTooLarge},
		{hs.URL, "application/json; charset=utf-8", 10, http.StatusNoContent},
	} {
		if got := post(c.origin, c.contentType, c.size); got != c.want {
			t.Errorf("Origin %q, %s, %d bytes: status %d, want %d", c.origin, c.contentType, c.size, got, c.want)
		}
	}
	// Without a Content-Length (chunked), the body is cut at 1 MiB.
	req, _ := http.NewRequest("POST", hs.URL+"/play/frames", io.MultiReader(strings.NewReader(strings.Repeat(" ", 2<<20))))
	req.Header.Set("Origin", hs.URL)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a chunked body of 2 MiB: %v, want %d", err, http.StatusRequestEntityTooLarge)
	} else {
		resp.Body.Close()
	}
	if taken != 1 {
		t.Errorf("%d bodies taken whole, want 1", taken)
	}
}

// Serve keeps at most MaxConns connections open: of 40 idle keep-alives,
// 32 are closed to make room (which ones depends on when each went idle),
// and a request on a new connection is served.
func TestServeCapsConns(t *testing.T) {
	addr := serve(t, NewHubConfig(HubConfig{MaxConns: 8}))
	var conns []net.Conn
	for i := range 40 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "GET /nothing HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		conns = append(conns, c)
	}
	// The closing is asynchronous: a connection still open after 5 s is
	// counted open. The reads wait together (a read after its deadline
	// reports the deadline, not the close).
	until := time.Now().Add(5 * time.Second)
	results := make(chan bool, len(conns))
	for _, c := range conns {
		go func() {
			c.SetReadDeadline(until)
			_, err := c.Read(make([]byte, 1))
			results <- err != nil && !errors.Is(err, os.ErrDeadlineExceeded) // EOF, or reset
		}()
	}
	closed := 0
	for range conns {
		if <-results {
			closed++
		}
	}
	if closed != 32 {
		t.Fatalf("%d of 40 idle connections closed, want 32", closed)
	}
	if got := get(t, addr, addr, "/"); got != http.StatusOK {
		t.Fatalf("GET / past 40 idle connections: %d", got)
	}
}
