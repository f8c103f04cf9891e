package replica

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/wire"
)

// randomSchema declares one to three kinds of random fields and predictors.
func randomSchema(rng *rand.Rand) *Schema {
	var kinds []Kind
	for range 1 + rng.IntN(3) {
		var k Kind
		axes := []Axes{XYZ, XZ, Y, X | Y}[rng.IntN(4)]
		k.Fields = append(k.Fields, Position([]int{1000, 100, 512}[rng.IntN(3)], axes))
		if rng.IntN(4) > 0 {
			k.Fields = append(k.Fields, Velocity([]int{1000, 100, 20}[rng.IntN(3)], axes))
		}
		switch rng.IntN(3) {
		case 0:
			k.Fields = append(k.Fields, Rotation(2+rng.IntN(18)))
		case 1:
			k.Fields = append(k.Fields, Yaw(1<<(2+rng.IntN(15))))
		}
		if rng.IntN(2) == 0 {
			k.Fields = append(k.Fields, AngularVelocity(1000, XYZ))
		}
		if rng.IntN(2) == 0 {
			k.Fields = append(k.Fields, Gen(), Tag())
		}
		if rng.IntN(2) == 0 {
			k.Fields = append(k.Fields, Int(rng.IntN(MaxInts), -5, 300), Knot())
		}
		if rng.IntN(3) == 0 {
			k.Fields = append(k.Fields, Input(100, XZ), Cut(), Attach([]int{1000, 100}[rng.IntN(2)]))
		}
		k.Predictor = []Predictor{nil, Hold{}, Linear{}, Extrapolate{Samples: 2}, Extrapolate{}}[rng.IntN(5)]
		k.Earlier = rng.IntN(3)
		kinds = append(kinds, k)
	}
	s, err := NewSchema(kinds...)
	if err != nil {
		panic(err)
	}
	return s
}

// sim is a world of moving entities that spawn, despawn, jump and change.
type sim struct {
	rng  *rand.Rand
	s    *Schema
	ents map[uint32]*Entity
	next uint32
}

func newSim(seed uint64, s *Schema) *sim {
	return &sim{rng: rand.New(rand.NewPCG(seed, 99)), s: s, ents: map[uint32]*Entity{}}
}

func (m *sim) step(t time.Duration, dt time.Duration, w *World) {
	rng := m.rng
	if len(m.ents) < 40 && rng.IntN(3) == 0 || len(m.ents) == 0 {
		e := &Entity{ID: m.next + uint32(rng.IntN(3)), Kind: uint8(rng.IntN(m.s.Kinds()))}
		m.next = e.ID + 1
		e.State.Pos = geom.V(rng.NormFloat64()*20, rng.Float64()*5, rng.NormFloat64()*20)
		e.State.Vel = geom.V(rng.NormFloat64()*3, 0, rng.NormFloat64()*3)
		e.State.Rot = geom.AxisAngle(geom.V(0, 1, 0), rng.Float64()*6)
		m.ents[e.ID] = e
	}
	for id, e := range m.ents {
		switch x := rng.IntN(200); {
		case x == 0:
			delete(m.ents, id)
			continue
		case x == 1:
			e.Gen++
			e.State.Pos = geom.V(rng.NormFloat64()*20, 0, rng.NormFloat64()*20)
		case x < 6:
			e.State.Vel = geom.V(rng.NormFloat64()*5, rng.NormFloat64(), rng.NormFloat64()*5)
			e.State.AngVel = geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
			e.State.Knot = true
			e.Earlier = []kinematic.State{{Time: t - dt, Pos: e.State.Pos, Vel: e.State.Vel.Scale(0.5)}}
			e.State.Input = geom.V(rng.NormFloat64()*5, 0, rng.NormFloat64()*5)
			e.State.Cut = rng.IntN(2) == 0
			e.Attach = Attachment{}
			if rng.IntN(2) == 0 {
				e.Attach = Attachment{On: true, Parent: uint32(rng.IntN(50)), Offset: geom.V(0.5, 0.1, rng.NormFloat64())}
				if rng.IntN(2) == 0 {
					e.Attach.From, e.Attach.Since, e.Attach.Span = geom.V(rng.NormFloat64(), 0, 0), t-time.Duration(rng.IntN(200))*time.Millisecond, 200*time.Millisecond
				}
				e.EarlierAttach = []Attachment{{On: true, Parent: uint32(rng.IntN(50))}}
			}
		case x < 8:
			e.Tag, e.Ints[rng.IntN(MaxInts)] = uint8(rng.IntN(256)), int32(rng.IntN(400))-50
		case x < 100: // at rest
			e.State.Vel = geom.Vec3{}
		}
		e.State.Pos = e.State.Pos.Add(e.State.Vel.Scale(dt.Seconds()))
		e.State.Rot = e.State.Rot.Mul(geom.AxisAngle(geom.V(0, 1, 0), 0.02)).Norm()
	}
	w.Reset()
	for _, e := range m.ents {
		w.Add(*e)
		e.State.Knot, e.State.Cut, e.Earlier, e.EarlierAttach = false, false, nil, nil
	}
	if rng.IntN(20) == 0 {
		w.Meta = append(w.Meta, byte(rng.IntN(256)))
		if len(w.Meta) > MaxMeta {
			w.Meta = w.Meta[:1]
		}
	}
}

