package timeline

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// TestSharedClock: timelines that share a render clock draw at the same
// render time whatever states each got, the clock learns only from
// Arrived, and a timeline created later joins the same render time.
func TestSharedClock(t *testing.T) {
	iv := time.Second / 30
	k, err := NewClock(Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := New(Config{Clock: k})
	b, _ := New(Config{Clock: k})
	var late *Timeline
	for i := 1; i <= 90; i++ {
		st := time.Duration(i) * iv
		arrival := st + 20*time.Millisecond
		k.Arrived(st, arrival)
		a.Insert(kinematic.State{Time: st, Pos: geom.V(st.Seconds(), 0, 0)}, arrival)
		// b also gets an extra state between every two regular ones, and
		// states that arrive far later: neither moves the clock.
		b.Insert(kinematic.State{Time: st - iv/2, Pos: geom.V(1, 0, 0)}, arrival+200*time.Millisecond)
		b.Insert(kinematic.State{Time: st, Pos: geom.V(2, 0, 0)}, arrival+200*time.Millisecond)
		if i == 60 {
			late, _ = New(Config{Clock: k})
		}
		if late != nil {
			late.Insert(kinematic.State{Time: st}, arrival)
		}
		for f := range 2 {
			now := arrival + time.Duration(f)*iv/2
			fa, fb := a.Sample(now), b.Sample(now)
			if fa.Time != fb.Time {
				t.Fatalf("frame at %v: render times %v and %v", now, fa.Time, fb.Time)
			}
			if late != nil {
				if fl := late.Sample(now); fl.Time != fa.Time {
					t.Fatalf("frame at %v: the later timeline renders %v, the others %v", now, fl.Time, fa.Time)
				}
			}
		}
	}
	// 20 ms late, every 1/30 s: the default target is the lateness plus
	// the interval less DefaultLateShare of it.
	want := 20*time.Millisecond + time.Duration((1-DefaultLateShare)*float64(iv))
	if got := k.Target(); got < want-time.Millisecond || got > want+time.Millisecond {
		t.Fatalf("target %v, want %v: the clock learnt from what was inserted", got, want)
	}
	if got := b.Stats().Target; got != k.Target() {
		t.Fatalf("a timeline reports target %v, its clock %v", got, k.Target())
	}
}

// TestLateShare: the render delay draws about LateShare of the frames past
// the newest state, whatever the link: states sent at 30 Hz arrive 40 ms
// late plus a jitter (exponential or uniform), some of them lost, and the
// share of frames drawn extrapolated after the first 3 s is within a quarter
// of the target (or half a percent); a smaller share costs a longer delay.
// The frames come at 61 Hz: a renderer's clock is not the server's, so the
// render time falls anywhere in the send interval, as the delay assumes (at
// exactly twice the send rate it would fall at two points only).
func TestLateShare(t *testing.T) {
	const iv = time.Second / 30
	for _, link := range []struct {
		name   string
		jitter func(*rand.Rand) time.Duration
		loss   float64
	}{
		{"exp 10ms", func(r *rand.Rand) time.Duration { return time.Duration(r.ExpFloat64() * 10e6) }, 0},
		{"uniform 30ms, 5% lost", func(r *rand.Rand) time.Duration { return time.Duration(r.Float64() * 30e6) }, 0.05},
	} {
		prev := time.Duration(0)
		for _, share := range []float64{0.5, 0.2, 0.05, 0.01} {
			rng := rand.New(rand.NewPCG(1, 2))
			tl, err := New(Config{LateShare: share})
			if err != nil {
				t.Fatal(err)
			}
			type arrival struct{ at, t time.Duration }
			var queue []arrival // in order of state time; delivered when due
			var frames, late int
			var delay time.Duration
			next := time.Duration(0) // next state time to send
			for f := range 60 * 61 {
				now := time.Duration(f) * time.Second / 61
				for ; next <= now; next += iv {
					if rng.Float64() >= link.loss {
						queue = append(queue, arrival{next + 40*time.Millisecond + link.jitter(rng), next})
					}
				}
				kept := queue[:0]
				for _, a := range queue {
					if a.at <= now {
						tl.Insert(kinematic.State{Time: a.t, Pos: geom.V(a.t.Seconds(), 0, 0)}, a.at)
					} else {
						kept = append(kept, a)
					}
				}
				queue = kept
				fr := tl.Sample(now)
				if now >= 3*time.Second && fr.Valid {
					frames++
					delay += fr.Delay
					if fr.Extrapolated {
						late++
					}
				}
			}
			got := float64(late) / float64(frames)
			mean := delay / time.Duration(frames)
			t.Logf("%s: LateShare %.2f: %.3f of the frames late, delay %v", link.name, share, got, mean)
			if d := math.Abs(got - share); d > share/4 && d > 0.005 {
				t.Errorf("%s: LateShare %.2f: %.3f of the frames late", link.name, share, got)
			}
			if mean <= prev {
				t.Errorf("%s: LateShare %.2f: delay %v, not more than %v at a larger share", link.name, share, mean, prev)
			}
			prev = mean
		}
	}
}

// TestDefaultLateShare: on a link with no jitter nor loss the delay is the
// lateness plus the share of the interval that leaves DefaultLateShare of
// the frames waiting for the next state, 1 - DefaultLateShare of it.
func TestDefaultLateShare(t *testing.T) {
	iv := time.Second / 30
	k, err := NewClock(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 90; i++ {
		k.Arrived(time.Duration(i)*iv, time.Duration(i)*iv+20*time.Millisecond)
	}
	want := 20*time.Millisecond + time.Duration((1-DefaultLateShare)*float64(iv))
	if got := k.Target(); got < want-10*time.Microsecond || got > want+10*time.Microsecond {
		t.Errorf("target %v, want %v", got, want)
	}
	if _, err := NewClock(Config{LateShare: 1}); err == nil {
		t.Error("LateShare 1 accepted")
	}
}

// TestOutageIsNotLoss: states missing in a gap longer than MaxDelay are an
// outage, which no delay covers, and leave the loss estimate and the delay
// as they were; those of a shorter gap count as lost and raise the delay.
func TestOutageIsNotLoss(t *testing.T) {
	iv := time.Second / 30
	for _, tc := range []struct {
		gap  time.Duration
		loss bool
	}{{1500 * time.Millisecond, false}, {500 * time.Millisecond, true}} {
		k, err := NewClock(Config{})
		if err != nil {
			t.Fatal(err)
		}
		st := time.Duration(0)
		for range 90 {
			st += iv
			k.Arrived(st, st+20*time.Millisecond)
		}
		before := k.Target()
		st += tc.gap
		for range 10 {
			k.Arrived(st, st+20*time.Millisecond)
			st += iv
		}
		if after := k.Target(); (after > before+time.Millisecond) != tc.loss {
			t.Errorf("a %v gap: target %v before, %v after; want it raised: %v", tc.gap, before, after, tc.loss)
		}
	}
}
