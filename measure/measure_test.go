package measure

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

const tick = time.Second / 60

var g = geom.V(0, -9.81, 0)

// ballistic returns the truth of a ball in free flight from p at v, sampled
// at every tick for n ticks.
func ballistic(p, v geom.Vec3, n int) *Truth {
	tr := &Truth{G: g}
	for k := range n {
		dt := (time.Duration(k) * tick).Seconds()
		vel := v.AddScaled(g, dt)
		tr.Add(Sample{T: time.Duration(k) * tick, Pos: Flight(p, v, g, dt), Vel: vel, VelIn: vel})
	}
	return tr
}

func TestTruthAt(t *testing.T) {
	p0, v0 := geom.V(0, 1, 0), geom.V(8, 6, -2)
	flightAt := func(t time.Duration) geom.Vec3 { return Flight(p0, v0, g, t.Seconds()) }

	// A bounce inside the step into tick 3, at 45 ms: the ball flies up to
	// it and leaves it on another flight that reaches tick 3.
	bounce := ballistic(p0, v0, 3)
	contact := 45 * time.Millisecond
	hit := flightAt(contact)
	vOut := geom.V(8, 4, -2)
	t3 := 3 * tick
	after := func(t time.Duration) geom.Vec3 { return Flight(hit, vOut, g, (t - contact).Seconds()) }
	vIn := vOut.AddScaled(g, (t3 - contact).Seconds())
	bounce.Add(Sample{T: t3, Pos: after(t3), Vel: vIn, VelIn: vIn, Contact: true, ContactAt: contact})

	// A teleport at tick 2: until then the ball goes on at its velocity.
	cut := ballistic(p0, v0, 2)
	cut.Add(Sample{T: 2 * tick, Pos: geom.V(50, 0, 0), Cut: true})

	// Carried over the step into tick 1 by a frame moving 1 m along X and
	// turning a quarter turn, the ball half a metre ahead of it.
	carried := &Truth{}
	carried.Add(Sample{Pos: geom.V(0.5, 0, 0)})
	carried.Add(Sample{T: tick, Pos: geom.V(1, 0, -0.5), Attached: true, Frame: [2]Attachment{
		{Pos: geom.V(0, 0, 0), Off: geom.V(0.5, 0, 0)},
		{Pos: geom.V(1, 0, 0), Yaw: math.Pi / 2, Off: geom.V(0.5, 0, 0)},
	}})

	for _, c := range []struct {
		name string
		tr   *Truth
		at   time.Duration
		want geom.Vec3
	}{
		{"ballistic at a tick", ballistic(p0, v0, 10), 4 * tick, flightAt(4 * tick)},
		{"ballistic between ticks (Hermite is exact)", ballistic(p0, v0, 10), 4*tick + tick/3, flightAt(4*tick + tick/3)},
		{"before the first tick", ballistic(p0, v0, 10), -time.Second, p0},
		{"after the newest tick", ballistic(p0, v0, 10), time.Hour, flightAt(9 * tick)},
		{"bounce: before the contact", bounce, 40 * time.Millisecond, flightAt(40 * time.Millisecond)},
		{"bounce: after the contact", bounce, 48 * time.Millisecond, after(48 * time.Millisecond)},
		{"cut: just before", cut, 2*tick - time.Millisecond, flightAt(tick).AddScaled(v0.AddScaled(g, tick.Seconds()), (tick - time.Millisecond).Seconds())},
		{"cut: at it", cut, 2 * tick, geom.V(50, 0, 0)},
		{"carried: half way", carried, tick / 2, geom.V(0.5, 0, 0).Add(geom.AxisAngle(geom.V(0, 1, 0), math.Pi/4).Rotate(geom.V(0.5, 0, 0)))},
	} {
		if got := c.tr.At(c.at); got.Dist(c.want) > 1e-12 {
			t.Errorf("%s: At(%v) = %v, want %v (off by %.3g m)", c.name, c.at, got, c.want, got.Dist(c.want))
		}
	}
}

