package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netcode"
)

// Bounds of tether load: it is a measuring tool, not a flood.
const (
	maxLoadBots     = 64
	maxLoadDuration = time.Hour
)

// runLoad plays N bots in this process against one tether serve for a
// bounded time and reports what a fleet operator needs: the bots' clock and
// ball figures, how many stayed connected throughout, and, given the
// server's process id, its CPU and memory over time (from /proc, so Linux).
func runLoad(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("load", stderr,
		"usage: tether load [-server IP:PORT] [-key FILE] [-bots N] [-duration D] [-churn D] [-admin HOST:PORT] [-server-pid PID] [-sample D] [-json]",
		"Plays N bots against a tether serve (minting their tokens with the server's key) for a",
		"bounded time; reports their clock and ball figures and the server's CPU and memory.",
	)
	addr := fs.String("server", "127.0.0.1:40000", "the server's public address, IP:PORT")
	keyPath := fs.String("key", "tether.key", "the server's private key file (tether keygen)")
	protocol := fs.String("protocol-id", fmt.Sprintf("%#x", uint64(match.ProtocolID)), "protocol id the server runs")
	bots := fs.Int("bots", 22, fmt.Sprintf("bots to play, 1 to %d", maxLoadBots))
	duration := fs.Duration("duration", time.Minute, "how long to play once every bot is connected, up to "+maxLoadDuration.String())
	churn := fs.Duration("churn", 0, "if set, every interval one bot leaves and a new one (new client id) joins in its place, in turn")
	adminFlag := fs.String("admin", "", "the server's -admin HOST:PORT, to read its tick figures from /metrics")
	pidFlag := fs.Int("server-pid", 0, "process id of the server, to sample its CPU and memory (Linux /proc)")
	sample := fs.Duration("sample", 10*time.Second, "interval of the server's CPU and memory samples")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	server, err := netip.ParseAddrPort(*addr)
	if err != nil {
		return usagef("-server %q: want IP:PORT", *addr)
	}
	pid, err := strconv.ParseUint(*protocol, 0, 64)
	if err != nil || pid == 0 {
		return usagef("-protocol-id %q: want a non-zero 64-bit unsigned number", *protocol)
	}
	if *bots < 1 || *bots > maxLoadBots {
		return usagef("-bots %d: want 1 to %d", *bots, maxLoadBots)
	}
	if *duration <= 0 || *duration > maxLoadDuration {
		return usagef("-duration %v: want more than 0, at most %v", *duration, maxLoadDuration)
	}
	if *churn != 0 && *churn < 100*time.Millisecond {
		return usagef("-churn %v: want at least 100ms", *churn)
	}
	if *sample < 100*time.Millisecond {
		return usagef("-sample %v: want at least 100ms", *sample)
	}
	key, err := readKeyFile(*keyPath, false)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var ids [8]byte
	if _, err := rand.Read(ids[:]); err != nil {
		return err
	}
	firstID := uint64(ids[0])<<32 | uint64(ids[1])<<24 // distinct ids per run
	dial := func(n int) (*playBot, error) {            // the run's nth bot
		tok, err := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
			ProtocolID: pid, ClientID: firstID + uint64(n) + 1, ServerAddresses: []netip.AddrPort{server}, Now: time.Now(),
		})
		if err != nil {
			return nil, err
		}
		return dialBot(tok, pid, firstID+uint64(n)*0x9e3779b97f4a7c15)
	}
	rep := loadReport{Bots: *bots, ServerPID: *pidFlag}
	var ticks0 tickFigures
	if *adminFlag != "" {
		if rep.Goroutines.Before, err = serverGoroutines(*adminFlag); err != nil {
			return err
		}
	}
	players := make([]*playBot, 0, *bots)
	defer func() {
		for _, pb := range players {
			pb.driver.Close()
		}
	}()
	for i := range *bots {
		pb, err := dial(i)
		if err != nil {
			return err
		}
		players = append(players, pb)
	}
	wait := time.NewTimer(botConnectWait)
	defer wait.Stop()
	for i, pb := range players {
		if err := pb.waitConnected(ctx, wait.C); err != nil {
			return fmt.Errorf("bot %d: %s: %w", i, server, err)
		}
	}
	if *adminFlag != "" {
		if ticks0, err = scrapeTicks(*adminFlag); err != nil {
			return err
		}
	}
	start := time.Now()
	var proc procSampler
	if *pidFlag > 0 {
		if err := proc.open(*pidFlag); err != nil {
			return err
		}
	}
	tk := time.NewTicker(*sample)
	defer tk.Stop()
	var churnC <-chan time.Time
	if *churn > 0 {
		ct := time.NewTicker(*churn)
		defer ct.Stop()
		churnC = ct.C
		rep.Churn = &churnReport{}
	}
	end := time.NewTimer(*duration)
	defer end.Stop()
