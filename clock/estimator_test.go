package clock

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestProfiles drives the estimator through the lab's link profiles (and a
// few harder ones) in virtual time and holds it to the lab's figures, with
// margin on the error.
func TestProfiles(t *testing.T) {
	const margin = 0.85
	for _, p := range profiles() {
		t.Run(p.name, func(t *testing.T) {
			for _, seed := range []uint64{1, 2, 3} {
				r := simulate(p, seed, Config{})
				if r.p99 > time.Duration(margin*float64(p.p99Limit)) {
					t.Errorf("seed %d: error p99 %v, want <= %.2f × %v", seed, r.p99, margin, p.p99Limit)
				}
				if r.backsteps != 0 {
					t.Errorf("seed %d: %d backsteps", seed, r.backsteps)
				}
				if r.maxRatePPM > 1000 {
					t.Errorf("seed %d: max rate %.0f ppm over 1 s, want <= 1000", seed, r.maxRatePPM)
				}
				if r.converge < 0 || r.converge > p.convLimit {
					t.Errorf("seed %d: converged %v after the first reply, want <= %v", seed, r.converge, p.convLimit)
				}
				if r.coverage != 1 {
					t.Errorf("seed %d: bound covers %.4f of frames (%d not), want all", seed, r.coverage, r.uncovered)
				}
				if r.notReady != 0 {
					t.Errorf("seed %d: %d frames not ready after the warm-up", seed, r.notReady)
				}
				if r.upKbps > 1.5 || r.downKbps > 1.5 {
					t.Errorf("seed %d: traffic %.2f up, %.2f down kbps, want <= 1.5", seed, r.upKbps, r.downKbps)
				}
			}
		})
	}
}

// TestServerRestart restarts the server's clock (new epoch, new origin) in
// the middle of a run: one signalled reset, a short gap, then accuracy again.
func TestServerRestart(t *testing.T) {
	p := profileByName("broadband")
	p.restartAt = 20 * time.Second
	p.settleAt = p.restartAt + 5*time.Second
	p.duration = 40 * time.Second
	r := simulate(p, 1, Config{})
	if r.resets != 1 || r.stats.Restarts != 1 || r.stats.Resets != 1 {
		t.Errorf("epoch %d, restarts %d, resets %d; want 1, 1, 1", r.resets, r.stats.Restarts, r.stats.Resets)
	}
	// The restart shows at the first pong after it (up to a slow ping
	// interval later), and the new epoch is ready within ReadyWithin.
	if r.restartReady < 0 || r.restartReady > 2*time.Second {
		t.Errorf("ready again %v after the restart, want within 2 s", r.restartReady)
	}
	if r.p99Settled > p.p99Limit {
		t.Errorf("error p99 from 5 s after the restart %v, want <= %v", r.p99Settled, p.p99Limit)
	}
	if r.backsteps != 0 || r.coverage != 1 {
		t.Errorf("backsteps %d, coverage %.4f within epochs", r.backsteps, r.coverage)
	}
}

// TestClockJump makes the server's clock jump without a new epoch (which a
// server should not do). A jump beyond ResetAbove ends in one signalled
// reset; a smaller one, once it is beyond the round trip and so provably a
// jump, is slewed away at the converging rate without a step.
func TestClockJump(t *testing.T) {
	for _, tc := range []struct {
		jump   time.Duration
		resets uint32
		settle time.Duration
	}{
		{3 * time.Second, 1, 5 * time.Second},
		{-4 * time.Second, 1, 5 * time.Second},
		{100 * time.Millisecond, 0, 13 * time.Second},
	} {
		p := profileByName("broadband")
		p.jumpAt, p.jump = 20*time.Second, tc.jump
		p.settleAt = p.jumpAt + tc.settle
		p.duration = 40 * time.Second
		r := simulate(p, 2, Config{})
		if r.resets != tc.resets || r.stats.Flushes != 1 {
			t.Errorf("jump %v: epoch %d, flushes %d; want %d, 1", tc.jump, r.resets, r.stats.Flushes, tc.resets)
		}
		if r.p99Settled > p.p99Limit {
			t.Errorf("jump %v: error p99 from %v after %v, want <= %v", tc.jump, tc.settle, r.p99Settled, p.p99Limit)
		}
		if r.backsteps != 0 {
			t.Errorf("jump %v: %d backsteps", tc.jump, r.backsteps)
		}
	}
}

