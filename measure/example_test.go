package measure_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/replica"
)

// A ball thrown up at 5 m/s, sampled at 10 Hz: between the samples the truth
// is the flight itself.
func ExampleTruth_At() {
	g := geom.V(0, -10, 0)
	tr := measure.Truth{G: g}
	for k := range 3 {
		t := time.Duration(k) * 100 * time.Millisecond
		v := geom.V(0, 5, 0).AddScaled(g, t.Seconds())
		tr.Add(measure.Sample{T: t, Pos: measure.Flight(geom.Vec3{}, geom.V(0, 5, 0), g, t.Seconds()), Vel: v, VelIn: v})
	}
	fmt.Printf("height at 150 ms: %.4f m\n", tr.At(150*time.Millisecond).Y)
	// Output:
	// height at 150 ms: 0.6375 m
}

// A Series keeps about a byte a sample and gives the same Stat as the samples.
func ExampleSeries() {
	var s measure.Series
	for _, x := range []float64{0.1, 0.4, 0.2, 0.3} {
		s.Add(x)
	}
	fmt.Printf("%+v\n", s.Stat())
	// Output:
	// {Mean:0.25 P50:0.2 P99:0.4 Max:0.4 RMS:0.273861}
}

// A client that draws a ball rolling at 1 m/s exactly 100 ms late, but for
// one frame drawn 10 cm off: one pop (on the way there; the way back is
// another), fidelity 10 cm at worst.
func ExampleBallMeter() {
	tick := time.Second / 60
	var tr measure.Truth
	m := measure.BallMeter{WarmUp: time.Second}
	for k := range 180 {
		t := time.Duration(k) * tick
		tr.Add(measure.Sample{T: t, Pos: geom.V(t.Seconds(), 0, 0), Vel: geom.V(1, 0, 0), VelIn: geom.V(1, 0, 0)})
		rt := t - 100*time.Millisecond
		d := measure.Drawn{T: t, OK: true, Pos: tr.At(rt), RenderTime: rt}
		if k == 120 {
			d.Pos.Z += 0.1
		}
		m.Add(&tr, d)
	}
	b := m.Metrics(&tr)
	fmt.Printf("%d frames, %d pops, fidelity max %.2f m, delay %.0f ms\n", b.Frames, b.Pops, b.FidelityM.Max, b.DelayMs.Mean)
	// Output:
	// 119 frames, 2 pops, fidelity max 0.10 m, delay 100 ms
}

// A clock 3 ms ahead of the truth, reporting a 5 ms bound, against a link
// whose asymmetry explains 1 ms of it.
func ExampleClockMeter() {
	k := measure.ClockMeter{WarmUp: time.Second, Asym: time.Millisecond, Within: 2 * time.Millisecond}
	for t := time.Duration(0); t < 5*time.Second; t += 10 * time.Millisecond {
		k.Add(measure.Frame{T: t, Est: t + 3*time.Millisecond, Ready: true, Bound: 5 * time.Millisecond})
	}
	m := k.Metrics(0, true)
	fmt.Printf("err %.0f ms (raw %.0f ms), converged after %.0f s, bound coverage %.0f\n", m.ErrMs.Mean, m.RawErrMs.Mean, m.ConvergeS, *m.BoundCoverage)
	// Output:
	// err 2 ms (raw 3 ms), converged after 0 s, bound coverage 1
}

// A game's world of one runner at 1 m/s, replicated at 30 Hz, drawn by a
// client 100 ms late and 2 cm to the side at 60 Hz: its kind's fidelity is
// 2 cm, with no pop, and it is refreshed every snapshot.
func ExampleEntityMeter() {
	tick := time.Second / 60
	m := measure.NewEntityMeter(measure.EntityConfig{WarmUp: time.Second, Kinds: []string{"runner"}, Clients: []measure.Link{{}}})
	c := m.Client(0)
	var w replica.World
	for k := range 300 {
		t := time.Duration(k) * tick
		if k%2 == 0 { // a snapshot: the server's world, and the client receives it
			w.Reset()
			w.Add(replica.Entity{ID: 1, State: kinematic.State{Pos: geom.V(t.Seconds(), 0, 0), Vel: geom.V(1, 0, 0)}})
			m.World(t, &w)
			c.Received(t, 1, 0)
		}
		rt := t - 100*time.Millisecond
		c.Frame(t, []measure.EntityDrawn{{ID: 1, Pos: geom.V(rt.Seconds(), 0, 0.02), RenderTime: rt}})
	}
	e := m.Figures(0, 300*tick)[0]
	fmt.Printf("%s: fidelity p99 %.3f m, %d pops, refresh %.1f ms\n", e.Kind, e.FidelityM.P99, e.Pops, e.RefreshMs.P50)
	// Output:
	// runner: fidelity p99 0.020 m, 0 pops, refresh 33.3 ms
}
