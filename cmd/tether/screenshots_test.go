package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshots writes the README's pictures of the demo's page into the
// directory TETHER_SCREENSHOT_DIR names (relative to the repository's root),
// and skips without it: the page watching a match of four bots over wan
// links 15 s after it drew its first frame (demo.png), then the same page playing it from the browser
// (play.png), its client's 600th frame drawn.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("TETHER_SCREENSHOT_DIR")
	if dir == "" {
		t.Skip("TETHER_SCREENSHOT_DIR names no directory to write the README's screenshots into")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("../..", dir)
	}
	bin := demoBrowser(t)
	cmd, out, stderr := startProcess(t, "demo", "-http", "127.0.0.1:0", "-bots", "4", "-link", "wan", "-seed", "1")
	m := waitLine(t, out, regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`), 10*time.Second)
	ctx, cancelTab := browserTab(t, bin, 5*time.Minute)
	poll := poller(t, ctx, stderr)
	save := func(name string) {
		t.Helper()
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(m[1])); err != nil {
		t.Fatal(err)
	}
	poll(`window.tetherStats && window.tetherStats.framesDrawn > 0`, time.Minute)
	if err := chromedp.Do(ctx, chromedp.Sleep(15*time.Second)); err != nil {
		t.Fatal(err)
	}
	save("demo.png")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('play').click()`)); err != nil {
		t.Fatal(err)
	}
	poll(`window.tetherStats.play && window.tetherStats.play.framesDrawn >= 600`, 4*time.Minute)
	save("play.png")
	cancelTab()
	stopProcess(t, cmd, stderr, 10*time.Second)
}
