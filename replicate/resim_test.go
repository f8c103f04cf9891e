package replicate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
)

// kinds renders requests compactly: "S10 L10 A10 S11 L11".
func kinds[In any](reqs []Request[In]) string {
	var b strings.Builder
	for i, q := range reqs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%c%d", strings.ToUpper(q.Kind.String())[0], q.Tick)
	}
	return b.String()
}

// ballState is the ball's state in w as a server state at tick n.
func ballState(w *physics.World, ball physics.BodyID, n int64) kinematic.State {
	b := w.Body(ball).State(0)
	b.Time = ticks(n)
	return b
}

func TestResimRequests(t *testing.T) {
	w, ball := pitchWorld(t)
	d, err := NewWorldResim[NoInput](ResimConfig{}, w, ball, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Resim()
	if reqs := r.Update(ticks(5)); reqs != nil {
		t.Fatalf("requests before any state: %s", kinds(reqs))
	}
	if f := r.Render(ticks(5)); f.Valid {
		t.Fatal("valid frame before any state")
	}
	// The server's ball, rolling.
	srv, sball := pitchWorld(t)
	s := srv.Body(sball)
	s.Vel = geom.V(5, 0, 0)
	srv.SetBody(sball, s)
	for range 10 {
		srv.Step()
	}
	r.Receive(ballState(srv, sball, 10), ticks(12))
	reqs := r.Update(ticks(12) + 5*time.Millisecond)
	if got, want := kinds(reqs), "S10 L10 A10 S11 L11 A11 S12 L12 A12 S13 L13"; got != want {
		t.Fatalf("first requests %q, want %q", got, want)
	}
	d.Perform(reqs)
	if f := r.Render(ticks(12) + 5*time.Millisecond); !f.Valid || !f.Cut || f.Time != ticks(12)+5*time.Millisecond {
		t.Fatalf("first frame %+v", f)
	}
	// The server's state for tick 12 agrees: no rollback.
	srv.Step()
	srv.Step()
	r.Receive(ballState(srv, sball, 12), ticks(14))
	reqs = r.Update(ticks(14))
	if got, want := kinds(reqs), "A13 S14 L14"; got != want {
		t.Fatalf("requests %q, want %q", got, want)
	}
	d.Perform(reqs)
	if st := r.Stats(); st.Confirmed != 1 || st.Rollbacks != 0 {
		t.Fatalf("stats %+v", st)
	}
	// The server's ball was pushed at tick 12: roll back there.
	srv.Step()
	s = srv.Body(sball)
	s.Vel = s.Vel.Add(geom.V(0, 0, 3))
	srv.SetBody(sball, s)
	r.Receive(ballState(srv, sball, 13), ticks(15))
	reqs = r.Update(ticks(15))
	if got, want := kinds(reqs), "L13 A13 S14 L14 A14 S15 L15"; got != want {
		t.Fatalf("rollback requests %q, want %q", got, want)
	}
	d.Perform(reqs)
	st := r.Stats()
	if st.Rollbacks != 1 || st.ResimTicks != 1 || st.MaxDepth != 1 {
		t.Fatalf("stats %+v", st)
	}
	srv.Step()
	srv.Step()
	if got, want := w.Body(ball).Pos, srv.Body(sball).Pos; got.Dist(want) > 1e-3 {
		t.Fatalf("after the rollback the ball is at %v, the server's at %v", got, want)
	}
	// An older state is stale; one older than the history is dropped.
	r.Receive(ballState(srv, sball, 11), ticks(16))
	if st := r.Stats(); st.Stale != 1 {
		t.Fatalf("stale %d", st.Stale)
	}
	d.Perform(r.Update(ticks(200)))
	r.Receive(ballState(srv, sball, 100), ticks(200))
	d.Perform(r.Update(ticks(200)))
	if st := r.Stats(); st.TooOld != 1 {
		t.Fatalf("too old %d", st.TooOld)
	}
	// A state for a tick not yet simulated is applied when the world gets there.
	future := ballState(srv, sball, 202)
	future.Pos = geom.V(1, 0.11, 1)
	r.Receive(future, ticks(200))
	if got := kinds(r.Update(ticks(201))); got != "A200 S201 L201" {
		t.Fatalf("requests %q", got)
	}
	reqs = r.Update(ticks(202))
	d.Perform(reqs)
	if got := w.Body(ball).Pos; got.Dist(future.Pos) > 1e-5 {
		t.Fatalf("future state not applied at its tick: ball at %v", got)
	}
}

func TestResimCut(t *testing.T) {
	w, ball := pitchWorld(t)
	d, err := NewWorldResim[NoInput](ResimConfig{}, w, ball, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, sball := pitchWorld(t)
	now := time.Duration(0)
	frame := func() Frame {
		now += hFrame
		return d.Render(now)
	}
	d.Receive(ballState(srv, sball, 0), 0)
	frame()
	for range 30 {
		frame()
	}
	cut := kinematic.State{Time: now - 30*time.Millisecond, Pos: geom.V(30, 0.11, 10), Rot: geom.Identity, Cut: true}
	d.Receive(cut, now)
	f := frame()
	if !f.Cut || f.Offset != (geom.Vec3{}) || f.Pos.Dist(cut.Pos) > 1e-3 {
		t.Fatalf("frame after a cut: %+v", f)
	}
	if f := frame(); f.Cut {
		t.Fatal("second frame after a cut still marked")
	}
}

// A small correction is blended out without a jump; a large one is shown.
func TestResimRenderCorrection(t *testing.T) {
	for _, tc := range []struct {
		shift float64
		snap  bool
	}{{0.15, false}, {1.0, true}} {
		w, ball := pitchWorld(t)
		d, err := NewWorldResim[NoInput](ResimConfig{}, w, ball, nil)
		if err != nil {
			t.Fatal(err)
		}
		srv, sball := pitchWorld(t)
		now := time.Duration(0)
		var n int64
		var prev Frame
		var jumps []float64
		for range 90 {
			now += hFrame
			for ; ticks(n) <= now-40*time.Millisecond; n++ {
				s := ballState(srv, sball, n)
				if n >= 30 {
					s.Pos.X += tc.shift
				}
				d.Receive(s, now)
				srv.Step()
			}
			f := d.Render(now)
			if prev.Valid {
				jumps = append(jumps, f.Pos.Dist(prev.Pos))
			}
			prev = f
		}
		worst := 0.0
		for _, j := range jumps {
			worst = max(worst, j)
		}
		if st := d.Resim().Stats(); (st.Snaps > 0) != tc.snap || st.Rollbacks == 0 {
			t.Errorf("shift %v: stats %+v", tc.shift, st)
		}
		if !tc.snap && worst > 0.05 {
			t.Errorf("shift %v: a frame moved %.3f m", tc.shift, worst)
		}
		if tc.snap && worst < tc.shift*0.9 {
			t.Errorf("shift %v: largest move %.3f m, want a jump", tc.shift, worst)
		}
		if prev.Pos.Dist(geom.V(tc.shift, 0.11, 0)) > 1e-3 {
			t.Errorf("shift %v: ball shown at %v", tc.shift, prev.Pos)
		}
	}
}

// The sync test: a crowd world with a local player steered by seeded input,
// server corrections of the ball every few frames, and the last eight ticks
// re-simulated and compared on every frame.
func TestResimSyncTest(t *testing.T) {
	run := func(apply func(w *physics.World, tick int64, in geom.Vec3)) ResimStats {
		w, ball, _ := crowdWorld(t, 3)
		d, err := NewWorldResim(ResimConfig{CheckDistance: 8}, w, ball, apply)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 3))
		now := time.Duration(0)
		for i := range 300 {
			now += hFrame
			if i%10 == 0 {
				d.SetInput(geom.V(rng.Float64()*10-5, 0, rng.Float64()*10-5))
			}
			if i%7 == 0 {
				n := tickOf(now, hTick) - 4
				s := kinematic.State{Time: ticks(n), Pos: geom.V(rng.Float64()*10, 0.11+rng.Float64(), rng.Float64()*10),
					Vel: geom.V(rng.Float64()*20-10, rng.Float64()*5, rng.Float64()*20-10), Rot: geom.Identity}
				d.Receive(s, now)
			}
			d.Render(now)
		}
		return d.Resim().Stats()
	}
	w0, _, players := crowdWorld(t, 3)
	_ = w0
	st := run(steer(players))
	t.Logf("%d cells compared, %d rollbacks, %d ticks re-simulated", st.SyncChecks, st.Rollbacks, st.ResimTicks)
	if st.SyncChecks < 1000 || st.Desyncs != 0 || st.Rollbacks < 30 {
		t.Fatalf("sync test: %+v", st)
	}
	// A step that depends on something outside the world and the input is caught.
	calls := 0
	leaky := func(w *physics.World, tick int64, in geom.Vec3) {
		calls++
		w.SetVelocity(players[0], in.Add(geom.V(float64(calls%3), 0, 0)))
	}
	if st := run(leaky); st.Desyncs == 0 {
		t.Fatalf("a non-deterministic step was not caught: %+v", st)
	}
}

