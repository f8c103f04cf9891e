package replicate

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// benchRollback re-simulates depth ticks of the pitch with the ball and 22
// players on every frame: each frame advances a tick and receives a server
// state for depth ticks ago that differs from the history.
func benchRollback(b *testing.B, depth int64) {
	w, ball, players := crowdWorld(b, 1)
	d, err := NewWorldResim(ResimConfig{}, w, ball, steer(players))
	if err != nil {
		b.Fatal(err)
	}
	r := d.Resim()
	var n int64 = 100
	frame := func() {
		n++
		s := kinematic.State{Time: ticks(n - 1 - depth), Pos: geom.V(float64(n%7), 0.11, 0), Vel: geom.V(5, 0, 0), Rot: geom.Identity}
		d.Receive(s, ticks(n))
		d.SetInput(geom.V(float64(n%3), 0, 2))
		d.Render(ticks(n))
	}
	d.Receive(kinematic.State{Time: ticks(n), Pos: geom.V(0, 0.11, 0), Rot: geom.Identity}, ticks(n))
	for range 2 * depth {
		frame()
	}
	before := r.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		frame()
	}
	st := r.Stats()
	if st.Rollbacks-before.Rollbacks != uint64(b.N) || st.MaxDepth != int(depth) {
		b.Fatalf("%d rollbacks in %d frames, depth %d", st.Rollbacks-before.Rollbacks, b.N, st.MaxDepth)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(st.ResimTicks-before.ResimTicks), "ns/resim-tick")
}

// BenchmarkResimRollback30 is one frame that rolls back 30 ticks (half a
// second) of the ball and 22 players, re-simulates them and steps a new
// tick.
func BenchmarkResimRollback30(b *testing.B) { benchRollback(b, 30) }

// BenchmarkResimRollback12 is the same for 12 ticks, 200 ms at 60 Hz: about
// the round trip of the wan profile.
func BenchmarkResimRollback12(b *testing.B) { benchRollback(b, 12) }

// BenchmarkResimFrame is a frame without a rollback: one tick of the crowd
// world saved, loaded and stepped.
func BenchmarkResimFrame(b *testing.B) {
	w, ball, players := crowdWorld(b, 1)
	d, err := NewWorldResim(ResimConfig{}, w, ball, steer(players))
	if err != nil {
		b.Fatal(err)
	}
	d.Receive(kinematic.State{Time: 0, Pos: geom.V(0, 0.11, 0), Rot: geom.Identity}, 0)
	var n int64
	b.ReportAllocs()
	for b.Loop() {
		n++
		d.Render(ticks(n))
	}
}

// BenchmarkVelocityFrame and BenchmarkPredictiveFrame are a frame of the
// one-ball client world with a correction under way: the body's tick and the
// advance of the server's state.
func BenchmarkVelocityFrame(b *testing.B) {
	w, ball := pitchWorld(b)
	v, _ := NewVelocity(VelocityConfig{CorrectionTime: 5 * time.Second}, NewWorldSim(w, ball))
	benchFollow(b, v)
}

func BenchmarkPredictiveFrame(b *testing.B) {
	w, ball := pitchWorld(b)
	v, _ := NewPredictive(PredictiveConfig{}, NewWorldSim(w, ball))
	benchFollow(b, v)
}

func benchFollow(b *testing.B, v View) {
	var n int64
	b.ReportAllocs()
	for b.Loop() {
		n++
		if n%2 == 0 {
			v.Receive(kinematic.State{Time: ticks(n - 3), Pos: geom.V(float64(n%5)*0.1, 0.11, 0), Vel: geom.V(3, 0, 0), Rot: geom.Identity}, ticks(n))
		}
		v.Render(ticks(n))
	}
}