func TestTruthCutsAndJumps(t *testing.T) {
	tr := ballistic(geom.V(0, 1, 0), geom.V(1, 0, 0), 5)
	tr.Add(Sample{T: 5 * tick, Cut: true})
	tr.Add(Sample{T: 6 * tick, Jump: true})
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"cut in (4, 5]", tr.CutBetween(4*tick, 5*tick), true},
		{"cut in (5, 6]", tr.CutBetween(5*tick, 6*tick), false},
		{"jump in (5, 6]", tr.JumpBetween(5*tick, 6*tick), true},
		{"jump in (6, 7]", tr.JumpBetween(6*tick, 7*tick), false},
		{"cut within 500 ms of 5 ticks + 499 ms", tr.CutWithin(5*tick+499*time.Millisecond, TeleportSpan), true},
		{"cut within 500 ms of 5 ticks + 500 ms", tr.CutWithin(5*tick+500*time.Millisecond, TeleportSpan), false},
		{"cut within 500 ms before it", tr.CutWithin(5*tick-time.Millisecond, TeleportSpan), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// Forgetting keeps what a query at or after the time forgotten needs.
func TestTruthForget(t *testing.T) {
	full := ballistic(geom.V(0, 1, 0), geom.V(3, 4, 0), 120)
	full.Add(Sample{T: 120 * tick, Cut: true})
	pruned := ballistic(geom.V(0, 1, 0), geom.V(3, 4, 0), 120)
	pruned.Add(Sample{T: 120 * tick, Cut: true})
	from := 50*tick + tick/2
	pruned.Forget(from)
	if pruned.Len() != 71 || pruned.Oldest().T != 50*tick || pruned.Covers(from-tick) || !pruned.Covers(from) {
		t.Fatalf("after Forget(%v): %d samples from %v", from, pruned.Len(), pruned.Oldest().T)
	}
	for at := from; at <= 121*tick; at += time.Millisecond {
		if got, want := pruned.At(at), full.At(at); got != want {
			t.Fatalf("At(%v) = %v, want %v", at, got, want)
		}
		if got, want := pruned.CutWithin(at, TeleportSpan), full.CutWithin(at, TeleportSpan); got != want {
			t.Fatalf("CutWithin(%v) = %v, want %v", at, got, want)
		}
	}
}

func TestClosestApproach(t *testing.T) {
	// Two flights that meet at 5 ms into a 1/60 s step.
	h := tick.Seconds()
	meet := 0.005
	pa, va, vHit := geom.V(1, 2, 3), geom.V(10, 0, 0), geom.V(-4, 1, 0)
	hit := Flight(pa, va, g, meet)
	pb, vb := Flight(hit, vHit, g, h-meet), vHit.AddScaled(g, h-meet)
	// Leaving gravity's share out costs a few microseconds.
	if got := ClosestApproach(pa, va, pb, vb, h); math.Abs(got-meet) > 5e-6 {
		t.Errorf("contact at %.6f s, want %.6f s", got, meet)
	}
	if got := ClosestApproach(pa, va, pb, va, h); got != h/2 {
		t.Errorf("equal velocities: %.6f s, want half the step", got)
	}
}

// A Series' Stat is the Stat of the samples themselves: the same mean and
// rms, and the nearest-rank quantiles rounded as the Stat rounds them.
func TestSeriesQuantiles(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want Stat
	}{
		{"empty", nil, Stat{}},
		{"one", []float64{0.25}, Stat{Mean: 0.25, P50: 0.25, P99: 0.25, Max: 0.25, RMS: 0.25}},
		{"1..100", seq(1, 100), Stat{Mean: 50.5, P50: 50, P99: 99, Max: 100, RMS: 58.167861}},
		{"1..200: p99 by nearest rank", seq(1, 200), Stat{Mean: 100.5, P50: 100, P99: 198, Max: 200, RMS: 115.902977}},
		{"rounded to six decimals", []float64{0.12345649, 0.1234565}, Stat{Mean: 0.123456, P50: 0.123456, P99: 0.123457, Max: 0.123457, RMS: 0.123456}},
		{"negative", []float64{-3, -1, 2}, Stat{Mean: -0.666667, P50: -1, P99: 2, Max: 2, RMS: 2.160247}},
		{"beyond int32 micro-units", []float64{-5000, 1, 3000, 2}, Stat{Mean: -499.25, P50: 1, P99: 3000, Max: 3000, RMS: 2915.476162}},
	} {
		if got := Summarise(slices.Clone(c.xs)); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func seq(from, to int) []float64 {
	var xs []float64
	for i := to; i >= from; i-- { // out of order
		xs = append(xs, float64(i))
	}
	return xs
}

// The meter's figures are the definitions applied to each frame.
func TestClockMeter(t *testing.T) {
	frame := 16 * time.Millisecond
	run := func(err func(t time.Duration) time.Duration, ready func(t time.Duration) bool) ClockMetrics {
		k := ClockMeter{WarmUp: 2 * time.Second, Within: 2 * time.Millisecond}
		for at := time.Duration(0); at < 10*time.Second; at += frame {
			k.Add(Frame{T: at, Est: at + err(at), Ready: ready(at), Bound: 3 * time.Millisecond})
		}
		return k.Metrics(500*time.Millisecond, true)
	}
	always := func(time.Duration) bool { return true }

	// A clock 20 ms ahead until 4 s, then exact: one step backwards,
	// converged 3.5 s after its first reply, its rate exact after that.
	steps := run(func(t time.Duration) time.Duration {
		if t < 4*time.Second {
			return 20 * time.Millisecond
		}
		return 0
	}, always)
	if steps.ConvergeS != 3.5 || steps.Backsteps != 1 || steps.MaxRatePPM == nil || *steps.MaxRatePPM != 0 || steps.ErrMs.Max != 20 || *steps.BoundCoverage != 0.75 {
		t.Errorf("stepping clock: %+v", steps)
	}
	// A clock that runs 100 ppm fast: 1 ms off after 10 s, so converged
	// from the start, its rate 100 ppm.
	fast := run(func(t time.Duration) time.Duration { return t / 10000 }, always)
	if fast.ConvergeS != 0 || fast.MaxRatePPM == nil || math.Abs(*fast.MaxRatePPM-100) > 1 || fast.Backsteps != 0 {
		t.Errorf("100 ppm fast clock: %+v", fast)
	}
	// A clock that steps backwards by 30 ms every second: a backstep each
	// time after the warm-up, never converged, its rate measured from the
	// warm-up.
	back := run(func(t time.Duration) time.Duration { return -30 * time.Millisecond * (t / time.Second) }, always)
	if back.Backsteps != 7 || back.ConvergeS != -1 || back.MaxRatePPM == nil || *back.MaxRatePPM < 2000 {
		t.Errorf("clock stepping back: %+v", back)
	}
	// A clock exact only from 9.5 s: converged with less than a whole
	// second of frames after it, so no rate was measured.
	late := run(func(t time.Duration) time.Duration {
		if t < 9500*time.Millisecond {
			return 20 * time.Millisecond
		}
		return 0
	}, always)
	if late.MaxRatePPM != nil {
		t.Errorf("converged 0.5 s before the end: max rate %v ppm, want none", *late.MaxRatePPM)
	}
	// Frames without an estimate after the warm-up are counted and break
	// convergence.
	lost := run(func(time.Duration) time.Duration { return 0 }, func(t time.Duration) bool { return t < 9*time.Second })
	if lost.NotReady != 62 || lost.ConvergeS != -1 {
		t.Errorf("clock lost at 9 s: %+v", lost)
	}
}

// drawnTruly draws the truth exactly, delay behind the frame.
func drawnTruly(tr *Truth, at, delay time.Duration) Drawn {
	return Drawn{T: at, OK: true, Pos: tr.At(at - delay), RenderTime: at - delay}
}

func TestBallMeter(t *testing.T) {
	const n = 600 // ticks: 10 s
	frame := time.Second / 60
	delay := 100 * time.Millisecond
	build := func(jumpAt, cutAt int) *Truth {
		tr := &Truth{G: g}
		for k := range n {
			s := Sample{T: time.Duration(k) * tick, Pos: geom.V(float64(k)*0.1, 0, 0), Vel: geom.V(6, 0, 0), VelIn: geom.V(6, 0, 0)}
			if k >= jumpAt {
				s.Pos.Z = 1
				s.Jump = k == jumpAt
			}
			if k >= cutAt {
				s.Pos.Y = 40
				s.Cut = k == cutAt
			}
			tr.Add(s)
		}
		return tr
	}
	for _, c := range []struct {
		name     string
		tr       *Truth
		draw     func(tr *Truth, at time.Duration) Drawn
		blackout Spans
		check    func(BallMetrics) bool
	}{
		{"true drawing", build(n, n), func(tr *Truth, at time.Duration) Drawn { return drawnTruly(tr, at, delay) },
			nil, func(m BallMetrics) bool {
				return m.Pops == 0 && m.FidelityM.Max == 0 && m.DelayMs.Mean == 100 && m.PresentM.Mean == 0.6 && m.Frames == 479
			}},
		{"a 6 cm jump drawn is a pop", build(n, n), func(tr *Truth, at time.Duration) Drawn {
			d := drawnTruly(tr, at, delay)
			if at >= 5*time.Second {
				d.Pos.Y += 0.06
			}
			return d
		}, nil, func(m BallMetrics) bool { return m.Pops == 1 && m.FidelityM.Max == 0.06 }},
		{"a 4 cm jump drawn is not", build(n, n), func(tr *Truth, at time.Duration) Drawn {
			d := drawnTruly(tr, at, delay)
			if at >= 5*time.Second {
				d.Pos.Y += 0.04
			}
			return d
		}, nil, func(m BallMetrics) bool { return m.Pops == 0 }},
		{"a teleport drawn is not a pop", build(n, 300), func(tr *Truth, at time.Duration) Drawn { return drawnTruly(tr, at, delay) },
			nil, func(m BallMetrics) bool { return m.Pops == 0 && m.TeleportFrames == 31 && m.PresentM.Max < 1 }},
		{"a jump the server made is not a pop", build(300, n), func(tr *Truth, at time.Duration) Drawn { return drawnTruly(tr, at, delay) },
			nil, func(m BallMetrics) bool { return m.Pops == 0 && m.TeleportFrames == 0 }},
		{"frozen in a blackout", build(n, n), func(tr *Truth, at time.Duration) Drawn {
			d := drawnTruly(tr, at, delay)
			if at >= 5*time.Second && at < 6*time.Second {
				d.Pos, d.RenderTime, d.Frozen = tr.At(5*time.Second-delay), 5*time.Second-delay, true
			}
			return d
		}, Spans{{5 * time.Second, 6 * time.Second}}, func(m BallMetrics) bool {
			return m.Pops == 0 && m.FrozenFrames == 0 && m.BlackoutFrames == 66 && m.FidelityM.Max == 0
		}},
	} {
		b := BallMeter{WarmUp: 2 * time.Second, Blackouts: c.blackout}
		waiting := 0
		live := &Truth{G: c.tr.G}
		all := c.tr.Samples()
		for k := range all {
			live.Add(all[k])
			at := time.Duration(k) * frame
			b.Add(live, c.draw(c.tr, at))
			waiting = max(waiting, b.Pending())
		}
		if m := b.Metrics(live); !c.check(m) || waiting > 1 {
			t.Errorf("%s: %+v (%d frames waited at most)", c.name, m, waiting)
		}
	}
}

// naiveStat is the definition: the samples sorted, nearest-rank quantiles,
// every figure rounded.
func naiveStat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) float64 { return s[max(0, min(int(math.Ceil(p*float64(len(s))))-1, len(s)-1))] }
	n := float64(len(s))
	return Stat{Round(sum / n), Round(q(0.5)), Round(q(0.99)), Round(s[len(s)-1]), Round(math.Sqrt(sq / n))}
}