// Update, Perform and Render allocate nothing once running, rollbacks included.
func TestResimAllocs(t *testing.T) {
	w, ball, players := crowdWorld(t, 5)
	d, err := NewWorldResim(ResimConfig{}, w, ball, steer(players))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Duration(0)
	i := 0
	frame := func() {
		now += hFrame
		i++
		if i%3 == 0 {
			d.Receive(kinematic.State{Time: now - 100*time.Millisecond, Pos: geom.V(float64(i%5), 0.11, 0), Rot: geom.Identity}, now)
		}
		d.SetInput(geom.V(float64(i%4), 0, 1))
		d.Render(now)
	}
	for range 120 {
		frame()
	}
	if n := testing.AllocsPerRun(200, frame); n != 0 {
		t.Fatalf("%v allocations per frame", n)
	}
	if d.Resim().Stats().Rollbacks < 100 {
		t.Fatalf("only %d rollbacks", d.Resim().Stats().Rollbacks)
	}
}

func TestConfigErrors(t *testing.T) {
	w, ball := pitchWorld(t)
	sim := NewWorldSim(w, ball)
	for _, tc := range []struct {
		field string
		err   error
	}{
		{"VelocityConfig.CorrectionTime", func() error { _, err := NewVelocity(VelocityConfig{CorrectionTime: -1}, sim); return err }()},
		{"VelocityConfig.Tick", func() error { _, err := NewVelocity(VelocityConfig{Tick: 2 * time.Second}, sim); return err }()},
		{"VelocityConfig.RestoredAngle", func() error { _, err := NewVelocity(VelocityConfig{RestoredAngle: 4}, sim); return err }()},
		{"PredictiveConfig.PosInterpolationShare", func() error {
			_, err := NewPredictive(PredictiveConfig{PosInterpolationShare: -2}, sim)
			return err
		}()},
		{"PredictiveConfig.ErrorAccumulation", func() error {
			_, err := NewPredictive(PredictiveConfig{ErrorAccumulation: time.Hour}, sim)
			return err
		}()},
		{"ResimConfig.History", func() error { _, err := NewResim[NoInput](ResimConfig{History: time.Millisecond}); return err }()},
		{"ResimConfig.Body", func() error { _, err := NewResim[NoInput](ResimConfig{Bodies: 3, Body: 3}); return err }()},
		{"ResimConfig.CheckDistance", func() error { _, err := NewResim[NoInput](ResimConfig{CheckDistance: 61}); return err }()},
		{"ResimConfig.PosThreshold", func() error { _, err := NewResim[NoInput](ResimConfig{PosThreshold: -1}); return err }()},
		{"ResimConfig.Body", func() error { _, err := NewWorldResim[NoInput](ResimConfig{}, w, 7, nil); return err }()},
	} {
		var ce *ConfigError
		if !errors.As(tc.err, &ce) || !errors.Is(tc.err, ErrInvalidConfig) || ce.Config+"."+ce.Field != tc.field {
			t.Errorf("want an error naming %s, got %v", tc.field, tc.err)
		} else if !strings.Contains(tc.err.Error(), tc.field) {
			t.Errorf("message %q does not name %s", tc.err, tc.field)
		}
	}
	if _, err := NewResim[NoInput](ResimConfig{}); err != nil {
		t.Errorf("zero ResimConfig: %v", err)
	}
}

