package lab

import (
	"strings"
	"testing"
)

// A live run's report (as tether demo -headless builds it: the soccer game,
// no other players, kicks or own player measured, a clock that never
// converged) prints no column it did not measure and no sentinel.
func TestWriteTableUnmeasured(t *testing.T) {
	r := &Report{
		Scenario: Scenario{Name: "demo", Game: GameSoccer, Seed: 1, DurationS: 20, TickHz: 60, SnapshotHz: 30, FrameHz: 60},
		Results: []Result{{
			Client: "bot1", ClockMethod: ClockTether, BallMethod: BallTether,
			Clock: ClockMetrics{ErrMs: Stat{P50: 0.5, P99: 2, Max: 3}, ConvergeS: -1, ConvergeWithinMs: 2},
			Ball:  BallMetrics{Frames: 100, FidelityM: Stat{P99: 0.01}, PresentM: Stat{RMS: 0.4}, DelayMs: Stat{Mean: 90}},
			Net:   NetMetrics{DownKbps: 50, UpKbps: 20, ClockUpKbps: 1, ClockDownKbps: 1},
		}},
	}
	var b strings.Builder
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, absent := range []string{"-1.00", "others", "kicks", "predicted", "own present", "resim ticks", "oracle"} {
		if strings.Contains(out, absent) {
			t.Errorf("table prints %q:\n%s", absent, out)
		}
	}
	for _, want := range []string{"never", "clock up kbps", "fidelity p99 m", "0.4000"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	// A ball that was never drawn after the warm-up has no ball figures: a
	// dash, not a zero.
	r.Results[0].Ball = BallMetrics{}
	b.Reset()
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "fidelity") {
		t.Errorf("a ball never drawn still gets a ball table:\n%s", b.String())
	}
}

// In a table with the oracle, a note says what it is.
func TestWriteTableOracleNote(t *testing.T) {
	r := &Report{Scenario: Scenario{Name: "x", Game: GameBallDrill}, Results: []Result{
		{Client: "tether", ClockMethod: ClockTether, BallMethod: BallTether, Ball: BallMetrics{Frames: 1}},
		{Client: "oracle", ClockMethod: ClockTether, BallMethod: BallOracle, Ball: BallMetrics{Frames: 1}},
	}}
	var b strings.Builder
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "oracle is a reference, not a client method") {
		t.Errorf("no note on the oracle:\n%s", b.String())
	}
	r.Results = r.Results[:1]
	b.Reset()
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "reference") {
		t.Errorf("a note on an oracle not in the table:\n%s", b.String())
	}
}
