package lab

import (
	"testing"
)

// ballFigure is one row of the ball figures: what the tether ball must
// reach on a preset, default seed, against the seed design in the same run
// (the issue that introduced the drill, restated by "One engine, one
// instrument": its pop bounds of ≤ 1 or 2 a minute and a fifth of the
// seed's proved impossible for any client that draws past its newest
// snapshot; pops ≤ the seed's is what stays).
type ballFigure struct {
	preset string
	fid99  float64 // ball.fidelity_m p99, metres (outside blackouts)
	// popsAfterBlackout is the most pops allowed in the 3 s after each
	// blackout; -1: no blackout.
	popsAfterBlackout int
	delayMean         float64 // ball.delay_ms mean, ms; 0: no bound
	presentVsSeed     float64 // most ball.present_m rms allowed, as a multiple of the seed's
}

var ballFigures = []ballFigure{
	{preset: "lan", fid99: 0.005, popsAfterBlackout: -1, delayMean: 50, presentVsSeed: 1},
	{preset: "broadband", fid99: 0.02, popsAfterBlackout: -1, delayMean: 80, presentVsSeed: 1},
	{preset: "wan", fid99: 0.05, popsAfterBlackout: -1, presentVsSeed: 1},
	{preset: "mobile", fid99: 0.10, popsAfterBlackout: -1, presentVsSeed: 1.1},
	{preset: "lossy", fid99: 0.10, popsAfterBlackout: 2, presentVsSeed: 1.1},
}

// The ball figures on every preset, default seed, with the shipped drill
// client (package game/drill), against the seed design in the same run.
func TestBallFigures(t *testing.T) {
	for _, w := range ballFigures {
		t.Run(w.preset, func(t *testing.T) {
			s, err := Preset(w.preset)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var ours, seed *BallMetrics
			for i, r := range rep.Results {
				switch {
				case r.BallMethod == BallTether && r.ClockMethod == ClockTether:
					ours = &rep.Results[i].Ball
				case r.BallMethod == BallSeed:
					seed = &rep.Results[i].Ball
				}
			}
			if ours == nil || seed == nil {
				t.Fatalf("preset %s lacks the tether or the seed client", w.preset)
			}
			t.Logf("tether: fidelity p99 %.4f m, pops %d (%d after blackout), present rms %.4f m, delay mean %.1f ms, frozen %d, extrap %d",
				ours.FidelityM.P99, ours.Pops, ours.PopsAfterBlackout, ours.PresentM.RMS, ours.DelayMs.Mean, ours.FrozenFrames, ours.ExtrapFrames)
			t.Logf("seed:   fidelity p99 %.4f m, pops %d (%d after blackout), present rms %.4f m, delay mean %.1f ms, frozen %d, extrap %d",
				seed.FidelityM.P99, seed.Pops, seed.PopsAfterBlackout, seed.PresentM.RMS, seed.DelayMs.Mean, seed.FrozenFrames, seed.ExtrapFrames)

			check := func(name string, ok bool, format string, args ...any) {
				t.Helper()
				if !ok {
					t.Errorf(name+": "+format, args...)
				}
			}
			check("fidelity", ours.FidelityM.P99 <= w.fid99,
				"fidelity p99 %.4f m > %v m", ours.FidelityM.P99, w.fid99)
			check("fidelity vs seed", ours.FidelityM.P99 <= 0.5*seed.FidelityM.P99,
				"fidelity p99 %.4f m > half the seed's %.4f m", ours.FidelityM.P99, seed.FidelityM.P99)
			if w.popsAfterBlackout >= 0 {
				check("pops after blackout", ours.PopsAfterBlackout <= w.popsAfterBlackout,
					"%d pops in the 3 s after the blackout, want ≤ %d", ours.PopsAfterBlackout, w.popsAfterBlackout)
			}
			check("pops", ours.Pops <= seed.Pops, "%d pops, more than the seed's %d", ours.Pops, seed.Pops)
			check("present", ours.PresentM.RMS <= w.presentVsSeed*seed.PresentM.RMS,
				"present rms %.4f m > %v × the seed's %.4f m", ours.PresentM.RMS, w.presentVsSeed, seed.PresentM.RMS)
			if w.delayMean > 0 {
				check("delay", ours.DelayMs.Mean <= w.delayMean, "delay mean %.1f ms > %v ms", ours.DelayMs.Mean, w.delayMean)
			}
			check("frozen", ours.FrozenFrames == 0, "%d frozen frames", ours.FrozenFrames)
		})
	}
}
