package timeline

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"pgregory.net/rapid"
)

const ms = time.Millisecond

func newTL(t testing.TB, c Config) *Timeline {
	t.Helper()
	tl, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// line is a body moving at 2 m/s along X, its state at time at.
func line(at time.Duration) kinematic.State {
	return kinematic.State{Time: at, Pos: geom.V(2*at.Seconds(), 0, 0), Vel: geom.V(2, 0, 0), Rot: geom.Identity}
}

// arc is a body under gravity, exact at any time.
func arc(at time.Duration) kinematic.State {
	s := at.Seconds()
	return kinematic.State{
		Time: at,
		Pos:  geom.V(10*s, 1+8*s-9.81*s*s/2, 0),
		Vel:  geom.V(10, 8-9.81*s, 0),
		Rot:  geom.Identity,
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{Capacity: 2}, "Capacity"},
		{Config{LateShare: 1}, "LateShare"},
		{Config{LateShare: -0.1}, "LateShare"},
		{Config{LateShare: math.NaN()}, "LateShare"},
		{Config{MinDelay: 2 * time.Second, MaxDelay: time.Second}, "MaxDelay"},
		{Config{Window: 5}, "Window"},
		{Config{SendInterval: -ms}, "SendInterval"},
		{Config{MaxCorrectionSpeed: -1}, "MaxCorrectionSpeed"},
		{Config{SnapDistance: math.Inf(1)}, "SnapDistance"},
	} {
		_, err := New(c.cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("New(%+v) = %v, want a ConfigError for %s", c.cfg, err, c.field)
		}
	}
	if _, err := New(Config{}); err != nil {
		t.Fatalf("zero Config: %v", err)
	}
}

func TestEmpty(t *testing.T) {
	tl := newTL(t, Config{})
	if f := tl.Sample(time.Second); f.Valid {
		t.Fatalf("frame from an empty timeline: %+v", f)
	}
}

// Out-of-order states are put in order, duplicates ignored, and a state the
// render time has already passed is dropped and counted.
func TestOrderDuplicatesLate(t *testing.T) {
	tl := newTL(t, Config{SendInterval: 50 * ms, MinDelay: 10 * ms, MaxDelay: 10 * ms})
	for _, i := range []int{0, 2, 1, 3, 1, 2} {
		at := time.Duration(i) * 50 * ms
		tl.Insert(line(at), at+10*ms)
	}
	if st := tl.Stats(); st.Inserted != 4 || st.Duplicates != 2 || st.Held != 4 {
		t.Fatalf("stats %+v, want 4 inserted, 2 duplicates, 4 held", st)
	}
	for i := 1; i < tl.n; i++ {
		if tl.at(i-1).Time >= tl.at(i).Time {
			t.Fatalf("buffer out of order at %d", i)
		}
	}
	// Render at 120 ms: the states at 0 and 50 ms are behind it.
	tl.Sample(130 * ms)
	if f := tl.Sample(130 * ms); f.Time != 120*ms {
		t.Fatalf("render time %v, want 120ms", f.Time)
	}
	before := tl.Stats()
	tl.Insert(line(20*ms), 200*ms) // older than the state the frame is drawn from
	if st := tl.Stats(); st.Late != before.Late+1 || st.Held != before.Held {
		t.Fatalf("late state: stats %+v", st)
	}
	// Non-finite input is dropped.
	bad := line(400 * ms)
	bad.Pos.X = math.NaN()
	tl.Insert(bad, 400*ms)
	if st := tl.Stats(); st.Invalid != 1 {
		t.Fatalf("NaN state not counted: %+v", st)
	}
}

