package prom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scraped is what a server's /metrics (Handler) said at one moment, read
// back by Scrape: for a load test or a monitor that compares two moments.
type Scraped struct {
	Ticks, Overruns, Skipped uint64 // tether_server_ticks_total and the like
	Clients                  int    // connected now
	Goroutines               int    // the process's, at the scrape
	CPU                      time.Duration
	RSS                      float64 // resident memory, bytes

	tickCount uint64
	tickSum   float64 // seconds
	buckets   []*dto.Bucket
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
	value := func(name string) float64 {
		f := fams[name]
		if f == nil || len(f.Metric) == 0 {
			missing = append(missing, fmt.Errorf("tether/prom: %s has no %s", url, name))
			return 0
		}
		m := f.Metric[0]
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
		return 0
	}
	s := Scraped{
		Ticks: uint64(value("tether_server_ticks_total")), Overruns: uint64(value("tether_server_tick_overruns_total")),
		Skipped: uint64(value("tether_server_ticks_skipped_total")), Clients: int(value("tether_server_clients")),
		Goroutines: int(value("go_goroutines")), CPU: time.Duration(value("process_cpu_seconds_total") * float64(time.Second)),
		RSS: value("process_resident_memory_bytes"),
	}
	if f := fams["tether_server_tick_seconds"]; f != nil && len(f.Metric) > 0 {
		h := f.Metric[0].GetHistogram()
		s.tickSum, s.tickCount, s.buckets = h.GetSampleSum(), h.GetSampleCount(), h.GetBucket()
	} else {
		missing = append(missing, fmt.Errorf("tether/prom: %s has no tether_server_tick_seconds", url))
	}
	return s, errors.Join(missing...)
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
	for i, b := range s.buckets {
		c := b.GetCumulativeCount()
		if i < len(earlier.buckets) {
			c -= earlier.buckets[i].GetCumulativeCount()
		}
		if float64(c) >= 0.99*float64(n) {
			return mean, time.Duration(b.GetUpperBound() * float64(time.Second))
		}
	}
	return mean, -1
}