// The local player's own touch is predicted: the client runs its player
// into the ball with its input, the server applies the same input at the
// same ticks, and the ball moves on the client in the very frame it moves on
// the server — no rollback, no delay.
func TestResimPredictsLocalTouch(t *testing.T) {
	srv, sball, splayers := crowdWorld(t, 8)
	w, ball, players := crowdWorld(t, 8)
	// The local player runs at the ball, on both sides from tick 0.
	p, b := w.Body(players[0]).Pos, w.Body(ball).Pos
	run := geom.V(b.X-p.X, 0, b.Z-p.Z).Norm().Scale(7)
	d, err := NewWorldResim(ResimConfig{}, w, ball, steer(players))
	if err != nil {
		t.Fatal(err)
	}
	const delay = 50 * time.Millisecond
	var queue []delivery
	var n int64
	srvMoved, cliMoved := time.Duration(-1), time.Duration(-1)
	start := srv.Body(sball).Pos
	for i := int64(1); i < 240; i++ {
		now := ticks(i) // frames on the ticks, so that both sides compare exactly
		for ; n <= i; n++ {
			if n > 0 {
				srv.SetVelocity(splayers[0], run)
				srv.Step()
			}
			if srvMoved < 0 && srv.Body(sball).Pos.Dist(start) > 1e-3 {
				srvMoved = ticks(n)
			}
			if n%2 == 0 {
				queue = append(queue, delivery{ticks(n) + delay, ballState(srv, sball, n)})
			}
		}
		for len(queue) > 0 && queue[0].at <= now {
			d.Receive(queue[0].b, queue[0].at)
			queue = queue[1:]
		}
		d.SetInput(run)
		f := d.Render(now)
		if cliMoved < 0 && f.Valid && f.Pos.Dist(start) > 1e-3 {
			cliMoved = now
		}
	}
	st := d.Resim().Stats()
	t.Logf("ball first moves at %v on the server, %v on the client; %d rollbacks, %d states confirmed",
		srvMoved, cliMoved, st.Rollbacks, st.Confirmed)
	if srvMoved < 0 || cliMoved != srvMoved {
		t.Errorf("ball moved at %v on the server and %v on the client", srvMoved, cliMoved)
	}
	if st.Rollbacks != 0 {
		t.Errorf("%d rollbacks for a predicted touch", st.Rollbacks)
	}
}
