package replicate

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// The seed design is the baseline every figure is measured against, so it
// must stay the design as published: a ring of the last 20 states in arrival
// order, newer states only; render time = network time - 100 ms; linear
// interpolation of position and of Euler angles; past the newest state,
// extrapolation by its velocity for at most 500 ms, then hold.
func TestSeedFaithful(t *testing.T) {
	yaw := func(deg float64) geom.Quat { return geom.AxisAngle(geom.V(0, 1, 0), deg*math.Pi/180) }
	state := func(ms int, pos, vel geom.Vec3, rot geom.Quat) kinematic.State {
		return kinematic.State{Time: time.Duration(ms) * time.Millisecond, Pos: pos, Vel: vel, Rot: rot}
	}
	const ms = time.Millisecond

	t.Run("render time and linear position", func(t *testing.T) {
		b := &Seed{}
		// Velocities that a Hermite curve would follow; the seed ignores them.
		b.Receive(state(0, geom.V(0, 0, 0), geom.V(0, 10, 0), geom.Identity), 0)
		b.Receive(state(100, geom.V(1, 2, 0), geom.V(0, -10, 0), geom.Identity), 0)
		for _, now := range []time.Duration{120 * ms, 150 * ms, 183 * ms} {
			f := b.Render(now)
			u := (now - 100*ms).Seconds() / 0.1
			if f.Time != now-100*ms || f.Pos.Dist(geom.V(u, 2*u, 0)) > 1e-12 || f.Extrapolated || f.Frozen {
				t.Fatalf("at now %v: %+v, want render time %v at %v", now, f, now-100*ms, geom.V(u, 2*u, 0))
			}
		}
	})

	t.Run("Euler angles lerped the long way", func(t *testing.T) {
		b := &Seed{}
		b.Receive(state(0, geom.Vec3{}, geom.Vec3{}, yaw(170)), 0)
		b.Receive(state(100, geom.Vec3{}, geom.Vec3{}, yaw(-170)), 0)
		// Halfway the yaw lerps from 170° to -170° through 0°, not across 180°.
		if f := b.Render(150 * ms); f.Rot.Angle(geom.Identity) > 1e-9 {
			t.Fatalf("halfway rotation %v, want the identity (yaw 0°)", f.Rot)
		}
	})

	t.Run("ring of 20", func(t *testing.T) {
		b := &Seed{}
		for i := range 25 {
			b.Receive(state(50*i, geom.V(float64(i), 0, 0), geom.Vec3{}, geom.Identity), 0)
		}
		// States 0..4 were pushed out: before state 5 the oldest held is shown.
		if f := b.Render(100*ms + 100*ms); f.Pos != geom.V(5, 0, 0) {
			t.Fatalf("before the oldest held state: %v, want state 5 at x=5", f.Pos)
		}
		if f := b.Render(100*ms + 275*ms); f.Pos.Dist(geom.V(5.5, 0, 0)) > 1e-12 {
			t.Fatalf("between states 5 and 6: %v, want x=5.5", f.Pos)
		}
	})

	t.Run("extrapolate 500 ms then hold", func(t *testing.T) {
		b := &Seed{}
		b.Receive(state(900, geom.V(0, 1, 0), geom.V(5, 0, 0), geom.Identity), 0)
		b.Receive(state(1000, geom.V(1, 1, 0), geom.V(10, -3, 0), geom.Identity), 0)
		f := b.Render(1100*ms + 300*ms)
		if !f.Extrapolated || f.Frozen || f.Pos.Dist(geom.V(4, 0.1, 0)) > 1e-12 {
			t.Fatalf("300 ms past the newest: %+v, want extrapolated to (4, 0.1, 0)", f)
		}
		for _, ahead := range []time.Duration{501 * ms, 700 * ms, 3 * time.Second} {
			f = b.Render(1100*ms + ahead)
			if !f.Frozen || f.Pos.Dist(geom.V(6, -0.5, 0)) > 1e-12 {
				t.Fatalf("%v past the newest: %+v, want held at (6, -0.5, 0)", ahead, f)
			}
		}
	})

	t.Run("out of order and duplicates ignored", func(t *testing.T) {
		b := &Seed{}
		b.Receive(state(0, geom.V(0, 0, 0), geom.Vec3{}, geom.Identity), 0)
		b.Receive(state(100, geom.V(1, 0, 0), geom.Vec3{}, geom.Identity), 0)
		before := b.Render(150 * ms)
		b.Receive(state(50, geom.V(9, 9, 9), geom.Vec3{}, geom.Identity), 0)  // late: would fill the gap
		b.Receive(state(100, geom.V(7, 7, 7), geom.Vec3{}, geom.Identity), 0) // duplicate time
		b.Receive(state(-50, geom.V(5, 5, 5), geom.Vec3{}, geom.Identity), 0) // older than all
		if after := b.Render(150 * ms); after != before {
			t.Fatalf("a late or duplicate state changed the picture: %+v, was %+v", after, before)
		}
		if b.n != 2 {
			t.Fatalf("%d states held, want 2", b.n)
		}
	})

	t.Run("arrival time unused", func(t *testing.T) {
		a, c := &Seed{}, &Seed{}
		for i := range 5 {
			s := state(33*i, geom.V(float64(i), 0, 0), geom.V(30, 0, 0), yaw(float64(40*i)))
			a.Receive(s, 0)
			c.Receive(s, time.Duration(i)*time.Second)
		}
		for now := 100 * ms; now < 800*ms; now += 17 * ms {
			if fa, fc := a.Render(now), c.Render(now); fa != fc {
				t.Fatalf("at %v: %+v with one arrival time, %+v with another", now, fa, fc)
			}
		}
	})
}
