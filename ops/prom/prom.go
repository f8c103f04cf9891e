package prom

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/server"
)

// Snapshot is a server's statistics at one scrape.
type Snapshot struct {
	Server      server.Stats
	Clients     []server.ClientStats // the connected clients
	Ticks       server.TickTimes
	Netcode     netcode.ServerStats
	WriteErrors uint64 // datagrams the transport failed to send
	State       ops.State
}

// Collector is a prometheus.Collector of a server's Snapshot.
type Collector struct {
	read func(*Snapshot)

	mu   sync.Mutex
	snap Snapshot
}

// NewCollector returns a Collector that calls read to fill a Snapshot at
// every scrape (read may keep Clients' backing array between calls).
func NewCollector(read func(*Snapshot)) *Collector { return &Collector{read: read} }

// ServerCollector returns a Collector of srv, its connected clients and
// its first transport, with l's state: what a game server process serves
// at /metrics.
func ServerCollector(srv *server.UDP, l *ops.Lifecycle) *Collector {
	return NewCollector(func(s *Snapshot) {
		srv.Do(func(c *server.Server) {
			s.Server = c.Stats()
			for _, i := range c.Clients(nil) {
				if cs, ok := c.ClientStats(i); ok {
					s.Clients = append(s.Clients, cs)
				}
			}
		})
		s.Ticks = srv.TickTimes()
		s.Netcode = srv.Transport().Stats()
		s.WriteErrors = srv.Transport().WriteErrors()
		s.State = l.State()
	})
}

// counter is one plain counter or gauge of the Snapshot.
type counter struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(*Snapshot) float64
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("tether_"+name, help, labels, nil)
}

func c(name, help string, v func(*Snapshot) uint64) counter {
	return counter{desc(name, help), prometheus.CounterValue, func(s *Snapshot) float64 { return float64(v(s)) }}
}

func g(name, help string, v func(*Snapshot) int) counter {
	return counter{desc(name, help), prometheus.GaugeValue, func(s *Snapshot) float64 { return float64(v(s)) }}
}

var counters = []counter{
	c("server_ticks_total", "Simulation ticks run.", func(s *Snapshot) uint64 { return s.Server.Ticks }),
	c("server_tick_overruns_total", "Tick calls that found more than one tick due.", func(s *Snapshot) uint64 { return s.Server.Overruns }),
	c("server_ticks_caught_up_total", "Ticks run beyond the first in an overrun.", func(s *Snapshot) uint64 { return s.Server.CaughtUp }),
	c("server_ticks_skipped_total", "Ticks dropped because more than MaxCatchUp were due.", func(s *Snapshot) uint64 { return s.Server.Skipped }),
	g("server_clients", "Clients connected now.", func(s *Snapshot) int { return s.Server.Clients }),
	c("server_joins_total", "Clients that joined the game.", func(s *Snapshot) uint64 { return s.Server.Joins }),
	c("server_leaves_total", "Clients that left the game.", func(s *Snapshot) uint64 { return s.Server.Leaves }),
	c("server_refused_total", "Clients the game refused.", func(s *Snapshot) uint64 { return s.Server.Refused }),
	c("server_snapshots_total", "Snapshot messages queued, all clients.", func(s *Snapshot) uint64 { return s.Server.Snapshots }),
	c("server_extra_snapshots_total", "Snapshot messages queued besides the regular ones.", func(s *Snapshot) uint64 { return s.Server.ExtraSnapshots }),
	c("server_oversize_snapshots_total", "Snapshots too large to send.", func(s *Snapshot) uint64 { return s.Server.Oversize }),
	c("server_events_total", "Game events emitted.", func(s *Snapshot) uint64 { return s.Server.Events }),
	c("server_pongs_total", "Clock pings answered.", func(s *Snapshot) uint64 { return s.Server.Pongs }),
	c("server_inputs_total", "Inputs handed to the game.", func(s *Snapshot) uint64 { return s.Server.Inputs }),
	c("server_stale_inputs_total", "Inputs dropped as older than one handed over.", func(s *Snapshot) uint64 { return s.Server.StaleInputs }),
	c("server_malformed_total", "Payloads or messages dropped as malformed.", func(s *Snapshot) uint64 { return s.Server.Malformed }),
	c("server_reliable_queue_full_total", "Reliable messages refused by a full send queue.", func(s *Snapshot) uint64 { return s.Server.QueueFull }),
	c("netcode_connects_total", "Clients that completed the handshake.", func(s *Snapshot) uint64 { return s.Netcode.Connects }),
	c("netcode_disconnects_total", "Clients that left their slot.", func(s *Snapshot) uint64 { return s.Netcode.Disconnects }),
	c("netcode_timeouts_total", "Clients dropped for silence.", func(s *Snapshot) uint64 { return s.Netcode.TimedOut }),
	c("netcode_denied_total", "Connection requests denied (full or draining).", func(s *Snapshot) uint64 { return s.Netcode.Denied }),
	c("netcode_out_dropped_total", "Packets lost because the driver did not drain Transmit.", func(s *Snapshot) uint64 { return s.Netcode.OutDropped }),
	g("netcode_pending", "Pending connections.", func(s *Snapshot) int { return s.Netcode.Pending }),
	c("transport_write_errors_total", "Datagrams the socket failed to send.", func(s *Snapshot) uint64 { return s.WriteErrors }),
}