// exchange is one ping, sent at local time i*100ms, and the pong that
// answers it on a clean link with the server's clock at local - 5 s.
type exchange struct {
	pong Pong
	recv time.Duration // local time the pong arrives
}

func exchangeAt(e *Estimator, i int) exchange {
	local := time.Duration(i) * 100 * time.Millisecond
	p := e.Ping(local)
	up := 10*time.Millisecond + time.Duration(i*7919%3001)*time.Microsecond
	down := 10*time.Millisecond + time.Duration(i*104729%2003)*time.Microsecond
	srv := local - 5*time.Second + up
	return exchange{Responder{Epoch: 4}.Pong(p, srv, srv+time.Millisecond), local + up + down + time.Millisecond}
}

// TestDuplicateReorderStale feeds one estimator clean pongs and another the
// same pongs duplicated, pairwise reordered and mixed with stale ones: the
// estimates agree and the extras are counted as stale.
func TestDuplicateReorderStale(t *testing.T) {
	clean, _ := NewEstimator(Config{})
	messy, _ := NewEstimator(Config{})
	stale := 0
	for i := 0; i < 80; i += 2 {
		a, b := exchangeAt(clean, i), exchangeAt(clean, i+1)
		clean.HandlePong(a.pong, a.recv)
		clean.HandlePong(b.pong, b.recv)
		x, y := exchangeAt(messy, i), exchangeAt(messy, i+1)
		messy.HandlePong(y.pong, y.recv)
		messy.HandlePong(x.pong, x.recv)
		messy.HandlePong(y.pong, y.recv+time.Millisecond) // duplicate
		messy.HandlePong(Pong{ID: 1 << 30, Epoch: 4, Recv: x.pong.Recv, Send: x.pong.Send}, x.recv)
		stale += 2
	}
	cs, ms := clean.Stats(), messy.Stats()
	if ms.Stale != uint64(stale) || ms.Samples != cs.Samples || cs.Samples != 80 || cs.Stale != 0 {
		t.Errorf("stale %d (want %d), samples %d and %d (want 80)", ms.Stale, stale, ms.Samples, cs.Samples)
	}
	if d := (cs.Offset - ms.Offset).Abs(); d > time.Microsecond {
		t.Errorf("offsets differ by %v: %v and %v", d, cs.Offset, ms.Offset)
	}
	if d := math.Abs(cs.DriftPPM - ms.DriftPPM); d > 0.01 {
		t.Errorf("drifts differ by %.3f ppm", d)
	}
	// A pong for a ping pushed out of the table of outstanding pings is
	// stale too.
	old := messy.Ping(10 * time.Second)
	for i := range pendingSlots {
		messy.Ping(10*time.Second + time.Duration(i+1)*time.Millisecond)
	}
	before := messy.Stats().Stale
	messy.HandlePong(Responder{Epoch: 4}.Pong(old, 5*time.Second, 5*time.Second), 10*time.Second+50*time.Millisecond)
	if messy.Stats().Stale != before+1 {
		t.Error("a pong for a ping evicted from the table was not stale")
	}
}

// TestInvalidPongs rejects pongs whose timestamps cannot be.
func TestInvalidPongs(t *testing.T) {
	e, _ := NewEstimator(Config{})
	p := e.Ping(time.Second)
	e.HandlePong(Pong{ID: p.ID, Recv: 2 * time.Second, Send: time.Second}, 2*time.Second) // sent before received
	p = e.Ping(3 * time.Second)
	e.HandlePong(Responder{}.Pong(p, 0, 0), 2*time.Second) // arrived before it was sent
	p = e.Ping(4 * time.Second)
	e.HandlePong(Responder{}.Pong(p, 0, 10*time.Second), 5*time.Second) // held longer than the round trip
	if s := e.Stats(); s.Invalid != 3 || s.Samples != 0 {
		t.Errorf("invalid %d, samples %d; want 3, 0", s.Invalid, s.Samples)
	}
	if _, ok := e.Now(6 * time.Second); ok {
		t.Error("ready without samples")
	}
	if e.Bound(6*time.Second) != math.MaxInt64 {
		t.Error("bound before ready is not the largest Duration")
	}
}