// A duplicate that is a Cut makes the state held a Cut: a jump held without
// its mark (a copy from another source) is drawn as a cut, not as motion.
func TestDuplicateCut(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 100 * ms, MaxDelay: 100 * ms})
	const jump = 500 * ms
	at := func(t time.Duration) kinematic.State {
		s := kinematic.State{Time: t, Rot: geom.Identity}
		if t >= jump {
			s.Pos = geom.V(30, 0, 0)
		}
		return s
	}
	cuts, between := 0, 0
	for now := time.Duration(0); now < time.Second; now += ms {
		if now%(33*ms) == 0 {
			tl.Insert(at(now), now)
			if now == jump-jump%(33*ms)+33*ms {
				s := at(now)
				s.Cut = true
				tl.Insert(s, now)
			}
		}
		if now%(16*ms) == 0 {
			f := tl.Sample(now)
			if f.Cut {
				cuts++
			}
			if f.Valid && f.Pos.X > 0.01 && f.Pos.X < 29.99 {
				between++
			}
		}
	}
	if cuts != 1 || between != 0 || tl.Stats().Duplicates != 1 {
		t.Fatalf("%d cuts, %d frames between the two places, stats %+v", cuts, between, tl.Stats())
	}
}

// A late state that falls between the state the last frame was drawn from and
// the next one is used, and the correction is blended without a jump.
func TestLateStateFillsGap(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 100 * ms, MaxDelay: 100 * ms})
	// A kick at 150 ms: rest before, 10 m/s after. The state at 150 ms (the
	// knot) is late.
	kick := func(at time.Duration) kinematic.State {
		s := kinematic.State{Time: at, Rot: geom.Identity}
		if at >= 150*ms {
			s.Vel = geom.V(10, 0, 0)
			s.Pos = geom.V(10*(at-150*ms).Seconds(), 0, 0)
		}
		return s
	}
	for _, at := range []time.Duration{0, 100 * ms, 200 * ms} {
		tl.Insert(kick(at), at)
	}
	var prev Frame
	for now := 200 * ms; now <= 400*ms; now += 10 * ms {
		if now == 260*ms {
			k := kick(150 * ms)
			k.Knot = true
			tl.Insert(k, now)
		}
		f := tl.Sample(now)
		if now > 200*ms {
			if d := f.Pos.Sub(prev.Pos).Len(); d > 10*0.01+2*0.01+1e-9 {
				t.Fatalf("at %v the position moved %.3f m in 10 ms", now, d)
			}
		}
		prev = f
	}
	if st := tl.Stats(); st.Late != 0 || st.Inserted != 4 {
		t.Fatalf("late knot not used: %+v", st)
	}
	if want := 10 * (prev.Time - 150*ms).Seconds(); prev.Pos.Dist(geom.V(want, 0, 0)) > 1e-3 {
		t.Fatalf("ends at %v, want x=%v", prev.Pos, want)
	}
}

// Hermite follows an arc exactly; a knot at the end of the step that had a
// bounce keeps the path before the bounce from using the velocity after it,
// and the curve turns where the ball hit the wall, inside the step.
func TestCurves(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 200 * ms, MaxDelay: 200 * ms})
	for at := time.Duration(0); at <= 300*ms; at += 50 * ms {
		tl.Insert(arc(at), at)
	}
	for now := 200 * ms; now <= 450*ms; now += 7 * ms {
		f := tl.Sample(now)
		if want := arc(f.Time); f.Pos.Dist(want.Pos) > 1e-9 || f.Vel.Dist(want.Vel) > 1e-6 {
			t.Fatalf("at %v: %v %v, want %v %v", f.Time, f.Pos, f.Vel, want.Pos, want.Vel)
		}
	}

	// The arc hits a wall at x = 3.1, 0.31 s in, and comes back at 0.8 of
	// its speed; the states come every 1/30 s, the knot with the first one
	// after the bounce.
	const wallX, tw = 3.1, 0.31
	ball := func(s float64) kinematic.State {
		st := arc(secs(s))
		if s > tw {
			st.Pos.X = wallX - 8*(s-tw)
			st.Vel.X = -8
		}
		return st
	}
	gravity := Ballistic{Gravity: geom.V(0, -9.81, 0), Floor: math.Inf(-1)}
	tl = newTL(t, Config{MinDelay: 200 * ms, MaxDelay: 200 * ms, Extrapolate: gravity.Extrapolate})
	for n := 6; n <= 15; n++ {
		st := ball(float64(n) / 30)
		st.Knot = n == 10
		tl.Insert(st, st.Time)
	}
	for now := secs(0.4); now < secs(0.7); now += 3 * ms {
		f := tl.Sample(now)
		if want := ball(f.Time.Seconds()); f.Pos.Dist(want.Pos) > 2e-4 {
			t.Fatalf("at %v: %v, want %v", f.Time, f.Pos, want.Pos)
		}
	}
}

