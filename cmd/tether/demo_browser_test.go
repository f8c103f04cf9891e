package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// demoBrowser returns a Chromium binary, skipping the test when there is none
// unless TETHER_REQUIRE_BROWSER=1.
func demoBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TETHER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TETHER_REQUIRE_BROWSER") == "1" {
		t.Fatal("no Chromium found (install Debian's chromium) and TETHER_REQUIRE_BROWSER=1")
	}
	t.Skip("no Chromium found on PATH: install Debian's chromium to run the demo's browser test")
	return ""
}

// browserTab starts headless Chromium bin (1280×900, a fresh profile) and
// returns a tab's context, which ends after timeout or with the test, and
// the function that closes the tab.
func browserTab(t *testing.T, bin string, timeout time.Duration) (context.Context, context.CancelFunc) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	return ctx, cancelTab
}

// poller returns a function that waits up to d for a JavaScript expression
// to be true in ctx's tab, failing the test with the demo's stderr if not.
func poller(t *testing.T, ctx context.Context, stderr *bytes.Buffer) func(expr string, d time.Duration) {
	return func(expr string, d time.Duration) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(d))); err != nil {
			t.Fatalf("waiting for %s: %v; demo stderr: %s", expr, err, stderr.String())
		}
	}
}

// TestDemoInBrowser runs `tether demo` as a real process and opens its page in
// headless Chromium: the page draws more than 60 frames of the live match
// with every client shown, the ball moves, and a screenshot is a real,
// non-blank picture.
func TestDemoInBrowser(t *testing.T) {
	bin := demoBrowser(t)
	cmd, out, stderr := startProcess(t, "demo", "-http", "127.0.0.1:0", "-bots", "2", "-link", "broadband")
	m := waitLine(t, out, regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`), 10*time.Second)
	url := m[1]

	ctx, cancelTab := browserTab(t, bin, 60*time.Second)

	type stats struct {
		Frames  int        `json:"framesDrawn"`
		Clients int        `json:"clientsShown"`
		Ball    [3]float64 `json:"ball"`
	}
	poll := poller(t, ctx, stderr)
	read := func() stats {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[stats](`window.tetherStats`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	poll(`window.tetherStats && window.tetherStats.framesDrawn > 0`, 20*time.Second)
	first := read()
	poll(`window.tetherStats.framesDrawn > 60`, 30*time.Second)
	now := read()
	if now.Clients != 2 {
		t.Errorf("clients shown = %d, want 2", now.Clients)
	}
	// The bots kick the ball about within seconds; wait for it to move if it
	// has not yet.
	for deadline := time.Now().Add(20 * time.Second); now.Ball == first.Ball && time.Now().Before(deadline); {
		if err := chromedp.Do(ctx, chromedp.Sleep(250*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		now = read()
	}
	if now.Ball == first.Ball {
		t.Errorf("the ball stayed at %v", now.Ball)
	}

	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	colours := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	if len(colours) < 50 {
		t.Errorf("screenshot has %d colours: blank?", len(colours))
	}
	if dir := os.Getenv("TETHER_SCREENSHOT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "demo.png"), shot, 0o644)
	}
	cancelTab()
	stopProcess(t, cmd, stderr, 10*time.Second)
}
