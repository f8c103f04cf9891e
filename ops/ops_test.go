package ops

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestLifecycle(t *testing.T) {
	l := NewLifecycle()
	var seen []string
	l.Watch(func(from, to State) { seen = append(seen, from.String()+">"+to.String()) })
	var te *TransitionError
	if err := l.Allocate(); !errors.As(err, &te) || te.From != Starting || te.To != Allocated {
		t.Fatalf("Allocate in Starting: %v", err)
	}
	if err := l.Ready(); err != nil {
		t.Fatal(err)
	}
	if err := l.Ready(); err == nil {
		t.Fatal("Ready twice allowed")
	}
	if err := l.Allocate(); err != nil {
		t.Fatal(err)
	}
	if err := l.Allocate(); err != nil {
		t.Fatalf("Allocate in Allocated: %v", err)
	}
	if err := l.Release(); err != nil || l.Release() == nil {
		t.Fatalf("Release: %v, then allowed again in Ready", err)
	}
	if err := l.Allocate(); err != nil || l.Match() != 2 {
		t.Fatalf("a second match: %v, Match %d, want 2", err, l.Match())
	}
	select {
	case <-l.Draining():
		t.Fatal("draining before Drain")
	default:
	}
	if !l.Drain() || l.Drain() {
		t.Fatal("Drain: want true once, then false")
	}
	<-l.Draining()
	if err := l.Allocate(); err == nil {
		t.Fatal("Allocate in Draining allowed")
	}
	if got, want := strings.Join(seen, " "), "starting>ready ready>allocated allocated>ready ready>allocated allocated>draining"; got != want {
		t.Fatalf("transitions %q, want %q", got, want)
	}
}

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	return getHost(t, h, "127.0.0.1:9090", path)
}

// getHost is get with the Host header host.
func getHost(t *testing.T, h http.Handler, host, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", path, nil)
	req.Host = host
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, strings.TrimSpace(string(b))
}

func TestHandler(t *testing.T) {
	l := NewLifecycle()
	var sick error
	h := Handler(l, AdminConfig{Health: func() error { return sick }})
	want := func(path string, code int, body string) {
		t.Helper()
		if c, b := get(t, h, path); c != code || b != body {
			t.Fatalf("%s in %v: %d %q, want %d %q", path, l.State(), c, b, code, body)
		}
	}
	want("/healthz", 200, "ok")
	want("/readyz", 503, "starting")
	l.Ready()
	want("/readyz", 200, "ready")
	l.Allocate()
	want("/readyz", 200, "allocated")
	l.Drain()
	want("/readyz", 503, "draining")
	sick = errors.New("tick loop stalled")
	want("/healthz", 503, "tick loop stalled")
	if c, _ := get(t, h, "/metrics"); c != 404 {
		t.Fatalf("/metrics without a handler: %d", c)
	}
	if c, _ := get(t, h, "/debug/pprof/"); c != 404 {
		t.Fatalf("pprof without Pprof: %d", c)
	}
	h = Handler(l, AdminConfig{Pprof: true, Metrics: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "m 1\n") })})
	want("/metrics", 200, "m 1")
	if c, _ := get(t, h, "/debug/pprof/"); c != 200 {
		t.Fatalf("pprof with Pprof: %d", c)
	}
}

// A page that re-points its own name at the admin address (DNS rebinding)
// sends its name as Host: refused on every endpoint; an IP address,
// localhost and the configured names are served.
func TestAdminHostCheck(t *testing.T) {
	l := NewLifecycle()
	l.Ready()
	h := Handler(l, AdminConfig{Pprof: true, Hosts: []string{"gs-1.internal"},
		Metrics: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "m 1\n") })})
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/debug/pprof/", "/debug/pprof/cmdline"} {
		if c, _ := getHost(t, h, "evil.example", path); c != http.StatusMisdirectedRequest {
			t.Errorf("%s, Host evil.example: %d, want %d", path, c, http.StatusMisdirectedRequest)
		}
		for _, host := range []string{"10.0.0.7:9090", "[::1]:9090", "localhost:9090", "gs-1.internal:9090"} {
			if c, _ := getHost(t, h, host, path); c != http.StatusOK {
				t.Errorf("%s, Host %s: %d, want 200", path, host, c)
			}
		}
	}
}
