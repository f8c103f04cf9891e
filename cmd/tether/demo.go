package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/game/soccer/match/page"
	"github.com/tether-net/tether/lab"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/web"
)

// Demo limits and rates.
const (
	demoMaxBots = 22               // soccer.DefaultRules().MaxPlayers
	demoPublish = time.Second / 30 // frames to the page
	// demoIdle is how long the person's player stays under their keys with
	// no key held before its bot plays it again.
	demoIdle = 20 * time.Second
)

// runDemo runs the showcase: a server and bots over real UDP on loopback,
// each through an emulated link, with the live view on a web page, or
// headless with a report in the lab's schema.
//
// Live measurement is the lab's: the same meters (package measure), fed
// with the same records, against the same truth (match.BallTruth for the
// ball, a measure.Cast of the players, the server's kicks, from the
// server's match after every tick), with these differences:
//   - T(L), the true server time of a frame, is the frame's local time mapped
//     through the bot's emulated clock onto the server's clock
//     (match.Bot.TrueTime, exact to within a microsecond).
//   - net.* are measured after the warm-up, over whole datagrams (netcode
//     header and tag included) plus 28 bytes each; down counts datagrams
//     received, after the link's loss and duplicates, up those sent.
//     clock_*_kbps count the clock's messages inside payloads (ping and pong
//     bytes), with no header (match.NetBetween; a browser's: Live.BrowserNet).
//   - Blackouts are not emulated live, so blackout_frames is 0.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stderr,
		"usage: tether demo [-bots N] [-link PRESET] [-ball METHOD] [-http ADDR] [-webtransport=false] [-seed N] [-duration D]",
		"       tether demo -headless [-duration D] [-json] [-bots N] [-link PRESET] [-ball METHOD] [-seed N]",
		"Runs a soccer match: a server and bots over real UDP on 127.0.0.1, each through an",
		"emulated link, shown live on a web page where your keys can drive one player.",
		"-ball picks how every bot's client shows the ball (soccer.ClientGame.BallMethod); a resim",
		"client does not predict its own player, the others do.",
		"Headless, it reports in the lab's schema with the lab's definitions, after a 2 s warm-up;",
		"live, net.* count whole datagrams after the warm-up (down as received, up as sent) and",
		"clock_*_kbps the clock's messages.",
		"       tether demo -game arena [-headless [-json]] [-http ADDR] [-duration D] [-bots N] [-link PRESET] [-seed N]",
		"runs the arena (package game/arena) instead, every other bot drawing projectiles the naive",
		"way: on the page your keys and mouse play one player; headless, it reports the lab's arena",
		"figures (proj.*, hits.*).",
	)
	bots := fs.Int("bots", 4, fmt.Sprintf("bot clients, 1 to %d", demoMaxBots))
	linkName := fs.String("link", "wan", "link preset every bot plays through: lan, broadband, wan, mobile or lossy")
	ballName := fs.String("ball", string(replicate.MethodTether), "how every bot's client shows the ball: "+methodList())
	httpAddr := fs.String("http", "127.0.0.1:8080", "address the web page is served on")
	webTransport := fs.Bool("webtransport", true, "let the page's player use WebTransport, on the -http port over UDP (false: the WebSocket alone)")
	headless := fs.Bool("headless", false, "serve no page: measure the clients and print a report when stopped")
	duration := fs.Duration("duration", 0, "stop after this long (0: run until interrupted)")
	asJSON := fs.Bool("json", false, "print the report as the lab's JSON when stopped (with the page, its browser players' rows too)")
	seed := fs.Uint64("seed", 1, "seed of the links and the bots")
	gameName := fs.String("game", "soccer", "the game: soccer, or arena (package game/arena; headless, reported as the lab's arena scenarios)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *bots < 1 || *bots > demoMaxBots {
		return usagef("-bots %d: want 1 to %d", *bots, demoMaxBots)
	}
	link, err := netsim.Preset(*linkName)
	if err != nil {
		return usagef("-link: %w", err)
	}
	ball, err := replicate.ParseMethod(*ballName)
	if err != nil {
		return usagef("-ball %q: want %s", *ballName, methodList())
	}
	if *duration < 0 {
		return usagef("-duration %v: want 0 (until interrupted) or more", *duration)
	}
	if *headless && *duration > 0 && *duration <= demoWarmUp {
		return usagef("-duration %v: want more than the %v warm-up, or 0", *duration, demoWarmUp)
	}
	if *asJSON && !*headless && *gameName == "arena" {
		return usagef("-game arena -json needs -headless")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *headless && set["http"] {
		return usagef("-http and -headless: give one or the other")
	}
	if *gameName != "soccer" && *gameName != "arena" {
		return usagef("-game %q: want soccer or arena", *gameName)
	}
	if *gameName == "arena" && set["ball"] {
		return usagef("-game arena runs without -ball (its bots draw projectiles by the shipped method and the naive one in turn)")
	}
	var ln net.Listener
	if !*headless {
		if ln, err = net.Listen("tcp", *httpAddr); err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("-http %s: %w (give another address, or 127.0.0.1:0 for any free port)", *httpAddr, err)
			}
			return fmt.Errorf("-http %s: %w", *httpAddr, err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *gameName == "arena" {
		if *duration > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, *duration)
			defer cancel()
		}
		return arenaDemo{bots: *bots, link: link, linkName: *linkName, seed: *seed, asJSON: *asJSON, duration: *duration, ln: ln, httpAddr: *httpAddr}.run(ctx, stdout, stderr)
	}

	names := make([]string, *bots)
	links := make([]netsim.LinkConfig, *bots)
	for i := range names {
		names[i], links[i] = fmt.Sprintf("bot-%d", i+1), link
	}
	// A resim client re-simulates the own player with the match, from the
	// server's states: it does not predict it (see ClientGame.BallMethod).
	predicts := ball != replicate.MethodResim
	rec := newRecorder(links, predicts, *headless || *asJSON)
	if !*headless {
		var pcs []page.Client
		for i, n := range names {
			pcs = append(pcs, page.Client{Name: n, Ball: string(ball), LinkName: *linkName, Link: links[i]})
		}
		rec.page = page.New(rec.meter, pcs)
	}
	live, err := match.StartLive(match.Config{Seed: *seed, Bots: *bots, Link: link, Ball: ball, NoPrediction: !predicts,
		OnTick: rec.onTick, OnFrame: rec.onFrame, OnMove: rec.onMove, OnCorrection: rec.onCorrection})
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	rec.live.Store(live)
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	d := &demo{live: live, rec: rec, names: names, links: links, ball: ball, bots: live.Bots()}

	var wg sync.WaitGroup
	var hub *web.Hub
	stopWeb := func() {}
	if !*headless {
		wc := webConfig(*httpAddr)
		play, err := playHandler(live, rec, ln.Addr(), link, *seed, !*webTransport, stderr)
		if err != nil {
			ln.Close()
			live.Close()
			return err
		}
		defer play.Close()
		wc.Play = play
		hub = web.NewHubConfig(wc)
		if err := hub.SetPitch(page.Pitch(soccer.Rules{})); err != nil {
			ln.Close()
			live.Close()
			return err
		}
		stopWeb = serveWeb(ln, hub, stderr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec.page.Steer(d.bots[0], hub.Inputs(), demoIdle)
		}()
		fmt.Fprintf(stdout, "tether demo: %d bots over %s links, the ball shown by %s; the match is on http://%s/ (Ctrl-C to stop)\n", *bots, *linkName, ball, ln.Addr())
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.monitor(ctx, hub)
	}()

	<-ctx.Done()
	stop() // a second interrupt ends the process at once
	interrupted := ctx.Err() == context.Canceled
	end := live.Server().Now()
	ran := end.Seconds() // the scenario's duration_s: the one asked for, if it ran that long
	if !interrupted {
		ran = duration.Seconds()
	}
	d.finalSample(end)
	// Connections that ended on their own did so before the match is closed
	// below; looking now, and not from the monitor, keeps the close itself
	// from counting as a loss.
	var lost []string
	for i, b := range d.bots {
		select {
		case <-b.Driver().Done():
			lost = append(lost, names[i])
		default:
		}
	}
	stopWeb() // ends the pages' connections and Inputs, so keys returns
	closeErr := live.Close()
	wg.Wait()
	if closeErr != nil {
		fmt.Fprintf(stderr, "tether demo: stopping the match: %v\n", closeErr)
	}
	for _, name := range lost {
		fmt.Fprintf(stderr, "tether demo: %s lost its connection before the end\n", name)
	}
	if interrupted && !*headless {
		fmt.Fprintln(stdout, "tether demo: stopped")
	}
	if !*headless && !*asJSON {
		return nil
	}
	rep := d.report(*seed, ran, end)
	if *asJSON {
		return printJSON(stdout, rep)
	}
	return lab.WriteTable(stdout, rep)
}

