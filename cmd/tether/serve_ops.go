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
	"time"

	"github.com/tether-net/tether/internal/httpguard"
	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/ops/prom"
	"github.com/tether-net/tether/server"
)

// newLogger returns tether serve's logger: log/slog's text or JSON handler on
// w, which writes each record whole, whichever goroutine logs it.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", format)
}

// adminAddr resolves -admin: a port without a host means loopback.
func adminAddr(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", fmt.Errorf("-admin %q: want HOST:PORT or :PORT", s)
	}
	return net.JoinHostPort(cmp.Or(host, "127.0.0.1"), port), nil
}

// maxAdminConns caps the admin listener's open connections
// (httpguard.Listener): probes and scrapers need a few.
const maxAdminConns = 64

// serveAdmin serves the admin endpoints of srv on addr until stopAdmin:
// /healthz (health), /readyz (the lifecycle accepts players), /metrics, and
// net/http/pprof with pprof; requests must name addr's host, an IP address
// or localhost. Its connections are capped and timed out apart from the
// page's, so that no load on the page's port keeps a probe out.
func serveAdmin(addr string, lc *ops.Lifecycle, srv *server.UDP, health func() error, pprof bool, log *slog.Logger) (*http.Server, net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-admin: %w", err)
	}
	var hosts []string
	if host, _, err := net.SplitHostPort(addr); err == nil {
		hosts = []string{host}
	}
	metrics := prom.Handler(prom.ServerCollector(srv, lc))
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
