package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-net/tether/ops"
)

// DefaultPort is the SDK sidecar's REST port when AGONES_SDK_HTTP_PORT is
// not set.
const DefaultPort = "9358"

// Config configures an Adapter. Zero fields take the defaults shown.
type Config struct {
	// URL is the SDK sidecar's REST API (default
	// http://localhost:$AGONES_SDK_HTTP_PORT, or port DefaultPort).
	URL string
	// HealthEvery is the interval of health pings (default 2 s; keep it
	// well under the GameServer's health periodSeconds, 5 s by default).
	HealthEvery time.Duration
	// Client makes the calls (default: a client with a 5 s timeout).
	Client *http.Client
	// Log gets a warning for every call that failed, retried or not,
	// naming the GameServer once its record was read (default
	// slog.Default()).
	Log *slog.Logger
}

// Adapter reports a Lifecycle to the Agones SDK sidecar. It is safe for
// concurrent use.
type Adapter struct {
	cfg Config

	mu      sync.Mutex
	calls   [len(callNames)]CallCount
	name    string   // the GameServer's, once read
	counter *counter // the Counter value SetCounter asked for, until reported
	wake    chan struct{}
}

// counter is a Counter's value to report.
type counter struct {
	name            string
	count, capacity int64
}

// callNames are the calls an Adapter makes, named by their path (counter:
// PATCH /v1beta1/counters/NAME).
var callNames = [...]string{"ready", "allocate", "health", "shutdown", "gameserver", "counter"}

// counterPath is the path of the Counters API (beta), before the Counter's
// name.
const counterPath = "/v1beta1/counters/"

// CallCount counts the tries of one of the sidecar's calls.
type CallCount struct {
	Call       string // ready, allocate, health, shutdown, gameserver (GET /gameserver) or counter
	OK, Failed uint64 // tries answered 2xx; tries that failed (unreachable, or any other answer)
}

// Calls returns the counts of every call, in a fixed order.
func (a *Adapter) Calls() []CallCount {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]CallCount(nil), a.calls[:]...)
}

// count records one try of the call at path and logs a failure.
func (a *Adapter) count(method, path string, err error) {
	call := strings.TrimPrefix(path, "/")
	if strings.HasPrefix(path, counterPath) {
		call = "counter"
	}
	i := slices.Index(callNames[:], call)
	a.mu.Lock()
	if err == nil {
		a.calls[i].OK++
	} else {
		a.calls[i].Failed++
	}
	a.mu.Unlock()
	if err != nil && !errors.Is(err, context.Canceled) {
		a.cfg.Log.Warn("agones call failed", "call", method+" "+path, "err", err.Error(), "gameserver", a.gameServerName())
	}
}