// decay is a body whose velocity decays exponentially (a crude air drag),
// exact at any time, with an extrapolator that knows it.
const decayRate = 8 // 1/s

func decay(at time.Duration) kinematic.State {
	s := at.Seconds()
	e := math.Exp(-decayRate * s)
	return kinematic.State{Time: at, Pos: geom.V(30*(1-e)/decayRate, 0, 0), Vel: geom.V(30*e, 0, 0), Rot: geom.Identity}
}

func decayExtrapolate(s kinematic.State, dt time.Duration) kinematic.State {
	e := math.Exp(-decayRate * dt.Seconds())
	s.Time += dt
	s.Pos = s.Pos.AddScaled(s.Vel, (1-e)/decayRate)
	s.Vel = s.Vel.Scale(e)
	return s
}

// Between two states the curve follows the extrapolator's prediction: with
// an extrapolator that knows the motion, interpolation is exact where a cubic
// through the states is not.
func TestCurveFollowsExtrapolator(t *testing.T) {
	const gap = 100 * ms
	worst := func(c Config) float64 {
		tl := newTL(t, c)
		for at := time.Duration(0); at <= 600*ms; at += gap {
			tl.Insert(decay(at), at)
		}
		e := 0.0
		for now := 200 * ms; now <= 600*ms; now += 7 * ms {
			f := tl.Sample(now)
			e = max(e, f.Pos.Dist(decay(f.Time).Pos))
		}
		return e
	}
	fixed := Config{MinDelay: 200 * ms, MaxDelay: 200 * ms}
	hermite := worst(fixed)
	fixed.Extrapolate = decayExtrapolate
	if e := worst(fixed); e > 1e-9 || hermite < 1e-3 {
		t.Fatalf("worst error %.3g m with the extrapolator, %.3g m without", e, hermite)
	}
}

// Two states further apart than MaxExtrapolation are not joined by a curve:
// the earlier motion is held past the bound, and when data resumes the
// picture jumps once to the later motion, run backward, and follows it.
func TestGapRejoin(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 50 * ms, MaxDelay: 50 * ms, MaxExtrapolation: 300 * ms})
	// Along X until 1 s, then, after a 2 s gap in which it was kicked, along Z.
	path := func(at time.Duration) kinematic.State {
		if at <= time.Second {
			return line(at)
		}
		d := (at - 2*time.Second).Seconds()
		return kinematic.State{Time: at, Pos: geom.V(5, 0, 3*d), Vel: geom.V(0, 0, 3), Rot: geom.Identity}
	}
	const late = 20 * ms
	next := time.Duration(0)
	jumps := 0
	var prev Frame
	for now := time.Duration(0); now <= 4*time.Second; now += 10 * ms {
		for ; next+late <= now; next += 50 * ms {
			if next <= time.Second || next >= 3*time.Second {
				tl.Insert(path(next), next+late)
			}
		}
		f := tl.Sample(now)
		rt := f.Time
		switch resumed := next > 3*time.Second; {
		case !resumed && rt > 1300*ms:
			if !f.Frozen || f.Pos.Dist(line(1300*ms).Pos) > 1e-9 {
				t.Fatalf("at %v in the gap: %+v, want held at %v", rt, f, line(1300*ms).Pos)
			}
		case resumed:
			if f.Frozen {
				t.Fatalf("at %v after the gap: frozen", rt)
			}
			if f.Pos.Dist(prev.Pos) > 0.5 {
				jumps++
			} else if e := f.Pos.Dist(path(rt).Pos); e > 1e-9 {
				t.Fatalf("at %v after the gap: %v, want %v", rt, f.Pos, path(rt).Pos)
			}
		}
		prev = f
	}
	if jumps != 1 {
		t.Fatalf("%d jumps when data resumed, want 1", jumps)
	}
}

