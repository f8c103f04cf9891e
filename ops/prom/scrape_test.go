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
// process CPU time must be there; it may read 0 this early), summed over
// the process's matches, and the tick histogram between two scrapes,
// pooled over them.
func TestScrapeReadsHandler(t *testing.T) {
	snap := Snapshot{}
	snap.Server.Ticks, snap.Server.Overruns, snap.Server.Skipped, snap.Server.Clients = 50, 1, 0, 3
	other := snap
	other.Server.Overruns, other.Server.Skipped, other.Server.Clients = 2, 1, 4
	read := func(s *Snapshot) func(*Snapshot) {
		return func(dst *Snapshot) {
			clients := dst.Clients
			*dst = *s
			dst.Clients = clients
		}
	}
	h := Handler(Process{}, NewCollector(0, read(&snap)), NewCollector(1, read(&other)))
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	before, err := Scrape(ctx, srv.Client(), srv.URL+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if before.Ticks != 100 || before.Overruns != 3 || before.Skipped != 1 || before.Clients != 7 || before.Matches != 2 || before.Goroutines <= 0 || before.RSS <= 0 {
		t.Fatalf("scraped %+v", before)
	}
	// 100 ticks more: 98 under 1 ms in one match, 2 under 5 ms in the
	// other.
	for range 98 {
		snap.Ticks.Count++
		snap.Ticks.Sum += 500 * time.Microsecond
		snap.Ticks.Buckets[3]++ // 500 µs
	}
	for range 2 {
		other.Ticks.Count++
		other.Ticks.Sum += 4 * time.Millisecond
		other.Ticks.Buckets[6]++ // 5 ms
	}
	after, err := Scrape(ctx, srv.Client(), srv.URL+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mean, p99 := after.TickTimes(before)
	if mean != 570*time.Microsecond || p99 != server.TickBounds[6] {
		t.Errorf("tick mean %v, p99 under %v", mean, p99)
	}
	// Two processes' scrapes pool: twice the ticks, the same shares.
	if mean, p99 := after.Add(after).TickTimes(before.Add(before)); mean != 570*time.Microsecond || p99 != server.TickBounds[6] {
		t.Errorf("pooled: tick mean %v, p99 under %v", mean, p99)
	}
	if sum := after.Add(before); sum.Ticks != 200 || sum.Clients != 14 || sum.Matches != 4 {
		t.Errorf("summed %+v", sum)
	}
	if mean, p99 := after.TickTimes(before); mean != 570*time.Microsecond || p99 != server.TickBounds[6] {
		t.Errorf("Add changed its operands: tick mean %v, p99 under %v", mean, p99)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	if _, err := Scrape(ctx, gone.Client(), gone.URL+"/metrics"); err == nil {
		t.Error("a 404 scraped without error")
	}
}