// New returns an Adapter.
func New(cfg Config) (*Adapter, error) {
	if cfg.URL == "" {
		port := os.Getenv("AGONES_SDK_HTTP_PORT")
		if port == "" {
			port = DefaultPort
		}
		cfg.URL = "http://localhost:" + port
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.HealthEvery == 0 {
		cfg.HealthEvery = 2 * time.Second
	}
	if cfg.HealthEvery < 0 {
		return nil, fmt.Errorf("tether/ops/agones: HealthEvery %v: want more than 0", cfg.HealthEvery)
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 5 * time.Second}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	a := &Adapter{cfg: cfg, wake: make(chan struct{}, 1)}
	for i, n := range callNames {
		a.calls[i].Call = n
	}
	return a, nil
}

// SetCounter asks Run to set the GameServer's Counter name (declared in
// its spec.counters) to count of capacity: PATCH /v1beta1/counters/NAME,
// the Counters API (beta), as the high-density pattern's Counter of rooms
// that a GameServerAllocation selects on. It does not wait; Run reports
// the latest value asked for, once, after the transitions before it.
func (a *Adapter) SetCounter(name string, count, capacity int64) {
	a.mu.Lock()
	a.counter = &counter{name, count, capacity}
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// reportCounter reports the Counter value SetCounter asked for last, if
// not yet reported.
func (a *Adapter) reportCounter(ctx context.Context) error {
	a.mu.Lock()
	c := a.counter
	a.counter = nil
	a.mu.Unlock()
	if c == nil {
		return nil
	}
	body, err := json.Marshal(map[string]int64{"count": c.count, "capacity": c.capacity})
	if err != nil {
		return err
	}
	return a.call(ctx, http.MethodPatch, counterPath+url.PathEscape(c.name), body)
}

// Run reports l's transitions until ctx ends: Ready and Allocated as they
// happen (the current state at once), the Counter values of SetCounter, and
// health pings every HealthEvery from Ready on while health (nil: always
// healthy) passes. While l is Ready it also reads the GameServer record
// every HealthEvery and moves l to Allocated when Agones allocated the
// server (a GameServerAllocation). It returns the context's error, or the
// first call that failed for good.
func (a *Adapter) Run(ctx context.Context, l *ops.Lifecycle, health func() error) error {
	changes := make(chan ops.State, 64) // transitions not yet reported; a match reused goes Ready, Allocated, Ready...
	l.Watch(func(_, to ops.State) {
		select {
		case changes <- to:
		default: // dropped: never met, as Run reports each within one call
		}
	})
	state := l.State()
	if err := a.report(ctx, state); err != nil {
		return err
	}
	if err := a.reportCounter(ctx); err != nil {
		return err
	}
	tk := time.NewTicker(a.cfg.HealthEvery)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case state = <-changes:
			if err := a.report(ctx, state); err != nil {
				return err
			}
		case <-a.wake:
			for len(changes) > 0 { // the transitions before the value first
				state = <-changes
				if err := a.report(ctx, state); err != nil {
					return err
				}
			}
			if err := a.reportCounter(ctx); err != nil {
				return err
			}
		case <-tk.C:
			if state == ops.Starting || (health != nil && health() != nil) {
				continue
			}
			if err := a.call(ctx, http.MethodPost, "/health", nil); err != nil {
				return err
			}
			if state == ops.Ready {
				if gs, err := a.get(ctx); err == nil && gs.Status.State == "Allocated" {
					_ = l.Allocate() // refused only if it just began draining
				}
			}
		}
	}
}

// report makes the call for entering state s.
func (a *Adapter) report(ctx context.Context, s ops.State) error {
	switch s {
	case ops.Ready:
		return a.call(ctx, http.MethodPost, "/ready", nil)
	case ops.Allocated:
		return a.call(ctx, http.MethodPost, "/allocate", nil)
	}
	return nil
}

// Shutdown tells Agones the server is done (POST /shutdown): call it once
// a drained process is about to exit.
func (a *Adapter) Shutdown(ctx context.Context) error {
	return a.call(ctx, http.MethodPost, "/shutdown", nil)
}

// Start runs Run in a goroutine, logging a failure to Config.Log, until the
// returned stop is called; stop then tells Agones the server is done
// (Shutdown, within 5 s) and waits for Run to return. Call stop once the
// drained server has closed: Agones then removes the pod.
func (a *Adapter) Start(l *ops.Lifecycle, health func() error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.Run(ctx, l, health); err != nil && !errors.Is(err, context.Canceled) {
			a.cfg.Log.Error("agones: reporting stopped", "err", err.Error(), "gameserver", a.gameServerName())
		}
	}()
	return func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		if err := a.Shutdown(sctx); err != nil {
			a.cfg.Log.Error("agones: shutdown not reported", "err", err.Error(), "gameserver", a.gameServerName())
		}
		cancel()
		<-done
	}
}

func (a *Adapter) gameServerName() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.name
}

// ErrNoAddress is returned by GameServer.PublicAddress when the record has
// no IP address, or no port of the name asked for.
var ErrNoAddress = errors.New("tether/ops/agones: no public address")

// GameServer is the part of the GameServer record (GET /gameserver) a game
// server reads.
type GameServer struct {
	Meta struct {
		Name string `json:"name"` // the GameServer's (and its pod's) name
	} `json:"object_meta"`
	Status struct {
		State string `json:"state"` // Scheduled, Ready, Allocated, Shutdown...
		// Address is the node's address: an IP, or a DNS name on nodes
		// with one (ExternalDNS).
		Address string `json:"address"`
		// Addresses are all the node's addresses, by type (ExternalIP,
		// InternalIP, Hostname, ExternalDNS...).
		Addresses []struct {
			Type    string `json:"type"`
			Address string `json:"address"`
		} `json:"addresses"`
		Ports []struct {
			Name string `json:"name"`
			Port int    `json:"port"`
		} `json:"ports"`
		// Counters are the GameServer's Counters (spec.counters), by name.
		Counters map[string]struct {
			Count    json.Number `json:"count"`
			Capacity json.Number `json:"capacity"`
		} `json:"counters"`
	} `json:"status"`
}

