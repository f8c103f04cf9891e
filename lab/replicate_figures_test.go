package lab

import "testing"

// The physics replication figures: on the ball drill over broadband and wan,
// resimulation shows the ball nearly as well as the oracle and far closer to
// the present than interpolation, and the velocity and predictive modes beat
// interpolation's present error too. No mode ever holds the ball still outside
// a blackout.
func TestReplicationFigures(t *testing.T) {
	for _, preset := range []string{"lan", "broadband", "wan", "mobile", "lossy"} {
		t.Run(preset, func(t *testing.T) {
			s, err := Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			by := map[string]BallMetrics{}
			for _, r := range rep.Results {
				if r.ClockMethod == ClockTether {
					by[r.BallMethod] = r.Ball
				}
				if r.Ball.FrozenFrames != 0 {
					t.Errorf("%s: %d frozen frames outside blackouts", r.Client, r.Ball.FrozenFrames)
				}
			}
			for _, m := range []string{BallTether, BallVelocity, BallPredictive, BallResim, BallOracle} {
				b := by[m]
				t.Logf("%-10s present rms %.4f m, fidelity p99 %.4f m, pops %d", m, b.PresentM.RMS, b.FidelityM.P99, b.Pops)
			}
			if r := by[BallResim].ResimTicks; r == nil || *r <= 0 {
				t.Errorf("resim_ticks = %v, want a positive rate", r)
			}
			if preset != "broadband" && preset != "wan" {
				return
			}
			interp, oracle, resim := by[BallTether].PresentM.RMS, by[BallOracle].PresentM.RMS, by[BallResim].PresentM.RMS
			if resim > 1.5*oracle {
				t.Errorf("resim present rms %.4f m > 1.5 × the oracle's %.4f m", resim, oracle)
			}
			if resim > 0.3*interp {
				t.Errorf("resim present rms %.4f m > 0.3 × interpolation's %.4f m", resim, interp)
			}
			for _, m := range []string{BallVelocity, BallPredictive} {
				if p := by[m].PresentM.RMS; p > 0.6*interp {
					t.Errorf("%s present rms %.4f m > 0.6 × interpolation's %.4f m", m, p, interp)
				}
			}
		})
	}
}
