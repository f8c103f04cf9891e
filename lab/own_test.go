package lab

import (
	"testing"
)

// The own player's figures, on the presets, with the default seed: four
// clients predict their players; the server corrects any difference above
// 2 cm at most once a minute on lan, three times on broadband and ten times
// on mobile; no correction shows as a jump; every input shows in the next
// frame; and at 10 % loss, outside the blackout, no input is lost.
func TestOwnFigures(t *testing.T) {
	for _, tc := range []struct {
		link   string
		perMin float64
	}{
		{"lan", 1}, {"broadband", 3}, {"mobile", 10}, {"lossy", 10}, {"wan", 10},
	} {
		t.Run(tc.link, func(t *testing.T) {
			s := soccerScenario(t, tc.link, 60, BallTether, BallSeed, BallVelocity, BallPredictive)
			rep, err := Run(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				o := r.Own
				if o == nil || !o.Predicted {
					t.Fatalf("%s: no own figures", r.Client)
				}
				t.Logf("%-12s %5.1f corrections/min (p99 %.3f m), present rms %.4f m p99 %.4f m, %d pops, input-to-visible max %.0f frames, %d inputs lost, up %.1f kbit/s",
					r.Client, o.CorrectionsPerMin, o.CorrectionM.P99, o.PresentM.RMS, o.PresentM.P99, o.Pops, o.InputDelayFrames.Max, o.InputsLost, r.Net.UpKbps)
				if o.Frames < 50*60 {
					t.Errorf("%s: %d frames measured", r.Client, o.Frames)
				}
				if o.CorrectionsPerMin > tc.perMin {
					t.Errorf("%s: %.1f corrections a minute, want ≤ %.0f", r.Client, o.CorrectionsPerMin, tc.perMin)
				}
				if o.Pops != 0 {
					t.Errorf("%s: %d pops", r.Client, o.Pops)
				}
				if o.InputDelayFrames.Max != 0 {
					t.Errorf("%s: input visible after %v frames", r.Client, o.InputDelayFrames)
				}
				if tc.link == "lossy" && o.InputsLost != 0 {
					t.Errorf("%s: %d inputs lost", r.Client, o.InputsLost)
				}
			}
		})
	}
}
