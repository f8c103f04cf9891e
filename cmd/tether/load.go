package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/ops/prom"
)

// Bounds of tether load: it is a measuring tool, not a flood.
const (
	maxLoadBots     = 64
	maxLoadDuration = time.Hour
)

// runLoad plays N bots in this process against each of M matches of tether
// serve for a bounded time and reports what a fleet operator needs: the
// bots' clock and ball figures, how many stayed connected throughout, its
// own CPU time, and, given the servers' admin addresses, their ticks, CPU
// and memory over time, as their own /metrics report them (prom.Scrape),
// so the servers may be on another machine.
func runLoad(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("load", stderr,
		"usage: tether load [-server IP:PORT] [-matches M] [-key FILE] [-bots N] [-duration D] [-churn D] [-admin HOST:PORT,... [-sample D]] [-json]",
		"Plays N bots against each of M matches of tether serve (minting their tokens with the server's key)",
		"for a bounded time; reports their clock and ball figures, its own CPU and, from -admin, the servers'",
		"ticks (pooled over their matches), CPU and memory (summed over the processes).",
	)
	addr := fs.String("server", "127.0.0.1:40000", "the public address of the server's first match, IP:PORT; match i's is its port + i (tether serve -matches, or one serve per port)")
	matches := fs.Int("matches", 1, fmt.Sprintf("matches to play, 1 to %d, each with -bots bots", maxMatches))
	keyPath := fs.String("key", "tether.key", "the server's private key file (tether keygen)")
	pid := protocolFlag(fs, "protocol id the server runs")
	bots := fs.Int("bots", 22, fmt.Sprintf("bots to play in each match, 1 to %d", maxLoadBots))
	duration := fs.Duration("duration", time.Minute, "how long to play once every bot is connected, up to "+maxLoadDuration.String())
	churn := fs.Duration("churn", 0, "if set, every interval one bot leaves and a new one (new client id) joins in its place, in turn")
	adminFlag := fs.String("admin", "", "the servers' -admin HOST:PORT, comma-separated (one per serve process), to read their ticks, CPU and memory from /metrics")
	sample := fs.Duration("sample", 10*time.Second, "with -admin, interval of the server's CPU and memory samples")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	server, err := netip.ParseAddrPort(*addr)
	if err != nil {
		return usagef("-server %q: want IP:PORT", *addr)
	}
	if *bots < 1 || *bots > maxLoadBots {
		return usagef("-bots %d: want 1 to %d", *bots, maxLoadBots)
	}
	if *matches < 1 || *matches > maxMatches {
		return usagef("-matches %d: want 1 to %d", *matches, maxMatches)
	}
	if _, err := roomAddr("-server", server, *matches-1); err != nil || server.Port() == 0 {
		return usagef("-server %s with -matches %d: want ports %d to %d within 1 to 65535", server, *matches, server.Port(), int(server.Port())+*matches-1)
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
	dial := func(n, match int) (*playBot, error) {     // the run's nth bot, in match match
		at, _ := roomAddr("-server", server, match)
		tok, err := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
			ProtocolID: *pid, ClientID: firstID + uint64(n) + 1, ServerAddresses: []netip.AddrPort{at}, Now: time.Now(),
		})
		if err != nil {
			return nil, err
		}
		return dialBot(tok, *pid, firstID+uint64(n)*0x9e3779b97f4a7c15)
	}
	rep := loadReport{Bots: *bots * *matches, Matches: *matches}
	admins := strings.Split(*adminFlag, ",")
	scrape := func() (sum prom.Scraped, _ error) { // every -admin's, summed
		for _, a := range admins {
			s, err := prom.Scrape(ctx, http.DefaultClient, "http://"+strings.TrimSpace(a)+"/metrics")
			if err != nil {
				return sum, fmt.Errorf("-admin: %w", err)
			}
			sum = sum.Add(s)
		}
		return sum, nil
	}
	var first, last prom.Scraped // from -admin: when every bot had connected, and the last sample
	if *adminFlag != "" {
		if rep.Goroutines.Before, err = serverGoroutines(scrape); err != nil {
			return err
		}
	}
	players := make([]*playBot, 0, *bots**matches) // bot i plays in match i / -bots
	defer func() {
		for _, pb := range players {
			pb.driver.Close()
		}
	}()
	for i := range *bots * *matches {
		pb, err := dial(i, i / *bots)
		if err != nil {
			return err
		}
		players = append(players, pb)
	}
	wait := time.NewTimer(botConnectWait)
	defer wait.Stop()
	for i, pb := range players {
		if err := pb.waitConnected(ctx, wait.C); err != nil {
			return fmt.Errorf("bot %d: match %d: %w", i, i / *bots, err)
		}
	}
	start := time.Now()
	cpu0, cpuOK := ownCPU()
	if *adminFlag != "" {
		if first, err = scrape(); err != nil {
			return err
		}
		last = first
	}
	lastAt := start
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
			pb, err := dial(len(players)+c.Cycles, i / *bots)
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
				c.Error = cmp.Or(c.Error, err.Error())
			}
		case <-tk.C:
			if *adminFlag != "" {
				sc, err := scrape()
				if err != nil {
					return err
				}
				now := time.Now()
				s := procSample{TimeS: roundTo(now.Sub(start).Seconds(), 1), CPUPercent: cpuPercent(sc.CPU-last.CPU, now.Sub(lastAt)),
					RSSMiB: roundTo(sc.RSS/(1<<20), 1), Connected: connectedBots(players)}
				last, lastAt = sc, now
				rep.Samples = append(rep.Samples, s)
				if !*asJSON {
					fmt.Fprintf(stdout, "t=%4.0fs  server cpu %5.2f %% of a core  rss %6.1f MiB  bots connected %d\n", s.TimeS, s.CPUPercent, s.RSSMiB, s.Connected)
				}
			}
		}
	}
	played := time.Since(start)
	if cpu1, _ := ownCPU(); cpuOK {
		rep.LoadCPUPercent = cpuPercent(cpu1-cpu0, played)
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
		end, err := scrape()
		if err != nil {
			return err
		}
		rep.ServerCPUPercent = cpuPercent(end.CPU-first.CPU, played)
		rep.ServerCPUPerClient = roundTo(rep.ServerCPUPercent/float64(rep.Bots), 4)
		rep.ServerCPUPerMatch = roundTo(rep.ServerCPUPercent/float64(*matches), 4)
		if end.Matches != *matches {
			return fmt.Errorf("-admin: the servers report %d matches, -matches is %d", end.Matches, *matches)
		}
		mean, p99 := end.TickTimes(first)
		rep.Server = &tickFigures{Ticks: end.Ticks - first.Ticks, Overruns: end.Overruns - first.Overruns, Skipped: end.Skipped - first.Skipped,
			MeanMs: roundTo(durMs(mean), 4), P99Ms: roundTo(durMs(p99), 4)}
		if p99 < 0 {
			rep.Server.P99Ms = -1
		}
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
			sc, err := scrape()
			if err != nil {
				return err
			}
			rep.ClientsAfter = sc.Clients
			if sc.Clients == 0 || time.Now().After(left) {
				break
			}
			time.Sleep(leaveWait / 20)
		}
		if rep.Goroutines.After, err = serverGoroutines(scrape); err != nil {
			return err
		}
	}
	rep.PlayedS = roundTo(played.Seconds(), 1)
	rep.ClockBoundP99Ms = measure.Summarise(p99s)
	rep.BallDelayMs = measure.Summarise(delays)
	if *asJSON {
		return printJSON(stdout, &rep)
	}
	return rep.write(stdout)
}

