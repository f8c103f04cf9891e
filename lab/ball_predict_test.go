package lab

import (
	"testing"
	"time"

	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/timeline"
)

// drillRun steps the drill as the server does for ticks ticks and returns the
// ball at every tick, the server's truth, and the ticks a kick happened at.
func drillRun(ticks int) ([]physics.BodyState, *measure.Truth, map[int]bool) {
	d := newDrill(DefaultSeed, 60)
	tick := drillTick
	tr := &measure.Truth{G: d.gravity}
	kicks := map[int]bool{}
	var states []physics.BodyState
	for n := range ticks {
		now := time.Duration(n) * tick
		pt := measure.Sample{T: now}
		if n > 0 {
			if c, ok := d.step(); ok {
				pt.Contact, pt.ContactAt = true, now-tick+c.At
			}
		}
		in := d.state()
		if d.kickDue(now) {
			kicks[n] = true
		}
		st := d.state()
		pt.Pos, pt.Vel, pt.VelIn = st.Pos, st.Vel, in.Vel
		tr.Add(pt)
		states = append(states, st)
	}
	return states, tr, kicks
}

// drillTick is drillRun's tick.
const drillTick = time.Second / 60

// From the server's exact state, the predictor steps the same physics as the
// server: bit for bit at the ticks, and between ticks it follows the lab's
// true trajectory (bounces included) until the next kick, which it cannot
// know.
func TestBallPredictorMatchesServer(t *testing.T) {
	const ticks = 20 * 60
	states, tr, kicks := drillRun(ticks)
	tick := drillTick
	p := newBallPredictor(60, 500*time.Millisecond, timeline.Ballistic{})
	worst, bounces := 0.0, 0
	for n := 0; n < ticks-30; n += 7 {
		from := states[n].State(time.Duration(n) * tick)
		for k := 1; k <= 30 && !kicks[n+k]; k++ {
			if tr.Samples()[n+k].Contact {
				bounces++
			}
			got := p.Extrapolate(from, time.Duration(k)*tick)
			if want := states[n+k]; got.Pos != want.Pos || got.Vel != want.Vel {
				t.Fatalf("tick %d + %d: predicted %v %v, server %v %v", n, k, got.Pos, got.Vel, want.Pos, want.Vel)
			}
			for _, f := range []time.Duration{tick / 4, tick / 2, tick * 5 / 6} {
				at := time.Duration(n+k-1)*tick + f
				worst = max(worst, p.Extrapolate(from, at-from.Time).Pos.Dist(tr.At(at)))
			}
		}
	}
	if worst > 1e-9 || bounces == 0 {
		t.Fatalf("worst error between ticks %.3g m over %d bounces", worst, bounces)
	}
}

// Past its horizon the predictor carries on from the last stepped state
// without the physics; backward it runs the fallback.
func TestBallPredictorHorizonAndBackward(t *testing.T) {
	states, _, _ := drillRun(120)
	back := timeline.Ballistic{}
	p := newBallPredictor(60, 100*time.Millisecond, back)
	from := states[100].State(time.Duration(100) * drillTick)
	edge := p.Extrapolate(from, 7*drillTick) // the last point of the horizon
	if got, want := p.Extrapolate(from, 7*drillTick+50*time.Millisecond), back.Extrapolate(edge, 50*time.Millisecond); got.Pos != want.Pos {
		t.Fatalf("past the horizon: %v, want %v", got.Pos, want.Pos)
	}
	if got, want := p.Extrapolate(from, -drillTick), back.Extrapolate(from, -drillTick); got.Pos != want.Pos {
		t.Fatalf("backward: %v, want %v", got.Pos, want.Pos)
	}
	if got := p.Extrapolate(from, 0); got.Pos != from.Pos || got.Vel != from.Vel {
		t.Fatalf("dt 0 changed the state: %+v", got)
	}
}

// A frame extrapolating from the newest state, as the timeline asks it,
// allocates nothing.
func TestBallPredictorNoAllocs(t *testing.T) {
	states, _, _ := drillRun(60)
	p := newBallPredictor(60, 500*time.Millisecond, timeline.Ballistic{})
	from := states[30].State(30 * drillTick)
	dt := time.Duration(0)
	if a := testing.AllocsPerRun(200, func() {
		dt = (dt + time.Millisecond) % (500 * time.Millisecond)
		p.Extrapolate(from, dt)
		p.Extrapolate(states[20].State(20*drillTick), dt/2)
	}); a != 0 {
		t.Fatalf("%v allocations per frame", a)
	}
}

func BenchmarkBallPredictorFrame(b *testing.B) {
	states, _, _ := drillRun(60)
	p := newBallPredictor(60, 500*time.Millisecond, timeline.Ballistic{})
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		// A new newest state every two frames, as at 30 Hz snapshots and 60 Hz frames.
		i := 2 + n/2%50
		p.Extrapolate(states[i].State(time.Duration(i)*drillTick), time.Duration(n%2)*drillTick+3*time.Millisecond)
		n++
	}
}
