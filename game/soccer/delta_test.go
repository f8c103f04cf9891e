package soccer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/wire"
)

// deltaPlay is a match of bots with one client's view of it: every tick's
// snapshot encoded for that client against what it acknowledged, and the
// same tick's whole snapshot to compare with.
type deltaPlay struct {
	g    *Game
	bots []*Bot
	rec  recorder
	n    uint64
	tr   Truth
	v    View
}

func newDeltaPlay(t testing.TB, players int) *deltaPlay {
	rules := DefaultRules()
	rules.MaxPlayers = max(players, rules.MaxPlayers)
	g, err := NewGame(rules, 60)
	if err != nil {
		t.Fatal(err)
	}
	d := &deltaPlay{g: g}
	for c := range players {
		if _, err := g.Join(c); err != nil {
			t.Fatal(err)
		}
		d.bots = append(d.bots, NewBot(rules, uint64(c)))
	}
	return d
}

// step steps the match a tick; it returns whether a snapshot is due and
// whether it is a regular one.
func (d *deltaPlay) step() (due, regular bool) {
	d.g.Truth(&d.tr)
	for c, b := range d.bots {
		d.v = viewOfTruth(&d.tr, FirstPlayerID+uint32(c), d.v)
		d.g.Input(c, serverInput(AppendInput(nil, b.Decide(&d.v)), d.tr.Time))
	}
	d.n++
	extra := d.g.Step(tick(d.n), &d.rec)
	regular = d.n%2 == 0
	return regular || extra, regular
}

// decodeFor decodes b, a snapshot of the tick just stepped, as client game cg.
func (d *deltaPlay) decodeFor(cg *ClientGame, s *client.Snapshot, b []byte, regular bool) error {
	// The time as the protocol's header carries it, in whole microseconds.
	s.Tick, s.Time, s.Regular, s.Entities, s.Base, s.Baseline = d.n, d.g.now/time.Microsecond*time.Microsecond, regular, s.Entities[:0], 0, false
	return cg.DecodeSnapshot(s, b)
}

// Every per-client snapshot decodes to the very states of the whole one,
// through lost snapshots and late acknowledgements, and once a baseline is
// acknowledged the snapshots are deltas and much smaller.
func TestDeltaSnapshots(t *testing.T) {
	d := newDeltaPlay(t, 22)
	cg := NewClientGame(DefaultRules())
	rng := rand.New(rand.NewPCG(1, 1))
	var s, whole client.Snapshot
	var acks []uint64 // the client's acknowledgements on their way, one per tick
	acked := uint64(0)
	deltas, wholes, deltaBytes, wholeBytes := 0, 0, 0, 0
	knots, repeatsLeft := map[time.Duration]bool{}, 0 // the knots the client decoded; repeats left out
	for range 1800 {
		due, regular := d.step()
		acks = append(acks, 0)
		if len(acks) > 6 { // six ticks up
			acked = max(acked, acks[0])
			acks = acks[1:]
		}
		if !due {
			continue
		}
		w := d.g.AppendSnapshot(nil, regular)
		if err := d.decodeFor(cg, &whole, w, regular); err != nil {
			t.Fatal(err)
		}
		b := d.g.AppendSnapshotFor(nil, 7, regular, acked, reliable.MaxUnreliableSize)
		if rng.IntN(5) == 0 { // lost
			continue
		}
		if err := d.decodeFor(cg, &s, b, regular); err != nil {
			t.Fatalf("tick %d: %v", d.n, err)
		}
		want := whole.Entities
		if len(s.Entities) == len(want)-1 && want[0].ID == BallID && want[0].State.Knot {
			// A repeated knot is left out once the client keeps a
			// snapshot that held it.
			if !knots[want[0].State.Time] {
				t.Fatalf("tick %d: the knot of %v left out, never received", d.n, want[0].State.Time)
			}
			want = want[1:]
			repeatsLeft++
		}
		if len(s.Entities) != len(want) {
			t.Fatalf("tick %d: %d entities, whole %d", d.n, len(s.Entities), len(want))
		}
		for i := range s.Entities {
			if s.Entities[i] != want[i] {
				t.Fatalf("tick %d entity %d:\n%+v\nwhole %+v", d.n, i, s.Entities[i], want[i])
			}
			if e := &s.Entities[i]; e.ID == BallID && e.State.Knot {
				knots[e.State.Time] = true
			}
		}
		if a, _ := DecodeScore(s.Meta); a != must(DecodeScore(whole.Meta)) {
			t.Fatalf("meta %x, whole %x", s.Meta, whole.Meta)
		}
		if len(s.Entities) > 3 {
			if s.Base != 0 {
				deltas++
				deltaBytes += len(b)
			} else {
				wholes++
				wholeBytes += len(w)
			}
		}
		if s.Baseline {
			acks[len(acks)-1] = d.n
		}
	}
	if repeatsLeft == 0 {
		t.Fatal("no repeated knot left out")
	}
	if deltas < 10*wholes {
		t.Fatalf("%d deltas, %d whole", deltas, wholes)
	}
	// Measured: 22 players, bots, a fifth of the snapshots lost, deltas
	// against a baseline three snapshots old or more: 182 bytes against 385
	// whole.
	perDelta, perWhole := float64(deltaBytes)/float64(deltas), float64(wholeBytes)/float64(wholes)
	t.Logf("%d deltas of %.0f bytes, %d whole of %.0f; %d repeated knots left out", deltas, perDelta, wholes, perWhole, repeatsLeft)
	if perDelta > 0.6*perWhole {
		t.Fatalf("deltas of %.0f bytes, whole %.0f", perDelta, perWhole)
	}
}

