package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tether-net/tether/lab"
)

// TestDemoPlayInBrowser opens the demo's page in headless Chromium and
// presses "Play in this browser": the match's client, built for
// WebAssembly on first use, connects over WebTransport (over the WebSocket
// with -webtransport=false) as a player of its own beside two UDP bots, draws more than 300 frames of its view, and the
// D key held moves its player +X in the server's truth. It logs the
// figures the page keeps: the Go time per frame (p99), the clock's error
// bound, the render delay, and the time from the page's start to the first
// frame drawn (the first build of the client included, if it ran).
func TestDemoPlayInBrowser(t *testing.T) {
	bin := demoBrowser(t)
	t.Run("webtransport", func(t *testing.T) { playInBrowser(t, bin, "webtransport") })
	t.Run("websocket", func(t *testing.T) { playInBrowser(t, bin, "websocket", "-webtransport=false") })
}

func playInBrowser(t *testing.T, bin, transport string, flags ...string) {
	cmd, out, stderr := startProcess(t, append([]string{"demo", "-http", "127.0.0.1:0", "-bots", "2", "-link", "lan"}, flags...)...)
	m := waitLine(t, out, regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`), 10*time.Second)

	ctx, cancelTab, poll := pressPlay(t, bin, m[1], stderr)
	poll(`window.tetherStats.play && window.tetherStats.play.framesDrawn > 0 && window.tetherStats.truth`, 4*time.Minute)

	// x of the browser's player in the server's truth (the hub's frames).
	const selfX = `(() => { const s = window.tetherStats; const p = s.truth.players.find((p) => p.id === s.play.self); return p ? p.pos[0] : null; })()`
	x := func() float64 {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[*float64](selfX))
		if err != nil || v == nil {
			t.Fatalf("the browser's player in the truth: %v (%v)", v, err)
		}
		return *v
	}
	from := x()
	key := func(typ string) string {
		return `window.dispatchEvent(new KeyboardEvent('` + typ + `', {code: 'KeyD', key: 'd'}))`
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](key("keydown"))); err != nil {
		t.Fatal(err)
	}
	poll(`window.tetherStats.play.framesDrawn > 300`, time.Minute)
	poll(selfX+` > `+strconv.FormatFloat(from+3, 'f', 3, 64), 20*time.Second)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](key("keyup"))); err != nil {
		t.Fatal(err)
	}
	type play struct {
		Transport    string  `json:"transport"`
		State        string  `json:"state"`
		Frames       int     `json:"framesDrawn"`
		FrameMsP99   float64 `json:"frameMsP99"`
		FrameMsMax   float64 `json:"frameMsMax"`
		TotalMsP99   float64 `json:"totalMsP99"`
		ClockBoundMs float64 `json:"clockBoundMs"`
		DelayMs      float64 `json:"delayMs"`
		FirstFrameMs float64 `json:"firstFrameMs"`
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[play](`window.tetherStats.play`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("browser client: %+v; its player moved from x = %.2f m to past %.2f m", p, from, from+3)
	if p.Transport != transport || p.State != "connected" {
		t.Errorf("transport %q, state %q: want %s, connected", p.Transport, p.State, transport)
	}
	if !(p.ClockBoundMs > 0) || !(p.DelayMs > 0) {
		t.Errorf("clock bound %v ms, render delay %v ms: want both measured", p.ClockBoundMs, p.DelayMs)
	}
	// Without -json the server takes no frame records, and the page posts
	// none (it had a 404 for each play); the table has a row for this
	// browser's client; the legend describes what play draws, no client's
	// arcs and no ball gap.
	type page struct {
		Failed    []string `json:"failed"`
		Arcs, Gap bool
		You       string `json:"you"`
	}
	pg, err := chromedp.Run(ctx, chromedp.Evaluate[page](`({
		failed: performance.getEntriesByType('resource').filter((e) => e.responseStatus >= 400).map((e) => e.name + ' ' + e.responseStatus),
		Arcs: !document.getElementById('legend-arcs').hidden, Gap: !document.getElementById('legend-gap').hidden,
		you: (document.querySelector('tr.self') || {}).textContent || ''})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Failed) > 0 || pg.Arcs || pg.Gap || !strings.Contains(pg.You, "this browser") || !strings.Contains(pg.You, "≤") {
		t.Errorf("page: requests failed %q, legend shows arcs %v and ball gap %v, this browser's row %q", pg.Failed, pg.Arcs, pg.Gap, pg.You)
	}
	if dir := os.Getenv("TETHER_SCREENSHOT_DIR"); dir != "" {
		if shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
			os.WriteFile(filepath.Join(dir, "play-"+transport+".png"), shot, 0o644)
		}
	}
	cancelTab()
	stopProcess(t, cmd, stderr, 10*time.Second)
}

