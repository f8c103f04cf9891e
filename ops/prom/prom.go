package prom

import (
	"context"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/ops/agones"
	"github.com/tether-net/tether/server"
)

// Snapshot is a server's statistics at one scrape.
type Snapshot struct {
	Server      server.Stats
	Clients     []server.ClientStats // the connected clients
	Ticks       server.TickTimes
	Netcode     netcode.ServerStats
	WriteErrors uint64 // datagrams the transport failed to send
	InUse       bool   // the match is in use (its lifecycle is Allocated)
	Capacity    int    // player slots, free or taken

	// Movement sums the movement checks of every predicted player the
	// game has had, those that left included (zero for a game without
	// predicted players).
	Movement movement.ServerStats
	// BadInputs counts the game's inputs that did not decode.
	BadInputs uint64
}

// Collector is a prometheus.Collector of one match's Snapshot: every
// metric it reports carries the label match, the match's number in its
// process.
type Collector struct {
	read  func(*Snapshot)
	descs descs // labelled with the match

	mu   sync.Mutex
	snap Snapshot
	rtt  rttHistogram
}

// NewCollector returns a Collector of match number match that calls read
// to fill a Snapshot at every scrape and at every round-trip sample
// (SampleRTT); read may keep Clients' backing array between calls.
func NewCollector(match int, read func(*Snapshot)) *Collector {
	return &Collector{read: read, descs: newDescs(prometheus.Labels{"match": strconv.Itoa(match)})}
}

// ServerConfig says what ServerCollector reads besides the server.
type ServerConfig struct {
	Match     int            // the match's number in its process (label match)
	Lifecycle *ops.Lifecycle // the match's: in use while Allocated (nil: never)
	Capacity  int            // player slots
	// Fill, if set, fills the rest of the Snapshot (the game's Movement
	// and BadInputs); it runs inside srv.Do, so it may read the game.
	Fill func(*Snapshot)
}

// ServerCollector returns a Collector of srv, its connected clients and
// its first transport, with cfg's lifecycle, capacity and the rest: what a
// game server process serves at /metrics.
func ServerCollector(srv *server.UDP, cfg ServerConfig) *Collector {
	return NewCollector(cfg.Match, func(s *Snapshot) {
		srv.Do(func(c *server.Server) {
			s.Server = c.Stats()
			for _, i := range c.Clients(nil) {
				if cs, ok := c.ClientStats(i); ok {
					s.Clients = append(s.Clients, cs)
				}
			}
			if cfg.Fill != nil {
				cfg.Fill(s)
			}
		})
		s.Ticks = srv.TickTimes()
		s.Netcode = srv.Transport().Stats()
		s.WriteErrors = srv.Transport().WriteErrors()
		s.InUse = cfg.Lifecycle != nil && cfg.Lifecycle.State() == ops.Allocated
		s.Capacity = cfg.Capacity
	})
}

// RTTBounds are the upper bounds of the round-trip histogram's buckets.
var RTTBounds = [...]time.Duration{
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 75 * time.Millisecond,
	100 * time.Millisecond, 150 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond,
	500 * time.Millisecond, time.Second,
}

// rttHistogram counts round-trip samples by RTTBounds (the last bucket:
// above them all).
type rttHistogram struct {
	count   uint64
	sum     time.Duration
	buckets [len(RTTBounds) + 1]uint64
}

// SampleRTT adds the round trip of every connected client (Snapshot.Clients)
// to tether_client_rtt_seconds every interval until ctx ends: a histogram of
// samples, whose count grows with time spent connected, so that it sums
// across servers and its rate shows the distribution players met.
func (c *Collector) SampleRTT(ctx context.Context, every time.Duration) {
	tk := time.NewTicker(every)
	defer tk.Stop()
	var s Snapshot
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			c.sampleRTT(&s)
		}
	}
}

