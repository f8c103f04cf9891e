package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/lab"
)

// TestDemoArena runs tether demo -game arena headless as a real process over
// loopback UDP: the lab's arena report, every bot measured (the other
// players by kind too), projectiles drawn by the shipped method nearer the
// server's than the naive baseline's.
func TestDemoArena(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cmd := asProcess("demo", "-game", "arena", "-headless", "-duration", "6s", "-json", "-bots", "4", "-link", "broadband")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var rep lab.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if s := rep.Scenario; s.Game != lab.GameArena || len(s.Clients) != 4 || len(rep.Results) != 4 || s.DurationS != 6 {
		t.Fatalf("scenario %+v, %d results", s, len(rep.Results))
	}
	worst := map[string]float64{}
	shots := 0
	for _, r := range rep.Results {
		if r.Proj == nil || r.Hits == nil || r.Proj.Samples == 0 || r.Clock.ErrMs.P99 == 0 {
			t.Fatalf("%s: proj %+v hits %+v clock %+v", r.Client, r.Proj, r.Hits, r.Clock)
		}
		if len(r.Entities) != 1 || r.Entities[0].Kind != "player" || r.Entities[0].Samples == 0 || r.Entities[0].Kbps <= 0 ||
			r.Entities[0].FidelityM.P50 > 0.1 {
			t.Fatalf("%s: entities %+v, want the other players measured, drawn within 10 cm at the median", r.Client, r.Entities)
		}
		t.Logf("%s: players' fidelity p50 %.4f p99 %.3f m, %.0f pops/min, %.2f kbps", r.Client, r.Entities[0].FidelityM.P50,
			r.Entities[0].FidelityM.P99, r.Entities[0].PopsPerMin, r.Entities[0].Kbps)
		t.Logf("%s (%s): spawn err p50 %.3f p99 %.3f m; %d shots, agree %.2f (%.2f without rewind)",
			r.Client, r.BallMethod, r.Proj.SpawnErrM.P50, r.Proj.SpawnErrM.P99, r.Hits.Shots, r.Hits.Agree, r.Hits.AgreeNoRewind)
		worst[r.BallMethod] = max(worst[r.BallMethod], r.Proj.SpawnErrM.P50)
		shots += r.Hits.Shots
	}
	if worst[lab.BallTether] >= worst[lab.BallSeed]/4 || shots == 0 {
		t.Errorf("spawn err p50: tether %.3f m, seed %.3f m; %d shots", worst[lab.BallTether], worst[lab.BallSeed], shots)
	}
}

func TestDemoArenaFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-game", "chess"}, `-game "chess": want soccer or arena`},
		{[]string{"-game", "arena", "-headless", "-ball", "seed"}, "without -ball"},
		{[]string{"-game", "arena", "-headless", "-bots", "17"}, "-bots 17: want 1 to 16 for -game arena"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"demo"}, c.args...), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("demo %v: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestDemoArenaInBrowser runs tether demo -game arena with its page as a
// real process and plays it in headless Chromium as a person would: the
// page draws the arena (walls, pillars, no goals) and more than 60 frames;
// a key held moves the person's player in the server's truth, and a click
// fires a projectile the server has in flight, both through the hub's
// input path. It saves arena.png under TETHER_SCREENSHOT_DIR.
func TestDemoArenaInBrowser(t *testing.T) {
	bin := demoBrowser(t)
	cmd, out, stderr := startProcess(t, "demo", "-game", "arena", "-http", "127.0.0.1:0", "-bots", "3", "-link", "broadband")
	m := waitLine(t, out, regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`), 10*time.Second)
	ctx, cancelTab := browserTab(t, bin, 90*time.Second)
	poll := poller(t, ctx, stderr)
	eval := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](expr)); err != nil {
			t.Fatal(err)
		}
	}
	key := func(typ, code, k string) string {
		return `window.dispatchEvent(new KeyboardEvent('` + typ + `', {code: '` + code + `', key: '` + k + `'}))`
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(m[1])); err != nil {
		t.Fatal(err)
	}
	poll(`window.tetherStats && window.tetherStats.arena && window.tetherStats.framesDrawn > 60 && window.tetherStats.clientsShown === 3`, 30*time.Second)

	// Shift held takes the player over and stops it; then the key of the
	// axis with the longest free run moves it.
	eval(key("keydown", "ShiftLeft", "Shift"))
	const human = `window.tetherStats.truth.players.find((p) => p.human)`
	poll(`!!(`+human+`)`, 10*time.Second)
	type player struct {
		ID     int        `json:"id"`
		Pos    [3]float64 `json:"pos"`
		Health int        `json:"health"`
	}
	me, err := chromedp.Run(ctx, chromedp.Evaluate[player](human))
	if err != nil {
		t.Fatal(err)
	}
	best := struct {
		code, key string
		dx, dz    float64
		run       float64
	}{}
	for _, d := range []struct {
		code, key string
		dx, dz    float64
	}{{"KeyD", "d", 1, 0}, {"KeyA", "a", -1, 0}, {"KeyS", "s", 0, 1}, {"KeyW", "w", 0, -1}} {
		if r := freeRun(me.Pos[0], me.Pos[2], d.dx, d.dz); r > best.run {
			best.code, best.key, best.dx, best.dz, best.run = d.code, d.key, d.dx, d.dz, r
		}
	}
	t.Logf("player %d at (%.2f, %.2f): holding %s, %.1f m free", me.ID, me.Pos[0], me.Pos[2], best.key, best.run)
	eval(key("keydown", best.code, best.key))
	// Moved 2.5 m that way in the server's truth (from where it respawned,
	// should the bots kill it meanwhile).
	poll(fmt.Sprintf(`(() => { const p = %s; if (!p) return false;
		const w = window.tetherTest || (window.tetherTest = {from: p.pos, hp: p.health});
		if (p.health > w.hp) w.from = p.pos;
		w.hp = p.health;
		return (p.pos[0] - w.from[0]) * %g + (p.pos[2] - w.from[2]) * %g > 2.5; })()`, human, best.dx, best.dz), 20*time.Second)
	eval(key("keyup", best.code, best.key))

	// A click 5 m ahead fires a projectile the server has.
	if me, err = chromedp.Run(ctx, chromedp.Evaluate[player](human)); err != nil {
		t.Fatal(err)
	}
	at, err := chromedp.Run(ctx, chromedp.Evaluate[[2]float64](fmt.Sprintf(`window.tetherPoint(%g, %g)`, me.Pos[0]+5*best.dx, me.Pos[2]+5*best.dz)))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(at[0], at[1])); err != nil {
		t.Fatal(err)
	}
	poll(`window.tetherStats.fired > 0`, 10*time.Second)
	eval(key("keyup", "ShiftLeft", "Shift"))

	s, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](`window.tetherStats`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("frames drawn %v, received %v; fired %v, hits %v", s["framesDrawn"], s["framesReceived"], s["fired"], s["hits"])
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("TETHER_SCREENSHOT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "arena.png"), shot, 0o644)
	}
	cancelTab()
	stopProcess(t, cmd, stderr, 10*time.Second)
}

// freeRun returns how far a player at (x, z) can run along (dx, dz) before
// a wall or a pillar stops it, up to 15 m. A pillar stops a player whose
// circle reaches the square, as the game's collision has it: a player may
// rest by a pillar's corner inside the square grown by its radius, and can
// run from there (measuring against the grown square once found no free
// direction at all).
func freeRun(x, z, dx, dz float64) float64 {
	const r, step, touch = arena.PlayerRadius, 0.05, 1e-6
	for d := step; d <= 15; d += step {
		px, pz := x+dx*d, z+dz*d
		if math.Abs(px) > arena.HalfX-r+touch || math.Abs(pz) > arena.HalfZ-r+touch {
			return d - step
		}
		for _, b := range arena.Pillars {
			nx := max(b.X-b.Half, min(b.X+b.Half, px))
			nz := max(b.Z-b.Half, min(b.Z+b.Half, pz))
			if math.Hypot(px-nx, pz-nz) < r-touch {
				return d - step
			}
		}
	}
	return 15
}