// However many samples, buffered, compressed and merged, a Series' Stat is
// the definition's, bit for bit.
func TestSeriesMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() float64{
		"errors in metres": func() float64 { return math.Abs(rng.NormFloat64()) * 0.05 },
		"delays in ms":     func() float64 { return 80 + rng.ExpFloat64()*20 },
		"signed, some huge": func() float64 {
			if rng.IntN(100) == 0 {
				return (rng.Float64() - 0.5) * 1e5
			}
			return rng.NormFloat64()
		},
		"repeated values": func() float64 { return float64(rng.IntN(5)) },
	}
	for name, gen := range gens {
		for _, n := range []int{1, 2, seriesChunk - 1, seriesChunk, seriesChunk + 1, 5 * seriesChunk, 70001} {
			var s Series
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = gen()
				s.Add(xs[i])
			}
			if got, want := s.Stat(), naiveStat(xs); got != want {
				t.Errorf("%s, %d samples: %+v, want %+v", name, n, got, want)
			}
			s.Add(1) // a series goes on after a Stat
			if got, want := s.Stat(), naiveStat(append(xs, 1)); got != want {
				t.Errorf("%s, %d samples and one more: %+v, want %+v", name, n, got, want)
			}
		}
	}
}

// Series merged summarise the samples of both, bit for bit, whatever their
// sizes, and the series merged in is left as it was.
func TestSeriesMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gen := func() float64 {
		if rng.IntN(50) == 0 {
			return rng.NormFloat64() * 1e5
		}
		return math.Abs(rng.NormFloat64()) * 0.05
	}
	sizes := []int{0, 1, seriesChunk - 1, seriesChunk + 1, 3*seriesChunk + 7}
	for _, na := range sizes {
		for _, nb := range sizes {
			var a, b Series
			var xs, ys []float64
			for range na {
				x := gen()
				a.Add(x)
				xs = append(xs, x)
			}
			for range nb {
				y := gen()
				b.Add(y)
				ys = append(ys, y)
			}
			a.Merge(&b)
			if got, want := a.Stat(), naiveStat(append(slices.Clone(xs), ys...)); got != want || a.Len() != na+nb {
				t.Errorf("%d and %d samples: %+v (%d), want %+v", na, nb, got, a.Len(), want)
			}
			if got, want := b.Stat(), naiveStat(ys); got != want {
				t.Errorf("%d and %d samples: the series merged in became %+v, want %+v", na, nb, got, want)
			}
		}
	}
}

