package prom_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/tether-net/tether/ops/prom"
)

// A Collector reads the server's plain statistics at every scrape; a real
// server fills the Snapshot inside server.UDP.Do.
func Example() {
	h := prom.Handler(prom.NewCollector(func(s *prom.Snapshot) {
		s.Server.Ticks = 3600
		s.Server.Clients = 22
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, l := range strings.Split(string(body), "\n") {
		if l == "tether_server_ticks_total 3600" || l == "tether_server_clients 22" {
			fmt.Println(l)
		}
	}
	// Output:
	// tether_server_clients 22
	// tether_server_ticks_total 3600
}