// With the knot state lost, a kick between two states is placed where the
// motion before it and the motion after it meet.
func TestContactCrossing(t *testing.T) {
	const tk = 0.137 // kick time
	kick := func(s float64) kinematic.State {
		if s < tk {
			return kinematic.State{Time: secs(s), Pos: geom.V(1+0.5*s, 0, 0), Vel: geom.V(0.5, 0, 0)}
		}
		return kinematic.State{Time: secs(s), Pos: geom.V(1+0.5*tk+12*(s-tk), 0, 4*(s-tk)), Vel: geom.V(12, 0, 4)}
	}
	tl := newTL(t, Config{MinDelay: 100 * ms, MaxDelay: 100 * ms})
	for _, s := range []float64{0, 0.1, 0.2, 0.3} {
		tl.Insert(kick(s), secs(s))
	}
	for now := secs(0.2); now < secs(0.3); now += 4 * ms {
		f := tl.Sample(now)
		if want := kick(f.Time.Seconds()); f.Pos.Dist(want.Pos) > 3e-4 {
			t.Fatalf("at %v: %v, want %v", f.Time, f.Pos, want.Pos)
		}
	}
}

// A Cut is never interpolated into: frames before it continue the old motion,
// the first frame at or after it is flagged and shows the new place, with no
// correction carried over.
func TestCut(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 100 * ms, MaxDelay: 100 * ms})
	for at := time.Duration(0); at < 300*ms; at += 50 * ms {
		s := line(at)
		if at >= 200*ms {
			s.Pos = geom.V(100, 0, 0).AddScaled(s.Vel, (at - 200*ms).Seconds())
			s.Cut = at == 200*ms
		}
		tl.Insert(s, at)
	}
	cuts := 0
	for now := 250 * ms; now <= 390*ms; now += 10 * ms {
		f := tl.Sample(now)
		if f.Time < 200*ms && f.Pos.X > 1 {
			t.Fatalf("at %v (before the cut) x=%v: interpolated into the cut", f.Time, f.Pos.X)
		}
		if f.Time >= 200*ms && math.Abs(f.Pos.X-100-2*(f.Time-200*ms).Seconds()) > 1e-9 {
			t.Fatalf("at %v (after the cut) x=%v", f.Time, f.Pos.X)
		}
		if f.Cut {
			cuts++
			if f.Offset != (geom.Vec3{}) {
				t.Fatalf("cut frame carries an offset %v", f.Offset)
			}
		}
	}
	if cuts != 1 {
		t.Fatalf("%d frames flagged Cut, want 1", cuts)
	}

	// A Cut that arrives after its time is applied at the next frame.
	tl = newTL(t, Config{MinDelay: 100 * ms, MaxDelay: 100 * ms})
	for at := time.Duration(0); at <= 200*ms; at += 50 * ms {
		tl.Insert(line(at), at)
	}
	tl.Sample(200 * ms)
	late := line(50 * ms)
	late.Time = 60 * ms
	late.Pos = geom.V(-50, 0, 0)
	late.Cut = true
	tl.Insert(late, 205*ms)
	f := tl.Sample(210 * ms)
	if !f.Cut || tl.Stats().LateCuts != 1 {
		t.Fatalf("late cut not applied: %+v, %+v", f, tl.Stats())
	}
}