// demo is a running demo.
type demo struct {
	live  *match.Live
	rec   *recorder
	names []string
	links []netsim.LinkConfig
	ball  replicate.Method // how every client shows the ball
	bots  []*match.Bot

	base, final []match.NetCounters // traffic at the warm-up's end and at the end, for the report
}

// webConfig lets the page be reached by the host name given in -http (IP
// addresses and localhost always are).
func webConfig(httpAddr string) web.HubConfig {
	var cfg web.HubConfig
	if host, _, err := net.SplitHostPort(httpAddr); err == nil && host != "" {
		cfg.Hosts = []string{host}
	}
	return cfg
}

// serveWeb serves hub's page on ln, warning on stderr if ln is reachable
// from the network, until the function it returns is called.
func serveWeb(ln net.Listener, hub *web.Hub, stderr io.Writer) (stop func()) {
	if warn := exposedWarning(ln.Addr()); warn != "" {
		fmt.Fprintln(stderr, warn)
	}
	return hub.Serve(ln, func(err error) { fmt.Fprintf(stderr, "tether demo: web: %v\n", err) })
}

// exposedWarning returns a warning if the web view listens beyond the
// loopback interface, where anyone who reaches it can steer a player.
func exposedWarning(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || tcp.IP.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("tether demo: warning: the web view on %s is reachable from the network: anyone who reaches it can watch the match and steer a player (use -http 127.0.0.1:PORT to keep it on this machine)", a)
}

