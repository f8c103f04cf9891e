package prom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scraped is what a server's /metrics (Handler) said at one moment, read
// back by Scrape: for a load test or a monitor that compares two moments.
// The figures of a process's matches are summed (its tick histograms
// pooled), and Add sums those of several processes.
type Scraped struct {
	Ticks, Overruns, Skipped uint64 // tether_server_ticks_total and the like
	Clients                  int    // connected now
	Matches                  int    // the matches it hosts
	Goroutines               int    // the process's, at the scrape
	CPU                      time.Duration
	RSS                      float64 // resident memory, bytes

	tickCount uint64
	tickSum   float64   // seconds
	bounds    []float64 // the tick histogram's bucket bounds, seconds
	buckets   []uint64  // cumulative counts by bounds
}

// maxScrape bounds the metrics read: a tether server's are a few kilobytes.
const maxScrape = 1 << 20

// Scrape reads the metrics served at url (http://HOST:PORT/metrics) with c.
func Scrape(ctx context.Context, c *http.Client, url string) (Scraped, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Scraped{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return Scraped{}, err
	}
	defer func() {
		io.Copy(io.Discard, resp.Body) // so the connection is kept for the next scrape
		resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return Scraped{}, fmt.Errorf("tether/prom: %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(io.LimitReader(resp.Body, maxScrape))
	if err != nil {
		return Scraped{}, fmt.Errorf("tether/prom: %s: %w", url, err)
	}
	var missing []error
	value := func(name string) (v float64) {
		f := fams[name]
		if f == nil || len(f.Metric) == 0 {
			missing = append(missing, fmt.Errorf("tether/prom: %s has no %s", url, name))
			return 0
		}
		for _, m := range f.Metric {
			v += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
		return v
	}
	s := Scraped{
		Ticks: uint64(value("tether_server_ticks_total")), Overruns: uint64(value("tether_server_tick_overruns_total")),
		Skipped: uint64(value("tether_server_ticks_skipped_total")), Clients: int(value("tether_server_clients")),
		Goroutines: int(value("go_goroutines")), CPU: time.Duration(value("process_cpu_seconds_total") * float64(time.Second)),
		RSS: value("process_resident_memory_bytes"),
	}
	f := fams["tether_server_tick_seconds"]
	if f == nil || len(f.Metric) == 0 {
		return s, errors.Join(append(missing, fmt.Errorf("tether/prom: %s has no tether_server_tick_seconds", url))...)
	}
	s.Matches = len(f.Metric)
	for _, m := range f.Metric {
		var one Scraped
		h := m.GetHistogram()
		one.tickCount, one.tickSum = h.GetSampleCount(), h.GetSampleSum()
		for _, b := range h.GetBucket() {
			one.bounds = append(one.bounds, b.GetUpperBound())
			one.buckets = append(one.buckets, b.GetCumulativeCount())
		}
		s.addTicks(one)
	}
	return s, errors.Join(missing...)
}

// Add returns the sum of s and t, scraped from two processes at about the
// same time: their counts summed, their tick histograms pooled.
func (s Scraped) Add(t Scraped) Scraped {
	s.buckets = slices.Clone(s.buckets)
	s.Ticks += t.Ticks
	s.Overruns += t.Overruns
	s.Skipped += t.Skipped
	s.Clients += t.Clients
	s.Matches += t.Matches
	s.Goroutines += t.Goroutines
	s.CPU += t.CPU
	s.RSS += t.RSS
	s.addTicks(t)
	return s
}

// addTicks adds t's tick histogram to s's; both have the same bounds
// (server.TickBounds) unless one is empty.
func (s *Scraped) addTicks(t Scraped) {
	if s.bounds == nil {
		s.bounds, s.buckets = t.bounds, slices.Clone(t.buckets)
	} else {
		for i := range min(len(s.buckets), len(t.buckets)) {
			s.buckets[i] += t.buckets[i]
		}
	}
	s.tickCount += t.tickCount
	s.tickSum += t.tickSum
}

// TickTimes returns the mean time of the ticks run between an earlier
// scrape and s, and the histogram bound under which the 99th percentile of
// them fell (-1 above the largest bound); both 0 if none ran.
func (s Scraped) TickTimes(earlier Scraped) (mean, p99 time.Duration) {
	n := s.tickCount - earlier.tickCount
	if n == 0 {
		return 0, 0
	}
	mean = time.Duration((s.tickSum - earlier.tickSum) / float64(n) * float64(time.Second))
	for i, c := range s.buckets {
		if i < len(earlier.buckets) {
			c -= earlier.buckets[i]
		}
		if float64(c) >= 0.99*float64(n) {
			return mean, time.Duration(s.bounds[i] * float64(time.Second))
		}
	}
	return mean, -1
}
