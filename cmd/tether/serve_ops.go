package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/ops/agones"
	"github.com/tether-net/tether/ops/prom"
	"github.com/tether-net/tether/server"
)

// newLogger returns tether serve's logger: log/slog's text or JSON handler on w.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", format)
}

// logWriter turns each line written to it into a log record, for code that
// prints lines.
type logWriter struct{ log *slog.Logger }

func (l logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.log.Info(strings.TrimPrefix(line, "tether serve: "))
	}
	return len(p), nil
}

// adminAddr resolves -admin: a port without a host means loopback.
func adminAddr(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", fmt.Errorf("-admin %q: want HOST:PORT or :PORT", s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// serveAdmin serves the admin endpoints of srv on addr until Shutdown:
// /healthz (the tick loop ran within the last stallLimit), /readyz (the
// lifecycle accepts players), /metrics, and net/http/pprof with pprof.
func serveAdmin(addr string, lc *ops.Lifecycle, srv *server.UDP, health func() error, pprof bool) (*http.Server, net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-admin: %w", err)
	}
	metrics := prom.NewCollector(func(s *prom.Snapshot) {
		srv.Do(func(c *server.Server) {
			s.Server = c.Stats()
			for _, i := range c.Clients(nil) {
				if cs, ok := c.ClientStats(i); ok {
					s.Clients = append(s.Clients, cs)
				}
			}
		})
		s.Ticks = srv.TickTimes()
		s.Netcode = srv.Transport().Stats()
		s.WriteErrors = srv.Transport().WriteErrors()
		s.State = lc.State()
	})
	h := ops.Handler(lc, ops.AdminConfig{Health: health, Metrics: prom.Handler(metrics), Pprof: pprof})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	return hs, ln.Addr(), nil
}

// stallLimit: /healthz fails when no tick ran for this long.
const stallLimit = 5 * time.Second

// tickHealth reports the server unhealthy when its tick count has not moved
// for stallLimit.
func tickHealth(srv *server.UDP) func() error {
	var mu sync.Mutex
	var last uint64
	moved := time.Now()
	return func() error {
		var n uint64
		srv.Do(func(c *server.Server) { n = c.Ticks() })
		mu.Lock()
		defer mu.Unlock()
		if n != last {
			last, moved = n, time.Now()
		}
		if d := time.Since(moved); d > stallLimit {
			return fmt.Errorf("tick loop stalled: no tick for %v", d.Round(time.Second))
		}
		return nil
	}
}

// drain stops admitting players and lets the match run until every client
// has left, the grace period ends, or another signal comes; the caller then
// closes the server, which sends the remaining clients netcode's disconnect
// packets.
func drain(srv *server.UDP, lc *ops.Lifecycle, grace time.Duration, signals <-chan os.Signal, log *slog.Logger) {
	lc.Drain()
	srv.Transport().RefuseNew(true)
	n := srv.Transport().NumConnected()
	log.Info("draining: admitting nobody", "grace", grace, "clients", n)
	if n == 0 || grace <= 0 {
		return
	}
	end := time.NewTimer(grace)
	defer end.Stop()
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-end.C:
			log.Info("grace period over", "clients", srv.Transport().NumConnected())
			return
		case s := <-signals:
			log.Info("second signal: stopping at once", "signal", s.String())
			return
		case <-poll.C:
			if srv.Transport().NumConnected() == 0 {
				log.Info("every client left")
				return
			}
		}
	}
}

// agonesAddressWait bounds how long tether serve waits for its GameServer
// record to name its address.
const agonesAddressWait = time.Minute

// agonesAddress returns the public address of the GameServer's port called
// port, as the sidecar's record gives it.
func agonesAddress(a *agones.Adapter, port string) (netip.AddrPort, error) {
	ctx, cancel := context.WithTimeout(context.Background(), agonesAddressWait)
	defer cancel()
	pub, err := a.PublicAddress(ctx, port)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("-agones-port %s: %w", port, err)
	}
	return pub, nil
}

// startAgones reports lc to the Agones SDK sidecar through a until the
// returned function is called, which tells Agones the server shut down.
func startAgones(a *agones.Adapter, lc *ops.Lifecycle, health func() error, log *slog.Logger) (shutdown func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.Run(ctx, lc, health); err != nil && !errors.Is(err, context.Canceled) {
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
	}, nil
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
