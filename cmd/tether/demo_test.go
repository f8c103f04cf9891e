package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tether-net/tether/lab"
)

// TestDemoHeadlessJSON runs the demo headless for 3 s as a real process and
// reads its report: the lab's schema, one result per bot, figures in range.
func TestDemoHeadlessJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cmd := asProcess("demo", "-headless", "-duration", "3s", "-json", "-bots", "2", "-link", "broadband")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	if !json.Valid(stdout.Bytes()) {
		t.Fatalf("not JSON: %s", stdout.String())
	}
	var rep lab.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Scenario
	if s.Name != "demo" || s.Game != "soccer" || s.Seed != 1 || s.DurationS != 3 || len(s.Clients) != 2 {
		t.Errorf("scenario %+v", s)
	}
	for _, c := range s.Clients {
		if c.Link.Up.LatencyMs != 25 || c.Link.Down.Loss.Rate != 0.01 || c.Link.Up.Jitter.Dist != "exponential" {
			t.Errorf("client %s: link not echoed in full: %+v", c.Name, c.Link)
		}
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results, want 2", len(rep.Results))
	}
	for i, r := range rep.Results {
		t.Logf("%s: clock err p99 %.3f ms, fidelity p99 %.3f m, delay mean %.1f ms, %d pops, %d frames, down %.1f kbps",
			r.Client, r.Clock.ErrMs.P99, r.Ball.FidelityM.P99, r.Ball.DelayMs.Mean, r.Ball.Pops, r.Ball.Frames, r.Net.DownKbps)
		if want := []string{"bot-1", "bot-2"}[i]; r.Client != want || r.ClockMethod != "tether" || r.BallMethod != "tether" {
			t.Errorf("result %d: %q %q %q", i, r.Client, r.ClockMethod, r.BallMethod)
		}
		// About a second of 60 Hz frames after the warm-up.
		if r.Ball.Frames < 30 || r.Ball.Frames > 90 {
			t.Errorf("%s: %d frames measured", r.Client, r.Ball.Frames)
		}
		// Loose bounds: scheduling on a busy machine adds noise.
		if p := r.Clock.ErrMs.P99; !(p >= 0 && p < 20) {
			t.Errorf("%s: clock err p99 %v ms", r.Client, p)
		}
		if r.Clock.BoundCoverage == nil || r.Clock.NotReady != 0 {
			t.Errorf("%s: clock %+v", r.Client, r.Clock)
		}
		if d := r.Ball.DelayMs.Mean; !(d > 0 && d < 500) {
			t.Errorf("%s: render delay %v ms", r.Client, d)
		}
		if f := r.Ball.FidelityM.P99; !(f >= 0 && f < 5) {
			t.Errorf("%s: fidelity p99 %v m", r.Client, f)
		}
		if n := r.Net; !(n.DownKbps > 5 && n.DownKbps < 500 && n.UpKbps > 5 && n.UpKbps < 500) {
			t.Errorf("%s: net %+v", r.Client, n)
		}
	}
}

// lines sends the lines r prints to a channel, closed at the end.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// waitLine returns the first line matching re, or fails after d.
func waitLine(t *testing.T, ch <-chan string, re *regexp.Regexp, d time.Duration) []string {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("output ended before a line matching %v", re)
			}
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-timeout:
			t.Fatalf("no line matching %v within %v", re, d)
		}
	}
}

// startProcess starts the command as a process whose stdout lines come on
// the returned channel; the process is killed at the end of the test if it
// is still running.
func startProcess(t *testing.T, args ...string) (*exec.Cmd, <-chan string, *bytes.Buffer) {
	t.Helper()
	cmd := asProcess(args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, lines(out), &stderr
}

// stopProcess interrupts the process and checks that it exits with status 0
// within d.
func stopProcess(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, d time.Duration) {
	t.Helper()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stopWait(t, cmd, stderr, d)
}

// stopWait checks that a process told to stop (or whose work is done)
// exits with status 0 within d.
func stopWait(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
		}
	case <-time.After(d):
		// Killed and reaped here, by the Wait already under way: a second
		// Wait (startProcess's cleanup) would hang.
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after it was told to stop; stderr: %s", d, stderr.String())
	}
}

