package timeline_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
)

// A ball thrown upward is sent at 30 Hz and arrives 40 to 43 ms late; the
// client, rendering at 60 Hz, inserts what arrived at the start of each frame,
// so the lateness it sees is 40 to 60 ms. The timeline settles on the render
// delay that leaves one frame in twenty waiting for the next state
// (DefaultLateShare) and follows the arc exactly between the states.
func Example() {
	tl, err := timeline.New(timeline.Config{
		Extrapolate: timeline.Ballistic{Gravity: geom.V(0, -9.81, 0), Floor: 0.11, Restitution: 0.6}.Extrapolate,
	})
	if err != nil {
		panic(err)
	}
	ball := func(t time.Duration) kinematic.State {
		s := t.Seconds()
		return kinematic.State{
			Time: t,
			Pos:  geom.V(3*s, 0.11+12*s-9.81*s*s/2, 0),
			Vel:  geom.V(3, 12-9.81*s, 0),
			Rot:  geom.Identity,
		}
	}
	const send = time.Second / 30
	const frame = time.Second / 60
	next := time.Duration(0)
	var f timeline.Frame
	for now := time.Duration(0); now <= 2*time.Second; now += frame {
		for ; next+40*time.Millisecond+next%(3*time.Millisecond) <= now; next += send {
			tl.Insert(ball(next), now) // arrival: the client's estimate of server time now
		}
		f = tl.Sample(now)
	}
	want := ball(f.Time)
	fmt.Printf("delay %v, error %.3f mm, extrapolated %v\n", f.Delay.Round(time.Millisecond), f.Pos.Dist(want.Pos)*1000, f.Extrapolated)
	// Output: delay 82ms, error 0.000 mm, extrapolated false
}
