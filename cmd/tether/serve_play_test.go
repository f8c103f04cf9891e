package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/tether-net/tether/netcode"
)

// TestServePlayInBrowser: a dedicated server (a real process) with -http
// serves the page; headless Chromium opens it, presses "Play in this
// browser", and its client joins the match over WebTransport in the first
// slot beyond -max-clients and draws more than 300 frames; when the page
// is hidden for good (pagehide), its player leaves at once, not by
// netcode's timeout.
func TestServePlayInBrowser(t *testing.T) {
	bin := demoBrowser(t)
	key := filepath.Join(t.TempDir(), "tether.key")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"keygen", "-o", key}, &stdout, &stderr); code != 0 {
		t.Fatalf("keygen: %s", stderr.String())
	}
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-max-clients", "4", "-http", "127.0.0.1:0", "-anonymous-play")
	m := waitLine(t, out, regexp.MustCompile(`msg="serving the page" url=(http://127\.0\.0\.1:\d+/)`), 10*time.Second)

	ctx, cancelTab, poll := pressPlay(t, bin, m[1], srvErr)
	poll(`window.tetherStats.play && window.tetherStats.play.framesDrawn > 300`, 4*time.Minute)
	tr, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.tetherStats.play.transport + ' ' + window.tetherStats.play.state`))
	if err != nil || tr != "webtransport connected" {
		t.Errorf("browser client: %q (%v), want webtransport connected", tr, err)
	}
	waitLine(t, out, regexp.MustCompile(`msg="browser connected" client_id=\d+ slot=4`), 10*time.Second)
	// Leaving the page runs the client's pagehide handler, which sends
	// netcode's disconnect packets and closes the session: the server
	// frees the slot at once (by the packets or by the session's close,
	// whichever it reads first), not at netcode's timeout. The event is
	// dispatched here, as navigating away would fire it: closing the tab
	// through the DevTools protocol, as cancelTab does, fires no pagehide,
	// beforeunload, unload nor visibilitychange in headless Chromium (no
	// page code runs, and the slot waits for the timeout; measured with a
	// beacon from each).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`window.dispatchEvent(new PageTransitionEvent('pagehide'))`)); err != nil {
		t.Fatal(err)
	}
	left := waitLine(t, out, regexp.MustCompile(`msg="browser left" client_id=\d+ slot=4 reason="(.*)"`), 15*time.Second)
	if left[1] == netcode.ErrTimeout.Error() {
		t.Errorf("the browser left by %q, want its disconnect", left[1])
	}
	cancelTab()
	stopProcess(t, srv, srvErr, 10*time.Second)
}

// TestServeShowsMatch: the page of a dedicated server with -http shows its
// match before anyone plays: the page's socket gets frames of the server's
// truth (page.Publish), not only the pitch.
func TestServeShowsMatch(t *testing.T) {
	key := filepath.Join(t.TempDir(), "tether.key")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"keygen", "-o", key}, &stdout, &stderr); code != 0 {
		t.Fatalf("keygen: %s", stderr.String())
	}
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-http", "127.0.0.1:0")
	m := waitLine(t, out, regexp.MustCompile(`msg="serving the page" url=http://(127\.0\.0\.1:\d+)/`), 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+m[1]+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	var times []float64
	for len(times) < 3 {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("after %d frames: %v", len(times), err)
		}
		var f struct {
			Type       string  `json:"type"`
			ServerTime float64 `json:"t"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if f.Type == "frame" {
			times = append(times, f.ServerTime)
		}
	}
	c.CloseNow()
	if !(times[2] > times[0]) {
		t.Errorf("frames at server times %v: the match does not go on", times)
	}
	// Without -anonymous-play the page mints no tokens: players bring
	// theirs from the game's backend.
	resp, err := http.Post("http://"+m[1]+"/play/token", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /play/token without -anonymous-play: %s, want 403", resp.Status)
	}
	stopProcess(t, srv, srvErr, 10*time.Second)
}
