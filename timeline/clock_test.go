package timeline

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// TestSharedClock: timelines that share a render clock draw at the same
// render time whatever states each got, the clock learns only from
// Arrived, and a timeline created later joins the same render time.
func TestSharedClock(t *testing.T) {
	const iv = time.Second / 30
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
	// 20 ms late, every 1/30 s: the default target is the median lateness
	// plus three quarters of the interval.
	want := 20*time.Millisecond + 3*iv/4
	if got := k.Target(); got < want-time.Millisecond || got > want+time.Millisecond {
		t.Fatalf("target %v, want %v: the clock learnt from what was inserted", got, want)
	}
	if got := b.Stats().Target; got != k.Target() {
		t.Fatalf("a timeline reports target %v, its clock %v", got, k.Target())
	}
}

// TestQuantileInterval: with QuantileInterval 1 the delay covers the
// lateness quantile and a whole send interval beyond it.
func TestQuantileInterval(t *testing.T) {
	const iv = time.Second / 30
	for _, tc := range []struct {
		cfg  Config
		want time.Duration
	}{
		{Config{}, 20*time.Millisecond + 3*iv/4},
		{Config{QuantileInterval: 1}, 40*time.Millisecond + iv},
	} {
		k, err := NewClock(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 90; i++ {
			lateness := 20 * time.Millisecond
			if i%10 == 0 {
				lateness = 40 * time.Millisecond // the 90th percentile and above
			}
			k.Arrived(time.Duration(i)*iv, time.Duration(i)*iv+lateness)
		}
		if got := k.Target(); got < tc.want-time.Millisecond || got > tc.want+time.Millisecond {
			t.Errorf("%+v: target %v, want %v", tc.cfg, got, tc.want)
		}
	}
	if _, err := NewClock(Config{QuantileInterval: -1}); err == nil {
		t.Error("QuantileInterval -1 accepted")
	}
}