// monitor takes the traffic counters at the warm-up and, with a hub,
// publishes frames to the page, until ctx ends.
func (d *demo) monitor(ctx context.Context, hub *web.Hub) {
	every := demoPublish
	if hub == nil {
		every = 50 * time.Millisecond
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	var f web.Frame
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := d.live.Server().Now()
		if d.base == nil && now >= demoWarmUp {
			d.base = d.traffic(now)
		}
		if hub != nil {
			d.rec.page.Fill(&f, d.bots, now)
			hub.Publish(f)
		}
	}
}

// traffic reads every bot's traffic counters at server time now.
func (d *demo) traffic(now time.Duration) []match.NetCounters {
	n := make([]match.NetCounters, len(d.bots))
	for i, b := range d.bots {
		n[i] = b.NetCounters(now)
	}
	return n
}

// methodList names the ball methods a client can show the ball by.
func methodList() string {
	var s []string
	for _, m := range replicate.Methods() {
		s = append(s, string(m))
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// finalSample ends the measurement and takes the traffic counters at the
// end of the run.
func (d *demo) finalSample(now time.Duration) {
	d.rec.meter.Stop(d.bots)
	d.final = d.traffic(now)
}

// report builds the lab's report of the run, which lasted secs seconds and
// was measured up to server time end.
func (d *demo) report(seed uint64, secs float64, end time.Duration) *lab.Report {
	rep := &lab.Report{Scenario: lab.Scenario{
		Name: "demo", Seed: seed, DurationS: roundTo(secs, 3),
		TickHz: lab.DefaultTickHz, SnapshotHz: lab.DefaultSnapshotHz, FrameHz: lab.DefaultFrameHz,
		Game: "soccer",
	}}
	for i := len(d.names); i < d.rec.meter.Rows(); i++ { // the browsers' rows
		d.names, d.links = append(d.names, fmt.Sprintf("browser-%d", i+1-len(d.bots))), append(d.links, d.links[0])
	}
	for i, name := range d.names {
		rep.Scenario.Clients = append(rep.Scenario.Clients, lab.Client{Name: name, Clock: lab.ClockTether, Ball: string(d.ball), Link: d.links[i]})
		net, _ := d.live.BrowserNet(i) // a browser's: the server's counts of its slot
		if i < len(d.base) && d.final != nil {
			net = match.NetBetween(d.base[i], d.final[i])
		}
		fig := d.rec.meter.Figures(i, end)
		rep.Results = append(rep.Results, lab.Result{Client: name, ClockMethod: lab.ClockTether, BallMethod: string(d.ball),
			Clock: fig.Clock, Ball: fig.Ball, Net: net, Others: &fig.Others, Own: &fig.Own})
	}
	return rep
}
