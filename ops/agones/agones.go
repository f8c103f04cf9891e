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
	"os"
	"strings"
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
}

// Adapter reports a Lifecycle to the Agones SDK sidecar.
type Adapter struct {
	cfg Config
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
	return &Adapter{cfg: cfg}, nil
}

// Run reports l's transitions until ctx ends: Ready and Allocated as they
// happen (the current state at once), and health pings every HealthEvery
// from Ready on while health (nil: always healthy) passes. It returns the
// context's error, or the first call that failed for good.
func (a *Adapter) Run(ctx context.Context, l *ops.Lifecycle, health func() error) error {
	changes := make(chan ops.State, 4) // a lifecycle makes at most 3 transitions
	l.Watch(func(_, to ops.State) { changes <- to })
	state := l.State()
	if err := a.report(ctx, state); err != nil {
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
		case <-tk.C:
			if state == ops.Starting || (health != nil && health() != nil) {
				continue
			}
			if err := a.call(ctx, "/health"); err != nil {
				return err
			}
		}
	}
}

// report makes the call for entering state s.
func (a *Adapter) report(ctx context.Context, s ops.State) error {
	switch s {
	case ops.Ready:
		return a.call(ctx, "/ready")
	case ops.Allocated:
		return a.call(ctx, "/allocate")
	}
	return nil
}

// Shutdown tells Agones the server is done (POST /shutdown): call it once
// a drained process is about to exit.
func (a *Adapter) Shutdown(ctx context.Context) error { return a.call(ctx, "/shutdown") }

// Start runs Run in a goroutine, logging a failure to log, until the
// returned stop is called; stop then tells Agones the server is done
// (Shutdown, within 5 s) and waits for Run to return. Call stop once the
// drained server has closed: Agones then removes the pod.
func (a *Adapter) Start(l *ops.Lifecycle, health func() error, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.Run(ctx, l, health); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("agones", "err", err.Error())
		}
	}()
	return func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		if err := a.Shutdown(sctx); err != nil {
			log.Error("agones shutdown", "err", err.Error())
		}
		cancel()
		<-done
	}
}

// ErrNoAddress is returned by PublicAddress when the GameServer record's
// address is not an IP address, or it has no port of the name asked for.
var ErrNoAddress = errors.New("tether/ops/agones: no public address")

// gameServer is the part of the GameServer record (GET /gameserver) that
// PublicAddress reads.
type gameServer struct {
	Status struct {
		Address string `json:"address"`
		Ports   []struct {
			Name string `json:"name"`
			Port int    `json:"port"`
		} `json:"ports"`
	} `json:"status"`
}

// PublicAddress returns the address clients reach the GameServer's port
// called port at: the record's status.address and that port's number
// (GET /gameserver). With portPolicy Dynamic that number is the node's port
// forwarded to the container's; with Passthrough it is also the port to
// listen on. It waits, with the calls' backoff, while the sidecar cannot be
// reached or the record has no address yet, until ctx ends.
func (a *Adapter) PublicAddress(ctx context.Context, port string) (addr netip.AddrPort, err error) {
	err = retry(ctx, func() (bool, error) {
		body, err := a.do(ctx, http.MethodGet, "/gameserver", nil)
		if err != nil {
			return refused(err), err
		}
		var gs gameServer
		if err := json.Unmarshal(body, &gs); err != nil {
			return true, fmt.Errorf("tether/ops/agones: GET /gameserver: %w", err)
		}
		if gs.Status.Address == "" {
			return false, errors.New("the record has no address yet")
		}
		addr, err = gs.publicAddress(port)
		return true, err
	})
	return addr, err
}

func (gs *gameServer) publicAddress(port string) (netip.AddrPort, error) {
	ip, err := netip.ParseAddr(gs.Status.Address)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%w: status.address %q is not an IP address", ErrNoAddress, gs.Status.Address)
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

// call POSTs {} to path, retried while the sidecar cannot be reached or
// answers 5xx, until ctx ends.
func (a *Adapter) call(ctx context.Context, path string) error {
	return retry(ctx, func() (bool, error) {
		_, err := a.do(ctx, http.MethodPost, path, []byte("{}"))
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
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return nil, &CallError{Method: method, Path: path, Status: resp.StatusCode, Body: strings.TrimSpace(string(answer[:min(len(answer), 512)]))}
	}
	return answer, err
}