// Meters merged report the frames of both: counts summed, statistics over
// every frame.
func TestBallMeterMerge(t *testing.T) {
	tr := &Truth{G: g}
	for k := range 600 {
		tr.Add(Sample{T: time.Duration(k) * tick, Pos: geom.V(float64(k)*0.1, 0, 0), Vel: geom.V(6, 0, 0), VelIn: geom.V(6, 0, 0)})
	}
	meter := func(lag time.Duration, jumpAt time.Duration) (BallMeter, BallMetrics) {
		b := BallMeter{WarmUp: 2 * time.Second}
		for at := time.Duration(0); at < 10*time.Second; at += time.Second / 60 {
			d := drawnTruly(tr, at, lag)
			if at >= jumpAt {
				d.Pos.Y += 0.1
			}
			b.Add(tr, d)
		}
		return b, b.Metrics(tr)
	}
	a, ma := meter(100*time.Millisecond, 5*time.Second)
	b, mb := meter(50*time.Millisecond, time.Hour)
	a.Merge(&b)
	m := a.Metrics(nil)
	if m.Frames != ma.Frames+mb.Frames || m.Pops != 1 || m.DelayMs.Mean != 75 || m.FidelityM.Max != 0.1 ||
		m.PresentM.Max != ma.PresentM.Max || m.PresentM.P50 != mb.PresentM.Max {
		t.Errorf("merged %+v of %+v and %+v", m, ma, mb)
	}
}

