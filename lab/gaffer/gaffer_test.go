package gaffer_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/lab/gaffer"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// sim is a crowd-like world of n bodies: most at rest, a few kicked rolling
// and spinning, now and then one teleported anywhere (out of bounds too)
// with any rotation.
type sim struct {
	rng  *rand.Rand
	ents []replica.Entity
	vel  []geom.Vec3
	spin []geom.Vec3
}

func newSim(seed uint64, n int, half float64) *sim {
	m := &sim{rng: rand.New(rand.NewPCG(seed, 5)), ents: make([]replica.Entity, n),
		vel: make([]geom.Vec3, n), spin: make([]geom.Vec3, n)}
	for i := range m.ents {
		e := &m.ents[i]
		e.ID = uint32(i)
		e.State.Pos = geom.V((m.rng.Float64()*2-1)*half, 0.25, (m.rng.Float64()*2-1)*half)
		if i%3 == 0 { // a third unrotated: zero, read as the identity
			continue
		}
		e.State.Rot = m.randomRot()
	}
	return m
}

func (m *sim) randomRot() geom.Quat {
	return geom.Quat{W: m.rng.NormFloat64(), X: m.rng.NormFloat64(), Y: m.rng.NormFloat64(), Z: m.rng.NormFloat64()}.Norm()
}

// step moves the bodies by dt and fills w with them.
func (m *sim) step(dt float64, w *replica.World) {
	w.Reset()
	for i := range m.ents {
		s := &m.ents[i].State
		switch x := m.rng.IntN(1000); {
		case x < 3: // kicked
			a, v := m.rng.Float64()*2*math.Pi, 3+5*m.rng.Float64()
			m.vel[i] = geom.V(v*math.Cos(a), m.rng.Float64(), v*math.Sin(a))
			m.spin[i] = geom.V(m.rng.NormFloat64()*10, m.rng.NormFloat64()*10, m.rng.NormFloat64()*10)
		case x < 4: // teleported
			s.Pos = geom.V(m.rng.NormFloat64()*100, m.rng.NormFloat64()*20, m.rng.NormFloat64()*100)
			s.Rot = m.randomRot()
		}
		if m.vel[i] != (geom.Vec3{}) {
			s.Pos = s.Pos.Add(m.vel[i].Scale(dt))
			if s.Rot == (geom.Quat{}) {
				s.Rot = geom.Identity
			}
			s.Rot = s.Rot.Integrate(m.spin[i], dt).Norm()
			m.vel[i] = m.vel[i].Scale(0.98)
			if m.vel[i].Len() < 0.3 {
				m.vel[i], m.spin[i] = geom.Vec3{}, geom.Vec3{}
			}
		}
		w.Add(m.ents[i])
	}
}

// truth is the world as a decoder should rebuild it at server time t.
func truth(cfg gaffer.Config, w *replica.World, t time.Duration) []replica.Entity {
	out := make([]replica.Entity, w.Len())
	for i := range out {
		s := &w.Entity(i).State
		pos, rot := cfg.Quantise(s.Pos, s.Rot)
		out[i] = replica.Entity{ID: uint32(i), Kind: cfg.Kind, State: kinematic.State{Time: t, Pos: pos, Rot: rot}}
	}
	return out
}

func equal(t *testing.T, tick uint64, got, want []replica.Entity) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("tick %d: %d bodies, want %d", tick, len(got), len(want))
	}
	for i := range got {
		if g, w := &got[i], &want[i]; g.ID != w.ID || g.Kind != w.Kind || g.State != w.State {
			t.Fatalf("tick %d body %d: got %+v, want %+v", tick, i, got[i], want[i])
		}
	}
}

// stream encodes m's worlds of ticks 1 to ticks, dt seconds apart, for
// client 0, each against the one before but the first; it returns the
// encoder, the last world and the snapshots.
func stream(cfg gaffer.Config, m *sim, dt float64, ticks int) (*gaffer.Encoder, *replica.World, [][]byte) {
	enc := gaffer.NewEncoder(cfg)
	enc.Join(0)
	var w replica.World
	var snaps [][]byte
	for tick := uint64(1); tick <= uint64(ticks); tick++ {
		m.step(dt, &w)
		snaps = append(snaps, enc.Append(nil, 0, tick, &w, tick-1))
	}
	return enc, &w, snaps
}

// packet is a snapshot in flight.
type packet struct {
	tick   uint64
	arrive uint64
	b      []byte
}

