package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tether-net/tether/internal/httpguard"
	"github.com/tether-net/tether/ops"
)

// newLogger returns tether serve's logger: log/slog's text or JSON handler on
// w, which writes each record whole, whichever goroutine logs it. JSON
// writes durations as Go writes them ("30s"), as text does.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Value.Kind() == slog.KindDuration {
				a.Value = slog.StringValue(a.Value.Duration().String())
			}
			return a
		}})), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", format)
}

// trailing is a slog.Handler that adds attributes after every record's
// own, so that a record reads as before up to them (the version and the
// GameServer's name on every record, with the message still first).
type trailing struct {
	slog.Handler
	attrs []slog.Attr
}

// withTrailing returns log with attrs (alternating keys and values) added
// after every record's own.
func withTrailing(log *slog.Logger, attrs ...any) *slog.Logger {
	r := slog.NewRecord(time.Time{}, 0, "", 0)
	r.Add(attrs...)
	t := trailing{Handler: log.Handler()}
	r.Attrs(func(a slog.Attr) bool { t.attrs = append(t.attrs, a); return true })
	return slog.New(t)
}

func (t trailing) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(t.attrs...)
	return t.Handler.Handle(ctx, r)
}

func (t trailing) WithAttrs(attrs []slog.Attr) slog.Handler {
	return trailing{t.Handler.WithAttrs(attrs), t.attrs}
}

func (t trailing) WithGroup(name string) slog.Handler {
	return trailing{t.Handler.WithGroup(name), t.attrs}
}

// loggedError is a command's failure already logged as a record: the
// command exits 1 without printing it again.
type loggedError struct{ err error }

func (e loggedError) Error() string { return e.err.Error() }
func (e loggedError) Unwrap() error { return e.err }

// adminAddr resolves -admin (a port without a host means loopback) and
// returns the host names its requests may name: its host and those of
// -admin-hosts (comma-separated names without ports).
func adminAddr(s, extra string) (string, []string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", nil, usagef("-admin %q: want HOST:PORT or :PORT", s)
	}
	host = cmp.Or(host, "127.0.0.1")
	hosts := []string{host}
	if extra != "" {
		for _, h := range strings.Split(extra, ",") {
			h = strings.TrimSpace(h)
			if h == "" || strings.ContainsAny(h, ":/[] ") {
				return "", nil, usagef("-admin-hosts %q: want host names without ports, comma-separated", extra)
			}
			hosts = append(hosts, h)
		}
	}
	return net.JoinHostPort(host, port), hosts, nil
}

// maxAdminConns caps the admin listener's open connections
// (httpguard.Listener): probes and scrapers need a few.
const maxAdminConns = 64

// serveAdmin serves the admin endpoints on addr until stopAdmin: /healthz
// (health), /readyz (the lifecycle accepts players), /metrics, and
// net/http/pprof with pprof; requests must name one of hosts, an IP
// address or localhost. Its connections are capped and timed out apart from the
// page's, so that no load on the page's port keeps a probe out.
func serveAdmin(addr string, hosts []string, lc *ops.Lifecycle, metrics http.Handler, health func() error, pprof bool, log *slog.Logger) (*http.Server, net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-admin: %w", err)
	}
	capped := httpguard.NewListener(ln, maxAdminConns)
	hs := &http.Server{Handler: ops.Handler(lc, ops.AdminConfig{Health: health, Metrics: metrics, Pprof: pprof, Hosts: hosts}),
		ConnState: capped.ConnState, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError)}
	go hs.Serve(capped)
	return hs, ln.Addr(), nil
}

// stopAdmin shuts the admin server down, waiting briefly for scrapes in
// flight.
func stopAdmin(hs *http.Server) {
	if hs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
	}
}
