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
		match     uint64 // 0: 1 when Allocated
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"nobody came", []step{
			{0, Ready, 0, 3, nil, 0},
			{1, Allocated, 0, 3, nil, 0},
			{60.9, Allocated, 0, 3, nil, 0},
			{61, Allocated, 0, 3, ErrNobodyCame, 0},
			{62, Allocated, 0, 3, nil, 0}, // once
			{63, Ready, 0, 3, nil, 0},     // released: a new wait
			{64, Allocated, 0, 3, nil, 2},
			{123.9, Allocated, 0, 3, nil, 2},
			{124, Allocated, 0, 3, ErrNobodyCame, 2},
		}},
		{"a new match between two checks", []step{
			{0, Ready, 0, 0, nil, 0},
			{1, Allocated, 1, 1, nil, 1},
			{11, Allocated, 1, 1, ErrFullTime, 1},
			// Released, and a player joined the next match before a
			// check saw it Ready.
			{11.25, Allocated, 1, 2, nil, 2},
			{21.2, Allocated, 1, 2, nil, 2},
			{21.25, Allocated, 1, 2, ErrFullTime, 2},
			// Released and allocated by the orchestrator, nobody came.
			{21.5, Allocated, 0, 2, nil, 3},
			{81.5, Allocated, 0, 2, ErrNobodyCame, 3},
		}},
		{"a player came late", []step{
			{0, Allocated, 0, 0, nil, 0},
			{59, Allocated, 1, 1, nil, 0},
			{200, Allocated, 1, 1, nil, 0}, // no NobodyCame once a player joined
		}},
		{"idle", []step{
			{0, Ready, 0, 0, nil, 0},
			{1, Allocated, 2, 2, nil, 0}, // the first join allocated it
			{100, Allocated, 0, 2, nil, 0},
			{110, Allocated, 1, 3, nil, 0}, // one came back: the wait starts again
			{120, Allocated, 0, 3, nil, 0},
			{149.9, Allocated, 0, 3, nil, 0},
			{150, Allocated, 0, 3, ErrIdle, 0},
		}},
		{"full time", []step{
			{0, Allocated, 0, 0, nil, 0},
			{10, Allocated, 4, 4, nil, 0},
			{609.9, Allocated, 4, 4, nil, 0},
			{610, Allocated, 4, 4, ErrFullTime, 0},
			{611, Draining, 4, 4, nil, 0},
		}},
	} {
		cfg := MatchConfig{Length: 10 * time.Minute, Idle: 30 * time.Second, NobodyCame: time.Minute}
		if tc.name == "a new match between two checks" {
			cfg.Length = 10 * time.Second
		}
		m := NewMatchClock(cfg)
		for _, s := range tc.steps {
			if s.match == 0 && s.state == Allocated {
				s.match = 1
			}
			if err := m.Check(at(s.t), s.state, s.match, Players{Connected: s.connected, Joins: s.joins}); !errors.Is(err, s.want) || (err == nil) != (s.want == nil) {
				t.Errorf("%s: at %vs %v, %d connected, %d joins: %v, want %v", tc.name, s.t, s.state, s.connected, s.joins, err, s.want)
			}
		}
	}
	// A zero config never ends a match.
	m := NewMatchClock(MatchConfig{})
	for i, p := range []Players{{0, 0}, {1, 1}, {0, 1}} {
		if err := m.Check(at(float64(i)*1e6), Allocated, 1, p); err != nil {
			t.Errorf("zero config: %v", err)
		}
	}
}