// A long series of small errors costs about two bytes a sample.
func TestSeriesCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s Series
	const n = 1 << 20
	for range n {
		s.Add(math.Abs(rng.NormFloat64()) * 0.3)
	}
	bytes := len(s.buf) * 4
	for _, r := range s.runs {
		bytes += len(r.b)
	}
	per := float64(bytes) / n
	t.Logf("%.2f bytes a sample", per)
	if per > 2.5 {
		t.Errorf("%.2f bytes a sample", per)
	}
}

// walker is one character walking along X at 2 m/s, teleported to X = 50
// at teleport (if not zero).
type walker struct{ teleport time.Duration }

func (w walker) Position(_ int, t time.Duration) (geom.Vec3, bool) {
	if w.teleport > 0 && t >= w.teleport {
		return geom.V(50, 0, 0), true
	}
	return geom.V(2*t.Seconds(), 0, 0), true
}

func (w walker) Teleported(_ int, t0, t1, span time.Duration) bool {
	return w.teleport > 0 && (w.teleport > t0 && w.teleport <= t1 || w.teleport <= t1 && t1-w.teleport < span)
}

func TestOthersMeter(t *testing.T) {
	frame := time.Second / 60
	delay := 100 * time.Millisecond
	for _, c := range []struct {
		name        string
		truth       walker
		shift       func(at time.Duration) float64 // metres off upwards
		pops, count int
	}{
		{"drawn truly", walker{}, func(time.Duration) float64 { return 0 }, 0, 480},
		{"a 6 cm jump", walker{}, func(at time.Duration) float64 {
			if at >= 5*time.Second {
				return 0.06
			}
			return 0
		}, 1, 480},
		{"a teleport drawn", walker{teleport: 5 * time.Second}, func(time.Duration) float64 { return 0 }, 0, 450},
	} {
		o := OthersMeter{WarmUp: 2 * time.Second}
		for k := 1; k <= 600; k++ {
			at := time.Duration(k) * frame
			rt := at - delay
			p, _ := c.truth.Position(0, rt)
			p.Y += c.shift(at) // off the ground: no present error, but motion
			o.Add(OtherDrawn{Frame: k, T: at, Slot: 0, Pos: p, RenderTime: rt})
			o.Measure(c.truth, at)
		}
		m := o.Metrics()
		if m.Pops != c.pops || m.Samples != c.count || m.PresentM.Mean != 0.2 && c.truth.teleport == 0 {
			t.Errorf("%s: %+v, want %d pops in %d samples", c.name, m, c.pops, c.count)
		}
	}
}