play:
	for {
		select {
		case <-ctx.Done():
			break play
		case <-end.C:
			break play
		case <-churnC:
			c := rep.Churn
			i := c.Cycles % len(players)
			players[i].driver.Close()
			pb, err := dial(len(players) + c.Cycles)
			if err != nil {
				return err
			}
			players[i] = pb
			c.Cycles++
			w := time.NewTimer(botConnectWait)
			err = pb.waitConnected(ctx, w.C)
			w.Stop()
			if err != nil {
				c.Failed++
				if c.Error == "" {
					c.Error = err.Error()
				}
			}
		case <-tk.C:
			if *pidFlag > 0 {
				s, err := proc.sample(time.Since(start), connectedBots(players))
				if err != nil {
					return err
				}
				rep.Samples = append(rep.Samples, s)
				if !*asJSON {
					fmt.Fprintf(stdout, "t=%4.0fs  server cpu %5.2f %% of a core  rss %6.1f MiB  bots connected %d\n", s.TimeS, s.CPUPercent, s.RSSMiB, s.Connected)
				}
			}
		}
	}
	played := time.Since(start)
	if *pidFlag > 0 {
		rep.ServerCPUPercent = roundTo(proc.total(), 3)
		rep.ServerCPUPerClient = roundTo(rep.ServerCPUPercent/float64(*bots), 4)
	}
	rep.Connected = connectedBots(players)
	for _, pb := range players {
		select {
		case <-pb.driver.Done():
			if rep.Ended == nil {
				rep.Ended = map[string]int{}
			}
			rep.Ended[pb.driver.Transport().State().String()]++
		default:
		}
	}
	if *adminFlag != "" {
		t1, err := scrapeTicks(*adminFlag)
		if err != nil {
			return err
		}
		rep.Server = t1.since(ticks0)
	}
	var p99s, delays []float64
	for _, pb := range players {
		slot := pb.driver.Transport().ClientIndex()
		r, _ := pb.finish(slot, played)
		p99s = append(p99s, r.Clock.BoundMs.P99)
		delays = append(delays, r.Ball.DelayMs.Mean)
		rep.Pops += r.Ball.Pops
		rep.PopFrames += r.Ball.PopFrames
		rep.NotReady += r.NotReady
	}
	players = nil
	if *adminFlag != "" {
		// The bots have said goodbye: the server should be back where it
		// started, every slot free.
		left := time.Now().Add(leaveWait)
		for {
			t, err := scrapeTicks(*adminFlag)
			if err != nil {
				return err
			}
			rep.ClientsAfter = t.clients
			if t.clients == 0 || time.Now().After(left) {
				break
			}
			time.Sleep(leaveWait / 20)
		}
		if rep.Goroutines.After, err = serverGoroutines(*adminFlag); err != nil {
			return err
		}
	}
	rep.PlayedS = roundTo(played.Seconds(), 1)
	rep.ClockBoundP99Ms = measure.Summarise(p99s)
	rep.BallDelayMs = measure.Summarise(delays)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(&rep)
	}
	return rep.write(stdout)
}

// leaveWait is how long tether load waits for the server to see its bots leave.
const leaveWait = 2 * time.Second