// Slerp takes the short way across ±180° of yaw; with angular velocity saying
// the body spun more than half a turn, it turns the way the body spun.
func TestRotation(t *testing.T) {
	up := geom.V(0, 1, 0)
	deg := math.Pi / 180
	tl := newTL(t, Config{MinDelay: 100 * ms, MaxDelay: 100 * ms})
	a := kinematic.State{Time: 0, Rot: geom.AxisAngle(up, 170*deg)}
	b := kinematic.State{Time: 100 * ms, Rot: geom.AxisAngle(up, -170*deg)}
	tl.Insert(a, 0)
	tl.Insert(b, 100*ms)
	tl.Sample(150 * ms)
	if f := tl.Sample(150 * ms); f.Rot.Angle(geom.AxisAngle(up, math.Pi)) > 1e-9 {
		t.Fatalf("midway rotation is %.3f rad from yaw 180°", f.Rot.Angle(geom.AxisAngle(up, math.Pi)))
	}

	// Spinning at 30 rad/s about up for 0.1 s is 3 rad, just short of half
	// a turn, then 5 rad (more than half a turn: the shortest arc would spin
	// backwards).
	for _, w := range []float64{30, 50} {
		tl := newTL(t, Config{MinDelay: 100 * ms, MaxDelay: 100 * ms})
		spin := geom.V(0, w, 0)
		tl.Insert(kinematic.State{Time: 0, Rot: geom.Identity, AngVel: spin}, 0)
		tl.Insert(kinematic.State{Time: 100 * ms, Rot: geom.AxisAngle(up, w*0.1), AngVel: spin}, 100*ms)
		for now := 100 * ms; now <= 200*ms; now += 10 * ms {
			f := tl.Sample(now)
			if want := geom.AxisAngle(up, w*f.Time.Seconds()); f.Rot.Angle(want) > 1e-6 {
				t.Fatalf("w=%v at %v: %.3f rad off", w, f.Time, f.Rot.Angle(want))
			}
		}
	}
}

// Past the newest state the timeline extrapolates, up to the bound, then
// holds and says so.
func TestExtrapolationBound(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 50 * ms, MaxDelay: 50 * ms, MaxExtrapolation: 200 * ms})
	tl.Insert(line(0), 0)
	tl.Insert(line(50*ms), 50*ms)
	var last Frame
	for now := 100 * ms; now <= 500*ms; now += 10 * ms {
		f := tl.Sample(now)
		ahead := f.Time - 50*ms
		switch {
		case ahead <= 0:
		case ahead <= 200*ms:
			if !f.Extrapolated || f.Frozen || math.Abs(f.Pos.X-2*f.Time.Seconds()) > 1e-9 {
				t.Fatalf("at %v: %+v, want extrapolated at x=%v", f.Time, f, 2*f.Time.Seconds())
			}
		default:
			if !f.Frozen || math.Abs(f.Pos.X-2*0.25) > 1e-9 || f.Vel != (geom.Vec3{}) {
				t.Fatalf("at %v: %+v, want frozen at x=0.5", f.Time, f)
			}
		}
		last = f
	}
	if st := tl.Stats(); st.Frozen == 0 || st.Extrapolated == 0 || !last.Frozen {
		t.Fatalf("stats %+v", st)
	}
}

