package drill

import (
	"testing"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/timeline"
)

const hz = 60

// serverRun steps the drill's server side for ticks ticks and returns the
// ball at every tick (from time 0), the ticks that had a bounce and those
// that had a kick.
func serverRun(t testing.TB, ticks int) (states []physics.BodyState, bounces, kicks map[int]bool) {
	g, err := NewGame(1, hz)
	if err != nil {
		t.Fatal(err)
	}
	bounces, kicks = map[int]bool{}, map[int]bool{}
	states = append(states, g.Last().Ball)
	dt := time.Second / hz
	for n := 1; n < ticks; n++ {
		g.Step(server.Tick{N: uint64(n), Time: time.Duration(n) * dt, Dt: dt}, nil)
		tk := g.Last()
		states = append(states, tk.Ball)
		bounces[n], kicks[n] = tk.Contact, tk.Kicked
	}
	return states, bounces, kicks
}

func newExtrapolator(t testing.TB, horizon time.Duration, back timeline.Extrapolator) *replicate.WorldExtrapolator {
	w, ball, err := NewWorld(hz)
	if err != nil {
		t.Fatal(err)
	}
	return replicate.NewWorldExtrapolator(w, ball, horizon, back)
}

// From the server's exact state, the client's extrapolator (the default of
// MethodTether) steps the same physics as the server, bit for bit at the
// ticks, bounces off the ground and the boards included, until the next kick,
// which it cannot know.
func TestWorldExtrapolatorMatchesServer(t *testing.T) {
	const ticks = 20 * hz
	states, bounce, kicks := serverRun(t, ticks)
	tick := time.Second / hz
	back := soccer.BallExtrapolator(soccer.DefaultRules())
	p := newExtrapolator(t, 500*time.Millisecond, back.Extrapolate)
	bounces := 0
	for n := 0; n < ticks-30; n += 7 {
		from := states[n].State(time.Duration(n) * tick)
		for k := 1; k <= 30 && !kicks[n+k]; k++ {
			if bounce[n+k] {
				bounces++
			}
			got := p.Extrapolate(from, time.Duration(k)*tick)
			if want := states[n+k]; got.Pos != want.Pos || got.Vel != want.Vel {
				t.Fatalf("tick %d + %d: predicted %v %v, server %v %v", n, k, got.Pos, got.Vel, want.Pos, want.Vel)
			}
			// Between ticks it stays within the ball's travel over the tick.
			mid := p.Extrapolate(from, time.Duration(k)*tick-tick/2).Pos
			if d := mid.Dist(states[n+k].Pos); d > states[n+k].Vel.Len()*tick.Seconds()+0.05 {
				t.Fatalf("tick %d + %d - 1/2: %.3f m from the tick's ball", n, k, d)
			}
		}
	}
	if bounces == 0 {
		t.Fatal("no bounce extrapolated")
	}
}

// Past its horizon the predictor carries on from the last stepped state
// without the physics; backward it runs the fallback.
func TestWorldExtrapolatorHorizonAndBackward(t *testing.T) {
	states, _, _ := serverRun(t, 120)
	back := timeline.Ballistic{}
	p := newExtrapolator(t, 100*time.Millisecond, back.Extrapolate)
	tr := struct{ tick time.Duration }{time.Second / hz}
	from := states[100].State(time.Duration(100) * tr.tick)
	edge := p.Extrapolate(from, 7*tr.tick) // the last point of the horizon
	if got, want := p.Extrapolate(from, 7*tr.tick+50*time.Millisecond), back.Extrapolate(edge, 50*time.Millisecond); got.Pos != want.Pos {
		t.Fatalf("past the horizon: %v, want %v", got.Pos, want.Pos)
	}
	if got, want := p.Extrapolate(from, -tr.tick), back.Extrapolate(from, -tr.tick); got.Pos != want.Pos {
		t.Fatalf("backward: %v, want %v", got.Pos, want.Pos)
	}
	if got := p.Extrapolate(from, 0); got.Pos != from.Pos || got.Vel != from.Vel {
		t.Fatalf("dt 0 changed the state: %+v", got)
	}
}

// A frame extrapolating from the newest state, as the timeline asks it,
// allocates nothing.
func TestWorldExtrapolatorNoAllocs(t *testing.T) {
	states, _, _ := serverRun(t, 60)
	p := newExtrapolator(t, 500*time.Millisecond, timeline.Ballistic{}.Extrapolate)
	tr := struct{ tick time.Duration }{time.Second / hz}
	from := states[30].State(30 * tr.tick)
	dt := time.Duration(0)
	if a := testing.AllocsPerRun(200, func() {
		dt = (dt + time.Millisecond) % (500 * time.Millisecond)
		p.Extrapolate(from, dt)
		p.Extrapolate(states[20].State(20*tr.tick), dt/2)
	}); a != 0 {
		t.Fatalf("%v allocations per frame", a)
	}
}

func BenchmarkWorldExtrapolatorFrame(b *testing.B) {
	states, _, _ := serverRun(b, 60)
	p := newExtrapolator(b, 500*time.Millisecond, timeline.Ballistic{}.Extrapolate)
	tr := struct{ tick time.Duration }{time.Second / hz}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		// A new newest state every two frames, as at 30 Hz snapshots and 60 Hz frames.
		i := 2 + n/2%50
		p.Extrapolate(states[i].State(time.Duration(i)*tr.tick), time.Duration(n%2)*tr.tick+3*time.Millisecond)
		n++
	}
}
