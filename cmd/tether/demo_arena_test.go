package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tether-net/tether/lab"
)

// TestDemoArena runs tether demo -game arena headless as a real process over
// loopback UDP: the lab's arena report, every bot measured, projectiles drawn
// by the shipped method nearer the server's than the naive baseline's.
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
	if s := rep.Scenario; s.Game != lab.GameArena || len(s.Clients) != 4 || len(rep.Results) != 4 {
		t.Fatalf("scenario %+v, %d results", s, len(rep.Results))
	}
	worst := map[string]float64{}
	shots := 0
	for _, r := range rep.Results {
		if r.Proj == nil || r.Hits == nil || r.Proj.Samples == 0 || r.Clock.ErrMs.P99 == 0 {
			t.Fatalf("%s: proj %+v hits %+v clock %+v", r.Client, r.Proj, r.Hits, r.Clock)
		}
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
		{[]string{"-game", "arena"}, "-game arena runs -headless"},
		{[]string{"-game", "arena", "-headless", "-ball", "seed"}, "without -ball"},
		{[]string{"-game", "arena", "-headless", "-bots", "17"}, "-bots 17: want 1 to 16 for -game arena"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"demo"}, c.args...), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("demo %v: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
}
