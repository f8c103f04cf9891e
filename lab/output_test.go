package lab

import (
	"strings"
	"testing"
	"time"
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

// A trace row leaves empty what has no value yet: the estimate and bound
// before the clock is ready, the drawn position and its time before a ball
// is drawn; none of them is a placeholder number.
func TestTraceEmptyFields(t *testing.T) {
	var b strings.Builder
	w := NewTraceWriter(&b)
	w.Write(TraceRow{Client: "a", Local: time.Second, ServerTime: 2 * time.Second, Bound: -1, True: [3]float64{1, 2, 0.11}})
	w.Write(TraceRow{Client: "a", Local: time.Second, ServerTime: 2 * time.Second, Estimate: 2 * time.Second, Ready: true,
		Bound: 1500 * time.Microsecond, Drawn: true, RenderTime: 1900 * time.Millisecond, True: [3]float64{1, 2, 0.11}})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := traceHeader +
		"1.000000000,a,2.000000000,,false,,,,,,1,2,0.11\n" +
		"1.000000000,a,2.000000000,2.000000000,true,1.5,1.900000000,0,0,0,1,2,0.11\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
