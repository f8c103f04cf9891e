package agones

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
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

// CallError is a call the sidecar refused.
type CallError struct {
	Path   string
	Status int
	Body   string
}

func (e *CallError) Error() string {
	return fmt.Sprintf("tether/ops/agones: POST %s: %d %s", e.Path, e.Status, e.Body)
}

// call POSTs {} to path, retrying with backoff (100 ms, doubling to 2 s)
// while the sidecar cannot be reached or answers 5xx, until ctx ends.
func (a *Adapter) call(ctx context.Context, path string) error {
	wait := 100 * time.Millisecond
	for {
		err := a.post(ctx, path)
		var ce *CallError
		if err == nil || (errors.As(err, &ce) && ce.Status < 500) {
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

func (a *Adapter) post(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.cfg.URL+path, bytes.NewReader([]byte("{}")))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.cfg.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return &CallError{Path: path, Status: resp.StatusCode, Body: strings.TrimSpace(string(body))}
	}
	return nil
}
