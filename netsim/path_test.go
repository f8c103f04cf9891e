package netsim

import (
	"math"
	"slices"
	"testing"
	"time"
)

// near reports |got-want| <= tol*|want|.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// jitterSamples returns n one-way delays in ms over a path with no base latency.
func jitterSamples(j Jitter, n int, seed uint64) []float64 {
	p := NewPath(Direction{Jitter: j}, nil, seed)
	out := make([]float64, 0, n)
	var arr []time.Duration
	for range n {
		arr = p.Send(0, 100, arr[:0])
		out = append(out, float64(arr[0])/1e6)
	}
	return out
}

func meanP99(x []float64) (mean, p99 float64) {
	for _, v := range x {
		mean += v
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return mean / float64(len(x)), s[len(s)*99/100]
}

func TestJitterDistributions(t *testing.T) {
	const n = 200_000
	for _, tc := range []struct {
		j         Jitter
		mean, p99 float64
		tol       float64 // relative; about three standard errors of the sample's mean and p99
	}{
		{Jitter{Dist: "uniform", MaxMs: 20}, 10, 19.8, 0.01},
		{Jitter{Dist: "exponential", MeanMs: 5}, 5, 5 * math.Log(100), 0.02},
		{Jitter{Dist: "exponential", MeanMs: 0.2}, 0.2, 0.2 * math.Log(100), 0.02},
		{Jitter{Dist: "lognormal", MeanMs: 10, P99Ms: 60}, 10, 60, 0.03},
		{Jitter{Dist: "lognormal", MeanMs: 2, P99Ms: 25}, 2, 25, 0.05},
		{Jitter{Dist: "pareto", MeanMs: 10, P99Ms: 60}, 10, 60, 0.05}, // infinite variance: slow mean
		{Jitter{Dist: "pareto", MeanMs: 5, P99Ms: 12}, 5, 12, 0.03},
	} {
		// The solved parameters give exactly the configured figures.
		s := newSampler(tc.j)
		if q := s.ms(0.99); !near(q, tc.p99, 1e-9) {
			t.Errorf("%+v: quantile 0.99 is %v", tc.j, q)
		}
		exact := map[distKind]float64{
			distLognormal: math.Exp(s.a + s.b*s.b/2),
			distPareto:    s.a / (1 - s.b), // scale * shape / (shape - 1)
		}
		if m, ok := exact[s.kind]; ok && !near(m, tc.mean, 1e-9) {
			t.Errorf("%+v: parameters give mean %v", tc.j, m)
		}
		// And so do samples.
		mean, p99 := meanP99(jitterSamples(tc.j, n, 42))
		if !near(mean, tc.mean, tc.tol) || !near(p99, tc.p99, tc.tol) {
			t.Errorf("%+v: mean %.4g p99 %.4g, want %.4g and %.4g", tc.j, mean, p99, tc.mean, tc.p99)
		}
	}
	if s := jitterSamples(Jitter{}, 100, 1); slices.Max(s) != 0 {
		t.Errorf("no jitter gave delays up to %v ms", slices.Max(s))
	}
}

// fates sends n datagrams 10 ms apart and reports, per datagram, how many copies arrived.
func fates(d Direction, blackouts []Blackout, n int, seed uint64) (copies []int, p *Path) {
	p = NewPath(d, blackouts, seed)
	var arr []time.Duration
	for i := range n {
		arr = p.Send(time.Duration(i)*10*time.Millisecond, 100, arr[:0])
		copies = append(copies, len(arr))
	}
	return copies, p
}

func TestLoss(t *testing.T) {
	const n = 400_000
	for _, loss := range []Loss{{Rate: 0.1}, {Rate: 0.03, MeanBurst: 3}, {Rate: 0.2, MeanBurst: 10}, {Rate: 0.05, MeanBurst: 1}} {
		copies, p := fates(Direction{Loss: loss}, nil, n, 7)
		lost, bursts := 0, 0
		for i, c := range copies {
			if c == 0 {
				lost++
				if i == 0 || copies[i-1] != 0 {
					bursts++
				}
			}
		}
		rate, meanBurst := float64(lost)/n, float64(lost)/float64(bursts)
		wantBurst := loss.MeanBurst
		if loss.MeanBurst <= 1 {
			wantBurst = 1 / (1 - loss.Rate) // runs of independent losses
		}
		if !near(rate, loss.Rate, 0.04) || !near(meanBurst, wantBurst, 0.04) {
			t.Errorf("%+v: rate %.4f, mean burst %.3f; want %.4f and %.3f", loss, rate, meanBurst, loss.Rate, wantBurst)
		}
		if s := p.Stats(); s.Lost != int64(lost) || s.Sent != n || s.Delivered != int64(n-lost) {
			t.Errorf("%+v: stats %+v, counted %d lost", loss, s, lost)
		}
	}
}

// Bursts in time lose the same share of datagrams, in runs of the same
// length in time, whether a protocol sends 60 or 30 datagrams a second (a
// burst counted in datagrams lasts twice as long at 30), and a datagram's
// fate does not depend on what else is sent.
func TestBurstsInTime(t *testing.T) {
	const rate, burstMs, secs = 0.03, 60.0, 40_000
	loss := Loss{Rate: rate, BurstMs: burstMs}
	lostAt := map[time.Duration]bool{}
	for _, hz := range []int{60, 30} {
		p := NewPath(Direction{Loss: loss}, nil, 7)
		interval := time.Second / time.Duration(hz)
		var arr []time.Duration
		lost, bursts, spanned := 0, 0, time.Duration(0)
		var from time.Duration = -1
		for i := range secs * hz {
			now := time.Duration(i) * interval
			if arr = p.Send(now, 100, arr[:0]); len(arr) == 0 {
				lost++
				if from < 0 {
					from = now
					bursts++
				}
			} else if from >= 0 {
				spanned += now - from // the burst's span, to the nearest send
				from = -1
			}
			if prev, ok := lostAt[now]; ok && prev != (len(arr) == 0) {
				t.Fatalf("%d Hz: the datagram sent at %v was lost %v at 60 Hz, %v at 30 Hz", hz, now, prev, !prev)
			}
			lostAt[now] = len(arr) == 0
		}
		share := float64(lost) / float64(secs*hz)
		mean := spanned.Seconds() * 1e3 / float64(bursts)
		// A burst shorter than the send interval is often missed, and the
		// span is measured to the nearest send: a few per cent at 60 Hz,
		// more at 30.
		if !near(share, rate, 0.05) || !near(mean, burstMs+float64(interval.Milliseconds())/2, 0.08) {
			t.Errorf("%d Hz: %.4f of datagrams lost in bursts of %.1f ms on average; want %.4f, about %.0f ms", hz, share, mean, rate, burstMs)
		}
	}
	if err := (LinkConfig{Up: Direction{Loss: Loss{Rate: rate, MeanBurst: 3, BurstMs: 50}}}).Validate(); err == nil {
		t.Error("mean_burst and burst_ms together: no error")
	}
}

func TestDuplication(t *testing.T) {
	const n = 200_000
	copies, p := fates(Direction{Dup: 0.01, Jitter: Jitter{Dist: "exponential", MeanMs: 5}, Loss: Loss{Rate: 0.1}}, nil, n, 3)
	dups := 0
	for _, c := range copies {
		if c == 2 {
			dups++
		}
	}
	// A datagram is duplicated if it survives loss and draws a duplicate.
	if want := 0.01 * 0.9; !near(float64(dups)/n, want, 0.05) {
		t.Errorf("duplicate rate %.5f, want %.5f", float64(dups)/n, want)
	}
	s := p.Stats()
	if s.Duplicated != int64(dups) || s.Delivered != s.Sent-s.Lost+s.Duplicated || s.WireBytes != n*(100+HeaderBytes) {
		t.Errorf("stats %+v inconsistent (%d duplicates counted)", s, dups)
	}
	// Each copy draws its own jitter, and two copies are reported in order.
	p = NewPath(Direction{Dup: 1, Jitter: Jitter{Dist: "uniform", MaxMs: 10}}, nil, 3)
	differ := 0
	for i := range 1000 {
		arr := p.Send(time.Duration(i), 1, nil)
		if len(arr) != 2 || arr[0] > arr[1] {
			t.Fatalf("dup=1 gave %v", arr)
		}
		if arr[0] != arr[1] {
			differ++
		}
	}
	if differ < 990 {
		t.Errorf("only %d of 1000 duplicates had independent delays", differ)
	}
}

func TestReordering(t *testing.T) {
	// 60 Hz sends with jitter far above 16.7 ms must reorder; without jitter never.
	for _, tc := range []struct {
		j       Jitter
		reorder bool
	}{{Jitter{}, false}, {Jitter{Dist: "exponential", MeanMs: 20}, true}} {
		p := NewPath(Direction{LatencyMs: 30, Jitter: tc.j}, nil, 5)
		var last time.Duration
		inversions := 0
		for i := range 1000 {
			arr := p.Send(time.Duration(i)*time.Second/60, 100, nil)
			if arr[0] < last {
				inversions++
			}
			last = arr[0]
		}
		if (inversions > 0) != tc.reorder {
			t.Errorf("%+v: %d inversions", tc.j, inversions)
		}
	}
}

func TestBlackout(t *testing.T) {
	lossy, _ := Preset("lossy")
	lossy.Up.Loss = Loss{}
	p := NewPath(lossy.Up, lossy.Blackouts, 11)
	bStart, bEnd := 20*time.Second, 22*time.Second
	var arr []time.Duration
	delivered := 0
	for now := time.Duration(0); now < 30*time.Second; now += time.Millisecond {
		arr = p.Send(now, 50, arr[:0])
		for _, a := range arr {
			if now >= bStart && now < bEnd || a >= bStart && a < bEnd {
				t.Fatalf("datagram sent at %v arrived at %v, in the blackout", now, a)
			}
		}
		if len(arr) == 0 && (now < bStart-time.Second || now > bEnd) {
			t.Fatalf("datagram sent at %v lost outside the blackout with no loss configured", now)
		}
		delivered += len(arr)
	}
	if s := p.Stats(); s.Lost < 2000 || s.Lost > 2100 || int64(delivered) != s.Delivered {
		t.Errorf("stats %+v: want about 2000 lost to the blackout", s)
	}
}

func TestSpikes(t *testing.T) {
	const hours = 10
	sp := Spikes{EveryS: 30, ExtraMs: [2]float64{50, 200}, LenS: [2]float64{0.1, 0.5}}
	p := NewPath(Direction{Spikes: &sp}, nil, 13)
	step := 10 * time.Millisecond
	var starts int
	var inSpike time.Duration
	var prev, minAdd, maxAdd time.Duration = 0, time.Hour, 0
	for now := time.Duration(0); now < hours*time.Hour; now += step {
		add := p.spike(now)
		if add > 0 {
			inSpike += step
			minAdd, maxAdd = min(minAdd, add), max(maxAdd, add)
			if prev == 0 {
				starts++
			}
		}
		prev = add
	}
	if want := hours * 3600 / sp.EveryS; !near(float64(starts), want, 0.1) {
		t.Errorf("%d spikes in %d h, want about %.0f", starts, hours, want)
	}
	if meanLen := inSpike.Seconds() / float64(starts); !near(meanLen, 0.3, 0.1) {
		t.Errorf("mean spike length %.3f s, want about 0.3", meanLen)
	}
	if minAdd < 50*time.Millisecond || maxAdd > 200*time.Millisecond || maxAdd-minAdd < 100*time.Millisecond {
		t.Errorf("spike extras span %v..%v, want within 50..200 ms", minAdd, maxAdd)
	}

	// Through Send: the delay of datagrams is base latency or base + a spike.
	q := NewPath(Direction{LatencyMs: 75, Spikes: &sp}, nil, 13)
	spiked := 0
	for now := time.Duration(0); now < time.Hour; now += 50 * time.Millisecond {
		d := q.Send(now, 10, nil)[0] - now
		if d != 75*time.Millisecond {
			spiked++
			if d < 125*time.Millisecond || d > 275*time.Millisecond {
				t.Fatalf("delay %v at %v", d, now)
			}
		}
	}
	if spiked == 0 {
		t.Error("no spikes in an hour")
	}
}

func TestDeterminism(t *testing.T) {
	wan, _ := Preset("wan")
	wan.Up.Spikes = &Spikes{EveryS: 2, ExtraMs: [2]float64{10, 20}, LenS: [2]float64{0.1, 0.5}}
	run := func(seed uint64, size func(i int) int) ([]time.Duration, PathStats) {
		p := NewPath(wan.Up, []Blackout{{AtS: 3, LenS: 1}}, seed)
		var arr []time.Duration
		for i := range 2000 {
			arr = p.Send(time.Duration(i)*5*time.Millisecond, size(i), arr)
			arr = append(arr, -1) // separator: which datagram each arrival belongs to
		}
		return arr, p.Stats()
	}
	small := func(int) int { return 20 }
	varied := func(i int) int { return 20 + i%1200 }
	a, sa := run(1, small)
	b, sb := run(1, small)
	c, sc := run(1, varied)
	d, _ := run(2, small)
	sc.WireBytes = sa.WireBytes
	if !slices.Equal(a, b) || sa != sb {
		t.Error("same seed gave different results")
	}
	if !slices.Equal(a, c) || sa != sc {
		t.Error("payload size changed the fates")
	}
	if slices.Equal(a, d) {
		t.Error("different seeds gave identical results")
	}
	l := NewLink(LinkConfig{Up: wan.Up, Down: wan.Up}, 1)
	up, down := l.Up.Send(0, 1, nil), l.Down.Send(0, 1, nil)
	for i := 1; i < 100; i++ {
		up, down = l.Up.Send(time.Duration(i), 1, up), l.Down.Send(time.Duration(i), 1, down)
	}
	if slices.Equal(up, down) {
		t.Error("Up and Down are not seeded independently")
	}
}

func TestBandwidth(t *testing.T) {
	// 1000 kbps: a 1000-byte payload takes 1028*8 µs to serialise.
	tx := time.Duration(1028 * 8 * time.Microsecond)
	p := NewPath(Direction{LatencyMs: 10, BandwidthKbps: 1000}, nil, 1)
	var arr []time.Duration
	for range 100 {
		arr = p.Send(0, 1000, arr)
	}
	// Datagram k waits k*tx; waits over MaxQueueDelay are dropped.
	wantN := int(MaxQueueDelay/tx) + 1
	if len(arr) != wantN || p.Stats().QueueDrops != int64(100-wantN) || p.Stats().Lost != int64(100-wantN) {
		t.Fatalf("%d delivered, stats %+v; want %d", len(arr), p.Stats(), wantN)
	}
	for k, a := range arr {
		if want := time.Duration(k+1)*tx + 10*time.Millisecond; a != want {
			t.Fatalf("arrival %d at %v, want %v", k, a, want)
		}
	}
	// Offered at twice the capacity for 10 s, the path carries about its capacity.
	p = NewPath(Direction{BandwidthKbps: 1000}, nil, 1)
	for now := time.Duration(0); now < 10*time.Second; now += tx / 2 {
		p.Send(now, 1000, arr[:0])
	}
	s := p.Stats()
	if kbps := float64((s.Delivered)*1028*8) / 10 / 1e3; !near(kbps, 1000, 0.03) {
		t.Errorf("carried %.0f kbps of 1000 (stats %+v)", kbps, s)
	}
}

func TestSendDoesNotAllocate(t *testing.T) {
	wan, _ := Preset("mobile")
	wan.Up.Dup, wan.Up.BandwidthKbps = 0.5, 10_000
	p := NewPath(wan.Up, []Blackout{{AtS: 1, LenS: 1}}, 1)
	arr := make([]time.Duration, 0, 2)
	now := time.Duration(0)
	if a := testing.AllocsPerRun(1000, func() {
		now += time.Millisecond
		arr = p.Send(now, 100, arr[:0])
	}); a != 0 {
		t.Errorf("Send allocates %v times per call", a)
	}
}

func TestNewPathPanicsOnInvalid(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	NewPath(Direction{Loss: Loss{Rate: 2}}, nil, 1)
}

func TestClock(t *testing.T) {
	for _, c := range []Clock{{}, {OffsetS: 37, DriftPPM: 100}, {DriftPPM: -200}, {OffsetS: -5e5, DriftPPM: 9999.5}} {
		for _, tt := range []time.Duration{0, 1, 123456789, 17 * time.Minute, 3 * time.Hour, -time.Second} {
			if got := c.True(c.Local(tt)); got-tt > 1 || tt-got > 1 {
				t.Errorf("%+v: True(Local(%v)) = %v", c, tt, got)
			}
		}
		if got := c.Local(0); got != time.Duration(c.OffsetS*1e9) {
			t.Errorf("%+v: Local(0) = %v", c, got)
		}
		if got, want := c.Local(time.Hour)-c.Local(0), time.Duration(3600e9*(1+c.DriftPPM*1e-6)); got-want > 1 || want-got > 1 {
			t.Errorf("%+v: an hour of true time is %v local, want %v", c, got, want)
		}
	}
}

func BenchmarkPathSend(b *testing.B) {
	for _, name := range []string{"lan", "wan", "mobile"} {
		b.Run(name, func(b *testing.B) {
			c, _ := Preset(name)
			p := NewPath(c.Down, c.Blackouts, 1)
			arr := make([]time.Duration, 0, 2)
			b.ReportAllocs()
			var now time.Duration
			for b.Loop() {
				now += time.Millisecond
				arr = p.Send(now, 200, arr[:0])
			}
		})
	}
}

func TestStreamSharesSpikesNotFates(t *testing.T) {
	link, err := Preset("mobile")
	if err != nil {
		t.Fatal(err)
	}
	a := NewPath(link.Up, nil, 9)
	b := NewPath(link.Up, nil, 9)
	sa := a.Stream(1)
	// a also carries a second traffic class on its own stream; b does not.
	var fa, fb, other []time.Duration
	spikesSeen, mismatches := 0, 0
	for i := range 200000 {
		now := time.Duration(i) * 10 * time.Millisecond
		fa = a.Send(now, 30, fa[:0])
		fb = b.Send(now, 30, fb[:0])
		if i%3 == 0 {
			other = sa.Send(now, 10, other[:0])
			if len(other) != len(fa) || (len(fa) > 0 && other[0] != fa[0]) {
				mismatches++
			}
		}
		if len(fa) != len(fb) || (len(fa) > 0 && fa[0] != fb[0]) {
			t.Fatalf("send %d: fates differ because of another stream's traffic: %v vs %v", i, fa, fb)
		}
		if a.spike(now) > 0 {
			spikesSeen++
			if sa.spike(now) != a.spike(now) {
				t.Fatalf("stream sees a different spike at %v", now)
			}
		}
	}
	if spikesSeen == 0 || mismatches == 0 {
		t.Fatalf("spikes seen %d, fates differing between streams %d", spikesSeen, mismatches)
	}
}

// fate is what became of one datagram: its arrival times, 0 meaning no copy.
type fate [2]time.Duration

// sendAll sends a datagram at each of times (non-decreasing) and returns each
// one's fate, keyed by its send time and index among the sends at that time.
func sendAll(p *Path, times []time.Duration) map[[2]int64]fate {
	out := make(map[[2]int64]fate)
	var arr []time.Duration
	for i, at := range times {
		k := 0
		for j := i - 1; j >= 0 && times[j] == at; j-- {
			k++
		}
		arr = p.Send(at, 40, arr[:0])
		var f fate
		copy(f[:], arr)
		out[[2]int64{int64(at), int64(k)}] = f
	}
	return out
}

func TestExtraDatagramKeepsOtherFates(t *testing.T) {
	mobile, _ := Preset("mobile")
	wan, _ := Preset("wan")
	// Every 16.7 ms, with a second datagram at the same instant every tenth time.
	var base []time.Duration
	for i := range 3000 {
		at := time.Duration(i) * time.Second / 60
		base = append(base, at)
		if i%10 == 0 {
			base = append(base, at)
		}
	}
	for _, tc := range []struct {
		name   string
		d      Direction
		maxOff int // fates allowed to differ: a burst-loss chain re-coupling
	}{
		{"mobile", mobile.Up, 0},
		{"wan", wan.Up, 20},
	} {
		for _, insert := range []int{1, 700, 1401, 2500} {
			// One extra datagram: between two sends, or after the last at an instant.
			at := base[insert] + 3*time.Millisecond
			if insert%2 == 1 {
				at = base[insert-1]
			}
			more := slices.Clone(base)
			more = slices.Insert(more, insert, at)
			a := sendAll(NewPath(tc.d, nil, 5), base)
			b := sendAll(NewPath(tc.d, nil, 5), more)
			differ := 0
			for k, f := range a {
				if b[k] != f {
					differ++
				}
			}
			if differ > tc.maxOff {
				t.Errorf("%s, extra datagram at %v: %d of %d other datagrams changed fate, want at most %d",
					tc.name, at, differ, len(a), tc.maxOff)
			}
		}
	}
}
