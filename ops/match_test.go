package ops

import (
	"errors"
	"testing"
	"time"
)

// TestMatchClock walks matches through their ends in made-up time: a match
// allocated that nobody joins, one whose players all leave, one that runs
// to full time with players on, and checks each end is reported once.
func TestMatchClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	type step struct {
		t         float64
		state     State
		connected int
		joins     uint64
		want      error
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"nobody came", []step{
			{0, Ready, 0, 3, nil},
			{1, Allocated, 0, 3, nil},
			{60.9, Allocated, 0, 3, nil},
			{61, Allocated, 0, 3, ErrNobodyCame},
			{62, Allocated, 0, 3, nil}, // once
			{63, Ready, 0, 3, nil},     // released: a new wait
			{64, Allocated, 0, 3, nil},
			{123.9, Allocated, 0, 3, nil},
			{124, Allocated, 0, 3, ErrNobodyCame},
		}},
		{"a player came late", []step{
			{0, Allocated, 0, 0, nil},
			{59, Allocated, 1, 1, nil},
			{200, Allocated, 1, 1, nil}, // no NobodyCame once a player joined
		}},
		{"idle", []step{
			{0, Ready, 0, 0, nil},
			{1, Allocated, 2, 2, nil}, // the first join allocated it
			{100, Allocated, 0, 2, nil},
			{110, Allocated, 1, 3, nil}, // one came back: the wait starts again
			{120, Allocated, 0, 3, nil},
			{149.9, Allocated, 0, 3, nil},
			{150, Allocated, 0, 3, ErrIdle},
		}},
		{"full time", []step{
			{0, Allocated, 0, 0, nil},
			{10, Allocated, 4, 4, nil},
			{609.9, Allocated, 4, 4, nil},
			{610, Allocated, 4, 4, ErrFullTime},
			{611, Draining, 4, 4, nil},
		}},
	} {
		m := NewMatchClock(MatchConfig{Length: 10 * time.Minute, Idle: 30 * time.Second, NobodyCame: time.Minute})
		for _, s := range tc.steps {
			if err := m.Check(at(s.t), s.state, Players{Connected: s.connected, Joins: s.joins}); !errors.Is(err, s.want) || (err == nil) != (s.want == nil) {
				t.Errorf("%s: at %vs %v, %d connected, %d joins: %v, want %v", tc.name, s.t, s.state, s.connected, s.joins, err, s.want)
			}
		}
	}
	// A zero config never ends a match.
	m := NewMatchClock(MatchConfig{})
	for i, p := range []Players{{0, 0}, {1, 1}, {0, 1}} {
		if err := m.Check(at(float64(i)*1e6), Allocated, p); err != nil {
			t.Errorf("zero config: %v", err)
		}
	}
}