// A client that missed its baseline drops the snapshot as malformed, and
// a whole one decodes anew.
func TestDeltaMissingBaseline(t *testing.T) {
	d := newDeltaPlay(t, 4)
	sent, got := NewClientGame(DefaultRules()), NewClientGame(DefaultRules())
	var s client.Snapshot
	var first uint64
	for first == 0 {
		if due, regular := d.step(); due && regular {
			b := d.g.AppendSnapshotFor(nil, 0, true, 0, reliable.MaxUnreliableSize)
			if err := d.decodeFor(sent, &s, b, true); err != nil || !s.Baseline || s.Base != 0 {
				t.Fatalf("%v, baseline %v, base %d", err, s.Baseline, s.Base)
			}
			first = d.n
		}
	}
	for {
		if due, regular := d.step(); due && regular {
			break
		}
	}
	b := d.g.AppendSnapshotFor(nil, 0, true, first, reliable.MaxUnreliableSize)
	if err := d.decodeFor(sent, &s, b, true); err != nil || s.Base != first {
		t.Fatalf("%v, base %d, want %d", err, s.Base, first)
	}
	if err := d.decodeFor(got, &s, b, true); !errors.Is(err, errNoBaseline) {
		t.Fatalf("without the baseline: %v", err)
	}
	// An acknowledgement of a tick the server does not keep for the client
	// gets whole players.
	b = d.g.AppendSnapshotFor(nil, 0, true, d.n-1, reliable.MaxUnreliableSize)
	if err := d.decodeFor(got, &s, b, true); err != nil || s.Base != 0 || len(s.Entities) != 5 {
		t.Fatalf("%v, base %d, %d entities", err, s.Base, len(s.Entities))
	}
}

// With 64 players, whose whole shared snapshot is larger than a packet,
// every per-client snapshot fits the budget and holds every player (bit
// packing alone makes 64 whole players fit); far below a packet, the
// carrier always goes and no player waits more than 200 ms.
func TestDeltaBudget(t *testing.T) {
	for _, budget := range []int{reliable.MaxUnreliableSize - 20, 400} {
		d := newDeltaPlay(t, 64)
		cg := NewClientGame(d.g.rules)
		var s client.Snapshot
		var last [64]uint64
		acked, worst, over := uint64(0), uint64(0), 0
		for range 900 {
			due, regular := d.step()
			if !due {
				continue
			}
			if w := d.g.AppendSnapshot(nil, regular); len(w)+20 > reliable.MaxUnreliableSize {
				over++
			}
			b := d.g.AppendSnapshotFor(nil, 0, regular, acked, budget)
			if len(b) > budget {
				t.Fatalf("budget %d: %d bytes", budget, len(b))
			}
			if err := d.decodeFor(cg, &s, b, regular); err != nil {
				t.Fatal(err)
			}
			if s.Baseline {
				acked = d.n
			}
			if !regular {
				continue
			}
			for _, e := range s.Entities {
				if e.Kind == KindPlayer {
					last[e.ID-FirstPlayerID] = d.n
				}
			}
			if p := d.g.possessor; p >= 0 && last[p] != d.n {
				t.Fatalf("tick %d: the carrier left out", d.n)
			}
			for _, n := range last {
				worst = max(worst, d.n-n)
			}
		}
		t.Logf("budget %d: whole snapshots over a packet %d, longest wait %d ticks", budget, over, worst)
		if budget > 1000 && over == 0 {
			t.Fatal("the whole snapshot fits a packet: no test of the budget")
		}
		if limit := map[bool]uint64{true: 0, false: 12}[budget > 1000]; worst > limit {
			t.Fatalf("a player waited %d ticks", worst)
		}
	}
}

