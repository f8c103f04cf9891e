package replicate

import (
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	dur := 60 * time.Second
	for _, p := range profiles(t) {
		d := runDrill(t, 1, dur)
		dl := d.deliver(p.link, 1)
		for _, c := range []struct {
			ct   time.Duration
			snap float64
		}{{-1, 0}, {100 * time.Millisecond, 0.3}, {100 * time.Millisecond, 0.5}, {200 * time.Millisecond, 0.6}, {300 * time.Millisecond, 0.9}} {
			w, ball := pitchWorld(t)
			v, _ := NewWorldResim[NoInput](ResimConfig{CorrectionTime: c.ct, SnapDistance: c.snap}, w, ball, nil)
			t.Logf("%s resim ct=%v snap=%v: %v", p.name, c.ct, c.snap, d.play(v, dl, dur))
		}
		for _, c := range []struct {
			ct   time.Duration
			snap float64
		}{{100 * time.Millisecond, 0.3}, {200 * time.Millisecond, 0.6}, {300 * time.Millisecond, 0.9}} {
			w, ball := pitchWorld(t)
			v, _ := NewVelocity(VelocityConfig{CorrectionTime: c.ct, SnapDistance: c.snap}, NewWorldSim(w, ball))
			t.Logf("%s velocity ct=%v snap=%v: %v", p.name, c.ct, c.snap, d.play(v, dl, dur))
		}
		for _, snap := range []float64{0.3, 0.6, 1} {
			w, ball := pitchWorld(t)
			v, _ := NewPredictive(PredictiveConfig{SnapDistance: snap}, NewWorldSim(w, ball))
			t.Logf("%s predictive snap=%v: %v", p.name, snap, d.play(v, dl, dur))
		}
	}
}
