package agones

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// reports the paths called in order (but reads of the record). Its first
// /ready answers 503, as a sidecar still starting does. GET /gameserver
// serves a record in state (Ready if empty).
type sidecar struct {
	t       *testing.T
	calls   chan string
	readies atomic.Int32
	state   atomic.Value // string
}

func (s *sidecar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/gameserver" {
		st, _ := s.state.Load().(string)
		fmt.Fprintf(w, `{"object_meta":{"name":"gs-1"},"status":{"state":%q,"address":"127.0.0.1"}}`, cmp.Or(st, "Ready"))
		return
	}
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
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if c := sc.next(&pings); c != "/ready" {
		t.Fatalf("after Release: %q, want /ready", c)
	}
	sc.state.Store("Allocated") // a GameServerAllocation
	if c := sc.next(&pings); c != "/allocate" || l.State() != ops.Allocated {
		t.Fatalf("after Agones allocated the server: %q, lifecycle %v; want /allocate, allocated", c, l.State())
	}
	// The sidecar served that /allocate; wait for Run to have read its
	// answer, which cancelling Run below would otherwise cut short (a
	// failed try) on a busy machine.
	for deadline := time.Now().Add(5 * time.Second); a.Calls()[1].OK < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
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
	if c := a.Calls(); c[0].OK != 2 || c[0].Failed != 1 || c[1].OK != 2 || c[2].OK == 0 || c[3].OK != 1 || c[4].OK == 0 {
		t.Errorf("call counts %+v", c)
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
	gs, err := a.GameServer(ctx)
	if err != nil || gets.Load() != 3 {
		t.Fatalf("GameServer: %v after %d calls; want the record after 3", err, gets.Load())
	}
	got, err := gs.PublicAddress("game")
	if err != nil || got != netip.MustParseAddrPort("203.0.113.7:7311") || gs.Meta.Name != "tether-soccer-x7k2p" {
		t.Fatalf("PublicAddress: %v, %v, name %q; want 203.0.113.7:7311 of tether-soccer-x7k2p", got, err, gs.Meta.Name)
	}
	if _, err := gs.PublicAddress("voice"); !errors.Is(err, ErrNoAddress) {
		t.Errorf("a port the record lacks: %v, want ErrNoAddress", err)
	}
	if c := a.Calls(); c[4].Call != "gameserver" || c[4].OK != 2 || c[4].Failed != 1 {
		t.Errorf("calls %+v, want gameserver 2 ok, 1 failed", c)
	}
}

// TestPublicAddressDNS takes the address from status.addresses when
// status.address is a DNS name, as Agones writes on nodes with ExternalDNS.
func TestPublicAddressDNS(t *testing.T) {
	for _, tc := range []struct{ addresses, want string }{
		{`[{"type":"Hostname","address":"node-1"},{"type":"InternalIP","address":"10.0.0.7"},{"type":"ExternalIP","address":"203.0.113.9"}]`, "203.0.113.9:7000"},
		{`[{"type":"ExternalDNS","address":"node-1.example"},{"type":"InternalIP","address":"10.0.0.7"}]`, "10.0.0.7:7000"},
		{`[{"type":"Hostname","address":"node-1"},{"type":"Other","address":"2001:db8::1"}]`, "[2001:db8::1]:7000"},
		{`[{"type":"Hostname","address":"node-1"}]`, ""},
	} {
		var gs GameServer
		if err := json.Unmarshal([]byte(`{"status":{"address":"node-1.example","addresses":`+tc.addresses+`,"ports":[{"name":"game","port":7000}]}}`), &gs); err != nil {
			t.Fatal(err)
		}
		got, err := gs.PublicAddress("game")
		if tc.want == "" {
			if !errors.Is(err, ErrNoAddress) {
				t.Errorf("%s: %v, %v; want ErrNoAddress", tc.addresses, got, err)
			}
		} else if err != nil || got.String() != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.addresses, got, err, tc.want)
		}
	}
}

func TestPublicAddressRefused(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
	}{
		{http.StatusOK, `not json`},
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
		_, err = a.GameServer(ctx)
		var ce *CallError
		if !errors.As(err, &ce) || ce.Status != tc.status {
			t.Errorf("%d %s: %v", tc.status, tc.body, err)
		}
		cancel()
		srv.Close()
	}
}