// wholeOf decodes a whole snapshot of the encoder's world, coded afresh.
func wholeOf(t *testing.T, s *Schema, w *World, tick uint64, tm time.Duration) Decoded {
	t.Helper()
	e := NewEncoder(s, Config{})
	*e.World() = *w
	e.world.prepared = false
	b := e.Append(nil, -1, tick, tm, 0, 0)
	var out Decoded
	if err := NewDecoder(s).Decode(&out, tick, tm, b); err != nil {
		t.Fatalf("whole snapshot: %v", err)
	}
	out.Meta = append([]byte(nil), out.Meta...)
	return out
}

// For random schemas, worlds and loss patterns, a delta decodes to exactly
// what the whole snapshot of the same world decodes to.
func TestDeltaIsWhole(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			s := randomSchema(rng)
			m := newSim(seed, s)
			enc := NewEncoder(s, Config{})
			enc.Join(0, NoSelf)
			dec := NewDecoder(s)
			loss := rng.Float64() * 0.5
			var acked uint64
			deltas := 0
			const dt = time.Second / 30
			for tick := uint64(1); tick <= 300; tick++ {
				tm := time.Duration(tick) * dt
				m.step(tm, dt, enc.World())
				b := enc.Append(nil, 0, tick, tm, acked, 0)
				if rng.Float64() < loss {
					continue // lost on the way
				}
				var got Decoded
				err := dec.Decode(&got, tick, tm, b)
				if errors.Is(err, ErrNoBaseline) {
					t.Fatalf("tick %d: %v", tick, err)
				}
				if err != nil {
					t.Fatalf("tick %d: %v", tick, err)
				}
				want := wholeOf(t, s, enc.World(), tick, tm)
				if !reflect.DeepEqual(got.Entities, want.Entities) {
					for i := range min(len(got.Entities), len(want.Entities)) {
						if !reflect.DeepEqual(got.Entities[i], want.Entities[i]) {
							t.Fatalf("tick %d (base %d): entity %d of %d decoded\n%+v\nwant\n%+v", tick, got.Base, i, len(want.Entities), got.Entities[i], want.Entities[i])
						}
					}
					t.Fatalf("tick %d (base %d): %d entities decoded, want %d", tick, got.Base, len(got.Entities), len(want.Entities))
				}
				if string(got.Meta) != string(want.Meta) {
					t.Fatalf("tick %d: meta %x, want %x", tick, got.Meta, want.Meta)
				}
				if got.Base != 0 {
					deltas++
				}
				if got.Keep && rng.Float64() >= loss {
					acked = tick
				}
			}
			if deltas < 50 {
				t.Errorf("only %d deltas", deltas)
			}
		})
	}
}