// Over a link that loses a fifth of the snapshots and delays the others by
// up to 5 ticks (reordering them), every snapshot decodes to the quantised
// truth, the client acknowledging the newest it kept.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		initial bool
	}{{"origin", false}, {"initial", true}} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 300
			m := newSim(1, n, 18)
			cfg := gaffer.Config{Bodies: n, Kind: 3, HalfWidth: 20}
			if tc.initial {
				cfg.Initial = append([]replica.Entity(nil), m.ents...)
			}
			enc, dec := gaffer.NewEncoder(cfg), gaffer.NewDecoder(cfg)
			enc.Join(7)
			rng := rand.New(rand.NewPCG(2, 2))
			var w replica.World
			var flight []packet
			truths := map[uint64][]replica.Entity{}
			acks := map[uint64]uint64{} // ack by the tick it reaches the server
			var acked, newest uint64
			decoded, deltas := 0, 0
			for tick := uint64(1); tick <= 600; tick++ {
				tm := time.Duration(tick) * time.Second / 60
				m.step(1.0/60, &w)
				truths[tick] = truth(cfg, &w, tm)
				if a, ok := acks[tick]; ok && a > acked {
					acked = a
				}
				b := enc.Append(nil, 7, tick, &w, acked)
				if rng.IntN(5) > 0 {
					flight = append(flight, packet{tick, tick + uint64(rng.IntN(6)), b})
				}
				rest := flight[:0]
				for _, p := range flight {
					if p.arrive > tick {
						rest = append(rest, p)
						continue
					}
					ents, base, keep, err := dec.Decode(nil, p.tick, time.Duration(p.tick)*time.Second/60, p.b)
					if err != nil {
						t.Fatalf("tick %d: %v", p.tick, err)
					}
					equal(t, p.tick, ents, truths[p.tick])
					decoded++
					if base != 0 {
						deltas++
					}
					if keep != (p.tick > newest) {
						t.Fatalf("tick %d: keep %v with %d the newest", p.tick, keep, newest)
					}
					if keep {
						newest = p.tick
						acks[tick+3] = p.tick
					}
				}
				flight = rest
			}
			s := enc.Stats()
			t.Logf("%d decoded, %d against a baseline; %d snapshots, %d indexed, %.1f bytes each", decoded, deltas, s.Snapshots, s.Indexed, float64(s.Bits)/8/float64(s.Snapshots))
			if deltas < decoded*9/10 || s.Indexed == 0 || s.Indexed == s.Snapshots {
				t.Errorf("%d of %d against a baseline, %d of %d indexed: the test does not exercise the format", deltas, decoded, s.Indexed, s.Snapshots)
			}
		})
	}
}

// bitsOf returns the bits of the snapshot of the second world against the
// first, n bodies, of which the bodies below changed moved between the two.
func bitsOf(t *testing.T, n, changed int) uint64 {
	t.Helper()
	cfg := gaffer.Config{Bodies: n}
	enc := gaffer.NewEncoder(cfg)
	enc.Join(0)
	var w replica.World
	fill := func(dx float64) {
		w.Reset()
		for i := range n {
			x := float64(i%40) - 20
			if i < changed {
				x += dx
			}
			w.Add(replica.Entity{ID: uint32(i), State: kinematic.State{Pos: geom.V(x, 0.25, float64(i/40)-20)}})
		}
	}
	fill(0)
	enc.Append(nil, 0, 1, &w, 0)
	before := enc.Stats()
	fill(0.01)
	enc.Append(nil, 0, 2, &w, 1)
	after := enc.Stats()
	if after.Initial != 1 {
		t.Fatalf("the second snapshot was not a delta")
	}
	if wantIndexed := changed < 50; (after.Indexed > before.Indexed) != wantIndexed {
		t.Fatalf("%d of %d changed: indexed %v", changed, n, !wantIndexed)
	}
	return after.Bits - before.Bits
}

// A body unchanged from the baseline costs exactly one bit when the
// snapshot has a changed bit per body, and nothing when it lists the
// changed bodies by index.
func TestUnchangedCost(t *testing.T) {
	if d := bitsOf(t, 1001, 900) - bitsOf(t, 1000, 900); d != 1 {
		t.Errorf("changed bits: an unchanged body costs %d bits, want 1", d)
	}
	if d := bitsOf(t, 1001, 10) - bitsOf(t, 1000, 10); d != 0 {
		t.Errorf("indices: an unchanged body costs %d bits, want 0", d)
	}
	// 1,000 bodies at rest: the header (initial flag, base, layout) and an
	// empty count.
	if b := bitsOf(t, 1000, 0); b != 1+16+1+10 {
		t.Errorf("all at rest: %d bits", b)
	}
}

