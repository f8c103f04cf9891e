package replicate

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
)

// WorldResim is a Resim together with the physics.World it re-simulates: it
// performs the Resim's requests itself and so is a View. The history holds
// every body of the world; the body Receive refers to is the one given to
// NewWorldResim, and ReceiveBody takes the others (the players, in the
// soccer game).
type WorldResim[In any] struct {
	r       *Resim[In]
	w       *physics.World
	apply   func(w *physics.World, tick int64, in In)
	scratch []physics.BodyState
}

// NewWorldResim returns a WorldResim for body of w. cfg.Bodies and cfg.Body
// are set from the world. apply, if not nil, is called before each step with
// the tick being stepped from and the local input recorded for it: it sets
// what the input does (a capsule's velocity, a kick). The world's step must
// equal cfg.Tick, and no bodies may be added to it afterwards.
func NewWorldResim[In any](cfg ResimConfig, w *physics.World, body physics.BodyID, apply func(w *physics.World, tick int64, in In)) (*WorldResim[In], error) {
	scratch := w.Save(nil)
	if body < 0 || int(body) >= len(scratch) {
		return nil, &ConfigError{"ResimConfig", "Body", body, fmt.Sprintf("a body of the world [0, %d)", len(scratch))}
	}
	cfg.Bodies, cfg.Body = len(scratch), int(body)
	r, err := NewResim[In](cfg)
	if err != nil {
		return nil, err
	}
	return &WorldResim[In]{r: r, w: w, apply: apply, scratch: scratch}, nil
}

// Resim returns the underlying Resim, for its Stats and SetInput.
func (d *WorldResim[In]) Resim() *Resim[In] { return d.r }

// World returns the world.
func (d *WorldResim[In]) World() *physics.World { return d.w }

// Receive takes a server state of the body.
func (d *WorldResim[In]) Receive(s kinematic.State, arrival time.Duration) { d.r.Receive(s, arrival) }

// ReceiveBody takes a server state of body id of the world.
func (d *WorldResim[In]) ReceiveBody(id physics.BodyID, s kinematic.State, arrival time.Duration) {
	d.r.ReceiveBody(int(id), s, arrival)
}

// SetInput sets the local input for the ticks advanced from now on.
func (d *WorldResim[In]) SetInput(in In) { d.r.SetInput(in) }

// Render brings the world to now, performing the requests of Update, and
// returns the frame.
func (d *WorldResim[In]) Render(now time.Duration) Frame {
	d.Perform(d.r.Update(now))
	return d.r.Render(now)
}

// Perform performs requests on the world, in order.
func (d *WorldResim[In]) Perform(reqs []Request[In]) {
	for i := range reqs {
		q := &reqs[i]
		switch q.Kind {
		case SaveState:
			d.scratch = d.w.Save(d.scratch)
			for j := range d.scratch {
				q.Cell.Set(j, d.scratch[j].State(0))
			}
		case LoadState:
			for j := range d.scratch {
				d.scratch[j] = physics.BodyStateOf(q.Cell.Get(j))
			}
			_ = d.w.Restore(d.scratch) // one state per body: cannot fail
		case AdvanceTick:
			if d.apply != nil {
				d.apply(d.w, q.Tick, q.Input)
			}
			d.w.Step()
		}
	}
}
