package ops

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tether-net/tether/server"
)

// TickHealth returns a health check (AdminConfig.Health, the Agones
// adapter's) that fails once srv's tick count has not moved for stall: a
// stuck tick loop is the one failure a live process cannot report itself.
func TickHealth(srv *server.UDP, stall time.Duration) func() error {
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
		if d := time.Since(moved); d > stall {
			return fmt.Errorf("tether/ops: tick loop stalled: no tick for %v", d.Round(time.Second))
		}
		return nil
	}
}

// Drain moves l to Draining and the transports of srvs (the process's
// matches) to admitting nobody, then lets the matches go on until every
// client has left, grace has passed or ctx ends (a second signal, say),
// logging each step to log. The caller then closes srvs, which sends the
// clients still connected netcode's disconnect packets.
func Drain(ctx context.Context, l *Lifecycle, grace time.Duration, log *slog.Logger, srvs ...*server.UDP) {
	l.Drain()
	connected := func() (n int) {
		for _, srv := range srvs {
			for _, t := range srv.Transports() {
				t.RefuseNew(true)
				n += t.NumConnected()
			}
		}
		return n
	}
	n := connected()
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
			log.Info("grace period over", "clients", connected())
			return
		case <-ctx.Done():
			log.Info("stopping at once", "clients", connected())
			return
		case <-poll.C:
			if connected() == 0 {
				log.Info("every client left")
				return
			}
		}
	}
}
