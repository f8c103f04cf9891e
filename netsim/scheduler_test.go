package netsim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestSchedulerOrder(t *testing.T) {
	var s Scheduler
	var got []string
	rec := func(name string) func() { return func() { got = append(got, name) } }
	s.At(3*time.Millisecond, rec("c1"))
	s.At(time.Millisecond, rec("a"))
	s.At(3*time.Millisecond, rec("c2"))
	s.After(2*time.Millisecond, func() {
		got = append(got, "b")
		if s.Now() != 2*time.Millisecond {
			t.Errorf("Now in callback = %v", s.Now())
		}
		s.At(0, rec("b-past"))                    // in the past: runs at Now, after what is due
		s.After(time.Millisecond, rec("c3"))      // same time as c1, c2: after them
		s.After(10*time.Millisecond, rec("late")) // beyond RunUntil
	})
	s.RunUntil(5 * time.Millisecond)
	if want := []string{"a", "b", "b-past", "c1", "c2", "c3"}; !slices.Equal(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	if s.Now() != 5*time.Millisecond || s.Len() != 1 {
		t.Errorf("Now %v, Len %d", s.Now(), s.Len())
	}
	s.RunUntil(time.Millisecond) // the past: nothing runs, Now stays
	if s.Now() != 5*time.Millisecond || s.Len() != 1 {
		t.Errorf("after RunUntil(past): Now %v, Len %d", s.Now(), s.Len())
	}
	s.RunUntil(12 * time.Millisecond)
	if got[len(got)-1] != "late" || s.Len() != 0 {
		t.Errorf("ran %v", got)
	}
}

func TestSchedulerRandom(t *testing.T) {
	// Against a stable sort by time of the same events.
	r := rand.New(rand.NewPCG(1, 2))
	var s Scheduler
	type ev struct {
		at time.Duration
		id int
	}
	var want, got []ev
	for id := range 5000 {
		e := ev{time.Duration(r.IntN(1000)), id}
		want = append(want, e)
		s.At(e.at, func() { got = append(got, e) })
	}
	slices.SortStableFunc(want, func(a, b ev) int { return int(a.at - b.at) })
	s.RunUntil(999)
	if !slices.Equal(got, want) {
		t.Error("events ran out of (time, insertion) order")
	}
}

func TestSchedulerZeroAllocsSteadyState(t *testing.T) {
	var s Scheduler
	fn := func() {}
	for range 64 {
		s.After(time.Millisecond, fn)
	}
	s.RunUntil(time.Second)
	if a := testing.AllocsPerRun(100, func() {
		s.After(time.Millisecond, fn)
		s.RunUntil(s.Now() + time.Millisecond)
	}); a != 0 {
		t.Errorf("%v allocations per event", a)
	}
}

// BenchmarkScheduler measures one event scheduled and run with about 1000 pending.
func BenchmarkScheduler(b *testing.B) {
	var s Scheduler
	r := rand.New(rand.NewPCG(1, 2))
	var fn func()
	fn = func() { s.After(time.Duration(r.IntN(1000))*time.Microsecond, fn) }
	for range 1000 {
		s.After(time.Duration(r.IntN(1000))*time.Microsecond, fn)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.RunUntil(s.events[0].at)
	}
}
