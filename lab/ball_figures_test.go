package lab

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// ballFigure is one row of the ball figures of the issue that introduced the
// ball drill: what the tether ball must reach on a preset, default seed.
type ballFigure struct {
	preset string
	fid99  float64 // ball.fidelity_m p99, metres (outside blackouts)
	// pops is the most ball.pops allowed in the run (60 s); -1: no bound on
	// the whole run, only popsAfterBlackout.
	pops              int
	popsAfterBlackout int     // in the 3 s after each blackout; -1: no blackout
	delayMean         float64 // ball.delay_ms mean, ms; 0: no bound
	noFrozen          bool    // ball.frozen_frames = 0
	presentVsSeed     float64 // most ball.present_m rms allowed, as a multiple of the seed's
}

var ballFigures = []ballFigure{
	{preset: "lan", fid99: 0.005, pops: 0, popsAfterBlackout: -1, delayMean: 50, presentVsSeed: 1},
	{preset: "broadband", fid99: 0.02, pops: 0, popsAfterBlackout: -1, delayMean: 80, presentVsSeed: 1},
	{preset: "wan", fid99: 0.05, pops: 1, popsAfterBlackout: -1, noFrozen: true, presentVsSeed: 1},
	{preset: "mobile", fid99: 0.10, pops: 2, popsAfterBlackout: -1, noFrozen: true, presentVsSeed: 1.1},
	{preset: "lossy", fid99: 0.10, pops: -1, popsAfterBlackout: 2, presentVsSeed: 1},
}

// The ball figures on every preset, default seed, against the seed design in
// the same run.
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
			if w.pops >= 0 {
				check("pops", ours.Pops <= w.pops, "%d pops, want ≤ %d", ours.Pops, w.pops)
			}
			if w.popsAfterBlackout >= 0 {
				check("pops after blackout", ours.PopsAfterBlackout <= w.popsAfterBlackout,
					"%d pops in the 3 s after the blackout, want ≤ %d", ours.PopsAfterBlackout, w.popsAfterBlackout)
			}
			check("pops", ours.Pops == 0 || float64(ours.Pops) <= 0.2*float64(seed.Pops),
				"%d pops, more than a fifth of the seed's %d", ours.Pops, seed.Pops)
			check("present", ours.PresentM.RMS <= w.presentVsSeed*seed.PresentM.RMS,
				"present rms %.4f m > %v × the seed's %.4f m", ours.PresentM.RMS, w.presentVsSeed, seed.PresentM.RMS)
			if w.delayMean > 0 {
				check("delay", ours.DelayMs.Mean <= w.delayMean, "delay mean %.1f ms > %v ms", ours.DelayMs.Mean, w.delayMean)
			}
			if w.noFrozen {
				check("frozen", ours.FrozenFrames == 0, "%d frozen frames", ours.FrozenFrames)
			}
		})
	}
}

