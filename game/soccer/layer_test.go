package soccer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/replica"
)

// layer is both halves of the replication layer for a match in tests: the
// server's encoder of its snapshots, and one client's decoder, whose
// entities it carries to client.EntityState as the client core does.
type layer struct {
	enc *replica.Encoder
	dec *replica.Decoder
	out replica.Decoded
	// extra makes the snapshots encode extra ones (not regular).
	extra bool
}

// newLayer returns the layer of g's snapshots, configured as g configures
// the server's.
func newLayer(g *Game) *layer {
	s, cfg := g.Replication()
	return &layer{enc: replica.NewEncoder(s, cfg), dec: replica.NewDecoder(s)}
}

// decodeLayer returns a layer for decoding the snapshots of a match under
// rules.
func decodeLayer(rules Rules) *layer {
	s := Schema(rules)
	return &layer{enc: replica.NewEncoder(s, replica.Config{}), dec: replica.NewDecoder(s)}
}

// wireTime is server time t as a snapshot's header carries it, in whole
// microseconds.
func wireTime(t time.Duration) time.Duration { return t.Truncate(time.Microsecond) }

// encode appends the snapshot of the tick g just stepped for client cl (one
// never joined gets it whole) against tick acked, within budget bytes (0:
// none), as the server does.
func (l *layer) encode(dst []byte, g *Game, cl int, acked uint64, budget int) []byte {
	w := l.enc.World()
	w.Reset()
	w.Regular = !l.extra
	g.Replicate(w)
	return l.enc.Append(dst, cl, g.tick, wireTime(g.now), acked, budget)
}

// decode decodes b, the layer's bytes of the snapshot of s.Tick at s.Time,
// into s as the client core does.
func (l *layer) decode(s *client.Snapshot, b []byte) error {
	l.out.Entities = l.out.Entities[:0]
	s.Entities, s.Base, s.Baseline = s.Entities[:0], 0, false
	if err := l.dec.Decode(&l.out, s.Tick, s.Time, b); err != nil {
		return err
	}
	for i := range l.out.Entities {
		e := &l.out.Entities[i]
		es := client.EntityState{ID: e.ID, Kind: e.Kind, Tag: e.Tag, Gen: e.Gen, State: e.State, Ints: e.Ints, Parent: client.NoParent}
		if a := &e.Attach; a.On {
			es.Parent, es.Offset = a.Parent, a.Offset
			if a.Span > 0 {
				es.Blend = client.Blend{From: a.From, Since: a.Since, Span: a.Span}
			}
		}
		s.Entities = append(s.Entities, es)
	}
	s.Meta, s.Base, s.Baseline = l.out.Meta, l.out.Base, l.out.Keep
	return nil
}

type snapshotForTest struct{ client.Snapshot }

// of makes s the whole snapshot of the tick g just stepped, as a client
// decodes it.
func (s *snapshotForTest) of(t *testing.T, g *Game) {
	t.Helper()
	l := newLayer(g)
	s.Tick, s.Time = g.tick, wireTime(g.now)
	if err := l.decode(&s.Snapshot, l.encode(nil, g, -1, 0, 0)); err != nil {
		t.Fatal(err)
	}
}

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

// decodeFor decodes b, a snapshot of the tick just stepped, with l.
func (d *deltaPlay) decodeFor(l *layer, s *client.Snapshot, b []byte, regular bool) error {
	s.Tick, s.Time, s.Regular = d.n, wireTime(d.g.now), regular
	return l.decode(s, b)
}

