package replicate

import (
	"testing"
	"time"
)

// Unreal's settings against Tether's defaults, on the broadband drill: Unreal
// blends a resimulation's render jump up to 2.5 m over 0.3 s, and corrects
// Default replication with a time constant of 0.6 s at 60 Hz up to a 4 m
// snap. Blending the error of an unforeseen kick keeps it on screen for that
// long and moves the picture by more than 5 cm a frame while it does;
// Tether's defaults blend only what stays under BlendSpeed and show the rest
// as the one jump it is, which is better on both counts.
func TestUnrealSettingsTradeoff(t *testing.T) {
	p := profiles(t)[0]
	dur := 60 * time.Second
	d := runDrill(t, 1, dur)
	dl := d.deliver(p.link, 1)
	play := func(v View) score { return d.play(v, dl, dur) }
	resim := func(cfg ResimConfig) score {
		w, ball := pitchWorld(t)
		v, err := NewWorldResim[NoInput](cfg, w, ball, nil)
		if err != nil {
			t.Fatal(err)
		}
		return play(v)
	}
	velocity := func(cfg VelocityConfig) score {
		w, ball := pitchWorld(t)
		v, err := NewVelocity(cfg, NewWorldSim(w, ball))
		if err != nil {
			t.Fatal(err)
		}
		return play(v)
	}
	for _, c := range []struct {
		name           string
		tether, unreal score
	}{
		{"resim", resim(ResimConfig{}), resim(ResimConfig{CorrectionTime: 100 * time.Millisecond, SnapDistance: 2.5})},
		{"velocity", velocity(VelocityConfig{}), velocity(VelocityConfig{CorrectionTime: 600 * time.Millisecond, SnapDistance: 4})},
	} {
		t.Logf("%s, Tether's defaults: %v", c.name, c.tether)
		t.Logf("%s, Unreal's settings: %v", c.name, c.unreal)
		if c.tether.present.RMS >= c.unreal.present.RMS || c.tether.pops > c.unreal.pops {
			t.Errorf("%s: the defaults are not better than Unreal's settings", c.name)
		}
	}
}