// TestPingSchedule checks the burst, the fast start, the ramp and the slow
// rate.
func TestPingSchedule(t *testing.T) {
	for _, tc := range []struct {
		burst int
		want  []time.Duration // ms
	}{
		{-1, []time.Duration{0, 100, 100, 100, 100, 100, 200, 300, 400, 500, 500, 500}},
		{3, []time.Duration{0, 50, 50, 50, 100, 100, 200, 300, 400, 500, 500, 500}},
	} {
		gaps := pingGaps(t, Config{FastSamples: 4, BurstSamples: tc.burst})
		for i := range tc.want {
			if gaps[i] != tc.want[i]*time.Millisecond {
				t.Fatalf("burst %d: intervals %v, want %v ms", tc.burst, gaps, tc.want)
			}
		}
	}
}

// pingGaps returns the first 12 intervals between pings of an estimator
// with cfg whose every ping is answered 10 ms later.
func pingGaps(t *testing.T, cfg Config) []time.Duration {
	t.Helper()
	e, err := NewEstimator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !e.PingDue(-time.Hour) || e.NextPing(-time.Hour) != -time.Hour {
		t.Fatal("first ping not due at once")
	}
	var local time.Duration
	var gaps []time.Duration
	for range 12 {
		next := e.NextPing(local)
		if next < local {
			t.Fatalf("next ping at %v, before now %v", next, local)
		}
		if next > local && e.PingDue(next-1) {
			t.Fatalf("ping due before %v", next)
		}
		if !e.PingDue(next) {
			t.Fatalf("ping not due at %v", next)
		}
		gaps = append(gaps, next-local)
		local = next
		p := e.Ping(local)
		e.HandlePong(Responder{}.Pong(p, local, local), local+10*time.Millisecond)
	}
	return gaps
}

// TestNowMonotonic is a property test: on random links, with random drifts
// and offsets, Now queried at random non-decreasing local times (pongs
// handled up to 50 ms after they were stamped) never decreases within an
// epoch, and the bound always covers the true error.
func TestNowMonotonic(t *testing.T) {
	for seed := range uint64(30) {
		checkMonotonic(t, seed, 20*time.Second)
	}
}

// FuzzNowMonotonic explores the same property from fuzzed seeds.
func FuzzNowMonotonic(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkMonotonic(t, seed, 5*time.Second)
	})
}

func checkMonotonic(t *testing.T, seed uint64, dur time.Duration) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 77))
	cfg := Config{}
	if r.IntN(2) == 0 {
		cfg.SlewPPM = 1 + r.Float64()*999
		cfg.FastSamples = 1 + r.IntN(50)
	}
	e, err := NewEstimator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	drift := (r.Float64()*2 - 1) * 800e-6
	offset := time.Duration(r.Int64N(int64(time.Hour))) - 30*time.Minute
	up := time.Duration(r.Float64() * 50e6)
	down := time.Duration(r.Float64() * 50e6)
	jitter := r.Float64() * 20e6
	local := func(tt time.Duration) time.Duration {
		return offset + tt + time.Duration(float64(tt)*drift)
	}
	type inflight struct {
		at, handled time.Duration // true times it arrives and is handled
		pong        Pong
	}
	var flying []inflight
	var last time.Duration
	var lastEpoch uint32
	have := false
	for tt := time.Duration(0); tt < dur; {
		switch r.IntN(4) {
		case 0:
			tt++
		default:
			tt += time.Duration(r.Int64N(int64(20 * time.Millisecond)))
		}
		l := local(tt)
		if e.PingDue(l) && r.IntN(8) != 0 {
			p := e.Ping(l)
			if r.IntN(10) != 0 { // not lost
				u := up + time.Duration(r.ExpFloat64()*jitter)
				d := down + time.Duration(r.ExpFloat64()*jitter)
				hold := time.Duration(r.Int64N(int64(17 * time.Millisecond)))
				at := tt + u + hold + d
				late := time.Duration(r.Int64N(int64(40 * time.Millisecond)))
				flying = append(flying, inflight{at, at + late, Responder{Epoch: 1}.Pong(p, tt+u, tt+u+hold)})
			}
		}
		// Handle what is due, stamped with its arrival time: up to 40 ms
		// before the latest Now.
		for i := 0; i < len(flying); {
			if x := flying[i]; x.handled <= tt {
				e.HandlePong(x.pong, local(x.at))
				flying = append(flying[:i], flying[i+1:]...)
				continue
			}
			i++
		}
		now, ok := e.Now(l)
		if !ok {
			continue
		}
		if have && e.Epoch() == lastEpoch && now < last {
			t.Fatalf("seed %d: Now went back by %v at local %v", seed, last-now, l)
		}
		if raw := (now - tt).Abs(); raw > e.Bound(l) {
			t.Fatalf("seed %d: error %v beyond bound %v at %v", seed, raw, e.Bound(l), tt)
		}
		last, lastEpoch, have = now, e.Epoch(), true
	}
}