// Every per-client snapshot decodes to the very states of the whole one,
// through lost snapshots and late acknowledgements (soccer's predictors
// reach the same integers on both sides), and once a baseline is
// acknowledged the snapshots are deltas and much smaller.
func TestDeltaSnapshots(t *testing.T) {
	d := newDeltaPlay(t, 22)
	l, whole := newLayer(d.g), newLayer(d.g)
	l.enc.Join(7, FirstPlayerID+7)
	rng := rand.New(rand.NewPCG(1, 1))
	var s, ws client.Snapshot
	var acks []uint64 // the client's acknowledgements on their way, one per tick
	acked := uint64(0)
	deltas, wholes, deltaBytes, wholeBytes, held := 0, 0, 0, 0, 0
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
		whole.extra, l.extra = !regular, !regular
		w := whole.encode(nil, d.g, -1, 0, 0)
		whole.dec = replica.NewDecoder(Schema(d.g.rules))
		if err := d.decodeFor(whole, &ws, w, regular); err != nil {
			t.Fatal(err)
		}
		b := l.encode(nil, d.g, 7, acked, reliable.MaxUnreliableSize)
		if rng.IntN(5) == 0 { // lost
			continue
		}
		if err := d.decodeFor(l, &s, b, regular); err != nil {
			t.Fatalf("tick %d: %v", d.n, err)
		}
		// A delta holds the same states as the whole snapshot, but for
		// the players an extra one holds (the client has them).
		want := ws.Entities
		if s.Base != 0 && !regular && !d.g.kickoff {
			want = nil
			for _, e := range ws.Entities {
				if e.Kind != KindPlayer {
					want = append(want, e)
				}
			}
			held++
		}
		if len(s.Entities) != len(want) {
			t.Fatalf("tick %d: %d entities, whole %d", d.n, len(s.Entities), len(want))
		}
		for i := range s.Entities {
			if s.Entities[i] != want[i] {
				t.Fatalf("tick %d entity %d:\n%+v\nwhole %+v", d.n, i, s.Entities[i], want[i])
			}
		}
		if a, _ := DecodeScore(s.Meta); a != must(DecodeScore(ws.Meta)) {
			t.Fatalf("meta %x, whole %x", s.Meta, ws.Meta)
		}
		if s.Base != 0 {
			deltas++
			deltaBytes += len(b)
		} else {
			wholes++
			wholeBytes += len(w)
		}
		if s.Baseline {
			acks[len(acks)-1] = d.n
		}
	}
	if deltas < 10*wholes || held == 0 {
		t.Fatalf("%d deltas, %d whole, %d extra ones holding the players", deltas, wholes, held)
	}
	perDelta, perWhole := float64(deltaBytes)/float64(deltas), float64(wholeBytes)/float64(wholes)
	t.Logf("%d deltas of %.0f bytes, %d whole of %.0f", deltas, perDelta, wholes, perWhole)
	if perDelta > 0.6*perWhole {
		t.Fatalf("deltas of %.0f bytes, whole %.0f", perDelta, perWhole)
	}
}

