package prom

import (
	"math"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/ops/agones"
	"github.com/tether-net/tether/server"
)

// fill sets every uint64 and int field of the struct v points to a distinct
// value from next.
func fill(v reflect.Value, next *uint64) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Uint64:
			*next++
			f.SetUint(*next)
		case reflect.Int:
			*next++
			f.SetInt(int64(*next))
		case reflect.Struct:
			fill(f, next)
		}
	}
}

// Scrape parses what Handler serves; read wraps a Snapshot whose every counter
// differs, so a counter wired to the wrong field shows. The collector takes
// rttSamples round-trip samples first.
func scrape(t *testing.T, s *Snapshot, p Process, rttSamples int) map[string]*dto.MetricFamily {
	t.Helper()
	c := NewCollector(3, func(dst *Snapshot) {
		clients := dst.Clients
		*dst = *s
		dst.Clients = append(clients, s.Clients...)
	})
	var tmp Snapshot
	for range rttSamples {
		c.sampleRTT(&tmp)
	}
	h := Handler(p, c)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	tp := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := tp.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, rec.Body.String())
	}
	return fams
}

func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no %s", name)
	}
metrics:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				found = found || l.GetName() == labels[i] && l.GetValue() == labels[i+1]
			}
			if !found {
				continue metrics
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return 0
}