// TestDemoWebPage runs the demo with its page as a real process: the page is
// served, frames of both bots arrive on the WebSocket naming the ball method
// asked for, the page's keys take over a player, and an interrupt stops
// everything with status 0.
func TestDemoWebPage(t *testing.T) {
	cmd, out, stderr := startProcess(t, "demo", "-http", "127.0.0.1:0", "-bots", "2", "-link", "lan", "-ball", "predictive")
	m := waitLine(t, out, regexp.MustCompile(`the ball shown by predictive; the match is on (http://127\.0\.0\.1:\d+/)`), 10*time.Second)
	url := m[1]

	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("<canvas")) {
		t.Fatalf("GET /: %s, %d bytes", resp.Status, len(body))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	type player struct {
		ID    int  `json:"id"`
		Human bool `json:"human"`
	}
	type message struct {
		Type  string `json:"type"`
		Truth struct {
			Players []player `json:"players"`
		} `json:"truth"`
		Clients []struct {
			Name  string         `json:"name"`
			Ball  string         `json:"ball"`
			Stats map[string]any `json:"stats"`
			World struct {
				Players []player `json:"players"`
			} `json:"world"`
		} `json:"clients"`
	}
	// next reads messages until one satisfies ok.
	next := func(what string, ok func(m *message) bool) {
		t.Helper()
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			var m message
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			if ok(&m) {
				return
			}
		}
	}
	next("a frame with both bots drawn", func(m *message) bool {
		return m.Type == "frame" && len(m.Truth.Players) == 2 && len(m.Clients) == 2 &&
			m.Clients[0].Name == "bot-1" && m.Clients[0].Ball == "predictive" && m.Clients[1].Ball == "predictive" && len(m.Clients[0].World.Players) == 2 && len(m.Clients[1].World.Players) == 2
	})
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"keys","up":true,"sprint":true}`)); err != nil {
		t.Fatal(err)
	}
	next("the person's player marked", func(m *message) bool {
		for _, p := range m.Truth.Players {
			if p.Human {
				return true
			}
		}
		return false
	})
	ws.Close(websocket.StatusNormalClosure, "")

	stopProcess(t, cmd, stderr, 10*time.Second)
	rest := ""
	for l := range out {
		rest += l + "\n"
	}
	if !strings.Contains(rest, "stopped") {
		t.Errorf("output after the interrupt: %q", rest)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestDemoFlagErrors: bad flags are refused with a message naming the flag,
// before anything starts.
func TestDemoFlagErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-bots", "0"}, "-bots 0: want 1 to 22"},
		{[]string{"-bots", "23"}, "-bots 23: want 1 to 22"},
		{[]string{"-link", "moon"}, `unknown link preset "moon", want one of lan, broadband, wan, mobile, lossy`},
		{[]string{"-game", "arena", "-json"}, "-game arena -json needs -headless"},
		{[]string{"-headless", "-duration", "2s"}, "want more than the 2s warm-up"},
		{[]string{"-duration", "-1s"}, "-duration -1s"},
		{[]string{"-headless", "-http", "127.0.0.1:0"}, "-http and -headless"},
		{[]string{"-http", busy.Addr().String()}, "127.0.0.1:0 for any free port"},
		{[]string{"-http", "nowhere"}, "-http nowhere"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-bots", "x"}, `invalid value "x" for flag -bots`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"demo"}, c.args...), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("demo %v: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestDemoBallMethod: -ball takes the shipped methods and refuses any other
// name as a usage error (exit 2) that lists them.
func TestDemoBallMethod(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"demo", "-headless", "-ball", "oracle"}, &stdout, &stderr)
	if want := `tether demo: -ball "oracle": want tether, seed, velocity, predictive or resim`; code != exitUsage || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q, want %d and %q", code, stderr.String(), exitUsage, want)
	}
	stdout.Reset()
	if code := run([]string{"demo", "-h"}, &stdout, &stdout); code != exitOK || !strings.Contains(stdout.String(), "-ball") {
		t.Errorf("demo -h: exit %d, %q", code, stdout.String())
	}
}

// TestDemoResimLabFields runs tether demo -headless -json -ball resim as a real
// process over loopback UDP and checks that each bot's result has the fields
// the lab reports for a resim client of the soccer game (the same scenario
// run by package lab), the same both ways, but for those that only appear
// when what they count happened.
func TestDemoResimLabFields(t *testing.T) {
	scen, err := lab.Preset("broadband")
	if err != nil {
		t.Fatal(err)
	}
	scen.Game, scen.DurationS = lab.GameSoccer, 4
	scen.Clients = []lab.Client{{Name: "resim", Clock: lab.ClockTether, Ball: lab.BallResim, Link: scen.Clients[0].Link}}
	want, err := lab.Run(scen, lab.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := asProcess("demo", "-headless", "-duration", "4s", "-json", "-bots", "2", "-link", "broadband", "-ball", "resim")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var got struct{ Results []map[string]any }
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	labJSON, err := json.Marshal(want.Results[0])
	if err != nil {
		t.Fatal(err)
	}
	var labResult map[string]any
	if err := json.Unmarshal(labJSON, &labResult); err != nil {
		t.Fatal(err)
	}
	// Fields left out when nothing they count happened (no teleport, no
	// kick shown or confirmed, none refuted).
	sometimes := map[string]bool{"ball.teleport_frames": true, "ball.kick_visible_frames": true, "ball.kick_correction_m": true,
		"ball.kick_lag_ms": true, "ball.kick_origin_m": true, "ball.kicks_refuted": true, "ball.kick_refuted_m": true}
	wantKeys := fieldPaths("", labResult, sometimes)
	for _, k := range []string{"ball.resim_ticks", "ball.kicks", "ball.kicks_predicted", "others.present_m.p99", "own.predicted"} {
		if !slices.Contains(wantKeys, k) {
			t.Fatalf("the lab's resim result has no %s: %v", k, wantKeys)
		}
	}
	if len(got.Results) != 2 {
		t.Fatalf("%d results, want 2", len(got.Results))
	}
	for _, r := range got.Results {
		if keys := fieldPaths("", r, sometimes); !slices.Equal(keys, wantKeys) {
			t.Errorf("%v: fields\n%v\nwant the lab's\n%v", r["client"], keys, wantKeys)
		}
		if r["ball_method"] != "resim" || r["own"].(map[string]any)["predicted"] != false || r["ball"].(map[string]any)["resim_ticks"].(float64) <= 0 {
			t.Errorf("%v: ball method %v, own %v, resim ticks %v", r["client"], r["ball_method"], r["own"], r["ball"].(map[string]any)["resim_ticks"])
		}
	}
}

// fieldPaths returns the sorted dotted paths of the fields in v but for
// those in skip.
func fieldPaths(prefix string, v map[string]any, skip map[string]bool) []string {
	var paths []string
	for k, x := range v {
		p := prefix + k
		if skip[p] {
			continue
		}
		if m, ok := x.(map[string]any); ok {
			paths = append(paths, fieldPaths(p+".", m, skip)...)
			continue
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}