func TestAllocs(t *testing.T) {
	const n = 1000
	m := newSim(3, n, 20)
	cfg := gaffer.Config{Bodies: n, HalfWidth: 20.2}
	enc, dec := gaffer.NewEncoder(cfg), gaffer.NewDecoder(cfg)
	enc.Join(0)
	var w replica.World
	buf := make([]byte, 0, 4096)
	out := make([]replica.Entity, 0, n)
	tick := uint64(0)
	step := func() {
		tick++
		m.step(1.0/60, &w)
		buf = enc.Append(buf[:0], 0, tick, &w, tick-min(tick, 4))
		var err error
		if out, _, _, err = dec.Decode(out[:0], tick, 0, buf); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 * gaffer.Ring {
		step()
	}
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Errorf("%v allocations a snapshot", a)
	}
}

func TestErrors(t *testing.T) {
	const n = 100
	cfg := gaffer.Config{Bodies: n, HalfWidth: 20}
	enc, w, snaps := stream(cfg, newSim(4, n, 18), 1.0/60, 40)

	// A delta to a decoder that never decoded its baseline.
	if _, base, _, err := gaffer.NewDecoder(cfg).Decode(nil, 5, 0, snaps[4]); !errors.Is(err, gaffer.ErrNoBaseline) || base != 4 {
		t.Errorf("no baseline: %v, base %d", err, base)
	}

	// Every cut of a snapshot is an error and changes nothing: the decoder
	// then decodes the stream as one that never saw them.
	clean, dirty := gaffer.NewDecoder(cfg), gaffer.NewDecoder(cfg)
	out := []replica.Entity{{ID: 77}}
	for i, b := range snaps {
		tick := uint64(i + 1)
		for cut := range len(b) {
			got, _, keep, err := dirty.Decode(out, tick, 0, b[:cut])
			if !errors.Is(err, wire.ErrTruncated) && !errors.Is(err, wire.ErrMalformed) || keep || len(got) != 1 {
				t.Fatalf("tick %d cut to %d of %d bytes: %v, keep %v, %d entities", tick, cut, len(b), err, keep, len(got))
			}
		}
		want, _, _, err1 := clean.Decode(nil, tick, 0, b)
		got, _, _, err2 := dirty.Decode(nil, tick, 0, b)
		if err1 != nil || err2 != nil {
			t.Fatalf("tick %d: %v, %v", tick, err1, err2)
		}
		equal(t, tick, got, want)
	}

	// A base of no earlier tick, trailing bits.
	if _, _, _, err := gaffer.NewDecoder(cfg).Decode(nil, 3, 0, []byte{8 << 1, 0, 0, 0}); !errors.Is(err, wire.ErrMalformed) {
		t.Errorf("base after the snapshot: %v", err)
	}
	long := append(append([]byte(nil), snaps[0]...), 1)
	if _, _, _, err := gaffer.NewDecoder(cfg).Decode(nil, 1, 0, long); !errors.Is(err, wire.ErrMalformed) {
		t.Errorf("a byte too many: %v", err)
	}

	// A world of another count is refused.
	w.Add(replica.Entity{ID: n})
	if b := enc.Append([]byte{9}, 0, 41, w, 40); len(b) != 1 || enc.Stats().Refused != 1 {
		t.Errorf("%d bodies: %d bytes appended, stats %+v", w.Len(), len(b)-1, enc.Stats())
	}
}

func TestConfigCheck(t *testing.T) {
	for _, c := range []gaffer.Config{
		{Bodies: -1}, {Bodies: gaffer.MaxBodies + 1}, {HalfWidth: math.NaN()}, {HalfWidth: -1},
		{Height: math.Inf(1)}, {Bodies: 2, Initial: make([]replica.Entity, 3)},
	} {
		if err := c.Check(); !errors.Is(err, gaffer.ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (gaffer.Config{}).Check(); err != nil {
		t.Error(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("NewEncoder of a bad config did not panic")
		}
	}()
	gaffer.NewEncoder(gaffer.Config{Bodies: -1})
}

// Positions clamp into the bounds; rotations are exact at the identity.
func TestQuantise(t *testing.T) {
	cfg := gaffer.Config{HalfWidth: 20}
	pos, rot := cfg.Quantise(geom.V(-100, -1, 100), geom.Quat{})
	if want := geom.V(-20, 0, 20-1.0/512); pos != want || rot != geom.Identity {
		t.Errorf("got %v %v, want %v identity", pos, rot, want)
	}
	q := geom.AxisAngle(geom.V(1, 2, 3).Norm(), 2)
	if _, r := cfg.Quantise(geom.Vec3{}, q); r.Angle(q) > 0.01 {
		t.Errorf("rotation off by %v rad", r.Angle(q))
	}
	if _, r := cfg.Quantise(geom.Vec3{}, geom.Quat{W: math.NaN()}); r != geom.Identity {
		t.Errorf("NaN rotation: %v", r)
	}
}