// directional counters, labelled direction="in"|"out".
var (
	payloadsDesc     = desc("server_payloads_total", "Payloads the server core received and sent (netcode payloads).", "direction")
	payloadBytesDesc = desc("server_payload_bytes_total", "Bytes of those payloads.", "direction")
	datagramsDesc    = desc("netcode_datagrams_total", "UDP datagrams received and sent.", "direction")
	bytesDesc        = desc("netcode_bytes_total", "Bytes of UDP payload received and sent, by kind: all datagrams, or those of unauthenticated peers (requests, challenges, denials).", "direction", "kind")
	droppedDesc      = desc("netcode_dropped_total", "Datagrams received and dropped, by reason.", "reason")
	tickDesc         = desc("server_tick_seconds", "Wall time of the driver's calls of the core's Tick.")
	rttDesc          = desc("client_rtt_seconds", "Round trip of each connected client's reliable channel, over the clients connected now.")
	stateDesc        = desc("lifecycle_state", "1 for the process's lifecycle state.", "state")
)

// dropReasons are the DropCounts fields, as snake_case reasons.
var dropReasons = func() []string {
	t := reflect.TypeFor[netcode.DropCounts]()
	r := make([]string, t.NumField())
	for i := range r {
		var b strings.Builder
		for j, ch := range t.Field(i).Name {
			if unicode.IsUpper(ch) && j > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(ch))
		}
		r[i] = b.String()
	}
	return r
}()

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, k := range counters {
		ch <- k.desc
	}
	for _, d := range []*prometheus.Desc{payloadsDesc, payloadBytesDesc, datagramsDesc, bytesDesc, droppedDesc, tickDesc, rttDesc, stateDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.snap
	s.Clients = s.Clients[:0]
	c.read(s)
	for _, k := range counters {
		ch <- prometheus.MustNewConstMetric(k.desc, k.kind, k.value(s))
	}
	dir := func(d *prometheus.Desc, in, out uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(in), append([]string{"in"}, labels...)...)
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(out), append([]string{"out"}, labels...)...)
	}
	dir(payloadsDesc, s.Server.PacketsIn, s.Server.PacketsOut)
	dir(payloadBytesDesc, s.Server.BytesIn, s.Server.BytesOut)
	dir(datagramsDesc, s.Netcode.PacketsIn, s.Netcode.PacketsOut)
	dir(bytesDesc, s.Netcode.BytesIn, s.Netcode.BytesOut, "all")
	dir(bytesDesc, s.Netcode.UnauthBytesIn, s.Netcode.UnauthBytesOut, "unauthenticated")
	drops := reflect.ValueOf(s.Netcode.Dropped)
	for i, r := range dropReasons {
		ch <- prometheus.MustNewConstMetric(droppedDesc, prometheus.CounterValue, float64(drops.Field(i).Uint()), r)
	}

	buckets := make(map[float64]uint64, len(server.TickBounds))
	var cum uint64
	for i, b := range server.TickBounds {
		cum += s.Ticks.Buckets[i]
		buckets[b.Seconds()] = cum
	}
	ch <- prometheus.MustNewConstHistogram(tickDesc, s.Ticks.Count, s.Ticks.Sum.Seconds(), buckets)

	rtts := make([]float64, len(s.Clients))
	var sum float64
	for i, cl := range s.Clients {
		rtts[i] = cl.RTT.Seconds()
		sum += rtts[i]
	}
	slices.Sort(rtts)
	q := map[float64]float64{}
	if len(rtts) > 0 {
		for _, p := range []float64{0.5, 0.9, 0.99} {
			q[p] = rtts[min(len(rtts)-1, int(p*float64(len(rtts))))]
		}
	}
	ch <- prometheus.MustNewConstSummary(rttDesc, uint64(len(rtts)), sum, q)

	for st := ops.Starting; st <= ops.Draining; st++ {
		v := 0.0
		if st == s.State {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, st.String())
	}
}

// Handler serves c's metrics with the Go runtime's and the process's.
func Handler(c *Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}