// With a byte budget, what a snapshot refreshes is the truth, and every
// change reaches the client within a few snapshots.
func TestBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ), Velocity(100, XYZ)}})
	enc := NewEncoder(s, Config{})
	enc.Join(0, NoSelf)
	dec := NewDecoder(s)
	const n, budget = 400, 300
	pos := make([]geom.Vec3, n)
	seen := make([]time.Duration, n)
	var acked uint64
	worst := time.Duration(0)
	const dt = time.Second / 30
	for tick := uint64(1); tick <= 200; tick++ {
		tm := time.Duration(tick) * dt
		w := enc.World()
		w.Reset()
		for i := range pos {
			if rng.IntN(4) == 0 {
				pos[i] = pos[i].Add(geom.V(rng.NormFloat64(), 0, rng.NormFloat64()))
			}
			w.Add(Entity{ID: uint32(i), State: kinematic.State{Pos: pos[i]}})
		}
		b := enc.Append(nil, 0, tick, tm, acked, budget)
		if len(b) > budget {
			t.Fatalf("tick %d: %d bytes over the budget of %d", tick, len(b), budget)
		}
		var got Decoded
		if err := dec.Decode(&got, tick, tm, b); err != nil {
			t.Fatal(err)
		}
		acked = tick
		for _, e := range got.Entities {
			if d := e.State.Pos.Sub(pos[e.ID]).Len(); d > 0.001 {
				t.Fatalf("tick %d entity %d: %v off", tick, e.ID, d)
			}
			seen[e.ID] = tm
		}
		if tick > 60 {
			for i := range seen {
				worst = max(worst, tm-seen[i])
			}
		}
	}
	if st := enc.Stats(); st.LeftOut == 0 || st.Oversize != 0 {
		t.Errorf("stats %+v: want some left out, none oversize", st)
	}
	if worst > time.Second {
		t.Errorf("an entity waited %v to be refreshed", worst)
	}
	t.Logf("longest wait %v", worst)
}

// An entity at rest costs a small fraction of a bit once the client knows it.
func TestRestCost(t *testing.T) {
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ), Velocity(20, XYZ)}})
	enc := NewEncoder(s, Config{})
	enc.Join(0, NoSelf)
	var b []byte
	for tick := uint64(1); tick <= 3; tick++ {
		w := enc.World()
		w.Reset()
		for i := range 1000 {
			w.Add(Entity{ID: uint32(i), State: kinematic.State{Pos: geom.V(float64(i), 0, 1)}})
		}
		b = enc.Append(b[:0], 0, tick, time.Duration(tick)*time.Second/60, tick-1, 0)
	}
	if len(b) > 20 {
		t.Errorf("1000 entities at rest: %d bytes", len(b))
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ)}})
	b, _ := NewSchema(Kind{Fields: []Field{Position(100, XYZ)}})
	e := NewEncoder(a, Config{})
	e.World().Add(Entity{ID: 1})
	snap := e.Append(nil, -1, 1, time.Second, 0, 0)
	var out Decoded
	if err := NewDecoder(b).Decode(&out, 1, time.Second, snap); !errors.Is(err, ErrFingerprint) {
		t.Errorf("another schema's snapshot: %v", err)
	}
}

func TestMulDiv(t *testing.T) {
	for _, c := range []struct{ a, b, c, want int64 }{
		{7, 3, 2, 11}, {-7, 3, 2, -11}, {5, 1, 2, 3}, {-5, 1, 2, -3}, {1 << 40, 1 << 40, 1 << 41, 1 << 39},
		{math.MaxInt64, 4, 2, math.MaxInt64},
	} {
		if got := MulDiv(c.a, c.b, c.c); got != c.want {
			t.Errorf("MulDiv(%d, %d, %d) = %d, want %d", c.a, c.b, c.c, got, c.want)
		}
	}
}

// A parabola is predicted exactly from three samples.
func TestExtrapolateParabola(t *testing.T) {
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, Y)}, Predictor: Extrapolate{}})
	l := s.Layout(0)
	y := func(t time.Duration) int32 { x := t.Seconds(); return int32(math.Round((3 + 4*x - 4.9*x*x) * 1000)) }
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	hist := []Sample{{at(100), []int32{y(at(100))}}, {at(67), []int32{y(at(67))}}, {at(33), []int32{y(at(33))}}}
	pred := make([]int64, 1)
	Extrapolate{}.Predict(&l, pred, hist, at(133))
	if d := pred[0] - int64(y(at(133))); d < -2 || d > 2 {
		t.Errorf("predicted %d, truth %d", pred[0], y(at(133)))
	}
}

func TestAllocs(t *testing.T) {
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ), Velocity(100, XYZ), Rotation(12)}, Predictor: Extrapolate{}})
	m := newSim(3, s)
	enc := NewEncoder(s, Config{})
	enc.Join(0, NoSelf)
	dec := NewDecoder(s)
	var buf []byte
	var out Decoded
	tick := uint64(0)
	run := func() {
		tick++
		tm := time.Duration(tick) * time.Second / 30
		w := enc.World()
		w.Reset()
		for _, e := range m.ents { // the same entities, moving
			e.State.Pos = e.State.Pos.Add(e.State.Vel.Scale(1.0 / 30))
			w.Add(*e)
		}
		buf = enc.Append(buf[:0], 0, tick, tm, tick-1, 0)
		out.Entities = out.Entities[:0]
		if err := dec.Decode(&out, tick, tm, buf); err != nil {
			t.Fatal(err)
		}
	}
	for range 30 {
		m.step(0, time.Second/30, enc.World())
	}
	for range 70 {
		run()
	}
	if n := testing.AllocsPerRun(50, run); n != 0 {
		t.Errorf("%v allocs a snapshot", n)
	}
}