// leaveWait is how long tether load waits for the server to see its bots leave.
const leaveWait = 2 * time.Second

// waitConnected waits until pb is connected, its connection fails, timeout
// fires or ctx ends.
func (pb *playBot) waitConnected(ctx context.Context, timeout <-chan time.Time) error {
	select {
	case <-pb.driver.Connected():
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
	Bots      int     `json:"bots"` // in all matches
	Matches   int     `json:"matches"`
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

	// LoadCPUPercent is this process's (the bots') CPU time over the run,
	// in percent of one core.
	LoadCPUPercent     float64      `json:"load_cpu_percent,omitempty"`
	ServerCPUPercent   float64      `json:"server_cpu_percent,omitempty"` // of one core, over the run, all -admin processes
	ServerCPUPerClient float64      `json:"server_cpu_percent_per_client,omitempty"`
	ServerCPUPerMatch  float64      `json:"server_cpu_percent_per_match,omitempty"`
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
	fmt.Fprintf(tw, "bots\t%d in %d matches played %.1f s; %d connected at the end\n", r.Bots, r.Matches, r.PlayedS, r.Connected)
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
	if r.Server != nil {
		fmt.Fprintf(tw, "server cpu\t%.2f %% of a core, %.3f %% per match, %.3f %% per client\n", r.ServerCPUPercent, r.ServerCPUPerMatch, r.ServerCPUPerClient)
	}
	if r.LoadCPUPercent > 0 {
		fmt.Fprintf(tw, "load cpu\t%.2f %% of a core (these bots)\n", r.LoadCPUPercent)
	}
	return tw.Flush()
}

// procSample is one sample of the server process, from its /metrics.
type procSample struct {
	TimeS      float64 `json:"t_s"`
	CPUPercent float64 `json:"cpu_percent"` // of one core, since the previous sample
	RSSMiB     float64 `json:"rss_mib"`
	Connected  int     `json:"bots_connected"`
}

// cpuPercent is cpu time used over wall time, in percent of one core.
func cpuPercent(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return roundTo(100*float64(cpu)/float64(wall), 3)
}

// tickFigures are the server's ticks over the run, from its /metrics.
type tickFigures struct {
	Ticks    uint64  `json:"ticks"`
	Overruns uint64  `json:"overruns"`
	Skipped  uint64  `json:"skipped"`
	MeanMs   float64 `json:"tick_mean_ms"`
	P99Ms    float64 `json:"tick_p99_ms"` // the histogram bucket bound the 99th percentile falls under; -1 above the largest
}

// serverGoroutines returns the fewest goroutines the server reported in a
// few scrapes: its metrics registry gathers on a varying number of
// goroutines of its own.
func serverGoroutines(scrape func() (prom.Scraped, error)) (int, error) {
	least := 0
	for i := range 5 {
		s, err := scrape()
		if err != nil {
			return 0, err
		}
		if i == 0 || s.Goroutines < least {
			least = s.Goroutines
		}
		time.Sleep(10 * time.Millisecond)
	}
	return least, nil
}