// When data resumes after an extrapolation that went wrong, the picture
// does not jump: the error is blended out at most at MaxCorrectionSpeed.
func TestBlendBack(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 50 * ms, MaxDelay: 50 * ms, MaxCorrectionSpeed: 2, SnapDistance: 5})
	// At rest until 100 ms, then moving at 5 m/s in Y, unannounced; the states
	// after 100 ms arrive 150 ms late.
	path := func(at time.Duration) kinematic.State {
		s := kinematic.State{Time: at, Rot: geom.Identity}
		if at > 100*ms {
			s.Pos = geom.V(0, 5*(at-100*ms).Seconds(), 0)
			s.Vel = geom.V(0, 5, 0)
		}
		return s
	}
	for at := time.Duration(0); at <= 100*ms; at += 20 * ms {
		tl.Insert(path(at), at)
	}
	var prev Frame
	next := 120 * ms
	resumed := false
	for now := 100 * ms; now <= time.Second; now += 16 * ms {
		for ; next+150*ms <= now; next += 20 * ms {
			tl.Insert(path(next), next+150*ms)
			resumed = true
		}
		f := tl.Sample(now)
		// Until the first state after the start arrives, the picture cannot
		// know the body moved; from then on it must not jump.
		if resumed && prev.Valid {
			dR := f.Pos.Sub(prev.Pos)
			dX := path(f.Time).Pos.Sub(path(prev.Time).Pos)
			// A little slack for the curve differing from the true path.
			if e := dR.Sub(dX).Len(); e > 2*0.016+0.005 {
				t.Fatalf("at %v the picture moved %.3f m off the true motion", now, e)
			}
		}
		prev = f
	}
	if st := tl.Stats(); st.Snaps != 0 {
		t.Fatalf("snapped: %+v", st)
	}
	if prev.Offset.Len() > 1e-3 || prev.Pos.Dist(path(prev.Time).Pos) > 1e-3 {
		t.Fatalf("not back on the path: %+v", prev)
	}
}

// After an outage longer than the extrapolation bound, the states of the
// outage may come back a few at a time (a client's backlog of moves, sent
// oldest first): the body stays where it is held until the data reaches back
// to within the bound, then jumps once, instead of jumping with every batch.
func TestHeldUntilCaughtUp(t *testing.T) {
	tl := newTL(t, Config{MinDelay: 50 * ms, MaxDelay: 50 * ms, MaxExtrapolation: 200 * ms, SnapDistance: 0.5})
	tick := time.Second / 60
	sent := time.Duration(0) // states up to sent have been inserted
	outage := [2]time.Duration{time.Second, 3 * time.Second}
	moves, jumps := 0, 0
	var prev Frame
	for now := tick; now <= 5*time.Second; now += tick {
		switch {
		case now < outage[0]:
			sent = now
			tl.Insert(line(sent), now)
		case now >= outage[1]:
			// Eight states a frame until caught up.
			for i := 0; i < 8 && sent < now; i++ {
				sent += tick
				tl.Insert(line(sent), now)
			}
		}
		f := tl.Sample(now)
		if prev.Valid && f.Pos != prev.Pos {
			d := f.Pos.Dist(prev.Pos)
			switch {
			case prev.Frozen && f.Frozen:
				moves++ // held, yet moved
			case d > 2*tick.Seconds()+1e-9:
				jumps++
			}
		}
		prev = f
	}
	if moves != 0 || jumps != 1 || prev.Frozen || prev.Pos.Dist(line(prev.Time).Pos) > 1e-9 {
		t.Fatalf("%d moves while held, %d jumps, last frame %+v", moves, jumps, prev)
	}
}

// The render delay follows a change of lateness only through the time
// scale: never a jump, never backwards, the scale within [0.9, 1.1].
func TestDelaySmooth(t *testing.T) {
	tl := newTL(t, Config{})
	rng := rand.New(rand.NewPCG(3, 4))
	var prev Frame
	frame := 16667 * time.Microsecond
	send := 0 * ms
	rose, fell := false, false
	for now := time.Duration(0); now < 30*time.Second; now += frame {
		lat := 20 * ms
		if now > 10*time.Second && now < 12*time.Second {
			lat = 200 * ms // a latency spike
		}
		for ; send+lat <= now; send += 33 * ms {
			tl.Insert(line(send), send+lat+time.Duration(rng.ExpFloat64()*float64(3*ms)))
		}
		f := tl.Sample(now)
		st := tl.Stats()
		if st.Scale < MinScale || st.Scale > MaxScale {
			t.Fatalf("scale %v", st.Scale)
		}
		if prev.Valid {
			if f.Time < prev.Time {
				t.Fatalf("render time went back from %v to %v", prev.Time, f.Time)
			}
			adv := f.Time - prev.Time
			if lo, hi := time.Duration(0.9*float64(frame))-1, time.Duration(1.1*float64(frame))+1; adv < lo || adv > hi {
				t.Fatalf("render time advanced %v in a %v frame", adv, frame)
			}
			rose = rose || f.Delay > prev.Delay
			fell = fell || f.Delay < prev.Delay
		}
		prev = f
	}
	if !rose || !fell {
		t.Fatalf("delay never adapted (rose %v, fell %v)", rose, fell)
	}
	// now going backwards leaves the render time where it was.
	f := tl.Sample(prev.Time)
	if f.Time != prev.Time {
		t.Fatalf("render time moved from %v to %v when now went back", prev.Time, f.Time)
	}
}