// recorded returns a random schema drawn from rng and the snapshots of
// ticks 1 to n (30 a second) of a simulation seeded with seed, each coded
// for one client against the tick before, by index of tick (0 unused).
func recorded(rng *rand.Rand, seed uint64, n int) (*Schema, [][]byte) {
	s := randomSchema(rng)
	m := newSim(seed, s)
	enc := NewEncoder(s, Config{})
	enc.Join(0, NoSelf)
	snaps := make([][]byte, n+1)
	for tick := uint64(1); tick <= uint64(n); tick++ {
		tm := time.Duration(tick) * time.Second / 30
		m.step(tm, time.Second/30, enc.World())
		snaps[tick] = enc.Append(nil, 0, tick, tm, tick-1, 0)
	}
	return s, snaps
}

func FuzzDecode(f *testing.F) {
	_, snaps := recorded(rand.New(rand.NewPCG(8, 8)), 8, 8)
	for tick := 1; tick <= 8; tick++ {
		f.Add(uint8(tick), snaps[tick])
	}
	f.Fuzz(func(t *testing.T, seed uint8, b []byte) {
		// A schema of the seed's, fed its own snapshots first and then b.
		s := randomSchema(rand.New(rand.NewPCG(uint64(seed), 8)))
		m := newSim(uint64(seed), s)
		enc := NewEncoder(s, Config{})
		enc.Join(0, NoSelf)
		dec := NewDecoder(s)
		var out Decoded
		for tick := uint64(1); tick <= 3; tick++ {
			tm := time.Duration(tick) * time.Second / 30
			m.step(tm, time.Second/30, enc.World())
			if err := dec.Decode(&out, tick, tm, enc.Append(nil, 0, tick, tm, tick-1, 0)); err != nil {
				t.Fatal(err)
			}
		}
		out.Entities = out.Entities[:0]
		if err := dec.Decode(&out, 4, 4*time.Second/30, b); err != nil {
			if len(out.Entities) != 0 {
				t.Fatal("entities from a failed decode")
			}
			return
		}
		if len(out.Entities) > MaxEntities+3*MaxEntities {
			t.Fatal("too many entities")
		}
	})
}

var _ = wire.ProbHalf

// A field declared Within(n) is held within n steps of the truth (plus the
// half step of quantisation), however long its prediction is kept, and
// costs less than an exact one.
func TestWithin(t *testing.T) {
	var bytes [2]int
	for k, tol := range []int{0, 1} {
		s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XZ).Within(tol), Velocity(1000, XZ)}})
		enc := NewEncoder(s, Config{})
		enc.Join(0, NoSelf)
		dec := NewDecoder(s)
		rng := rand.New(rand.NewPCG(1, 1))
		pos, vel := make([]geom.Vec3, 100), make([]geom.Vec3, 100)
		for i := range vel {
			vel[i] = geom.V(rng.NormFloat64(), 0, rng.NormFloat64())
		}
		const dt = time.Second / 60
		for tick := uint64(1); tick <= 600; tick++ {
			tm := time.Duration(tick) * dt
			w := enc.World()
			w.Reset()
			for i := range pos {
				pos[i] = pos[i].Add(vel[i].Scale(dt.Seconds()))
				w.Add(Entity{ID: uint32(i), State: kinematic.State{Pos: pos[i], Vel: vel[i]}})
			}
			b := enc.Append(nil, 0, tick, tm, max(0, tick-6), 0)
			bytes[k] += len(b)
			var got Decoded
			if err := dec.Decode(&got, tick, tm, b); err != nil {
				t.Fatal(err)
			}
			for _, e := range got.Entities {
				if d := e.State.Pos.Sub(pos[e.ID]); math.Abs(d.X) > (float64(tol)+0.5)/1000+1e-9 || math.Abs(d.Z) > (float64(tol)+0.5)/1000+1e-9 {
					t.Fatalf("within %d: tick %d entity %d %v off", tol, tick, e.ID, d)
				}
			}
		}
	}
	t.Logf("bytes exact %d, within 1 step %d", bytes[0], bytes[1])
	if bytes[1] >= bytes[0] {
		t.Errorf("within 1 step costs %d bytes, exact %d", bytes[1], bytes[0])
	}
}

