package replicate_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replicate"
)

// pitchWorld returns a 60 Hz world with the soccer pitch and the ball.
func pitchWorld() (*physics.World, physics.BodyID) {
	w, err := physics.NewWorld(physics.Config{})
	if err != nil {
		panic(err)
	}
	if _, err := pitch.Default().AddTo(w); err != nil {
		panic(err)
	}
	ball, err := w.AddSphere(pitch.DefaultBall())
	if err != nil {
		panic(err)
	}
	return w, ball
}

func state(w *physics.World, id physics.BodyID, t time.Duration) kinematic.State {
	return w.Body(id).State(t)
}

// A client re-simulates the ball on its own copy of the pitch. The server
// kicks the ball at 0.5 s; the client learns of it 50 ms later, rolls back to
// the kick, re-simulates to the present and from then on shows the ball where
// the server has it now.
func Example() {
	const tick, delay = time.Second / 60, 50 * time.Millisecond
	server, sball := pitchWorld()
	client, cball := pitchWorld()
	view, err := replicate.NewWorldResim[replicate.NoInput](replicate.ResimConfig{}, client, cball, nil)
	if err != nil {
		panic(err)
	}
	type packet struct {
		at time.Duration
		s  kinematic.State
	}
	var inFlight []packet
	var f replicate.Frame
	for n := 0; n <= 90; n++ { // frames on the server's ticks, for the comparison
		now := time.Duration(n) * tick
		if n > 0 {
			server.Step()
		}
		if n == 30 {
			server.SetVelocity(sball, geom.V(12, 6, 3))
		}
		inFlight = append(inFlight, packet{now + delay, state(server, sball, now)})
		for len(inFlight) > 0 && inFlight[0].at <= now {
			view.Receive(inFlight[0].s, inFlight[0].at) // arrival: estimated server time
			inFlight = inFlight[1:]
		}
		f = view.Render(now)
	}
	st := view.Resim().Stats()
	fmt.Printf("rollbacks: %d, deepest %d ticks\n", st.Rollbacks, st.MaxDepth)
	fmt.Printf("at 1.5 s the client shows the ball %.1f mm from the server's\n", f.Pos.Dist(server.Body(sball).Pos)*1000)
	// Output:
	// rollbacks: 1, deepest 3 ticks
	// at 1.5 s the client shows the ball 0.0 mm from the server's
}

// A Resim drives any simulation through requests: here a toy world of one
// body sliding along X whose input is an acceleration. The game performs
// each request on its own state.
func ExampleResim_Update() {
	const tick = time.Second / 60
	r, err := replicate.NewResim[float64](replicate.ResimConfig{})
	if err != nil {
		panic(err)
	}
	var x, v float64 // the game's world
	perform := func(reqs []replicate.Request[float64]) {
		for _, q := range reqs {
			switch q.Kind {
			case replicate.SaveState:
				q.Cell.Set(0, kinematic.State{Pos: geom.V(x, 0, 0), Vel: geom.V(v, 0, 0), Rot: geom.Identity})
			case replicate.LoadState:
				b := q.Cell.Get(0)
				x, v = b.Pos.X, b.Vel.X
			case replicate.AdvanceTick:
				v += q.Input * tick.Seconds()
				x += v * tick.Seconds()
			}
		}
	}
	r.SetInput(2) // push at 2 m/s²
	r.Receive(kinematic.State{Time: 0, Rot: geom.Identity}, 0)
	perform(r.Update(3 * tick))
	// The server says that at tick 1 the body was already 0.5 m along.
	r.Receive(kinematic.State{Time: tick, Pos: geom.V(0.5, 0, 0), Rot: geom.Identity}, 3*tick)
	reqs := r.Update(4 * tick)
	var steps []string
	for _, q := range reqs {
		steps = append(steps, fmt.Sprint(q.Kind, " ", q.Tick))
	}
	fmt.Println(strings.Join(steps, ", "))
	perform(reqs)
	fmt.Printf("x = %.4f m at tick 4\n", x)
	// Output:
	// load 1, advance 1, save 2, load 2, advance 2, save 3, load 3, advance 3, save 4, load 4
	// x = 0.5033 m at tick 4
}

// Velocity steers the client's own simulation of the ball toward the
// server's state predicted to the present.
func ExampleNewVelocity() {
	client, ball := pitchWorld()
	view, err := replicate.NewVelocity(replicate.VelocityConfig{}, replicate.NewWorldSim(client, ball))
	if err != nil {
		panic(err)
	}
	// The server's ball rolls along X at 4 m/s (spinning at 4/0.11 rad/s);
	// its state for 1 s arrives 40 ms later.
	rolling := kinematic.State{
		Time: time.Second, Pos: geom.V(0, 0.11, 0), Vel: geom.V(4, 0, 0),
		AngVel: geom.V(0, 0, -4/0.11), Rot: geom.Identity,
	}
	view.Receive(rolling, time.Second+40*time.Millisecond)
	f := view.Render(time.Second + 40*time.Millisecond)
	fmt.Printf("shown at x = %.2f m, %v after the state's time\n", f.Pos.X, f.Time-rolling.Time)
	// Output:
	// shown at x = 0.16 m, 40ms after the state's time
}
