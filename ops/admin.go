package ops

import (
	"fmt"
	"net/http"
	"net/http/pprof"

	"github.com/tether-net/tether/internal/httpguard"
)

// AdminConfig configures Handler. The zero value serves /healthz and
// /readyz only.
type AdminConfig struct {
	// Health reports whether the process is live (nil: always); /healthz
	// answers 503 with its error otherwise.
	Health func() error
	// Metrics, if set, serves /metrics (package ops/prom).
	Metrics http.Handler
	// Pprof serves net/http/pprof under /debug/pprof/.
	Pprof bool
	// Hosts are the host names (without port) a request's Host header may
	// name besides an IP address and "localhost", which are always
	// accepted (probes and scrapers name the address). Any other Host is
	// refused with 421 Misdirected Request, so that a page that re-points
	// its own name at this address (DNS rebinding) cannot read the
	// metrics or profiles, or start a trace.
	Hosts []string
}

// Handler returns the admin endpoints of a process whose lifecycle is l,
// behind the Host check of cfg.Hosts.
func Handler(l *Lifecycle, cfg AdminConfig) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if cfg.Health != nil {
			if err := cfg.Health(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		s := l.State()
		if !s.Accepting() {
			http.Error(w, s.String(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, s)
	})
	if cfg.Metrics != nil {
		mux.Handle("GET /metrics", cfg.Metrics)
	}
	if cfg.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpguard.HostAllowed(r.Host, cfg.Hosts) {
			http.Error(w, "tether/ops: unknown host "+r.Host, http.StatusMisdirectedRequest)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
