package arena

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
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

// Every snapshot of a duel, whole or against a baseline acknowledged a few
// snapshots before (some lost), decodes through the replication layer to
// the players the server replicated, within the schema's steps: a
// respawn's new generation and health included.
func TestSnapshotRoundTrip(t *testing.T) {
	d := newDuel(t, Config{})
	enc, dec := replica.NewEncoder(Schema(), replica.Config{}), replica.NewDecoder(Schema())
	enc.Join(0, 0)
	var acks []uint64
	var out replica.Decoded
	var buf []byte
	respawned := false
	for n := 1; n <= 300; n++ {
		if n == 150 {
			d.g.damage(1, MaxHealth)
		}
		d.step(Input{Aim: float64(n) * 0.05, Dir: geom.V(0, 0, -1)}, 0)
		w := enc.World()
		w.Reset()
		for i := range d.enc.World().Len() {
			w.Add(*d.enc.World().Entity(i))
		}
		acked := uint64(0)
		if len(acks) > 4 {
			acked = acks[len(acks)-4]
		}
		tick := uint64(n)
		at := time.Duration(n) * d.tick / wire.TimeUnit * wire.TimeUnit
		buf = enc.Append(buf[:0], 0, tick, at, acked, 0)
		if n%7 == 3 { // lost
			continue
		}
		out.Entities = out.Entities[:0]
		if err := dec.Decode(&out, tick, at, buf); err != nil {
			t.Fatalf("tick %d: %v", n, err)
		}
		acks = append(acks, tick)
		if len(out.Entities) != 2 {
			t.Fatalf("tick %d: %d entities", n, len(out.Entities))
		}
		for _, e := range out.Entities {
			st := w.Entity(int(e.ID)).State // players are added in order of id
			_, hp, _ := d.g.Player(e.ID)
			gen := d.g.players[e.ID].gen
			respawned = respawned || gen > 0
			aim := 2 * math.Atan2(st.Rot.Y, st.Rot.W)
			da := math.Abs(math.Remainder(2*math.Atan2(e.State.Rot.Y, e.State.Rot.W)-aim, 2*math.Pi))
			if !near(e.State.Pos, st.Pos, 0.5/posSteps) || !near(e.State.Vel, st.Vel, 0.5/velSteps) ||
				da > math.Pi/aimSteps+1e-9 || int(e.Tag) != hp || e.Gen != gen || e.Kind != KindPlayer || e.State.Time != at {
				t.Fatalf("tick %d: decoded %+v, replicated %+v, health %d, gen %d", n, e, st, hp, gen)
			}
		}
	}
	if !respawned {
		t.Fatal("no respawn")
	}
}

// near reports whether a and b are within step of each other on every
// axis.
func near(a, b geom.Vec3, step float64) bool {
	return math.Abs(a.X-b.X) <= step+1e-9 && math.Abs(a.Y-b.Y) <= step+1e-9 && math.Abs(a.Z-b.Z) <= step+1e-9
}

func FuzzDecode(f *testing.F) {
	for _, in := range sampleInputs() {
		f.Add(AppendInput(nil, in))
	}
	f.Add(moves{}.AppendState(nil, PlayerState{Pos: geom.V(1, 0, 2), Fired: Projectile}))
	f.Fuzz(func(t *testing.T, b []byte) {
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