// GameServer reads the GameServer record. It waits, with the calls'
// backoff, while the sidecar cannot be reached (it may start after the
// game server) or the record has no address yet, until ctx ends.
func (a *Adapter) GameServer(ctx context.Context) (*GameServer, error) {
	var gs *GameServer
	err := retry(ctx, func() (bool, error) {
		var err error
		if gs, err = a.get(ctx); err != nil {
			return refused(err), err
		}
		if gs.Status.Address == "" {
			return false, errors.New("the record has no address yet")
		}
		return true, nil
	})
	return gs, err
}

// get makes one GET /gameserver.
func (a *Adapter) get(ctx context.Context) (*GameServer, error) {
	body, err := a.do(ctx, http.MethodGet, "/gameserver", nil)
	if err != nil {
		return nil, err
	}
	gs := new(GameServer)
	if err := json.Unmarshal(body, gs); err != nil {
		return nil, &CallError{Method: http.MethodGet, Path: "/gameserver", Status: http.StatusOK, Body: "not a GameServer record: " + err.Error()}
	}
	a.mu.Lock()
	a.name = gs.Meta.Name
	a.mu.Unlock()
	return gs, nil
}

// PublicAddress returns the address clients reach the GameServer's port
// called port at: the node's IP and that port's number. The IP is
// status.address, or when that is a DNS name the first of
// status.addresses that is an IP, preferring ExternalIP, then InternalIP.
// With portPolicy Dynamic the port is the node's, forwarded to the
// container's; with Passthrough it is also the port to listen on.
func (gs *GameServer) PublicAddress(port string) (netip.AddrPort, error) {
	ip, err := netip.ParseAddr(gs.Status.Address)
	if err != nil {
		for _, typ := range []string{"ExternalIP", "InternalIP", ""} {
			for _, a := range gs.Status.Addresses {
				if typ == "" || a.Type == typ {
					if ip, err = netip.ParseAddr(a.Address); err == nil {
						break
					}
				}
			}
			if err == nil {
				break
			}
		}
	}
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%w: status.address %q is not an IP address, nor is any of status.addresses", ErrNoAddress, gs.Status.Address)
	}
	for _, p := range gs.Status.Ports {
		if p.Name == port && p.Port > 0 && p.Port <= 0xffff {
			return netip.AddrPortFrom(ip.Unmap(), uint16(p.Port)), nil
		}
	}
	return netip.AddrPort{}, fmt.Errorf("%w: status.ports has no port %q", ErrNoAddress, port)
}

// CallError is a call the sidecar refused.
type CallError struct {
	Method string
	Path   string
	Status int
	Body   string
}

func (e *CallError) Error() string {
	return fmt.Sprintf("tether/ops/agones: %s %s: %d %s", e.Method, e.Path, e.Status, e.Body)
}

// call sends body (nil: {}) to path, retried while the sidecar cannot be
// reached or answers 5xx, until ctx ends.
func (a *Adapter) call(ctx context.Context, method, path string, body []byte) error {
	if body == nil {
		body = []byte("{}")
	}
	return retry(ctx, func() (bool, error) {
		_, err := a.do(ctx, method, path, body)
		return err == nil || refused(err), err
	})
}

// refused reports whether err is an answer that retrying will not change
// (4xx).
func refused(err error) bool {
	var ce *CallError
	return errors.As(err, &ce) && ce.Status < 500
}

// retry calls try until it is done, waiting 100 ms after the first failed
// try and twice as long after each next one, up to 2 s, until ctx ends; it
// returns the last try's error.
func retry(ctx context.Context, try func() (done bool, err error)) error {
	wait := 100 * time.Millisecond
	for {
		done, err := try()
		if done {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// do makes one call, sending body as JSON if it is not nil, and returns
// the answer's body (up to 64 KiB).
func (a *Adapter) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.cfg.URL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.cfg.Client.Do(req)
	if err != nil {
		a.count(method, path, err)
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		err = &CallError{Method: method, Path: path, Status: resp.StatusCode, Body: strings.TrimSpace(string(answer[:min(len(answer), 512)]))}
	}
	a.count(method, path, err)
	if err != nil {
		return nil, err
	}
	return answer, nil
}