// A predicted character walking along X at 3 m/s: the server applies each
// move a round trip after the client made it, and the client draws each
// frame at its estimate of server time.
func TestOwnMeter(t *testing.T) {
	frame := time.Second / 60
	lag := 6 // frames from a move to the server applying it
	for _, c := range []struct {
		name      string
		off       func(k int) float64 // drawn this far off, metres, upwards
		teleport  int                 // frame the server teleports the character at (0: none)
		lose      int                 // a move the server never applies (0: none)
		pops      int
		corrected int
	}{
		{"drawn truly", func(int) float64 { return 0 }, 0, 0, 0, 0},
		{"a 6 cm correction drawn at once", func(k int) float64 {
			if k >= 300 {
				return 0.06
			}
			return 0
		}, 0, 0, 1, 1},
		{"a teleport", func(int) float64 { return 0 }, 300, 0, 0, 0},
		{"a move lost", func(int) float64 { return 0 }, 0, 200, 0, 0},
	} {
		o := OwnMeter{WarmUp: 2 * time.Second, Predicted: true}
		x := func(k int) geom.Vec3 {
			if c.teleport > 0 && k >= c.teleport {
				return geom.V(50+3*(time.Duration(k)*frame).Seconds(), 0, 0)
			}
			return geom.V(3*(time.Duration(k)*frame).Seconds(), 0, 0)
		}
		for k := 1; k <= 600; k++ {
			at := time.Duration(k) * frame
			if m := k - lag; m > 0 && m != c.lose {
				o.Moved(time.Duration(m)*frame, x(m))
				o.Applied(m)
			}
			if c.teleport > 0 && k-lag == c.teleport {
				o.Teleported(x(k - lag))
			}
			if k == 300 && c.corrected > 0 {
				o.Corrected(at, 0.06)
			}
			p := x(k)
			p.Y += c.off(k)
			o.Frame(OwnDrawn{T: at, Est: at, OK: true, Pos: p, RenderTime: at, Predicted: true, Cut: c.teleport > 0 && k == c.teleport})
			o.Made(k, at)
		}
		m := o.Metrics(10 * time.Second)
		lost := 0
		if c.lose > 0 {
			lost = 1
		}
		if m.Pops != c.pops || m.Corrections != c.corrected || m.InputsLost != lost || m.InputDelayFrames.Max != 0 || m.Frames < 400 {
			t.Errorf("%s: %+v", c.name, m)
		}
	}
}