// wild predicts far out of every range.
type wild struct{}

func (wild) Depth() int { return 1 }
func (wild) Predict(l *Layout, pred []int64, _ []Sample, _ time.Duration) {
	for i := range pred {
		pred[i] = 1 << 40
		if i%2 == 1 {
			pred[i] = -1 << 40
		}
	}
}

// A game's predictor that predicts far out of range costs bits, never a
// crash or a wrong value.
func TestWildPredictor(t *testing.T) {
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ), Yaw(360), Int(0, -5, 5)}, Predictor: wild{}})
	enc := NewEncoder(s, Config{})
	enc.Join(0, NoSelf)
	dec := NewDecoder(s)
	for tick := uint64(1); tick <= 5; tick++ {
		tm := time.Duration(tick) * time.Second / 30
		w := enc.World()
		w.Reset()
		e := Entity{ID: 1, State: kinematic.State{Pos: geom.V(1, -2, 3), Rot: geom.AxisAngle(geom.V(0, 1, 0), 1)}}
		e.Ints[0] = 4
		w.Add(e)
		var got Decoded
		if err := dec.Decode(&got, tick, tm, enc.Append(nil, 0, tick, tm, tick-1, 0)); err != nil {
			t.Fatal(err)
		}
		if g := got.Entities[0]; g.State.Pos != geom.V(1, -2, 3) || g.Ints[0] != 4 {
			t.Fatalf("tick %d: %+v", tick, g)
		}
	}
}

// Clients that get a whole snapshot of one tick get the same bytes, coded
// once; a world changed since is coded afresh; each client keeps its own
// baseline of it.
func TestWholeShared(t *testing.T) {
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ), Velocity(100, XYZ)}})
	enc := NewEncoder(s, Config{})
	m := newSim(4, s)
	for c := range 3 {
		enc.Join(c, NoSelf)
	}
	m.step(time.Second/30, time.Second/30, enc.World())
	a := enc.Append(nil, 0, 1, time.Second/30, 0, 0)
	b := enc.Append(nil, 1, 1, time.Second/30, 0, 0)
	if string(a) != string(b) {
		t.Fatal("two whole snapshots of one tick differ")
	}
	enc.World().Add(Entity{ID: 9999, State: kinematic.State{Pos: geom.V(1, 2, 3)}})
	c := enc.Append(nil, 2, 1, time.Second/30, 0, 0)
	if string(c) == string(a) {
		t.Fatal("a world changed since was not coded afresh")
	}
	for client, snap := range [][]byte{a, b, c} {
		dec := NewDecoder(s)
		var out Decoded
		if err := dec.Decode(&out, 1, time.Second/30, snap); err != nil {
			t.Fatal(err)
		}
		m.step(2*time.Second/30, time.Second/30, enc.World())
		d := enc.Append(nil, client, 2, 2*time.Second/30, 1, 0)
		if err := dec.Decode(&out, 2, 2*time.Second/30, d); err != nil || out.Base != 1 {
			t.Fatalf("client %d: the delta against its whole snapshot: %v, base %d", client, err, out.Base)
		}
	}
	if st := enc.Stats(); st.Snapshots != 6 || st.Deltas != 3 {
		t.Errorf("stats %+v", st)
	}
}

// An entity that leaves the world is reported gone by the next snapshot
// newer than any decoded, even one the client learned of after its
// baseline (a spawn not yet acknowledged).
func TestGone(t *testing.T) {
	s, _ := NewSchema(Kind{Fields: []Field{Position(1000, XYZ)}})
	enc := NewEncoder(s, Config{})
	enc.Join(0, NoSelf)
	dec := NewDecoder(s)
	worlds := [][]uint32{{1, 2}, {1, 2, 3}, {1, 3}, {1}, {1}}
	want := [][]uint32{nil, nil, {2}, {3}, nil}
	for i, ids := range worlds {
		tick := uint64(i + 1)
		w := enc.World()
		w.Reset()
		for _, id := range ids {
			w.Add(Entity{ID: id, State: kinematic.State{Pos: geom.V(float64(id), 0, 0)}})
		}
		var out Decoded
		// Acknowledged: only the first snapshot, so 3 is never in a baseline.
		if err := dec.Decode(&out, tick, time.Duration(tick)*time.Second/30, enc.Append(nil, 0, tick, time.Duration(tick)*time.Second/30, 1, 0)); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(out.Gone) != fmt.Sprint(want[i]) && !(len(out.Gone) == 0 && len(want[i]) == 0) {
			t.Errorf("tick %d: gone %v, want %v", tick, out.Gone, want[i])
		}
	}
}

