package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/transport/ws"
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

// dialBrowserPlay joins the match of the page at base (http://HOST:PORT) as
// a browser's client does, without a browser: a token from POST
// /play/token, netcode over /play/ws. It returns once connected.
func dialBrowserPlay(t *testing.T, base string) *udp.Client {
	t.Helper()
	resp, err := http.Post(base+"/play/token", "application/octet-stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var tok netcode.ConnectToken
	if err := tok.UnmarshalBinary(b); err != nil {
		t.Fatalf("token (status %d): %v", resp.StatusCode, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := ws.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/play/ws")
	if err != nil {
		t.Fatal(err)
	}
	connected := make(chan struct{}, 1)
	c, err := udp.Dial(conn, &tok, udp.ClientConfig{Netcode: netcode.ClientConfig{ProtocolID: 0x7465746865720001},
		OnState: func(s netcode.ClientState) {
			if s == netcode.StateConnected {
				connected <- struct{}{}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); conn.Close() })
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatalf("browser client: %v", c.State())
	}
	return c
}

// The browsers' tokens, handed to whoever asks, stay out of the
// used-token file (they once filled it at 107 KB/s); a UDP client's token
// is kept there when it is admitted.
func TestServeBrowserTokensNotKept(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "tether.key")
	runOK(t, "keygen", "-o", key)
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-http", "127.0.0.1:0", "-anonymous-play", "-drain-grace", "1s")
	page := waitLine(t, out, regexp.MustCompile(`msg="serving the page" url=(http://127\.0\.0\.1:\d+)/`), 10*time.Second)[1]
	addr := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(127\.0\.0\.1:\d+) `), 10*time.Second)[1]
	for range 3 {
		dialBrowserPlay(t, page).Close()
	}
	tok := filepath.Join(dir, "token")
	runOK(t, "token", "-key", key, "-protocol-id", "0x7465746865720001", "-client-id", "1", "-server", addr, "-o", tok)
	runOK(t, "bot", "-token", tok, "-duration", "300ms")
	stopProcess(t, srv, srvErr, 10*time.Second)
	fi, err := os.Stat(key + ".used")
	if err != nil || fi.Size() != netcode.MACSize+8 {
		t.Fatalf("used-token file after 3 browsers and 1 bot: %v, %v; want the bot's record alone (%d bytes)", fi.Size(), err, netcode.MACSize+8)
	}
}
