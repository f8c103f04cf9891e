package crowd

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/wire"
)

// link is one client of a game in a test, without a network: the server
// encodes its snapshot every tick against the newest baseline the client
// kept lag ticks ago, and the client decodes it at once.
type link struct {
	g      *Game
	slot   int
	cg     ClientGame
	lag    int
	acks   []uint64 // the client's newest baseline after each tick
	budget int
	buf    []byte
	snap   client.Snapshot
}

func newGame(t testing.TB, cfg Config) *Game {
	t.Helper()
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// newLink joins a client to g.
func newLink(t testing.TB, g *Game, lag, budget int) *link {
	t.Helper()
	l := &link{g: g, slot: len(g.views), lag: lag, budget: budget, buf: make([]byte, 0, 2048)}
	if _, err := g.Join(l.slot); err != nil {
		t.Fatal(err)
	}
	return l
}

// step runs the game's next tick.
func step(g *Game) {
	n := g.tick + 1
	g.Step(server.Tick{N: n, Time: time.Duration(n) * time.Second / 60, Dt: time.Second / 60}, nil)
}

// exchange encodes the tick's snapshot for l and decodes it; it returns the
// decode's error.
func (l *link) exchange() error {
	acked := uint64(0)
	if k := len(l.acks) - 1 - l.lag; k >= 0 {
		acked = l.acks[k]
	}
	budget := l.budget
	if budget == 0 {
		budget = 1 << 20
	}
	l.buf = l.g.AppendSnapshotFor(l.buf[:0], l.slot, true, acked, budget)
	l.snap = client.Snapshot{Tick: l.g.tick, Time: l.g.now, Regular: true, Entities: l.snap.Entities[:0]}
	err := l.cg.DecodeSnapshot(&l.snap, l.buf)
	l.acks = append(l.acks, l.cg.kept.Newest())
	return err
}

// check fails unless every sphere l's snapshot refreshed is exactly the
// server's, as quantised.
func (l *link) check(t *testing.T) {
	t.Helper()
	for _, e := range l.snap.Entities {
		want := l.g.cur[e.ID].state(l.g.now)
		if e.State != want || e.Kind != KindBody {
			t.Fatalf("tick %d sphere %d: decoded %+v, want %+v", l.g.tick, e.ID, e.State, want)
		}
	}
}

// Snapshots against acknowledged baselines decode to the server's spheres
// exactly; once the client knows every sphere, a snapshot of spheres at
// rest costs a bit each, and snapshots of a stirred crowd stay small.
func TestDelta(t *testing.T) {
	g := newGame(t, Config{Seed: 3})
	l := newLink(t, g, 6, 0)
	step(g)
	if err := l.exchange(); err != nil {
		t.Fatal(err)
	}
	l.check(t)
	if len(l.snap.Entities) != DefaultBodies || l.snap.Base != 0 || !l.snap.Baseline {
		t.Fatalf("first snapshot: %d spheres, base %d, baseline %v", len(l.snap.Entities), l.snap.Base, l.snap.Baseline)
	}
	for range 10 { // until the first baseline is acknowledged; no kick yet
		step(g)
		if err := l.exchange(); err != nil {
			t.Fatal(err)
		}
		l.check(t)
	}
	if len(l.buf) > DefaultBodies/8+4 || l.snap.Base == 0 {
		t.Fatalf("spheres at rest: %d bytes, base %d; want at most %d, against a baseline", len(l.buf), l.snap.Base, DefaultBodies/8+4)
	}
	total := 0
	for range 600 {
		step(g)
		if err := l.exchange(); err != nil {
			t.Fatal(err)
		}
		l.check(t)
		if len(l.snap.Entities) != DefaultBodies {
			t.Fatalf("tick %d: %d spheres refreshed without a budget", g.tick, len(l.snap.Entities))
		}
		total += len(l.buf)
	}
	if mean := total / 600; mean > 400 {
		t.Errorf("snapshots of %d bytes on average, want at most 400", mean)
	}
	t.Logf("%d bytes a snapshot on average; %+v", total/600, g.Stats())
}

// Within a budget every snapshot fits, the priorities get every sphere to
// a client that joins with none known, and every sphere it is sent is
// exact.
func TestBudget(t *testing.T) {
	const budget = 200
	var encoded []Encoded
	g := newGame(t, Config{Seed: 5, OnSnapshot: func(e Encoded) { encoded = append(encoded, e) }})
	l := newLink(t, g, 4, budget)
	last := make([]uint64, DefaultBodies)
	for range 1200 {
		step(g)
		if err := l.exchange(); err != nil {
			t.Fatal(err)
		}
		l.check(t)
		if len(l.buf) > budget {
			t.Fatalf("tick %d: %d bytes, budget %d", g.tick, len(l.buf), budget)
		}
		for _, e := range l.snap.Entities {
			last[e.ID] = g.tick
		}
		if g.tick > 600 {
			for i, at := range last {
				if g.tick-at > 60 {
					t.Fatalf("tick %d: sphere %d last refreshed at tick %d", g.tick, i, at)
				}
			}
		}
	}
	if st := g.Stats(); st.LeftOut == 0 {
		t.Fatalf("no sphere left out: %+v", st)
	}
	e := encoded[len(encoded)-1]
	if e.Bytes != len(l.buf) || e.Unchanged+e.Sent+e.LeftOut != DefaultBodies || !e.Delta {
		t.Fatalf("last encoded %+v, %d bytes", e, len(l.buf))
	}
}

// Bad snapshots are errors and change nothing the client keeps.
func TestDecodeErrors(t *testing.T) {
	g := newGame(t, Config{Bodies: 50})
	l := newLink(t, g, 0, 0)
	for range 3 {
		step(g)
		if err := l.exchange(); err != nil {
			t.Fatal(err)
		}
	}
	good := append([]byte(nil), l.buf...)
	kept := l.cg.kept.Newest()
	for _, c := range []struct {
		name string
		b    []byte
		tick uint64
		err  error
	}{
		{"empty", nil, 10, wire.ErrTruncated},
		{"no spheres", []byte{0, 0}, 10, ErrBodies},
		{"other count", []byte{51, 0}, 10, ErrBodies},
		{"baseline not kept", []byte{50, 5}, 10, ErrNoBaseline},
		{"baseline before the first tick", []byte{50, 10}, 10, wire.ErrMalformed},
		{"truncated", good[:len(good)-1], g.tick, wire.ErrTruncated},
		{"trailing", append(append([]byte(nil), good...), 0), g.tick, wire.ErrMalformed},
	} {
		s := client.Snapshot{Tick: c.tick, Time: time.Duration(c.tick) * time.Second / 60}
		if err := l.cg.DecodeSnapshot(&s, c.b); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
		if len(s.Entities) != 0 || s.Baseline || l.cg.kept.Newest() != kept {
			t.Errorf("%s: %d spheres, baseline %v, newest kept %d (was %d)", c.name, len(s.Entities), s.Baseline, l.cg.kept.Newest(), kept)
		}
	}
}

// A client whose acknowledgements stopped for longer than the ring gets
// every sphere whole again.
func TestLostBaselines(t *testing.T) {
	g := newGame(t, Config{Bodies: 100})
	l := newLink(t, g, 2, 0)
	for range 10 {
		step(g)
		if err := l.exchange(); err != nil {
			t.Fatal(err)
		}
	}
	stale := l.acks[len(l.acks)-1]
	for range Ring + 1 {
		step(g)
		g.AppendSnapshotFor(nil, l.slot, true, stale, 1<<20)
	}
	step(g)
	l.acks = append(l.acks, stale, stale, stale)
	if err := l.exchange(); err != nil {
		t.Fatal(err)
	}
	l.check(t)
	if l.snap.Base != 0 || len(l.snap.Entities) != 100 {
		t.Fatalf("base %d, %d spheres; want whole", l.snap.Base, len(l.snap.Entities))
	}
}

// Encoding a client's snapshot and decoding it allocate nothing in steady
// state.
func TestAllocs(t *testing.T) {
	g := newGame(t, Config{Seed: 2})
	l := newLink(t, g, 5, 600)
	for range 120 {
		step(g)
		if err := l.exchange(); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		step(g)
		if err := l.exchange(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations a tick", n)
	}
}

// FuzzDecode decodes arbitrary bytes as a snapshot to a client that keeps
// baselines: never a panic; what decodes is in range. Its seed corpus is
// real snapshots, whole, delta and within a budget.
func FuzzDecode(f *testing.F) {
	g := newGame(f, Config{Bodies: 40, Seed: 1, KickEvery: 50 * time.Millisecond})
	for _, budget := range []int{0, 12} {
		l := newLink(f, g, 3, budget)
		for range 40 {
			step(g)
			if err := l.exchange(); err != nil {
				f.Fatal(err)
			}
			if g.tick%8 == 0 {
				f.Add(g.tick, append([]byte(nil), l.buf...))
			}
		}
	}
	f.Add(uint64(5), []byte{40, 1, 0xff, 0xff})
	// The client keeps the baselines of ticks 1 to 100 (a crowd at rest),
	// a copy of them for every input.
	rest := newGame(f, Config{Bodies: 40})
	l := newLink(f, rest, 0, 0)
	for range 100 {
		step(rest)
		if err := l.exchange(); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, tick uint64, b []byte) {
		tick = tick%200 + 1
		cg := l.cg
		cg.kept = wire.NewBaselines[table](Ring)
		for tick, t := range l.cg.kept.All() {
			cg.kept.Push(tick).bodies = slices.Clone(t.bodies)
		}
		cg.scratch.bodies = nil
		s := client.Snapshot{Tick: tick, Time: time.Duration(tick) * time.Second / 60}
		if err := cg.DecodeSnapshot(&s, b); err != nil {
			if len(s.Entities) != 0 || s.Baseline {
				t.Fatalf("error %v with %d spheres, baseline %v", err, len(s.Entities), s.Baseline)
			}
			return
		}
		for _, e := range s.Entities {
			if e.ID >= 40 || !e.State.Pos.IsFinite() || !e.State.Vel.IsFinite() || e.State.Pos.Len() > maxQuant*PosUnit*2 {
				t.Fatalf("decoded %+v", e)
			}
		}
	})
}