// Frames drawn before the truth has a sample wait; with no truth at all they
// are not measured.
func TestBallMeterWithoutTruth(t *testing.T) {
	var tr Truth
	b := BallMeter{}
	b.Add(&tr, Drawn{T: time.Second, OK: true, RenderTime: time.Second})
	if b.Pending() != 1 {
		t.Fatalf("%d frames waiting, want 1", b.Pending())
	}
	if m := b.Metrics(&tr); m.Frames != 0 {
		t.Errorf("%+v", m)
	}
}

// A Cast recorded from the walker's ticks, some of them missing and one a
// teleport, gives the walker's positions and teleports back.
func TestCast(t *testing.T) {
	w := walker{teleport: 300 * tick}
	var c Cast
	for k := 0; k <= 600; k++ {
		if k%7 == 3 {
			continue // a live server skips ticks now and then
		}
		at := time.Duration(k) * tick
		p, _ := w.Position(0, at)
		gen := uint8(0)
		if at >= w.teleport {
			gen = 1
		}
		c.Tick(at, []Pose{{Pos: p, Gen: gen, In: true}, {}})
	}
	for _, at := range []time.Duration{0, tick / 2, 3 * tick, time.Second + tick/3, w.teleport - tick, w.teleport, 9 * time.Second} {
		want, _ := w.Position(0, at)
		if got, ok := c.Position(0, at); !ok || got.Dist(want) > 1e-9 {
			t.Errorf("at %v: %v, %v, want %v", at, got, ok, want)
		}
		if _, ok := c.Position(1, at); ok {
			t.Errorf("at %v: slot 1 in play", at)
		}
		if got, want := c.Teleported(0, at-tick, at, TeleportSpan), w.Teleported(0, at-tick, at, TeleportSpan); got != want {
			t.Errorf("teleported up to %v: %v, want %v", at, got, want)
		}
	}
	// Before a teleport the character stands where it was at the tick before.
	if a, _ := c.Position(0, w.teleport-tick/2); a != geom.V(2*(w.teleport-tick).Seconds(), 0, 0) {
		t.Errorf("half a tick before the teleport: %v", a)
	}
	c.Forget(8 * time.Second)
	if got, _ := c.Position(0, 9*time.Second); got.X != 50 {
		t.Errorf("after Forget: %v", got)
	}
}

// Three kick inputs of a client whose drawn ball rolls at 1 m/s along X: one
// in the warm-up, one the server applies and the ball shows three frames
// later, one the server never applies. The method predicted two kicks: one
// the server made 50 ms later, one it never made.
func TestKickMeter(t *testing.T) {
	frame := time.Second / 60
	k := KickMeter{WarmUp: time.Second, Predicts: true}
	var ball Truth
	turn := 0 // the frame the drawn ball turns at
	for i := 0; i < 240; i++ {
		at := time.Duration(i) * frame
		pos := geom.V(at.Seconds(), 0, 0)
		ball.Add(Sample{T: at, Pos: pos, Vel: geom.V(1, 0, 0), VelIn: geom.V(1, 0, 0)})
		if turn > 0 && i >= turn {
			pos.Z = float64(i-turn+1) * 0.05
		}
		k.Frame(Drawn{T: at, OK: true, Pos: pos})
		switch i {
		case 30, 120, 180, 200, 220, 222:
			k.Kicked(at)
		}
		switch i {
		case 30:
			k.Applied(at+50*time.Millisecond, 5)
		case 120:
			k.Applied(at+50*time.Millisecond, 5)
			turn = i + 3
		case 200:
			k.Applied(at+50*time.Millisecond, 1) // too small a change to be seen: not judged
		case 222:
			k.Applied(at+10*time.Millisecond, 5) // the input at 222's, not 220's
		}
	}
	var bm BallMetrics
	predicted := []PredictedKick{
		{At: 2 * time.Second, Until: 2*time.Second + 150*time.Millisecond, From: geom.V(2.1, 0, 0), Confirmed: true, Correction: 0.2, Change: 5},
		{At: 3 * time.Second, Until: 3*time.Second + 150*time.Millisecond, Confirmed: true, Correction: 0.4},
	}
	k.Metrics(&bm, predicted, &ball)
	if bm.Kicks == nil || *bm.Kicks != 3 || bm.KickVisibleFrames == nil || bm.KickVisibleFrames.Max != 2 || bm.KickVisibleFrames.Mean != 2 {
		t.Fatalf("kicks %v, visible %+v; want 3 kicks, one judged, shown after 2 frames", *bm.Kicks, bm.KickVisibleFrames)
	}
	if *bm.KicksPredicted != 2 || *bm.KicksRefuted != 1 || bm.KickRefutedM.Max != 0.4 ||
		bm.KickCorrectionM.Max != 0.2 || math.Abs(bm.KickLagMs.Max-50) > 1e-3 || math.Abs(bm.KickOriginM.Max-0.1) > 1e-6 {
		t.Errorf("predicted %d, refuted %d %+v, correction %+v, lag %+v, origin %+v", *bm.KicksPredicted, *bm.KicksRefuted,
			bm.KickRefutedM, bm.KickCorrectionM, bm.KickLagMs, bm.KickOriginM)
	}
}