// The delay comes down to about the lateness plus the interval less
// DefaultLateShare of it, and rises quickly when the link gets slower.
func TestDelayTarget(t *testing.T) {
	tl := newTL(t, Config{})
	frame := 16667 * time.Microsecond
	send := time.Duration(0)
	var f Frame
	lat := 30 * ms
	for now := time.Duration(0); now < 8*time.Second; now += frame {
		if now > 5*time.Second {
			lat = 80 * ms
		}
		for ; send+lat <= now; send += 33 * ms {
			tl.Insert(line(send), send+lat)
		}
		f = tl.Sample(now)
		if now > 4*time.Second && now < 5*time.Second {
			// 30 ms lateness + 95 % of 33 ms.
			if want := 30*ms + time.Duration((1-DefaultLateShare)*float64(33*ms)); f.Delay < want-2*ms || f.Delay > want+2*ms {
				t.Fatalf("delay %v at %v, want about %v", f.Delay, now, want)
			}
		}
	}
	// 3 s after the lateness rose by 50 ms the delay has followed.
	if want := 80*ms + time.Duration((1-DefaultLateShare)*float64(33*ms)); f.Delay < want-5*ms || f.Delay > want+2*ms {
		t.Fatalf("delay %v, want about %v", f.Delay, want)
	}
}

// The buffer never holds more than its capacity, and sampling discards what
// the render time has passed.
func TestMemoryBound(t *testing.T) {
	tl := newTL(t, Config{Capacity: 16})
	for i := 0; i < 1000; i++ {
		at := time.Duration(i) * 33 * ms
		tl.Insert(line(at), at)
	}
	if st := tl.Stats(); st.Held != 16 || st.Evicted != 1000-16 {
		t.Fatalf("stats %+v", st)
	}
	tl = newTL(t, Config{})
	for i := 0; i < 1000; i++ {
		at := time.Duration(i) * 33 * ms
		tl.Insert(line(at), at+20*ms)
		tl.Sample(at + 20*ms)
		if held := tl.Stats().Held; held > 4 {
			t.Fatalf("holding %d states at a steady 33 ms", held)
		}
	}
}

// Insert and Sample allocate nothing in steady state, contact segments
// included.
func TestNoAllocs(t *testing.T) {
	tl := newTL(t, Config{Extrapolate: Ballistic{Gravity: geom.V(0, -9.81, 0), Floor: 0.11, Restitution: 0.6}.Extrapolate})
	at := time.Duration(0)
	step := func() {
		s := arc(at)
		if at/(33*ms)%7 == 3 {
			s.Vel = s.Vel.Add(geom.V(-20, 0, 3)) // a kick with no knot: a contact segment
		}
		tl.Insert(s, at+40*ms)
		tl.Sample(at + 40*ms)
		tl.Sample(at + 57*ms)
		at += 33 * ms
	}
	for i := 0; i < 200; i++ {
		step()
	}
	if n := testing.AllocsPerRun(200, step); n != 0 {
		t.Fatalf("%v allocations per Insert+2×Sample", n)
	}
}