// A client that missed its baseline drops the snapshot, and a whole one
// decodes anew.
func TestDeltaMissingBaseline(t *testing.T) {
	d := newDeltaPlay(t, 4)
	sent := newLayer(d.g)
	sent.enc.Join(0, FirstPlayerID)
	got := newLayer(d.g)
	got.enc = sent.enc
	var s client.Snapshot
	var first uint64
	for first == 0 {
		if due, regular := d.step(); due && regular {
			b := sent.encode(nil, d.g, 0, 0, 0)
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
	b := sent.encode(nil, d.g, 0, first, 0)
	if err := d.decodeFor(sent, &s, b, true); err != nil || s.Base != first {
		t.Fatalf("%v, base %d, want %d", err, s.Base, first)
	}
	if err := d.decodeFor(got, &s, b, true); !errors.Is(err, replica.ErrNoBaseline) {
		t.Fatalf("without the baseline: %v", err)
	}
	// An acknowledgement of a tick the server does not keep for the client
	// gets a whole snapshot.
	b = sent.encode(nil, d.g, 0, d.n-1, 0)
	if err := d.decodeFor(got, &s, b, true); err != nil || s.Base != 0 || len(s.Entities) < 5 {
		t.Fatalf("%v, base %d, %d entities", err, s.Base, len(s.Entities))
	}
}

// With 64 players, every per-client snapshot fits the budget and holds
// every player; far below a packet, the carrier always goes and no player
// waits more than 200 ms.
func TestDeltaBudget(t *testing.T) {
	for _, budget := range []int{reliable.MaxUnreliableSize - 20, 400} {
		d := newDeltaPlay(t, 64)
		l := newLayer(d.g)
		l.enc.Join(0, FirstPlayerID)
		var s client.Snapshot
		var last [64]uint64
		acked, worst, biggest := uint64(0), uint64(0), 0
		for range 900 {
			due, regular := d.step()
			if !due {
				continue
			}
			biggest = max(biggest, len(decodeLayer(d.g.rules).encode(nil, d.g, -1, 0, 0)))
			b := l.encode(nil, d.g, 0, acked, budget)
			if len(b) > budget {
				t.Fatalf("budget %d: %d bytes", budget, len(b))
			}
			if err := d.decodeFor(l, &s, b, regular); err != nil {
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
				t.Fatalf("budget %d, tick %d: the carrier left out", budget, d.n)
			}
			for _, n := range last {
				worst = max(worst, d.n-n)
			}
		}
		t.Logf("budget %d: whole snapshots up to %d bytes, longest wait %d ticks", budget, biggest, worst)
		// A whole snapshot of 64 players fits a packet (about 1,000
		// bytes, where the hand codec's took more than one); 400 bytes
		// hold none.
		if budget < 1000 && biggest <= budget {
			t.Fatalf("whole snapshots fit the budget %d: no test of it", budget)
		}
		if limit := map[bool]uint64{true: 0, false: 12}[budget > 1000]; worst > limit {
			t.Fatalf("a player waited %d ticks", worst)
		}
	}
}

// Encoding for a client and decoding allocate nothing once running.
func TestDeltaAllocs(t *testing.T) {
	d := newDeltaPlay(t, 22)
	l := newLayer(d.g)
	l.enc.Join(0, FirstPlayerID)
	var s client.Snapshot
	buf := make([]byte, 0, reliable.MaxUnreliableSize)
	acked := uint64(0)
	for d.n < 10 {
		d.step()
	}
	round := func() { // a snapshot encoded, decoded and acknowledged
		buf = l.encode(buf[:0], d.g, 0, acked, reliable.MaxUnreliableSize)
		d.n += 2
		d.g.tick, d.g.now = d.n, d.g.now+2*dt
		if err := d.decodeFor(l, &s, buf, true); err != nil {
			t.Fatal(err)
		}
		acked = d.n
	}
	for range replica.Ring + 2 { // fill both sides' rings of baselines
		round()
	}
	if n := testing.AllocsPerRun(50, round); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// FuzzDecodeDelta decodes arbitrary bytes as a per-client snapshot against
// the baselines of a played match: an error or finite states, never a panic.
func FuzzDecodeDelta(f *testing.F) {
	d := newDeltaPlay(f, 6)
	l := newLayer(d.g)
	l.enc.Join(0, FirstPlayerID)
	var s client.Snapshot
	type sent struct {
		tick uint64
		at   time.Duration
		b    []byte
	}
	var played []sent
	acked := uint64(0)
	for range 240 {
		due, regular := d.step()
		if !due {
			continue
		}
		b := l.encode(nil, d.g, 0, acked, reliable.MaxUnreliableSize)
		if err := d.decodeFor(l, &s, b, regular); err != nil {
			f.Fatal(err)
		}
		played = append(played, sent{d.n, wireTime(d.g.now), b})
		if s.Baseline {
			acked = d.n - 4
		}
		if d.n%20 == 0 || !regular {
			f.Add(b, uint8(d.n%8))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, back uint8) {
		// A decoder that kept what the client did.
		m := newLayer(d.g)
		var s client.Snapshot
		for _, p := range played {
			s.Tick, s.Time = p.tick, p.at
			if err := m.decode(&s, p.b); err != nil {
				t.Fatal(err)
			}
		}
		s.Tick, s.Time = d.n+uint64(back%4), wireTime(d.g.now)
		if err := m.decode(&s, b); err != nil {
			return
		}
		for _, e := range s.Entities {
			if !e.State.Pos.IsFinite() || !e.State.Vel.IsFinite() || !e.State.Input.IsFinite() || !e.Offset.IsFinite() || math.IsNaN(e.State.Rot.W) {
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
	l := newLayer(d.g)
	l.enc.Join(0, FirstPlayerID)
	var s client.Snapshot
	var snap []byte
	acked := uint64(0)
	for range 120 {
		due, regular := d.step()
		if !due || !regular {
			continue
		}
		snap = l.encode(snap[:0], d.g, 0, acked, reliable.MaxUnreliableSize)
		if err := d.decodeFor(l, &s, snap, true); err != nil {
			b.Fatal(err)
		}
		acked = d.n - 4
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(snap)))
	for b.Loop() {
		if err := d.decodeFor(l, &s, snap, true); err != nil {
			b.Fatal(err)
		}
	}
}

// A player speeding up steadily toward the velocity it asks for is where
// its predictor puts it: its velocity and position cost nothing.
func TestPlayerPredictor(t *testing.T) {
	r := DefaultRules().WithDefaults()
	s := Schema(r)
	ly := s.Layout(KindPlayer)
	p := newPlayerPredictor(r)
	a := float64(p.acc) / 100 // m/s²
	for _, dt := range []time.Duration{33 * time.Millisecond, 133 * time.Millisecond, 400 * time.Millisecond} {
		q := make([]int32, ly.N)
		q[ly.Pos[0]], q[ly.Pos[2]] = 1000, -2000
		q[ly.Vel[0]], q[ly.Vel[2]] = 200, 0
		q[ly.Input[0]], q[ly.Input[2]] = 5000, 0 // 50 m/s ahead: never reached
		hist := []replica.Sample{{Time: time.Second, Q: q}}
		pred, cur := make([]int64, ly.N), make([]int64, ly.N)
		p.Predict(&ly, pred, hist, time.Second+dt)
		sec := dt.Seconds()
		vx := 200 + int64(math.Round(a*sec*100))
		if pred[ly.Vel[0]] != vx || pred[ly.Vel[2]] != 0 {
			t.Fatalf("dt %v: velocity predicted %d, %d; want %d, 0", dt, pred[ly.Vel[0]], pred[ly.Vel[2]], vx)
		}
		cur[ly.Vel[0]] = vx
		p.Refine(&ly, pred, cur, hist, time.Second+dt)
		x := 1000 + int64(math.Round((2+float64(vx)/100)/2*sec*1000))
		if d := pred[ly.Pos[0]] - x; d < -1 || d > 1 || pred[ly.Pos[2]] != -2000 {
			t.Fatalf("dt %v: position predicted %d, %d; want %d, -2000", dt, pred[ly.Pos[0]], pred[ly.Pos[2]], x)
		}
	}
}