// Encoding for a client and decoding allocate nothing once running.
func TestDeltaAllocs(t *testing.T) {
	d := newDeltaPlay(t, 22)
	cg := NewClientGame(DefaultRules())
	var s client.Snapshot
	buf := make([]byte, 0, reliable.MaxUnreliableSize)
	acked := uint64(0)
	for d.n < 10 {
		d.step()
	}
	if n := testing.AllocsPerRun(50, func() {
		buf = d.g.AppendSnapshotFor(buf[:0], 0, true, acked, reliable.MaxUnreliableSize)
		d.n += 2
		d.g.tick, d.g.now = d.n, d.g.now+2*dt
		if err := d.decodeFor(cg, &s, buf, true); err != nil {
			t.Fatal(err)
		}
		acked = d.n
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// FuzzDecodeDelta decodes arbitrary bytes as a per-client snapshot against
// the baselines of a played match: an error or finite states, never a panic.
func FuzzDecodeDelta(f *testing.F) {
	d := newDeltaPlay(f, 6)
	cg := NewClientGame(DefaultRules())
	var s client.Snapshot
	acked := uint64(0)
	for range 240 {
		due, regular := d.step()
		if !due {
			continue
		}
		b := d.g.AppendSnapshotFor(nil, 0, regular, acked, reliable.MaxUnreliableSize)
		if err := d.decodeFor(cg, &s, b, regular); err != nil {
			f.Fatal(err)
		}
		if s.Baseline {
			acked = d.n - 4
		}
		if d.n%20 == 0 || !regular {
			f.Add(b, uint8(d.n%8))
		}
	}
	kept := *cg.received
	f.Fuzz(func(t *testing.T, b []byte, back uint8) {
		*cg.received = kept
		s.Tick, s.Time, s.Entities = d.n+uint64(back%4), d.g.now, s.Entities[:0]
		if err := cg.DecodeSnapshot(&s, b); err != nil {
			return
		}
		for _, e := range s.Entities {
			if !e.State.Pos.IsFinite() || !e.State.Vel.IsFinite() || math.IsNaN(e.State.Rot.W) {
				t.Fatalf("decoded %+v", e)
			}
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkDecodeSnapshot decodes one regular snapshot of 22 players, encoded
// for the client against the baseline it acknowledged two snapshots before.
func BenchmarkDecodeSnapshot(b *testing.B) {
	d := newDeltaPlay(b, 22)
	cg := NewClientGame(DefaultRules())
	var s client.Snapshot
	var snap []byte
	acked := uint64(0)
	for range 120 {
		due, regular := d.step()
		if !due || !regular {
			continue
		}
		snap = d.g.AppendSnapshotFor(snap[:0], 0, true, acked, reliable.MaxUnreliableSize)
		if err := d.decodeFor(cg, &s, snap, true); err != nil {
			b.Fatal(err)
		}
		acked = d.n - 4
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(snap)))
	for b.Loop() {

		if err := d.decodeFor(cg, &s, snap, true); err != nil {
			b.Fatal(err)
		}
	}
}

// A player speeding up steadily is where its baseline's pose, moved at the
// mean of the baseline's velocity and the new one, puts it: its position
// costs no more than a zero each.
func TestDeltaMidway(t *testing.T) {
	const a = 300.0 // cm/s²
	base := known{q: qpose{x: 1000, z: -2000, vx: 200, vz: -100}}
	for _, dt := range []time.Duration{33 * time.Millisecond, 133 * time.Millisecond, 400 * time.Millisecond} {
		s := dt.Seconds()
		q := base.q
		q.vx, q.vz = 200+int64(a*s), -100-int64(a*s)
		q.x = 1000 + int64(math.Round(10*(2*s+(float64(q.vx)/100-2)*s/2)*100))
		q.z = -2000 + int64(math.Round(10*(-s+(float64(q.vz)/100+1)*s/2)*100))
		d := diffs(q, &poseRef{q: base.at(dt), dt: dt, delta: true})
		if d[0] != 0 || d[1] != 0 {
			t.Fatalf("dt %v: position coded as %d, %d", dt, d[0], d[1])
		}
	}
}

// The rotation prediction's integers turn a packed rotation as the
// physics turns a body (geom.Quat.Integrate), packed: a ball spinning
// steadily costs its rotation one bit.
func TestRotAhead(t *testing.T) {
	q := geom.AxisAngle(geom.V(0.3, 1, -0.2), 1.1)
	for _, w := range []geom.Vec3{geom.V(0, 0, 0.5), geom.V(3, 0, -20), geom.V(50, 2, 80), geom.V(-90, 0, 10)} {
		for _, dt := range []time.Duration{33 * time.Millisecond, 133 * time.Millisecond, 400 * time.Millisecond} {
			st := wire.QuantiseState(kinematic.State{Rot: q, AngVel: w})
			spin := st.State(0).AngVel
			want := geom.PackSmallestThree(geom.UnpackSmallestThree(st.Rot, wire.RotBits).Integrate(spin, dt.Seconds()), wire.RotBits)
			got := rotAhead(st.Rot, st.AngVel, st.AngVel, int64(dt))
			same, d := rotDiffs(got, want)
			if !same || max(abs64(d[0]), abs64(d[1]), abs64(d[2])) > 1 {
				t.Errorf("spin %v for %v: predicted %x, turned %x (%v)", w, dt, got, want, d)
			}
		}
	}
	if got := rotAhead(st0.Rot, [3]int64{}, [3]int64{}, int64(time.Second)); got != st0.Rot {
		t.Errorf("no spin: %x, want %x", got, st0.Rot)
	}
}

var st0 = wire.QuantiseState(kinematic.State{Rot: geom.AxisAngle(geom.V(1, 0, 0), 2)})