func TestMetricsAgreeWithStats(t *testing.T) {
	var s Snapshot
	var n uint64
	fill(reflect.ValueOf(&s.Server).Elem(), &n)
	fill(reflect.ValueOf(&s.Netcode).Elem(), &n)
	fill(reflect.ValueOf(&s.Movement).Elem(), &n)
	s.Netcode.BytesIn, s.Netcode.BytesOut = 5000, 7000 // above the unauthenticated bytes
	s.BadInputs = 77
	s.Capacity = 30
	s.WriteErrors = 999
	s.InUse = true
	l := ops.NewLifecycle()
	l.Ready()
	l.Allocate()
	p := Process{Lifecycle: l, Agones: func() []agones.CallCount {
		return []agones.CallCount{{Call: "ready", OK: 2, Failed: 1}, {Call: "health", OK: 40}}
	}}
	s.Ticks = server.TickTimes{Count: 6, Sum: 3 * time.Millisecond, Buckets: [len(server.TickBounds)]uint64{1, 2, 0, 3}}
	s.Clients = []server.ClientStats{{RTT: 30 * time.Millisecond}, {RTT: 10 * time.Millisecond}, {RTT: 20 * time.Millisecond}}
	fams := scrape(t, &s, p, 2)

	want := map[string]float64{
		"tether_server_capacity":              30,
		"tether_game_bad_inputs_total":        77,
		"tether_movement_ahead_total":         float64(s.Movement.Ahead),
		"tether_movement_clamped_total":       float64(s.Movement.Clamped),
		"tether_movement_bad_times_total":     float64(s.Movement.BadTimes),
		"tether_movement_bad_packets_total":   float64(s.Movement.BadPackets),
		"tether_movement_adjustments_total":   float64(s.Movement.Adjustments),
		"tether_server_pings_ignored_total":   float64(s.Server.PingsIgnored),
		"tether_server_ticks_total":           float64(s.Server.Ticks),
		"tether_server_tick_overruns_total":   float64(s.Server.Overruns),
		"tether_server_ticks_skipped_total":   float64(s.Server.Skipped),
		"tether_server_clients":               float64(s.Server.Clients),
		"tether_server_joins_total":           float64(s.Server.Joins),
		"tether_server_pongs_total":           float64(s.Server.Pongs),
		"tether_netcode_timeouts_total":       float64(s.Netcode.TimedOut),
		"tether_netcode_denied_total":         float64(s.Netcode.Denied),
		"tether_netcode_pending":              float64(s.Netcode.Pending),
		"tether_transport_write_errors_total": 999,
		"tether_match_in_use":                 1,
	}
	for name, v := range want {
		if got := value(t, fams, name); got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
	for _, k := range counters { // every plain counter agrees with its field
		if got := value(t, fams, "tether_"+k.name); got != k.value(&s) {
			t.Errorf("%s = %v, want %v", k.name, got, k.value(&s))
		}
	}
	for name, f := range fams { // every match's metric names its match, the process's none
		process := !strings.HasPrefix(name, "tether_") || name == "tether_build_info" ||
			name == "tether_lifecycle_state" || name == "tether_agones_calls_total"
		for _, m := range f.Metric {
			match := ""
			for _, l := range m.Label {
				if l.GetName() == "match" {
					match = l.GetValue()
				}
			}
			if want := map[bool]string{false: "3", true: ""}[process]; match != want {
				t.Errorf("%s: match %q, want %q", name, match, want)
			}
		}
	}
	dirs := []struct {
		name    string
		in, out uint64
		kind    []string
	}{
		{"tether_server_payloads_total", s.Server.PacketsIn, s.Server.PacketsOut, nil},
		{"tether_server_payload_bytes_total", s.Server.BytesIn, s.Server.BytesOut, nil},
		{"tether_netcode_datagrams_total", s.Netcode.PacketsIn, s.Netcode.PacketsOut, nil},
		{"tether_netcode_bytes_total", s.Netcode.BytesIn - s.Netcode.UnauthBytesIn, s.Netcode.BytesOut - s.Netcode.UnauthBytesOut, []string{"kind", "connected"}},
		{"tether_netcode_bytes_total", s.Netcode.UnauthBytesIn, s.Netcode.UnauthBytesOut, []string{"kind", "unauthenticated"}},
	}
	for _, d := range dirs {
		if got := value(t, fams, d.name, append([]string{"direction", "in"}, d.kind...)...); got != float64(d.in) {
			t.Errorf("%s in %v = %v, want %d", d.name, d.kind, got, d.in)
		}
		if got := value(t, fams, d.name, append([]string{"direction", "out"}, d.kind...)...); got != float64(d.out) {
			t.Errorf("%s out %v = %v, want %d", d.name, d.kind, got, d.out)
		}
	}
	var drops float64
	for _, m := range fams["tether_netcode_dropped_total"].Metric {
		drops += m.Counter.GetValue()
	}
	if drops != float64(s.Netcode.Dropped.Total()) || value(t, fams, "tether_netcode_dropped_total", "reason", "over_budget") != float64(s.Netcode.Dropped.OverBudget) {
		t.Errorf("drops %v (over budget %v), want %d (%d)", drops, value(t, fams, "tether_netcode_dropped_total", "reason", "over_budget"), s.Netcode.Dropped.Total(), s.Netcode.Dropped.OverBudget)
	}
	h := fams["tether_server_tick_seconds"].Metric[0].Histogram
	if h.GetSampleCount() != 6 || h.GetSampleSum() != 0.003 {
		t.Errorf("tick histogram count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	budget := false
	for _, b := range h.Bucket {
		budget = budget || b.GetUpperBound() == 0.0167
		want := map[float64]uint64{50e-6: 1, 100e-6: 3, 250e-6: 3, 500e-6: 6, 0.05: 6}
		if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
			t.Errorf("tick bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
	}
	if value(t, fams, "tether_netcode_dropped_total", "reason", "protocol_id") != float64(s.Netcode.Dropped.ProtocolID) {
		t.Error("no drops with reason protocol_id")
	}
	for _, m := range fams["tether_netcode_bytes_total"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "kind" && l.GetValue() != "connected" && l.GetValue() != "unauthenticated" {
				t.Errorf("bytes of kind %q: the kinds must not overlap", l.GetValue())
			}
		}
	}
	// Two samples of three clients: 10, 20 and 30 ms, twice.
	rtt := fams["tether_client_rtt_seconds"].Metric[0].Histogram
	if rtt.GetSampleCount() != 6 || math.Abs(rtt.GetSampleSum()-0.12) > 1e-9 {
		t.Errorf("rtt histogram count %d sum %v, want 6, 0.12", rtt.GetSampleCount(), rtt.GetSampleSum())
	}
	for _, b := range rtt.Bucket {
		want := map[float64]uint64{0.01: 2, 0.025: 4, 0.05: 6, 1: 6}
		if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
			t.Errorf("rtt bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
	}
	if value(t, fams, "tether_agones_calls_total", "call", "ready", "outcome", "failed") != 1 || value(t, fams, "tether_agones_calls_total", "call", "health", "outcome", "ok") != 40 {
		t.Error("agones call counts")
	}
	if value(t, fams, "tether_build_info", "version", ops.Version()) != 1 {
		t.Error("no build info")
	}
	for name := range fams {
		if strings.HasPrefix(name, "process_network_") {
			t.Errorf("%s: counts the namespace's traffic, not the process's", name)
		}
	}
	if !budget {
		t.Error("no tick bucket at the 60 Hz budget")
	}
	if value(t, fams, "tether_lifecycle_state", "state", "allocated") != 1 || value(t, fams, "tether_lifecycle_state", "state", "ready") != 0 {
		t.Error("lifecycle state not allocated")
	}
	if _, ok := fams["process_cpu_seconds_total"]; !ok {
		t.Error("no process metrics")
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"ProtocolID": "protocol_id", "OverBudget": "over_budget", "TokenReused": "token_reused", "IDToken": "id_token", "Auth": "auth"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
