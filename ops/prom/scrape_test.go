package prom

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tether-net/tether/server"
)

// Scrape reads back what Handler serves: the counters by their names (the
// process CPU time must be there; it may read 0 this early), and
// the tick histogram between two scrapes.
func TestScrapeReadsHandler(t *testing.T) {
	snap := Snapshot{}
	snap.Server.Ticks, snap.Server.Overruns, snap.Server.Skipped, snap.Server.Clients = 100, 3, 1, 7
	h := Handler(NewCollector(func(dst *Snapshot) {
		clients := dst.Clients
		*dst = snap
		dst.Clients = clients
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	before, err := Scrape(ctx, srv.Client(), srv.URL+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if before.Ticks != 100 || before.Overruns != 3 || before.Skipped != 1 || before.Clients != 7 || before.Goroutines <= 0 || before.RSS <= 0 {
		t.Fatalf("scraped %+v", before)
	}
	// 100 ticks more: 98 under 1 ms, 2 under 5 ms.
	for range 98 {
		snap.Ticks.Count++
		snap.Ticks.Sum += 500 * time.Microsecond
		snap.Ticks.Buckets[3]++ // 500 µs
	}
	for range 2 {
		snap.Ticks.Count++
		snap.Ticks.Sum += 4 * time.Millisecond
		snap.Ticks.Buckets[6]++ // 5 ms
	}
	after, err := Scrape(ctx, srv.Client(), srv.URL+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mean, p99 := after.TickTimes(before)
	if mean != 570*time.Microsecond || p99 != server.TickBounds[6] {
		t.Errorf("tick mean %v, p99 under %v", mean, p99)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	if _, err := Scrape(ctx, gone.Client(), gone.URL+"/metrics"); err == nil {
		t.Error("a 404 scraped without error")
	}
}
