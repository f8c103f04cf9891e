package event

import (
	"errors"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

const snap = time.Second / 30

// TestSeenPerClient: two clients sent different snapshots of one entity
// are each answered with what they were sent; one whose snapshots left the
// entity out sees it between the snapshots around the gap, not where the
// world had it meanwhile.
func TestSeenPerClient(t *testing.T) {
	s, err := NewSeen(2, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	const e = 7
	// The entity runs along x at 30 m/s: x = 1 at each snapshot. Client 0
	// is sent every snapshot; client 1 is not sent snapshots 2 and 3 of it
	// (the budget left it out) but is sent another entity then.
	for k := range 6 {
		at := time.Duration(k) * snap
		x := float64(k)
		s.Add(0, at, e, 0, Pose{Pos: geom.V(x, 0, 0)})
		if k == 2 || k == 3 {
			s.Add(1, at, 9, 0, Pose{})
			continue
		}
		s.Add(1, at, e, 0, Pose{Pos: geom.V(x, 0, 0)})
	}
	for _, c := range []struct {
		client int
		t      time.Duration
		x      float64
	}{
		{0, 2 * snap, 2}, {0, 2*snap + snap/2, 2.5}, {0, 3 * snap, 3},
		// Client 1 had it at 1 then 4: a straight line between them.
		{1, 2 * snap, 2}, {1, 2*snap + snap/2, 2.5}, {1, 1 * snap, 1}, {1, 4 * snap, 4},
		// After the newest snapshot: held.
		{0, 9 * snap, 5}, {1, 9 * snap, 5},
	} {
		p, ok := s.At(c.client, e, c.t)
		if !ok || p.Pos.Dist(geom.V(c.x, 0, 0)) > 1e-6 {
			t.Errorf("client %d at %v: %v %v, want x = %v", c.client, c.t, p.Pos, ok, c.x)
		}
	}
	// Now the entity stops at x = 5 for client 0 only: client 1 is left
	// without it for the rest, and keeps it at its last place.
	for k := 6; k < 9; k++ {
		at := time.Duration(k) * snap
		s.Add(0, at, e, 0, Pose{Pos: geom.V(5, 0, 0)})
		s.Add(1, at, 9, 0, Pose{})
	}
	for _, c := range []struct {
		client int
		t      time.Duration
		x      float64
	}{{0, 7 * snap, 5}, {1, 7 * snap, 5}, {1, 5*snap - snap/2, 4.5}} {
		p, ok := s.At(c.client, e, c.t)
		if !ok || p.Pos.Dist(geom.V(c.x, 0, 0)) > 1e-6 {
			t.Errorf("client %d at %v: %v %v, want x = %v", c.client, c.t, p.Pos, ok, c.x)
		}
	}
	if _, ok := s.At(1, 99, 7*snap); ok {
		t.Error("an entity never sent: found")
	}
}

// TestSeenEdges: before the oldest snapshot, or before the entity was
// first sent, nothing is known; a jump is held, not interpolated into.
func TestSeenEdges(t *testing.T) {
	s, err := NewSeen(1, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.At(0, 1, 0); ok {
		t.Error("empty: found")
	}
	for k := range 6 {
		at := time.Duration(k) * snap
		gen := uint8(0)
		if k >= 3 {
			gen = 1 // respawned at snapshot 3
		}
		s.Add(0, at, 1, gen, Pose{Pos: geom.V(float64(k), 0, 0)})
		if k >= 4 {
			s.Add(0, at, 2, 0, Pose{Pos: geom.V(0, 0, float64(k))})
		}
	}
	if old, newest, ok := s.Span(0); !ok || old != 2*snap || newest != 5*snap {
		t.Fatalf("span %v to %v %v, want %v to %v", old, newest, ok, 2*snap, 5*snap)
	}
	if _, ok := s.At(0, 1, snap); ok {
		t.Error("before the oldest snapshot held: found")
	}
	if _, ok := s.At(0, 2, 3*snap); ok {
		t.Error("before the entity's first snapshot: found")
	}
	if p, ok := s.At(0, 1, 2*snap+snap/2); !ok || p.Pos.X != 2 {
		t.Errorf("before a respawn: %v %v, want the earlier place held, x = 2", p.Pos, ok)
	}
	s.Add(0, 6*snap, 1, 1, Pose{Pos: geom.V(-9, 0, 0), Cut: true})
	if p, ok := s.At(0, 1, 5*snap+snap/2); !ok || p.Pos.X != 5 {
		t.Errorf("before a cut: %v %v, want x = 5", p.Pos, ok)
	}
	if p, ok := s.At(0, 1, 6*snap); !ok || p.Pos.X != -9 {
		t.Errorf("at a cut: %v %v, want x = -9", p.Pos, ok)
	}
	// Refusals.
	d := s.Dropped
	s.Add(0, 5*snap, 1, 0, Pose{})      // before the newest
	s.Add(1, 7*snap, 1, 0, Pose{})      // no such client
	s.Add(-1, 7*snap, 1, 0, Pose{})     // no such client
	s.Add(0, 7*snap, 1, 0, Pose{})      // fine
	s.Add(0, 7*snap, 2, 0, Pose{})      // fine
	if s.Add(0, 7*snap, 3, 0, Pose{}) { // full
		t.Error("a third entity in a snapshot of 2: added")
	}
	if s.Dropped != d+4 {
		t.Errorf("Dropped grew by %d, want 4", s.Dropped-d)
	}
	s.Forget(0)
	if _, ok := s.At(0, 1, 7*snap); ok {
		t.Error("forgotten: found")
	}
	if _, _, ok := s.Span(0); ok {
		t.Error("forgotten: a span")
	}
}

func TestSeenConfig(t *testing.T) {
	for _, c := range [][3]int{{0, 10, 1}, {1, 1, 1}, {1, 10, 0}, {1 << 17, 10, 1}} {
		if _, err := NewSeen(c[0], c[1], c[2]); !errors.Is(err, ErrConfig) {
			t.Errorf("NewSeen%v: %v, want ErrConfig", c, err)
		}
	}
}

// seenRun returns a function that records one snapshot of ents entities
// to each of clients clients, 30 a second, and looks up one entity for each
// client back ago.
func seenRun(tb testing.TB, clients, ents int, back time.Duration) func() {
	s, err := NewSeen(clients, 12, ents)
	if err != nil {
		tb.Fatal(err)
	}
	tick := time.Duration(0)
	return func() {
		tick += snap
		for c := range clients {
			for e := range uint32(ents) {
				s.Add(c, tick, e, 0, Pose{Pos: geom.V(float64(e), 0, tick.Seconds())})
			}
		}
		for c := range clients {
			s.At(c, uint32(c+1)%uint32(ents), tick-back)
		}
	}
}

func TestSeenAllocs(t *testing.T) {
	step := seenRun(t, 8, 16, 100*time.Millisecond)
	step() // each client's ring is allocated at its first Add
	if n := testing.AllocsPerRun(200, step); n != 0 {
		t.Errorf("%v allocations a snapshot, want 0", n)
	}
}

// A snapshot of 16 entities recorded for 16 clients, and a lookup 200 ms
// back for each.
func BenchmarkSeen(b *testing.B) {
	step := seenRun(b, 16, 16, 200*time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}
