package arena

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
)

func sampleInputs() []Input {
	return []Input{{}, {Dir: geom.V(1, 0, 0), Aim: 1, Fire: Hitscan}, {Dir: geom.V(-0.6, 0, 0.8), Aim: 2*math.Pi - 0.001, Fire: Projectile}}
}

func TestInputRoundTrip(t *testing.T) {
	for _, in := range sampleInputs() {
		b := AppendInput(nil, in)
		var got Input
		if n, err := DecodeInput(&got, b); err != nil || n != len(b) {
			t.Fatalf("%+v: %d of %d, %v", in, n, len(b), err)
		}
		da := math.Abs(math.Remainder(got.Aim-in.Aim, 2*math.Pi))
		if got.Dir.Dist(in.Dir) > 0.01 || da > 1e-4 || got.Fire != in.Fire {
			t.Fatalf("got %+v, want %+v", got, in)
		}
		for i := range len(b) {
			if _, err := DecodeInput(&got, b[:i]); !errors.Is(err, ErrTruncated) {
				t.Fatalf("prefix %d: %v", i, err)
			}
		}
	}
	if _, err := DecodeInput(&Input{}, []byte{0, 0, 0, 0, 9}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("unknown weapon: %v", err)
	}
}

func TestStateRoundTrip(t *testing.T) {
	s := PlayerState{Pos: geom.V(1.25, 0, -3), Vel: geom.V(6, 0, 0), Aim: 0.3, ProjReady: 2 * time.Second, HitscanReady: 1500 * time.Millisecond, Fired: Hitscan}
	b := moves{}.AppendState(nil, s)
	var got PlayerState
	if n, err := (moves{}).DecodeState(&got, b); err != nil || n != len(b) || got != s {
		t.Fatalf("got %+v (%d of %d, %v), want %+v", got, n, len(b), err, s)
	}
	b[0], b[7] = 0xff, 0x7f // NaN
	if _, err := (moves{}).DecodeState(&got, b); !errors.Is(err, ErrMalformed) {
		t.Fatalf("NaN: %v", err)
	}
}

// snapshotOf returns a snapshot of a game with players joined.
func snapshotOf(t testing.TB, players int) []byte {
	g, err := NewGame(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range players {
		if _, err := g.Join(i); err != nil {
			t.Fatal(err)
		}
	}
	return g.AppendSnapshot(nil, true)
}

func TestSnapshotRoundTrip(t *testing.T) {
	b := snapshotOf(t, 3)
	g, _ := NewGame(Config{})
	_, _ = g.Join(0)
	_, _ = g.Join(1)
	_, _ = g.Join(2)
	cg, _ := NewClientGame(ClientConfig{})
	s := client.Snapshot{Time: time.Second}
	if err := cg.DecodeSnapshot(&s, b); err != nil || len(s.Entities) != 3 {
		t.Fatalf("%d entities, %v", len(s.Entities), err)
	}
	for _, e := range s.Entities {
		st, hp, _ := g.Player(e.ID)
		if e.State.Pos.Dist(st.Pos) > 1e-3 || int(e.Tag) != hp || e.State.Time != time.Second {
			t.Fatalf("entity %+v, player %+v", e, st)
		}
	}
	for i := range len(b) {
		s.Entities = s.Entities[:0]
		if err := cg.DecodeSnapshot(&s, b[:i]); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("prefix %d: %v", i, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(snapshotOf(f, 2))
	for _, in := range sampleInputs() {
		f.Add(AppendInput(nil, in))
	}
	f.Add(moves{}.AppendState(nil, PlayerState{Pos: geom.V(1, 0, 2), Fired: Projectile}))
	cg, _ := NewClientGame(ClientConfig{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var s client.Snapshot
		_ = cg.DecodeSnapshot(&s, b)
		var in Input
		if n, err := DecodeInput(&in, b); err == nil {
			var again Input
			if _, err := DecodeInput(&again, AppendInput(nil, in)); err != nil || again != in || n != inputSize {
				t.Fatalf("input %+v re-decoded as %+v (%v)", in, again, err)
			}
		}
		var st PlayerState
		if _, err := (moves{}).DecodeState(&st, b); err == nil {
			var again PlayerState
			if _, err := (moves{}).DecodeState(&again, moves{}.AppendState(nil, st)); err != nil || again != st {
				t.Fatalf("state %+v re-decoded as %+v (%v)", st, again, err)
			}
		}
	})
}