// The states of a ball in free flight, received out of order, one twice and
// with 300 ms of them lost: the hindsight curve is the flight where the
// states join, and unknown across the gap and outside the states; the first
// state after the gap came in a snapshot of 680 ms, so the gap is unknown
// until then.
func TestHindsight(t *testing.T) {
	p, v := geom.V(0, 1, 0), geom.V(4, 6, 0)
	var states []Received
	for k := 30; k >= 0; k-- { // newest first
		at := time.Duration(k) * time.Second / 30
		if at > 300*time.Millisecond && at < 610*time.Millisecond {
			continue
		}
		dt := at.Seconds()
		states = append(states, Received{T: at, Pos: Flight(p, v, g, dt), Vel: v.AddScaled(g, dt)})
		if k == 19 {
			states[len(states)-1].Sent = 680 * time.Millisecond
		}
	}
	states = append(states, states[3])
	tr, unknown := Hindsight(g, states)
	for _, at := range []time.Duration{50 * time.Millisecond, 290 * time.Millisecond, 700 * time.Millisecond, 990 * time.Millisecond} {
		if want := Flight(p, v, g, at.Seconds()); tr.At(at).Dist(want) > 1e-9 || unknown.In(at) {
			t.Errorf("at %v: %v, unknown %v; want %v", at, tr.At(at), unknown.In(at), want)
		}
	}
	for _, at := range []time.Duration{-time.Millisecond, 450 * time.Millisecond, 650 * time.Millisecond, 1001 * time.Millisecond} {
		if !unknown.In(at) {
			t.Errorf("at %v: known, want unknown (spans %v)", at, unknown)
		}
	}
	if tr.Len() != 22 {
		t.Errorf("%d samples, want 22 (one per time)", tr.Len())
	}
}

// Between two states held by one carrier the hindsight curve is in the
// carrier's frame (a ball carried while the carrier turns a quarter turn
// about its feet: on the arc, not the cubic's chord); between states of two
// carriers, or a held one and a free one, it is the cubic.
func TestHindsightHeld(t *testing.T) {
	off := geom.V(1, 0, 0)
	held := func(at time.Duration, yaw float64, carrier uint32) Received {
		pos := geom.AxisAngle(geom.V(0, 1, 0), yaw).Rotate(off)
		return Received{T: at, Pos: pos, Held: true, Carrier: carrier, Holder: Attachment{Yaw: yaw, Off: off}}
	}
	tr, _ := Hindsight(g, []Received{held(0, 0, 1), held(100*time.Millisecond, math.Pi/2, 1), held(200*time.Millisecond, math.Pi, 2),
		{T: 300 * time.Millisecond, Pos: geom.V(-1, 0, 0)}})
	if got, want := tr.At(50*time.Millisecond), geom.AxisAngle(geom.V(0, 1, 0), math.Pi/4).Rotate(off); got.Dist(want) > 1e-9 {
		t.Errorf("held by one carrier: %v, want %v on the arc", got, want)
	}
	if s := tr.Samples(); !s[1].Attached || s[2].Attached || s[3].Attached {
		t.Errorf("steps attached %v %v %v, want only the first of one carrier", s[1].Attached, s[2].Attached, s[3].Attached)
	}
}