// sampleRTT reads a Snapshot into s and adds its clients' round trips.
func (c *Collector) sampleRTT(s *Snapshot) {
	s.Clients = s.Clients[:0]
	c.read(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range s.Clients {
		c.rtt.add(cl.RTT)
	}
}

func (h *rttHistogram) add(d time.Duration) {
	h.count++
	h.sum += d
	i, _ := slices.BinarySearch(RTTBounds[:], d)
	h.buckets[i]++
}

// counter is one plain counter or gauge of the Snapshot.
type counter struct {
	name, help string // name without the tether_ prefix
	kind       prometheus.ValueType
	value      func(*Snapshot) float64
}

func desc(name, help string, constLabels prometheus.Labels, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("tether_"+name, help, labels, constLabels)
}

func c(name, help string, v func(*Snapshot) uint64) counter {
	return counter{name, help, prometheus.CounterValue, func(s *Snapshot) float64 { return float64(v(s)) }}
}

func g(name, help string, v func(*Snapshot) int) counter {
	return counter{name, help, prometheus.GaugeValue, func(s *Snapshot) float64 { return float64(v(s)) }}
}

var counters = []counter{
	c("server_ticks_total", "Simulation ticks run.", func(s *Snapshot) uint64 { return s.Server.Ticks }),
	c("server_tick_overruns_total", "Tick calls that found more than one tick due.", func(s *Snapshot) uint64 { return s.Server.Overruns }),
	c("server_ticks_caught_up_total", "Ticks run beyond the first in an overrun.", func(s *Snapshot) uint64 { return s.Server.CaughtUp }),
	c("server_ticks_skipped_total", "Ticks dropped because more than MaxCatchUp were due.", func(s *Snapshot) uint64 { return s.Server.Skipped }),
	g("server_clients", "Clients connected now.", func(s *Snapshot) int { return s.Server.Clients }),
	g("server_capacity", "Player slots, free or taken.", func(s *Snapshot) int { return s.Capacity }),
	c("server_joins_total", "Clients that joined the game.", func(s *Snapshot) uint64 { return s.Server.Joins }),
	c("server_leaves_total", "Clients that left the game.", func(s *Snapshot) uint64 { return s.Server.Leaves }),
	c("server_refused_total", "Clients the game refused.", func(s *Snapshot) uint64 { return s.Server.Refused }),
	c("server_snapshots_total", "Snapshot messages queued, all clients.", func(s *Snapshot) uint64 { return s.Server.Snapshots }),
	c("server_extra_snapshots_total", "Snapshot messages queued besides the regular ones.", func(s *Snapshot) uint64 { return s.Server.ExtraSnapshots }),
	c("server_oversize_snapshots_total", "Snapshots too large to send.", func(s *Snapshot) uint64 { return s.Server.Oversize }),
	c("server_events_total", "Game events emitted.", func(s *Snapshot) uint64 { return s.Server.Events }),
	c("server_pongs_total", "Clock pings answered.", func(s *Snapshot) uint64 { return s.Server.Pongs }),
	c("server_pings_ignored_total", "Clock pings not answered: another in the same packet, or beyond the pong rate.", func(s *Snapshot) uint64 { return s.Server.PingsIgnored }),
	c("server_inputs_total", "Inputs handed to the game.", func(s *Snapshot) uint64 { return s.Server.Inputs }),
	c("server_stale_inputs_total", "Inputs dropped as older than one handed over.", func(s *Snapshot) uint64 { return s.Server.StaleInputs }),
	c("server_malformed_total", "Payloads or messages dropped as malformed.", func(s *Snapshot) uint64 { return s.Server.Malformed }),
	c("server_reliable_queue_full_total", "Reliable messages refused by a full send queue.", func(s *Snapshot) uint64 { return s.Server.QueueFull }),
	c("game_bad_inputs_total", "Inputs (or packets of moves) the game could not decode.", func(s *Snapshot) uint64 { return s.BadInputs }),
	c("movement_packets_total", "Packets of moves received from predicting clients.", func(s *Snapshot) uint64 { return s.Movement.Packets }),
	c("movement_bad_packets_total", "Packets of moves that did not decode, dropped whole.", func(s *Snapshot) uint64 { return s.Movement.BadPackets }),
	c("movement_moves_total", "Moves applied.", func(s *Snapshot) uint64 { return s.Movement.Moves }),
	c("movement_lost_total", "Moves that never arrived.", func(s *Snapshot) uint64 { return s.Movement.Lost }),
	c("movement_bad_times_total", "Moves ending no later than the previous one, skipped.", func(s *Snapshot) uint64 { return s.Movement.BadTimes }),
	c("movement_bad_inputs_total", "Moves whose input was refused (NaN, Inf), applied with the zero input.", func(s *Snapshot) uint64 { return s.Movement.BadInputs }),
	c("movement_clamped_total", "Moves longer than the largest move, shortened.", func(s *Snapshot) uint64 { return s.Movement.Clamped }),
	c("movement_ahead_total", "Moves that ended too far past the server's clock, cut short.", func(s *Snapshot) uint64 { return s.Movement.Ahead }),
	c("movement_adjustments_total", "Position adjustments sent to predicting clients.", func(s *Snapshot) uint64 { return s.Movement.Adjustments }),
	c("movement_resets_total", "Resets sent to predicting clients.", func(s *Snapshot) uint64 { return s.Movement.Resets }),
	c("netcode_connects_total", "Clients that completed the handshake.", func(s *Snapshot) uint64 { return s.Netcode.Connects }),
	c("netcode_disconnects_total", "Clients that left their slot.", func(s *Snapshot) uint64 { return s.Netcode.Disconnects }),
	c("netcode_timeouts_total", "Clients dropped for silence.", func(s *Snapshot) uint64 { return s.Netcode.TimedOut }),
	c("netcode_denied_total", "Connection requests denied (full or draining).", func(s *Snapshot) uint64 { return s.Netcode.Denied }),
	c("netcode_out_dropped_total", "Packets lost because the driver did not drain Transmit.", func(s *Snapshot) uint64 { return s.Netcode.OutDropped }),
	g("netcode_pending", "Pending connections.", func(s *Snapshot) int { return s.Netcode.Pending }),
	c("transport_write_errors_total", "Datagrams the socket failed to send.", func(s *Snapshot) uint64 { return s.WriteErrors }),
	g("match_in_use", "1 while the match is in use (a player joined it, until it ends), 0 while it waits for players.", func(s *Snapshot) int {
		if s.InUse {
			return 1
		}
		return 0
	}),
}

// descs are the descriptions of one match's metrics, labelled with it.
type descs struct {
	plain []*prometheus.Desc // of counters, in order
	// labelled direction="in"|"out"
	payloads, payloadBytes, datagrams, bytes *prometheus.Desc
	dropped, tick, rtt                       *prometheus.Desc
}

func newDescs(l prometheus.Labels) descs {
	d := descs{
		payloads:     desc("server_payloads_total", "Payloads the server core received and sent (netcode payloads).", l, "direction"),
		payloadBytes: desc("server_payload_bytes_total", "Bytes of those payloads.", l, "direction"),
		datagrams:    desc("netcode_datagrams_total", "UDP datagrams received and sent.", l, "direction"),
		bytes:        desc("netcode_bytes_total", "Bytes of UDP payload received and sent, by kind: of connected clients, or of unauthenticated peers (requests, challenges, denials); the kinds sum to all.", l, "direction", "kind"),
		dropped:      desc("netcode_dropped_total", "Datagrams received and dropped, by reason.", l, "reason"),
		tick:         desc("server_tick_seconds", "Wall time of the driver's calls of the core's Tick (the bound 0.0167 is a 60 Hz tick's budget).", l),
		rtt:          desc("client_rtt_seconds", "Round trips of the connected clients' reliable channels, each client sampled once a second.", l),
	}
	for _, k := range counters {
		d.plain = append(d.plain, desc(k.name, k.help, l))
	}
	return d
}

// The process's own metrics (Process), not labelled with a match.
var (
	stateDesc  = desc("lifecycle_state", "1 for the process's lifecycle state.", nil, "state")
	agonesDesc = desc("agones_calls_total", "Calls to the Agones SDK sidecar, by call and outcome (ok, failed: each failed try counts).", nil, "call", "outcome")
)

// dropReasons are the DropCounts fields, as snake_case reasons.
var dropReasons = func() []string {
	t := reflect.TypeFor[netcode.DropCounts]()
	r := make([]string, t.NumField())
	for i := range r {
		r[i] = snake(t.Field(i).Name)
	}
	return r
}()

// snake writes a Go name in snake_case, an initialism as one word:
// ProtocolID is protocol_id.
func snake(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, ch := range rs {
		if i > 0 && unicode.IsUpper(ch) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(ch))
	}
	return b.String()
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	d := &c.descs
	for _, p := range slices.Concat(d.plain, []*prometheus.Desc{d.payloads, d.payloadBytes, d.datagrams, d.bytes, d.dropped, d.tick, d.rtt}) {
		ch <- p
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, d := &c.snap, &c.descs
	s.Clients = s.Clients[:0]
	c.read(s)
	for i, k := range counters {
		ch <- prometheus.MustNewConstMetric(d.plain[i], k.kind, k.value(s))
	}
	dir := func(d *prometheus.Desc, in, out uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(in), append([]string{"in"}, labels...)...)
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(out), append([]string{"out"}, labels...)...)
	}
	dir(d.payloads, s.Server.PacketsIn, s.Server.PacketsOut)
	dir(d.payloadBytes, s.Server.BytesIn, s.Server.BytesOut)
	dir(d.datagrams, s.Netcode.PacketsIn, s.Netcode.PacketsOut)
	dir(d.bytes, s.Netcode.BytesIn-s.Netcode.UnauthBytesIn, s.Netcode.BytesOut-s.Netcode.UnauthBytesOut, "connected")
	dir(d.bytes, s.Netcode.UnauthBytesIn, s.Netcode.UnauthBytesOut, "unauthenticated")
	drops := reflect.ValueOf(s.Netcode.Dropped)
	for i, r := range dropReasons {
		ch <- prometheus.MustNewConstMetric(d.dropped, prometheus.CounterValue, float64(drops.Field(i).Uint()), r)
	}
	ch <- prometheus.MustNewConstHistogram(d.tick, s.Ticks.Count, s.Ticks.Sum.Seconds(), cumulative(server.TickBounds[:], s.Ticks.Buckets[:]))
	ch <- prometheus.MustNewConstHistogram(d.rtt, c.rtt.count, c.rtt.sum.Seconds(), cumulative(RTTBounds[:], c.rtt.buckets[:]))
}

