package agones

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-net/tether/ops"
)

// sidecar is an in-test SDK sidecar: it implements the REST endpoints the
// adapter uses, checks each request is a POST of the empty JSON object, and
// reports the paths called in order. Its first /ready answers 503, as a
// sidecar still starting does.
type sidecar struct {
	t       *testing.T
	calls   chan string
	readies atomic.Int32
}

func (s *sidecar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || string(body) != "{}" || r.Header.Get("Content-Type") != "application/json" {
		s.t.Errorf("%s %s %q (%s): want POST of {} as JSON", r.Method, r.URL.Path, body, r.Header.Get("Content-Type"))
	}
	switch r.URL.Path {
	case "/ready":
		if s.readies.Add(1) == 1 {
			http.Error(w, "sidecar starting", http.StatusServiceUnavailable)
			s.calls <- "/ready 503"
			return
		}
	case "/health", "/allocate", "/shutdown":
	default:
		http.NotFound(w, r)
		s.calls <- r.URL.Path + " 404"
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, "{}")
	s.calls <- r.URL.Path
}

// next returns the next call other than a health ping, counting the pings
// skipped.
func (s *sidecar) next(pings *int) string {
	for c := range s.calls {
		if c != "/health" {
			return c
		}
		*pings++
	}
	return ""
}

func TestAdapterCallSequence(t *testing.T) {
	sc := &sidecar{t: t, calls: make(chan string, 1024)}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	a, err := New(Config{URL: srv.URL, HealthEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l := ops.NewLifecycle()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, l, nil) }()

	pings := 0
	l.Ready()
	if c := sc.next(&pings); c != "/ready 503" {
		t.Fatalf("first call %q, want /ready refused by a starting sidecar", c)
	}
	if c := sc.next(&pings); c != "/ready" {
		t.Fatalf("second call %q, want /ready retried", c)
	}
	if pings != 0 {
		t.Fatalf("%d health pings before Ready", pings)
	}
	for pings < 3 { // pings flow once ready
		if c := <-sc.calls; c != "/health" {
			t.Fatalf("call %q, want health pings", c)
		}
		pings++
	}
	l.Allocate()
	if c := sc.next(&pings); c != "/allocate" {
		t.Fatalf("after Allocate: %q", c)
	}
	l.Drain()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if c := sc.next(&pings); c != "/shutdown" {
		t.Fatalf("after Shutdown: %q", c)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
}

func TestAdapterNoPingsWhenUnhealthy(t *testing.T) {
	sc := &sidecar{t: t, calls: make(chan string, 1024)}
	sc.readies.Store(1) // an up sidecar
	srv := httptest.NewServer(sc)
	defer srv.Close()
	a, _ := New(Config{URL: srv.URL, HealthEvery: time.Millisecond})
	l := ops.NewLifecycle()
	l.Ready()
	var checks atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- a.Run(ctx, l, func() error {
			if checks.Add(1) >= 5 {
				cancel() // enough checks: stop
			}
			return errors.New("tick loop stalled")
		})
	}()
	<-done
	close(sc.calls)
	var got []string
	for c := range sc.calls {
		got = append(got, c)
	}
	if len(got) != 1 || got[0] != "/ready" {
		t.Fatalf("calls %v while unhealthy, want only /ready", got)
	}
}

func TestAdapterRefusedCall(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	a, _ := New(Config{URL: srv.URL})
	var ce *CallError
	if err := a.Shutdown(context.Background()); !errors.As(err, &ce) || ce.Status != 404 || ce.Path != "/shutdown" {
		t.Fatalf("Shutdown against a 404: %v", err)
	}
}

func TestDefaultURL(t *testing.T) {
	t.Setenv("AGONES_SDK_HTTP_PORT", "19358")
	a, _ := New(Config{})
	if a.cfg.URL != "http://localhost:19358" {
		t.Fatalf("URL %q", a.cfg.URL)
	}
	if _, err := New(Config{HealthEvery: -time.Second}); err == nil {
		t.Fatal("negative HealthEvery accepted")
	}
}

// TestPublicAddress reads the address from a sidecar that is first still
// starting (503), then serves a record without an address (the pod not yet
// placed), then the full record as Agones's REST API writes it.
func TestPublicAddress(t *testing.T) {
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/gameserver" {
			t.Errorf("%s %s: want GET /gameserver", r.Method, r.URL.Path)
		}
		switch gets.Add(1) {
		case 1:
			http.Error(w, "sidecar starting", http.StatusServiceUnavailable)
		case 2:
			io.WriteString(w, `{"object_meta":{"name":"tether-soccer-x7k2p"},"status":{"state":"Scheduled","address":"","ports":[]}}`)
		default:
			io.WriteString(w, `{"object_meta":{"name":"tether-soccer-x7k2p"},"status":{"state":"Scheduled","address":"203.0.113.7","ports":[{"name":"admin","port":8080},{"name":"game","port":7311}]}}`)
		}
	}))
	defer srv.Close()
	a, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := a.PublicAddress(ctx, "game")
	if err != nil || got != netip.MustParseAddrPort("203.0.113.7:7311") || gets.Load() != 3 {
		t.Fatalf("PublicAddress: %v, %v after %d calls; want 203.0.113.7:7311 after 3", got, err, gets.Load())
	}
	if _, err := a.PublicAddress(ctx, "voice"); !errors.Is(err, ErrNoAddress) {
		t.Errorf("a port the record lacks: %v, want ErrNoAddress", err)
	}
}

func TestPublicAddressRefused(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
	}{
		{http.StatusOK, `{"status":{"address":"node-1.example","ports":[{"name":"game","port":7000}]}}`}, // a name, not an IP
		{http.StatusNotFound, "no such endpoint"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		}))
		a, err := New(Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err = a.PublicAddress(ctx, "game")
		var ce *CallError
		if tc.status == http.StatusOK && !errors.Is(err, ErrNoAddress) || tc.status != http.StatusOK && !errors.As(err, &ce) {
			t.Errorf("%d %s: %v", tc.status, tc.body, err)
		}
		cancel()
		srv.Close()
	}
}
