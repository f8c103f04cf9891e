package replicate

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
)

// link feeds view the server world's ball states every two ticks, arriving
// delay later, up to now.
type link struct {
	srv   *physics.World
	ball  physics.BodyID
	n     int64
	delay time.Duration
	queue []delivery
}

func (l *link) run(v View, now time.Duration, push func(n int64)) {
	for ; ticks(l.n) <= now; l.n++ {
		if l.n > 0 {
			l.srv.Step()
		}
		if push != nil {
			push(l.n)
		}
		if l.n%2 == 0 {
			l.queue = append(l.queue, delivery{ticks(l.n) + l.delay, ballState(l.srv, l.ball, l.n)})
		}
	}
	for len(l.queue) > 0 && l.queue[0].at <= now {
		v.Receive(l.queue[0].b, l.queue[0].at)
		l.queue = l.queue[1:]
	}
}

// After an unforeseen kick, Velocity and Predictive catch up with the
// server's ball and then follow it exactly.
func TestFollowConverges(t *testing.T) {
	for _, mode := range []string{"velocity", "predictive"} {
		srv, sball := pitchWorld(t)
		w, ball := pitchWorld(t)
		var v View
		if mode == "velocity" {
			v, _ = NewVelocity(VelocityConfig{}, NewWorldSim(w, ball))
		} else {
			v, _ = NewPredictive(PredictiveConfig{}, NewWorldSim(w, ball))
		}
		l := &link{srv: srv, ball: sball, delay: 50 * time.Millisecond}
		kick := func(n int64) {
			if n == 30 {
				b := srv.Body(sball)
				b.Vel = geom.V(8, 3, 2)
				srv.SetBody(sball, b)
			}
		}
		worstLate := 0.0
		for i := int64(1); i < 180; i++ {
			now := ticks(i) // frames on the ticks: the server's state is the truth
			l.run(v, now, kick)
			f := v.Render(now)
			if now > 2*time.Second {
				worstLate = max(worstLate, f.Pos.Dist(srv.Body(sball).Pos))
			}
		}
		if worstLate > 0.011 { // Velocity stops correcting under RestoredDistance
			t.Errorf("%s: %.3f m from the server's ball after the kick settled", mode, worstLate)
		}
	}
}

// A local push: the client pushes the ball at the frame it happens, and the
// server applies the same push at the same tick. Predictive, told with
// Interact, shows it at once and keeps it; Velocity pulls the ball back
// toward the states from before the push until they catch up.
func TestPredictiveLocalPush(t *testing.T) {
	errs := map[string]float64{}
	for _, mode := range []string{"velocity", "predictive"} {
		srv, sball := pitchWorld(t)
		w, ball := pitchWorld(t)
		sim := NewWorldSim(w, ball)
		var v View
		var p *Predictive
		if mode == "velocity" {
			v, _ = NewVelocity(VelocityConfig{}, sim)
		} else {
			p, _ = NewPredictive(PredictiveConfig{}, sim)
			v = p
		}
		l := &link{srv: srv, ball: sball, delay: 60 * time.Millisecond}
		const pushTick = 61
		shove := func(b kinematic.State) kinematic.State { b.Vel = b.Vel.Add(geom.V(6, 0, 0)); return b }
		worst := 0.0
		for i := int64(1); i < 120; i++ {
			now := ticks(i)
			l.run(v, now, func(n int64) {
				if n == pushTick {
					srv.SetBody(sball, physics.BodyStateOf(shove(srv.Body(sball).State(0))))
				}
			})
			f := v.Render(now)
			if i == pushTick {
				// The local player pushes the ball in the client's world at
				// the tick it has simulated to.
				sim.SetBody(shove(sim.Body()))
				if p != nil {
					p.Interact(now)
				}
			}
			if i > pushTick {
				worst = max(worst, f.Pos.Dist(srv.Body(sball).Pos))
			}
		}
		errs[mode] = worst
	}
	t.Logf("largest error after a local push: velocity %.3f m, predictive %.3f m", errs["velocity"], errs["predictive"])
	if errs["predictive"] > 0.005 || errs["velocity"] < 0.1 {
		t.Errorf("errors after a local push: %v", errs)
	}
}

func TestFollowCutAndStale(t *testing.T) {
	w, ball := pitchWorld(t)
	v, err := NewVelocity(VelocityConfig{}, NewWorldSim(w, ball))
	if err != nil {
		t.Fatal(err)
	}
	if f := v.Render(0); f.Valid {
		t.Fatal("valid frame before any state")
	}
	v.Receive(kinematic.State{Time: ticks(10), Pos: geom.V(0, 0.11, 0)}, ticks(13))
	if f := v.Render(ticks(13)); !f.Valid || !f.Cut {
		t.Fatalf("first frame %+v", f)
	}
	v.Receive(kinematic.State{Time: ticks(9), Pos: geom.V(5, 0.11, 0)}, ticks(14))
	v.Receive(kinematic.State{Time: ticks(12), Pos: geom.V(20, 0.11, 0), Cut: true}, ticks(14))
	f := v.Render(ticks(14))
	if !f.Cut || f.Pos.Dist(geom.V(20, 0.11, 0)) > 1e-3 {
		t.Fatalf("frame after a cut %+v", f)
	}
	if st := v.Stats(); st.Stale != 1 || st.Cuts != 1 || st.Received != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// A body stuck against something the server's world does not have (here a
// box only the client has) stops converging; after ErrorAccumulation it is
// set to the server's state.
func TestFollowUnstuck(t *testing.T) {
	for _, mode := range []string{"velocity", "predictive"} {
		srv, sball := pitchWorld(t)
		w, ball := pitchWorld(t)
		if _, err := w.AddBox(physics.Box{Center: geom.V(1.5, 0.5, 0), Half: geom.V(0.1, 0.5, 3)}); err != nil {
			t.Fatal(err)
		}
		sim := NewWorldSim(w, ball)
		var v View
		var stats func() FollowStats
		if mode == "velocity" {
			m, _ := NewVelocity(VelocityConfig{SnapDistance: 100}, sim)
			v, stats = m, m.Stats
		} else {
			m, _ := NewPredictive(PredictiveConfig{ErrorAccumulation: 500 * time.Millisecond, SnapDistance: 100}, sim)
			v, stats = m, m.Stats
		}
		// The server's ball rolls slowly through where the client's box is.
		b := srv.Body(sball)
		b.Vel, b.AngVel = geom.V(3, 0, 0), geom.V(0, 0, -3/0.11)
		srv.SetBody(sball, b)
		l := &link{srv: srv, ball: sball, delay: 40 * time.Millisecond}
		var f Frame
		for i := int64(1); i < 240; i++ {
			l.run(v, ticks(i), nil)
			f = v.Render(ticks(i))
		}
		if stats().Snaps == 0 || f.Pos.X < 1.7 {
			t.Errorf("%s: %d snaps, ball at %v, the server's at %v", mode, stats().Snaps, f.Pos, srv.Body(sball).Pos)
		}
	}
}
