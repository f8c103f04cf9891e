package lab

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// A sweep pools each client's figures over the seeds: with one seed its row
// is the run's own figures; a smaller late share draws the match further in
// the past with fewer frames past the newest snapshot, about as many as the
// share asks; the table prints every row.
func TestSweep(t *testing.T) {
	s := soccerScenario(t, "wan", 20, BallTether, BallSeed)
	rows, err := Sweep(s, []float64{0.3, 0.03}, []uint64{1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[0].Client != "tether" || rows[1].Client != "seed'" || rows[2].LateShare != 0.03 || rows[0].Seeds != 2 {
		t.Fatalf("rows %+v", rows)
	}
	loose, tight := rows[0], rows[2]
	t.Logf("share 0.3: %+v", loose)
	t.Logf("share 0.03: %+v", tight)
	if !(tight.DelayMeanMs > loose.DelayMeanMs+10) || !(tight.LateFrames < loose.LateFrames) {
		t.Errorf("share 0.03 drew at %.1f ms with %.3f late frames, share 0.3 at %.1f ms with %.3f", tight.DelayMeanMs, tight.LateFrames, loose.DelayMeanMs, loose.LateFrames)
	}
	for _, r := range []SweepRow{loose, tight} {
		if math.Abs(r.LateFrames-r.LateShare) > r.LateShare/2 {
			t.Errorf("share %v: %.3f of the frames late", r.LateShare, r.LateFrames)
		}
	}

	one, err := Sweep(s, []float64{0.1}, []uint64{3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.LateShare, s.Seed = 0.1, 3
	rep, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Results[0].Ball
	minutes := (s.DurationS - warmUp.Seconds()) / 60
	if r := one[0]; math.Abs(r.DelayMeanMs-b.DelayMs.Mean) > 1e-6 || math.Abs(r.PresentRMSM-b.PresentM.RMS) > 1e-6 ||
		r.FidelityP99M != b.FidelityM.P99 || math.Abs(r.PopsPerMin-float64(b.Pops)/minutes) > 1e-6 {
		t.Errorf("one seed's row %+v, the run's ball %+v", r, b)
	}

	var out bytes.Buffer
	if err := WriteSweep(&out, s, []uint64{1, 2}, rows); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "tether  tether") != 2 || !strings.Contains(got, "2 seeds (1,2)") || !strings.Contains(got, "0.03") {
		t.Errorf("table:\n%s", got)
	}
}

func TestParseSweep(t *testing.T) {
	got, err := ParseSweep("late=0.5,0.05,default")
	if err != nil || len(got) != 3 || got[0] != 0.5 || got[1] != 0.05 || got[2] != 0 {
		t.Fatalf("ParseSweep = %v, %v", got, err)
	}
	for _, bad := range []string{"0.5", "late=", "late=1", "late=-0.1", "late=x", "delay=0.1"} {
		if _, err := ParseSweep(bad); !errors.Is(err, ErrScenario) {
			t.Errorf("ParseSweep(%q) = %v, want ErrScenario", bad, err)
		}
	}
	if _, err := Sweep(soccerScenario(t, "wan", 5, BallTether), nil, []uint64{1}, nil); err == nil {
		t.Error("a sweep of no settings ran")
	}
}

// The ball drill's clients take the knob too: on wan a smaller share draws
// further in the past with fewer late frames, about as many as it asks.
func TestSweepDrill(t *testing.T) {
	s, err := Preset("wan")
	if err != nil {
		t.Fatal(err)
	}
	s.DurationS = 30
	rows, err := Sweep(s, []float64{0.3, 0.03}, []uint64{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var loose, tight *SweepRow
	for i := range rows {
		if r := &rows[i]; r.Client == "tether" {
			if r.LateShare == 0.3 {
				loose = r
			} else {
				tight = r
			}
		}
	}
	if loose == nil || tight == nil {
		t.Fatalf("rows %+v", rows)
	}
	t.Logf("share 0.3: %+v; share 0.03: %+v", *loose, *tight)
	if !(tight.DelayMeanMs > loose.DelayMeanMs+10) || !(tight.LateFrames < loose.LateFrames) {
		t.Errorf("share 0.03 drew at %.1f ms with %.3f late frames, share 0.3 at %.1f ms with %.3f", tight.DelayMeanMs, tight.LateFrames, loose.DelayMeanMs, loose.LateFrames)
	}
	for _, r := range []*SweepRow{loose, tight} {
		if math.Abs(r.LateFrames-r.LateShare) > r.LateShare/2 {
			t.Errorf("share %v: %.3f of the frames late", r.LateShare, r.LateFrames)
		}
	}
}