func TestReset(t *testing.T) {
	tl := newTL(t, Config{})
	tl.Insert(line(0), 10*ms)
	tl.Sample(20 * ms)
	tl.Reset()
	if f := tl.Sample(30 * ms); f.Valid {
		t.Fatalf("frame after Reset: %+v", f)
	}
	if st := tl.Stats(); st.Held != 0 || st.Inserted != 1 {
		t.Fatalf("stats after Reset %+v", st)
	}
}

func TestBallistic(t *testing.T) {
	b := Ballistic{Gravity: geom.V(0, -10, 0), Floor: 0.1, Restitution: 0.5, RollingDecel: 1}
	// Dropped from 5.1 m: lands at 1 s at 10 m/s, bounces up at 5 m/s.
	s := kinematic.State{Pos: geom.V(0, 5.1, 0), Vel: geom.V(2, 0, 0), Rot: geom.Identity}
	e := b.Extrapolate(s, 1200*ms)
	if want := geom.V(2.4, 0.1+5*0.2-5*0.04, 0); e.Pos.Dist(want) > 1e-9 || math.Abs(e.Vel.Y-3) > 1e-9 {
		t.Fatalf("after the bounce: %v %v, want %v vy=3", e.Pos, e.Vel, want)
	}
	// Rolling on the floor at 3 m/s slows at 1 m/s² and stops after 3 s.
	r := kinematic.State{Pos: geom.V(0, 0.1, 0), Vel: geom.V(0, 0, 3), Rot: geom.Identity}
	if e := b.Extrapolate(r, 5*time.Second); e.Pos.Dist(geom.V(0, 0.1, 4.5)) > 1e-9 || e.Vel != (geom.Vec3{}) {
		t.Fatalf("rolled to %v at %v", e.Pos, e.Vel)
	}
	// Backward, then forward again, returns to the start in the air.
	a := kinematic.State{Pos: geom.V(0, 3, 0), Vel: geom.V(1, 2, 0), Rot: geom.Identity}
	back := b.Extrapolate(a, -200*ms)
	if fwd := b.Extrapolate(back, 200*ms); fwd.Pos.Dist(a.Pos) > 1e-9 || fwd.Vel.Dist(a.Vel) > 1e-9 {
		t.Fatalf("back and forth: %v %v", fwd.Pos, fwd.Vel)
	}
	// No floor: a plain parabola.
	b.Floor = math.Inf(-1)
	if e := b.Extrapolate(s, time.Second); e.Pos.Dist(geom.V(2, 0.1, 0)) > 1e-9 {
		t.Fatalf("no floor: %v", e.Pos)
	}
}

// Whatever the order, duplication and timing of arrivals, the render time
// never goes back, the delay stays within its bounds once settled, the
// buffer stays within capacity and the output is finite.
func TestPropertyArbitraryArrivals(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tl, _ := New(Config{Capacity: 8, MaxDelay: 300 * ms})
		n := rapid.IntRange(1, 60).Draw(rt, "n")
		now := time.Duration(0)
		var prev Frame
		for i := 0; i < n; i++ {
			at := time.Duration(rapid.IntRange(0, 2000).Draw(rt, "at")) * ms
			s := arc(at)
			s.Cut = rapid.IntRange(0, 10).Draw(rt, "cut") == 0
			s.Knot = rapid.IntRange(0, 10).Draw(rt, "knot") == 0
			tl.Insert(s, now)
			now += time.Duration(rapid.IntRange(0, 50).Draw(rt, "dt")) * ms
			f := tl.Sample(now)
			if !f.Pos.IsFinite() || !f.Vel.IsFinite() || math.IsNaN(f.Rot.W) {
				rt.Fatalf("non-finite frame %+v", f)
			}
			if prev.Valid && f.Time < prev.Time {
				rt.Fatalf("render time went back")
			}
			if tl.Stats().Held > 8 {
				rt.Fatalf("over capacity")
			}
			prev = f
		}
	})
}