// pressPlay opens url in a headless Chromium tab and presses "Play in this
// browser". It returns the tab, the function that closes it, and one that
// waits for a JavaScript expression to be true (failing the test with the
// server's stderr if it is not within d).
func pressPlay(t *testing.T, bin, url string, stderr *bytes.Buffer) (context.Context, context.CancelFunc, func(expr string, d time.Duration)) {
	t.Helper()
	// The first build of the client takes up to a minute or two on a busy
	// machine; later runs find it in the user cache.
	ctx, cancelTab := browserTab(t, bin, 5*time.Minute)
	poll := poller(t, ctx, stderr)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	poll(`!document.getElementById('play').hidden`, 20*time.Second)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('play').click()`)); err != nil {
		t.Fatal(err)
	}
	return ctx, cancelTab, poll
}

// TestDemoBrowserRowInBrowser runs `tether demo -json` with its page as a
// real process and plays it from headless Chromium by the bots' own brain
// (the page's ?bot=1): the page posts its client's frame records, and the
// report printed when the demo stops has a row for the browser (browser-1)
// beside the bot's, with its ball, clock and own predicted player measured
// by the same meter, and its traffic a bot's.
//
// The match is one bot against the browser's player, each alone on its
// side, so that the same brain plays the same part on both: with a second
// bot the browser's player joined the first's side, where the brain makes
// one of the two chase the ball and the other wait in support, and the
// one that joined last mostly waits: moves that change less, fewer bytes
// of inputs (65 and 67 B a packet against its teammate's 77 and 85 in two
// runs, at the same rate of packets), up to a quarter less traffic up than
// the bot it was compared with.
func TestDemoBrowserRowInBrowser(t *testing.T) {
	bin := demoBrowser(t)
	cmd, out, stderr := startProcess(t, "demo", "-http", "127.0.0.1:0", "-bots", "1", "-link", "wan", "-json")
	m := waitLine(t, out, regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`), 10*time.Second)

	ctx, cancelTab, poll := pressPlay(t, bin, m[1]+"?bot=1", stderr)
	poll(`window.tetherStats.play && window.tetherStats.play.bot && window.tetherStats.play.framesDrawn > 900`, 4*time.Minute)
	type play struct {
		State  string `json:"state"`
		Frames int    `json:"framesDrawn"`
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[play](`window.tetherStats.play`))
	if err != nil {
		t.Fatal(err)
	}
	cancelTab()
	// Interrupted, the demo prints its report and exits: read it all before
	// waiting for the process, which closes its output.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var js strings.Builder
	for l := range out {
		if js.Len() > 0 || strings.HasPrefix(l, "{") {
			js.WriteString(l + "\n")
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after an interrupt: %v; stderr: %s", err, stderr.String())
	}
	var rep lab.Report
	if err := json.Unmarshal([]byte(js.String()), &rep); err != nil {
		t.Fatalf("the report: %v\n%s", err, js.String())
	}
	var row *lab.Result
	for i, r := range rep.Results {
		t.Logf("%s: ball %d frames, %d pops, fidelity p99 %.4f m; clock err p99 %.2f ms; own %d frames, %d corrections",
			r.Client, r.Ball.Frames, r.Ball.Pops, r.Ball.FidelityM.P99, r.Clock.ErrMs.P99, r.Own.Frames, r.Own.Corrections)
		if r.Client == "browser-1" {
			row = &rep.Results[i]
		}
	}
	if len(rep.Results) != 2 || row == nil {
		t.Fatalf("%d rows, browser-1 among them: %v; want the bot's and the browser's", len(rep.Results), row != nil)
	}
	// The page drew p.Frames frames, 2 s of which are its row's warm-up and
	// up to 29 not posted yet.
	if min := p.Frames - 200; row.Ball.Frames < min || !row.Own.Predicted || row.Own.Frames < min || row.Clock.ErrMs.P99 <= 0 {
		t.Errorf("browser-1 measured %d frames of the ball and %d of its own player (predicted %v), clock error p99 %v ms: want ≥ %d each of the %d drawn, and the clock measured",
			row.Ball.Frames, row.Own.Frames, row.Own.Predicted, row.Clock.ErrMs.P99, min, p.Frames)
	}
	// Its traffic, from the server's counts of its slot, is a bot's within
	// a quarter (the same snapshots down; up the same brain's inputs in the
	// same part). Up less the inputs (headers, acknowledgements, pings: what
	// the rate of its packets and the protocol set, whatever the player
	// does) is a bot's within a quarter too.
	bot, net := rep.Results[0].Net, row.Net
	if net.Up == nil || bot.Up == nil || net.Down == nil {
		t.Fatalf("browser-1's traffic by kind: up %v, down %v; bot-1's up %v", net.Up, net.Down, bot.Up)
	}
	t.Logf("net: browser down %.2f kbps (snapshots %.2f), up %.2f (inputs %.2f, acks %.2f, clock %.2f, headers %.2f); bot-1 down %.2f (snapshots %.2f), up %.2f (inputs %.2f, acks %.2f, clock %.2f, headers %.2f)",
		net.DownKbps, net.Down.Snapshots, net.UpKbps, net.Up.Inputs, net.Up.Acks, net.Up.Clock, net.Up.Headers,
		bot.DownKbps, bot.Down.Snapshots, bot.UpKbps, bot.Up.Inputs, bot.Up.Acks, bot.Up.Clock, bot.Up.Headers)
	if math.Abs(net.DownKbps-bot.DownKbps) > bot.DownKbps/4 || math.Abs(net.UpKbps-bot.UpKbps) > bot.UpKbps/4 || net.Down.Snapshots <= 0 {
		t.Errorf("browser-1's net: down %.2f kbps, up %.2f; bot-1's %.2f, %.2f", net.DownKbps, net.UpKbps, bot.DownKbps, bot.UpKbps)
	}
	rest, botRest := net.UpKbps-net.Up.Inputs, bot.UpKbps-bot.Up.Inputs
	if math.Abs(rest-botRest) > botRest/4 || !(net.Up.Inputs > 0) || !(net.Up.Clock > 0) || !(net.Up.Acks > 0) {
		t.Errorf("browser-1's up less its inputs %.2f kbps, bot-1's %.2f; its inputs %.2f, clock %.2f, acks %.2f: want all measured",
			rest, botRest, net.Up.Inputs, net.Up.Clock, net.Up.Acks)
	}
}