// Process is what Handler reports of the process besides its matches.
type Process struct {
	// Lifecycle is the process's, for tether_lifecycle_state (nil:
	// Starting).
	Lifecycle *ops.Lifecycle
	// Agones returns the calls made to the Agones SDK sidecar, for
	// tether_agones_calls_total (nil: none).
	Agones func() []agones.CallCount
}

// Describe implements prometheus.Collector.
func (p Process) Describe(ch chan<- *prometheus.Desc) {
	ch <- stateDesc
	ch <- agonesDesc
}

// Collect implements prometheus.Collector.
func (p Process) Collect(ch chan<- prometheus.Metric) {
	if p.Agones != nil {
		for _, a := range p.Agones() {
			ch <- prometheus.MustNewConstMetric(agonesDesc, prometheus.CounterValue, float64(a.OK), a.Call, "ok")
			ch <- prometheus.MustNewConstMetric(agonesDesc, prometheus.CounterValue, float64(a.Failed), a.Call, "failed")
		}
	}
	state := ops.Starting
	if p.Lifecycle != nil {
		state = p.Lifecycle.State()
	}
	for st := ops.Starting; st <= ops.Draining; st++ {
		v := 0.0
		if st == state {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, st.String())
	}
}

// cumulative returns a histogram's buckets as Prometheus counts them: by
// upper bound in seconds, each counting the samples at or under it.
// counts[i] counts the samples in (bounds[i-1], bounds[i]]; those above
// the last bound are only in the histogram's count.
func cumulative(bounds []time.Duration, counts []uint64) map[float64]uint64 {
	m := make(map[float64]uint64, len(bounds))
	var cum uint64
	for i, b := range bounds {
		cum += counts[i]
		m[b.Seconds()] = cum
	}
	return m
}

// Handler serves the metrics of p and of the process's matches (one
// Collector each, of distinct match numbers) with the Go runtime's, the
// process's (but its process_network_* counters, which count the whole
// network namespace's traffic, not the process's) and tether_build_info.
func Handler(p Process, matches ...*Collector) http.Handler {
	reg := prometheus.NewRegistry()
	for _, c := range matches {
		reg.MustRegister(c)
	}
	reg.MustRegister(p, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tether_build_info", Help: "1, labelled with the build's version and Go version.",
			ConstLabels: prometheus.Labels{"version": ops.Version(), "go_version": runtime.Version()}}, func() float64 { return 1 }))
	own := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		fams, err := reg.Gather()
		return slices.DeleteFunc(fams, func(f *dto.MetricFamily) bool { return strings.HasPrefix(f.GetName(), "process_network_") }), err
	})
	return promhttp.HandlerFor(own, promhttp.HandlerOpts{Registry: reg})
}