// waitConnected waits until pb is connected, its connection fails, timeout
// fires or ctx ends.
func (pb *playBot) waitConnected(ctx context.Context, timeout <-chan time.Time) error {
	select {
	case <-pb.connected:
		return nil
	case <-pb.driver.Done():
		return fmt.Errorf("could not connect: %v", pb.driver.Transport().State())
	case <-timeout:
		return fmt.Errorf("not connected after %v", botConnectWait)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func connectedBots(ps []*playBot) int {
	n := 0
	for _, pb := range ps {
		select {
		case <-pb.driver.Done():
		default:
			n++
		}
	}
	return n
}

// loadReport is what tether load prints.
type loadReport struct {
	Bots      int     `json:"bots"`
	PlayedS   float64 `json:"played_s"`
	Connected int     `json:"connected_at_end"` // bots still connected when the run ended
	// Ended counts the others by how their connection ended.
	Ended    map[string]int `json:"ended,omitempty"`
	NotReady int            `json:"not_ready_frames"` // frames without a clock after each bot's warm-up, all bots
	// ClockBoundP99Ms summarises the bots' own p99 clock error bounds (one
	// value per bot); BallDelayMs their mean ball render delays.
	ClockBoundP99Ms measure.Stat `json:"clock_bound_p99_ms"`
	BallDelayMs     measure.Stat `json:"ball_delay_ms"`
	Pops            int          `json:"pops"` // tether bot's hindsight estimate, all bots
	PopFrames       int          `json:"pop_frames"`

	ServerPID          int          `json:"server_pid,omitempty"`
	ServerCPUPercent   float64      `json:"server_cpu_percent,omitempty"` // of one core, over the run
	ServerCPUPerClient float64      `json:"server_cpu_percent_per_client,omitempty"`
	Samples            []procSample `json:"samples,omitempty"`
	Server             *tickFigures `json:"server_ticks,omitempty"` // from -admin's /metrics, over the run

	Churn *churnReport `json:"churn,omitempty"`
	// From -admin's /metrics: the server's goroutines before the first bot
	// joined and after the last left (each the fewest of a few scrapes; they
	// include the scrape's own HTTP connection, whose goroutines come and
	// go), and its clients then (a slot left stuck shows here).
	Goroutines   struct{ Before, After int } `json:"server_goroutines"`
	ClientsAfter int                         `json:"server_clients_after"`
}

// churnReport counts the bots that left and were replaced (-churn).
type churnReport struct {
	Cycles int    `json:"cycles"` // bots that left, each replaced by a new one
	Failed int    `json:"failed"` // new bots that did not connect
	Error  string `json:"first_error,omitempty"`
}

func (r *loadReport) write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "bots\t%d played %.1f s; %d connected at the end\n", r.Bots, r.PlayedS, r.Connected)
	for state, n := range r.Ended {
		fmt.Fprintf(tw, "ended\t%d: %s\n", n, state)
	}
	fmt.Fprintf(tw, "clock bound p99\tmedian bot %.2f ms, worst bot %.2f ms (%d frames without a clock after warm-up)\n", r.ClockBoundP99Ms.P50, r.ClockBoundP99Ms.Max, r.NotReady)
	fmt.Fprintf(tw, "ball render delay\tmean %.1f ms, worst bot %.1f ms\n", r.BallDelayMs.Mean, r.BallDelayMs.Max)
	fmt.Fprintf(tw, "pops\t%d in %d frames judged (hindsight estimate)\n", r.Pops, r.PopFrames)
	if c := r.Churn; c != nil {
		fmt.Fprintf(tw, "churn\t%d bots left and were replaced; %d replacements failed to connect %s\n", c.Cycles, c.Failed, c.Error)
	}
	if t := r.Server; t != nil {
		fmt.Fprintf(tw, "server ticks\t%d, %d overruns, %d skipped; tick time mean %.3f ms, p99 <= %.3f ms\n", t.Ticks, t.Overruns, t.Skipped, t.MeanMs, t.P99Ms)
		fmt.Fprintf(tw, "server after\t%d clients when the bots had left; goroutines %d before, %d after\n", r.ClientsAfter, r.Goroutines.Before, r.Goroutines.After)
	}
	if r.ServerPID > 0 {
		fmt.Fprintf(tw, "server cpu\t%.2f %% of a core, %.3f %% per client\n", r.ServerCPUPercent, r.ServerCPUPerClient)
	}
	return tw.Flush()
}

// procSample is one sample of the server process.
type procSample struct {
	TimeS      float64 `json:"t_s"`
	CPUPercent float64 `json:"cpu_percent"` // of one core, since the previous sample
	RSSMiB     float64 `json:"rss_mib"`
	Connected  int     `json:"bots_connected"`
}

// procSampler reads a process's CPU time and resident memory from /proc.
type procSampler struct {
	pid        int
	cpu0, last time.Duration
	wall0      time.Time
	lastWall   time.Time
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

func (p *procSampler) open(pid int) error {
	p.pid = pid
	cpu, err := p.cpu()
	if err != nil {
		return err
	}
	p.cpu0, p.last = cpu, cpu
	p.wall0 = time.Now()
	p.lastWall = p.wall0
	return nil
}

func (p *procSampler) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	if err != nil {
		return 0, fmt.Errorf("-server-pid: %w", err)
	}
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("-server-pid: short /proc/%d/stat", p.pid)
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("-server-pid: bad /proc/%d/stat", p.pid)
	}
	return time.Duration(ut+st) * clockTick, nil
}