// TestNowIsPure checks that Now and Bound are functions of local time
// between pongs: an estimator queried every millisecond and one never
// queried give identical outputs.
func TestNowIsPure(t *testing.T) {
	busy, _ := NewEstimator(Config{})
	idle, _ := NewEstimator(Config{})
	q := time.Duration(0)
	for i := range 80 {
		a, b := exchangeAt(busy, i), exchangeAt(idle, i)
		for ; q < a.recv; q += time.Millisecond {
			busy.Now(q)
			busy.Bound(q)
		}
		busy.HandlePong(a.pong, a.recv)
		idle.HandlePong(b.pong, b.recv)
		for _, l := range []time.Duration{a.recv, a.recv + 70*time.Millisecond, a.recv + time.Second} {
			x, xok := busy.Now(l)
			y, yok := idle.Now(l)
			if x != y || xok != yok || busy.Bound(l) != idle.Bound(l) {
				t.Fatalf("outputs differ at %v: %v/%v and %v/%v", l, x, busy.Bound(l), y, idle.Bound(l))
			}
		}
	}
}

// TestNoAllocs checks the steady-state paths allocate nothing.
func TestNoAllocs(t *testing.T) {
	e, local := steadyEstimator(t)
	var buf [MaxPongSize]byte
	i := 0
	if n := testing.AllocsPerRun(200, func() {
		p := e.Ping(local)
		b := AppendPing(buf[:0], p)
		p, _, _ = DecodePing(b)
		recv := local + 25*time.Millisecond + time.Duration(i%7)*time.Millisecond
		b = AppendPong(buf[:0], Responder{}.Pong(p, recv, recv+time.Millisecond))
		pong, _, _ := DecodePong(b)
		e.HandlePong(pong, local+51*time.Millisecond)
		local += 500 * time.Millisecond
		i++
	}); n != 0 {
		t.Errorf("ping/pong round: %v allocs", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		e.Now(local)
		e.Bound(local)
		local += time.Millisecond
	}); n != 0 {
		t.Errorf("Now and Bound: %v allocs", n)
	}
}

func TestConfig(t *testing.T) {
	if _, err := NewEstimator(Config{}); err != nil {
		t.Fatalf("zero config: %v", err)
	}
	for _, tc := range []struct {
		c     Config
		field string
	}{
		{Config{FastPingInterval: -1}, "FastPingInterval"},
		{Config{SlowPingInterval: 50 * time.Millisecond}, "SlowPingInterval"},
		{Config{FastSamples: -3}, "FastSamples"},
		{Config{FastSamples: 4, BurstSamples: 5}, "BurstSamples"},
		{Config{BurstSamples: -2}, "BurstSamples"},
		{Config{Window: 8}, "Window"},
		{Config{MinSamples: 200}, "MinSamples"},
		{Config{ReadyError: -time.Second}, "ReadyError"},
		{Config{ReadyWithin: -time.Second}, "ReadyWithin"},
		{Config{MaxDriftPPM: math.NaN()}, "MaxDriftPPM"},
		{Config{SlewPPM: 2000}, "SlewPPM"},
		{Config{ConvergeSlewPPM: 100}, "ConvergeSlewPPM"},
		{Config{FastSlewAbove: 2 * time.Second}, "FastSlewAbove"},
		{Config{ResetAbove: time.Microsecond}, "ResetAbove"},
	} {
		_, err := NewEstimator(tc.c)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: error %v, want ErrConfig naming %s", tc.c, err, tc.field)
		}
	}
}