func TestNames(t *testing.T) {
	s, _ := NewSchema(Kind{Name: "player", Fields: []Field{Position(1000, XZ)}}, Kind{Name: "coin", Fields: []Field{Position(1000, XZ)}})
	if got := fmt.Sprint(s.Names()); got != "[player coin]" {
		t.Errorf("names %s", got)
	}
}

// An entity the game holds is left out of a delta, changed or not, and the
// client keeps it as it had it; a client without it gets it whole; the
// snapshot after decodes it where it is.
func TestHold(t *testing.T) {
	s, err := NewSchema(Kind{Name: "a", Fields: []Field{Position(1000, XZ), Velocity(100, XZ)}})
	if err != nil {
		t.Fatal(err)
	}
	var stats []Encoded
	enc, dec := NewEncoder(s, Config{OnSnapshot: func(e Encoded) { stats = append(stats, e) }}), NewDecoder(s)
	enc.Join(0, NoSelf)
	w := enc.World()
	fill := func(x float64, hold bool) {
		w.Reset()
		w.Add(Entity{ID: 1, State: kinematic.State{Pos: geom.V(x, 0, 0)}, Hold: hold})
		w.Add(Entity{ID: 2, State: kinematic.State{Pos: geom.V(0, 0, x)}})
	}
	var out Decoded
	step := func(tick, acked uint64) {
		t.Helper()
		out.Entities = out.Entities[:0]
		tm := time.Duration(tick) * time.Second / 30
		if err := dec.Decode(&out, tick, tm, enc.Append(nil, 0, tick, tm, acked, 0)); err != nil {
			t.Fatal(err)
		}
	}
	fill(1, true)
	step(1, 0) // whole: held or not, it goes
	if len(out.Entities) != 2 || stats[0].Held != 0 {
		t.Fatalf("whole snapshot %+v, %+v", out.Entities, stats[0])
	}
	fill(2, true)
	step(2, 1)
	if len(out.Entities) != 1 || out.Entities[0].ID != 2 || out.Entities[0].State.Pos.Z != 2 || stats[1].Held != 1 || stats[1].LeftOut != 0 {
		t.Fatalf("delta with entity 1 held: %+v, %+v", out.Entities, stats[1])
	}
	fill(3, false)
	step(3, 2)
	if len(out.Entities) != 2 || out.Entities[0].State.Pos.X != 3 || out.Entities[1].State.Pos.Z != 3 {
		t.Fatalf("after the hold: %+v", out.Entities)
	}
}

// A decoder that gave up on a malformed snapshot midway (its models partly
// coded) decodes the snapshots after it as one that never saw it.
func TestDecodeAfterMalformed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 40
	s, snaps := recorded(rng, 5, n)
	// decode feeds a new decoder the snapshots of ticks from to n, and
	// first bad at tick at if bad is not nil; it returns what each good
	// one decoded to, and whether bad failed.
	decode := func(at uint64, bad []byte) (outs []Decoded, failed bool) {
		dec := NewDecoder(s)
		for tick := uint64(1); tick <= n; tick++ {
			tm := time.Duration(tick) * time.Second / 30
			if tick == at && bad != nil {
				var out Decoded
				failed = dec.Decode(&out, tick, tm, bad) != nil
				if !failed {
					return nil, false
				}
			}
			var out Decoded
			if err := dec.Decode(&out, tick, tm, snaps[tick]); err != nil {
				t.Fatalf("tick %d: %v", tick, err)
			}
			outs = append(outs, out)
		}
		return outs, failed
	}
	want, _ := decode(0, nil)
	tried := 0
	for try := 0; try < 2000 && tried < 20; try++ {
		at := 2 + uint64(rng.IntN(n-1))
		bad := append([]byte(nil), snaps[at]...)
		if len(bad) < 4 {
			continue
		}
		// Spoil the body past its first bytes, so some entities decode.
		i := len(bad)/2 + rng.IntN(len(bad)-len(bad)/2)
		bad[i] ^= byte(1 + rng.IntN(255))
		got, failed := decode(at, bad)
		if !failed {
			continue
		}
		tried++
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after a malformed snapshot at tick %d, the decoder decodes otherwise", at)
		}
	}
	if tried == 0 {
		t.Fatal("no spoilt snapshot failed to decode")
	}
}