// The seed design is the baseline every figure is measured against, so it
// must stay the design as published: a ring of the last 20 states in arrival
// order, newer states only; render time = network time - 100 ms; linear
// interpolation of position and of Euler angles; past the newest state,
// extrapolation by its velocity for at most 500 ms, then hold.
func TestSeedBallFaithful(t *testing.T) {
	yaw := func(deg float64) geom.Quat { return geom.AxisAngle(geom.V(0, 1, 0), deg*math.Pi/180) }
	state := func(ms int, pos, vel geom.Vec3, rot geom.Quat) kinematic.State {
		return kinematic.State{Time: time.Duration(ms) * time.Millisecond, Pos: pos, Vel: vel, Rot: rot}
	}
	const ms = time.Millisecond

	t.Run("render time and linear position", func(t *testing.T) {
		b := &seedBall{}
		// Velocities that a Hermite curve would follow; the seed ignores them.
		b.receive(state(0, geom.V(0, 0, 0), geom.V(0, 10, 0), geom.Identity), 0)
		b.receive(state(100, geom.V(1, 2, 0), geom.V(0, -10, 0), geom.Identity), 0)
		for _, now := range []time.Duration{120 * ms, 150 * ms, 183 * ms} {
			f := b.render(now)
			u := (now - 100*ms).Seconds() / 0.1
			if f.renderTime != now-100*ms || f.pos.Dist(geom.V(u, 2*u, 0)) > 1e-12 || f.extrapolated || f.frozen {
				t.Fatalf("at now %v: %+v, want render time %v at %v", now, f, now-100*ms, geom.V(u, 2*u, 0))
			}
		}
	})

	t.Run("Euler angles lerped the long way", func(t *testing.T) {
		b := &seedBall{}
		b.receive(state(0, geom.Vec3{}, geom.Vec3{}, yaw(170)), 0)
		b.receive(state(100, geom.Vec3{}, geom.Vec3{}, yaw(-170)), 0)
		// Halfway the yaw lerps from 170° to -170° through 0°, not across 180°.
		if f := b.render(150 * ms); f.rot.Angle(geom.Identity) > 1e-9 {
			t.Fatalf("halfway rotation %v, want the identity (yaw 0°)", f.rot)
		}
	})

	t.Run("ring of 20", func(t *testing.T) {
		b := &seedBall{}
		for i := range 25 {
			b.receive(state(50*i, geom.V(float64(i), 0, 0), geom.Vec3{}, geom.Identity), 0)
		}
		// States 0..4 were pushed out: before state 5 the oldest held is shown.
		if f := b.render(100*ms + 100*ms); f.pos != geom.V(5, 0, 0) {
			t.Fatalf("before the oldest held state: %v, want state 5 at x=5", f.pos)
		}
		if f := b.render(100*ms + 275*ms); f.pos.Dist(geom.V(5.5, 0, 0)) > 1e-12 {
			t.Fatalf("between states 5 and 6: %v, want x=5.5", f.pos)
		}
	})

	t.Run("extrapolate 500 ms then hold", func(t *testing.T) {
		b := &seedBall{}
		b.receive(state(900, geom.V(0, 1, 0), geom.V(5, 0, 0), geom.Identity), 0)
		b.receive(state(1000, geom.V(1, 1, 0), geom.V(10, -3, 0), geom.Identity), 0)
		f := b.render(1100*ms + 300*ms)
		if !f.extrapolated || f.frozen || f.pos.Dist(geom.V(4, 0.1, 0)) > 1e-12 {
			t.Fatalf("300 ms past the newest: %+v, want extrapolated to (4, 0.1, 0)", f)
		}
		for _, ahead := range []time.Duration{501 * ms, 700 * ms, 3 * time.Second} {
			f = b.render(1100*ms + ahead)
			if !f.frozen || f.pos.Dist(geom.V(6, -0.5, 0)) > 1e-12 {
				t.Fatalf("%v past the newest: %+v, want held at (6, -0.5, 0)", ahead, f)
			}
		}
	})

	t.Run("out of order and duplicates ignored", func(t *testing.T) {
		b := &seedBall{}
		b.receive(state(0, geom.V(0, 0, 0), geom.Vec3{}, geom.Identity), 0)
		b.receive(state(100, geom.V(1, 0, 0), geom.Vec3{}, geom.Identity), 0)
		before := b.render(150 * ms)
		b.receive(state(50, geom.V(9, 9, 9), geom.Vec3{}, geom.Identity), 0)  // late: would fill the gap
		b.receive(state(100, geom.V(7, 7, 7), geom.Vec3{}, geom.Identity), 0) // duplicate time
		b.receive(state(-50, geom.V(5, 5, 5), geom.Vec3{}, geom.Identity), 0) // older than all
		if after := b.render(150 * ms); after != before {
			t.Fatalf("a late or duplicate state changed the picture: %+v, was %+v", after, before)
		}
		if b.n != 2 {
			t.Fatalf("%d states held, want 2", b.n)
		}
	})

	t.Run("arrival time unused", func(t *testing.T) {
		a, c := &seedBall{}, &seedBall{}
		for i := range 5 {
			s := state(33*i, geom.V(float64(i), 0, 0), geom.V(30, 0, 0), yaw(float64(40*i)))
			a.receive(s, 0)
			c.receive(s, time.Duration(i)*time.Second)
		}
		for now := 100 * ms; now < 800*ms; now += 17 * ms {
			if fa, fc := a.render(now), c.render(now); fa != fc {
				t.Fatalf("at %v: %+v with one arrival time, %+v with another", now, fa, fc)
			}
		}
	})
}