func (p *procSampler) rss() (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
	if err != nil {
		return 0, fmt.Errorf("-server-pid: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0, fmt.Errorf("-server-pid: bad VmRSS %q", v)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("-server-pid: no VmRSS in /proc/%d/status", p.pid)
}

func (p *procSampler) sample(t time.Duration, connected int) (procSample, error) {
	cpu, err := p.cpu()
	if err != nil {
		return procSample{}, err
	}
	rss, err := p.rss()
	if err != nil {
		return procSample{}, err
	}
	now := time.Now()
	s := procSample{TimeS: roundTo(t.Seconds(), 1), CPUPercent: roundTo(100*float64(cpu-p.last)/float64(now.Sub(p.lastWall)), 3), RSSMiB: roundTo(rss, 1), Connected: connected}
	p.last, p.lastWall = cpu, now
	return s, nil
}

// total is the CPU used since open, in percent of one core.
func (p *procSampler) total() float64 {
	cpu, err := p.cpu()
	if err != nil {
		return 0
	}
	return 100 * float64(cpu-p.cpu0) / float64(time.Since(p.wall0))
}

// tickFigures are a server's tick counters from its /metrics.
type tickFigures struct {
	Ticks    uint64  `json:"ticks"`
	Overruns uint64  `json:"overruns"`
	Skipped  uint64  `json:"skipped"`
	MeanMs   float64 `json:"tick_mean_ms"`
	P99Ms    float64 `json:"tick_p99_ms"` // the histogram bucket bound the 99th percentile falls under; -1 above the largest

	sumS    float64
	count   uint64
	buckets []*dto.Bucket

	goroutines, clients int // gauges at the scrape
}

// scrapeTicks reads the tick figures from the /metrics of the server whose
// -admin address is admin.
func scrapeTicks(admin string) (tickFigures, error) {
	resp, err := http.Get("http://" + admin + "/metrics")
	if err != nil {
		return tickFigures{}, fmt.Errorf("-admin: %w", err)
	}
	defer func() {
		io.Copy(io.Discard, resp.Body) // so the connection is kept for the next scrape
		resp.Body.Close()
	}()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return tickFigures{}, fmt.Errorf("-admin: /metrics: %w", err)
	}
	var t tickFigures
	counter := func(name string) uint64 {
		if f := fams[name]; f != nil && len(f.Metric) > 0 {
			return uint64(f.Metric[0].GetCounter().GetValue())
		}
		err = fmt.Errorf("-admin: /metrics has no %s", name)
		return 0
	}
	t.Ticks, t.Overruns, t.Skipped = counter("tether_server_ticks_total"), counter("tether_server_tick_overruns_total"), counter("tether_server_ticks_skipped_total")
	gauge := func(name string) int {
		if f := fams[name]; f != nil && len(f.Metric) > 0 {
			return int(f.Metric[0].GetGauge().GetValue())
		}
		err = fmt.Errorf("-admin: /metrics has no %s", name)
		return 0
	}
	t.goroutines, t.clients = gauge("go_goroutines"), gauge("tether_server_clients")
	if f := fams["tether_server_tick_seconds"]; f != nil && len(f.Metric) > 0 {
		h := f.Metric[0].GetHistogram()
		t.sumS, t.count, t.buckets = h.GetSampleSum(), h.GetSampleCount(), h.GetBucket()
	} else {
		err = errors.New("-admin: /metrics has no tether_server_tick_seconds")
	}
	return t, err
}

// serverGoroutines returns the fewest goroutines the server at admin
// reported in a few scrapes: its metrics registry gathers on a varying
// number of goroutines of its own.
func serverGoroutines(admin string) (int, error) {
	least := 0
	for i := range 5 {
		t, err := scrapeTicks(admin)
		if err != nil {
			return 0, err
		}
		if i == 0 || t.goroutines < least {
			least = t.goroutines
		}
		time.Sleep(10 * time.Millisecond)
	}
	return least, nil
}

// since returns the figures between an earlier scrape and t.
func (t tickFigures) since(t0 tickFigures) *tickFigures {
	d := &tickFigures{Ticks: t.Ticks - t0.Ticks, Overruns: t.Overruns - t0.Overruns, Skipped: t.Skipped - t0.Skipped}
	n := t.count - t0.count
	if n == 0 {
		return d
	}
	d.MeanMs = roundTo((t.sumS-t0.sumS)/float64(n)*1000, 4)
	d.P99Ms = -1 // above the largest bound
	for i, b := range t.buckets {
		c := b.GetCumulativeCount()
		if i < len(t0.buckets) {
			c -= t0.buckets[i].GetCumulativeCount()
		}
		if float64(c) >= 0.99*float64(n) {
			d.P99Ms = roundTo(b.GetUpperBound()*1000, 4)
			break
		}
	}
	return d
}
