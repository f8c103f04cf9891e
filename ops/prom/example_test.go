package prom_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/tether-net/tether/ops/prom"
)

// A Collector reads a match's plain statistics at every scrape; a real
// server fills the Snapshot inside server.UDP.Do. Each of a process's
// matches has its own, labelled with its number.
func Example() {
	h := prom.Handler(prom.Process{}, prom.NewCollector(0, func(s *prom.Snapshot) {
		s.Server.Ticks = 3600
		s.Server.Clients = 22
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "tether_server_ticks_total") || strings.HasPrefix(l, "tether_server_clients") {
			fmt.Println(l)
		}
	}
	// Output:
	// tether_server_clients{match="0"} 22
	// tether_server_ticks_total{match="0"} 3600
}
