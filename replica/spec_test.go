package replica

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/protocol"
)

// The worked example of doc/wire.md: these are the bytes it quotes, and the
// test fails if the code or the document drifts from them.
const (
	specPrintText = "0/1000/5/0/-1073741824/1073741824/0/1;1/100/5/0/-1073741824/1073741824/0/0;4/256/0/0/0/255/0/0;|0|1|1#"
	specHash      = "0x1e753ef3"
	specWhole     = "020500f33e4b77ec85ff9dcfff8655f8"
	specDelta     = "020902f7d20c"
	specStill     = "020d0280"
	specWelcome   = "01073c1e"
	specAck       = "0902"
)

// TestSpecExample encodes the worked example of doc/wire.md with the
// package's encoder, checks the bytes against those the document quotes,
// and decodes them both with the package's decoder and with specState, a
// decoder written from the document alone.
func TestSpecExample(t *testing.T) {
	s, err := NewSchema(Kind{Name: "player", Fields: []Field{Position(1000, XZ).Within(1), Velocity(100, XZ), Yaw(256)}})
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New32a()
	h.Write([]byte(specPrintText))
	if got := fmt.Sprintf("%#08x", h.Sum32()); got != specHash {
		t.Errorf("FNV-1a of the documented text %s, the document quotes %s", got, specHash)
	}
	if got := uint16(h.Sum32()); got != s.print {
		t.Errorf("fingerprint of the documented text %#04x, schema's %#04x", got, s.print)
	}
	welcome := protocol.Welcome{Self: 7, TickHz: 60, SnapshotHz: 30}
	for _, c := range []struct {
		tick uint64
		us   time.Duration
	}{{2, 33333}, {3, 49999}, {4, 66666}, {6, 99999}} {
		if got := welcome.TickTime(c.tick); got != c.us*time.Microsecond {
			t.Errorf("tick %d at %v, the document says %d µs", c.tick, got, c.us)
		}
	}
	enc := NewEncoder(s, Config{})
	enc.Join(0, 7)
	dec := NewDecoder(s)

	snap := func(tick uint64, x, z, vx float64, yawTurns float64, acked uint64) []byte {
		w := enc.World()
		w.Reset()
		var e Entity
		e.ID = 7
		e.State.Pos = geom.V(x, 0, z)
		e.State.Vel = geom.V(vx, 0, 0)
		e.State.Rot = geom.AxisAngle(geom.V(0, 1, 0), yawTurns*2*math.Pi)
		w.Add(e)
		msg := protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: tick, Regular: true})
		return enc.Append(msg, 0, tick, welcome.TickTime(tick), acked, 0)
	}
	whole := snap(2, 1.5, -2.25, 2, 0.25, 0)
	delta := snap(4, 1.576, -2.25, 2.5, 66.0/256, 2)
	still := snap(6, 1.659, -2.25, 2.5, 66.0/256, 4)
	t.Logf("fingerprint %#04x (FNV-1a %#08x)", s.print, h.Sum32())
	t.Logf("whole %s", hex.EncodeToString(whole))
	t.Logf("delta %s", hex.EncodeToString(delta))
	t.Logf("still %s", hex.EncodeToString(still))
	for _, c := range []struct {
		name string
		got  []byte
		want string
	}{{"whole", whole, specWhole}, {"delta", delta, specDelta}, {"still", still, specStill}} {
		if hex.EncodeToString(c.got) != c.want {
			t.Errorf("%s snapshot %x, the document quotes %s", c.name, c.got, c.want)
		}
	}
	doc, err := os.ReadFile("../doc/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(protocol.AppendWelcome(nil, welcome)); got != specWelcome {
		t.Errorf("welcome %s, the document quotes %s", got, specWelcome)
	}
	if got := hex.EncodeToString(protocol.AppendAck(nil, 2)); got != specAck {
		t.Errorf("ack %s, the document quotes %s", got, specAck)
	}
	for _, x := range []string{specPrintText, spaced(specWhole), spaced(specDelta), spaced(specStill), spaced(specWelcome), spaced(specAck), specHash} {
		if !strings.Contains(string(doc), x) {
			t.Errorf("doc/wire.md does not quote %q", x)
		}
	}

	// What the client rebuilds: the position within a step of the truth is
	// the prediction, not the truth (Within).
	want := [][specN]int64{
		{1500, -2250, 200, 0, 64},
		{1575, -2250, 250, 0, 66},
		{1658, -2250, 250, 0, 66},
	}

	// The package's decoder.
	var out Decoded
	for i, b := range [][]byte{whole, delta, still} {
		m, err := protocol.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		out.Entities = out.Entities[:0]
		if err := dec.Decode(&out, m.Snapshot.Tick, welcome.TickTime(m.Snapshot.Tick), m.Body); err != nil {
			t.Fatal(err)
		}
		if !out.Keep || len(out.Entities) != 1 || out.Entities[0].ID != 7 {
			t.Fatalf("snapshot %d decoded as %+v", i, out)
		}
		x := float64(want[i][0]) / 1000
		if st := out.Entities[0].State; st.Pos.X != x || st.Pos.Z != -2.25 || st.Vel.X != float64(want[i][2])/100 {
			t.Errorf("snapshot %d: entity at %v moving %v", i, st.Pos, st.Vel)
		}
	}

	// The document's decoder.
	st := specState{tickHz: 60}
	for i, b := range [][]byte{whole, delta, still} {
		got, trace, err := st.decode(b)
		t.Logf("snapshot %d: %s", i, strings.Join(trace, " "))
		if err != nil {
			t.Fatal(err)
		}
		if got != want[i] {
			t.Errorf("the document's decoder read snapshot %d as %v, want %v", i, got, want[i])
		}
	}
	// The models each saved, in the document's order, are the package's.
	for tick, k := range st.kept {
		tb := dec.kept.Find(tick)
		if tb == nil {
			t.Fatalf("the package's decoder did not keep tick %d", tick)
		}
		var m models
		m.init(dec.s)
		m.start(tb, &table{})
		saved := m.list()
		if len(saved) != len(k.probs) {
			t.Fatalf("tick %d: %d probabilities saved, the document counts %d", tick, len(saved), len(k.probs))
		}
		for i, p := range saved {
			if uint16(p) != k.probs[i] {
				t.Errorf("tick %d: saved probability %d is %d, the document's decoder has %d", tick, i, p, k.probs[i])
				break
			}
		}
	}
}

// spaced returns hex digits in pairs separated by spaces, as the document
// quotes them.
func spaced(h string) string {
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// What follows is written from doc/wire.md, not from this package: a
// decoder of the example's schema (one kind; Position(1000, XZ).Within(1),
// Velocity(100, XZ), Yaw(256); predictor Linear).

// The example's components, in declared order, and the order they are
// coded in (§6.3): the velocity's first.
const (
	specPX, specPZ, specVX, specVZ, specYaw = 0, 1, 2, 3, 4
	specN                                   = 5
	specNVel                                = 2
)

var specOrder = [specN]int{specVX, specVZ, specPX, specPZ, specYaw}

// Every probability of a snapshot, at the index §5.5 gives it.
const (
	specIntSize  = 3 + 2*34 // zero[0], zero[1], sign, then length[i], mant[i]
	specSym      = 0        // sym[moving][prev][bit]: 24
	specComps    = 24       // per component: delta, whole, early
	specEarlyN   = specComps + 3*specIntSize*specN
	specKindSize = specEarlyN + 2*specIntSize // earlyN, earlyAge
	specMetaSame = specKindSize               // one kind
	specMetaLen  = specMetaSame + 1
	specCount    = specMetaLen + specIntSize
	specGap      = specCount + specIntSize
	specKindProb = specGap + specIntSize
	specProbs    = specKindProb + 128
)

func specDeltaM(k int) int { return specComps + 3*specIntSize*k }
func specWholeM(k int) int { return specDeltaM(k) + specIntSize }

type specDec struct {
	b         []byte
	code, rng uint32
	p         []uint16 // the probabilities, specProbs of them
	trace     []string
}

func (d *specDec) byte() uint32 {
	if len(d.b) == 0 {
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return uint32(c)
}

func (d *specDec) norm() {
	for d.rng < 1<<24 {
		d.rng <<= 8
		d.code = d.code<<8 | d.byte()
	}
}

func (d *specDec) bit(i int, name string) bool {
	p := &d.p[i]
	bound := (d.rng >> 12) * uint32(*p)
	var b bool
	if d.code < bound {
		d.rng = bound
		*p += (4096 - *p) >> 4
	} else {
		d.code -= bound
		d.rng -= bound
		*p -= *p >> 4
		b = true
	}
	*p = max(16, min(4080, *p))
	d.norm()
	if b {
		d.trace = append(d.trace, name+"=1")
	} else {
		d.trace = append(d.trace, name+"=0")
	}
	return b
}

func (d *specDec) raw(n int, name string) uint32 {
	var v uint32
	for range n {
		d.rng >>= 1
		b := uint32(0)
		if d.code >= d.rng {
			d.code -= d.rng
			b = 1
		}
		v = v<<1 | b
		d.norm()
	}
	if n > 0 {
		d.trace = append(d.trace, fmt.Sprintf("%s.raw=%0*b", name, n, v))
	}
	return v
}

// int decodes an integer with the model at index m.
func (d *specDec) int(m int, prevZero bool, name string) int64 {
	z := 0
	if prevZero {
		z = 1
	}
	if !d.bit(m+z, name+".nz") {
		return 0
	}
	neg := d.bit(m+2, name+".sign")
	n := 1
	for n < 34 && d.bit(m+3+2*(n-1), name+".len") {
		n++
	}
	u := int64(1)
	if n >= 2 {
		u = u << 1
		if d.bit(m+4+2*(n-1), name+".mant") {
			u |= 1
		}
		u = u<<(n-2) | int64(d.raw(n-2, name))
	}
	if neg {
		return -u
	}
	return u
}

// specMulDiv is MulDiv as §7.2 gives it.
func specMulDiv(a, b, c int64) int64 {
	neg := (a < 0) != (b < 0)
	p := new(big.Int).Mul(new(big.Int).Abs(big.NewInt(a)), new(big.Int).Abs(big.NewInt(b)))
	p.Add(p, big.NewInt(c/2))
	lim := new(big.Int).Lsh(big.NewInt(c), 64)
	if p.Cmp(lim) >= 0 {
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	q := p.Div(p, big.NewInt(c))
	if q.Cmp(big.NewInt(math.MaxInt64)) > 0 {
		q.SetInt64(math.MaxInt64)
	}
	if neg {
		return -q.Int64()
	}
	return q.Int64()
}

// specClamp brings a prediction into the components' ranges (§7).
func specClamp(pred *[specN]int64) {
	for k := range pred {
		if k == specYaw {
			pred[k] = (pred[k]%256 + 256) % 256
		} else {
			pred[k] = max(-1<<30, min(1<<30, pred[k]))
		}
	}
}

// specKept is a kept snapshot's table, for the example: one entity's newest
// sample and its time, and the probabilities its coding left.
type specKept struct {
	q     [specN]int64
	t     int64 // µs
	probs []uint16
}

// specState is the client's baselines, by tick.
type specState struct {
	tickHz uint64
	kept   map[uint64]specKept
}

func specUvarint(b []byte) (uint64, []byte) {
	v := uint64(0)
	for shift := 0; ; shift += 7 {
		c := b[0]
		b = b[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, b
		}
	}
}

func (st *specState) decode(msg []byte) (vals [specN]int64, trace []string, err error) {
	if st.kept == nil {
		st.kept = map[uint64]specKept{}
	}
	if msg[0] != 2 {
		return vals, nil, os.ErrInvalid
	}
	// The snapshot header: tick<<1 | regular, as a uvarint; then the layer.
	v, rest := specUvarint(msg[1:])
	tick := v >> 1
	t := int64(tick*(1_000_000_000/st.tickHz)) / 1000
	dist, rest := specUvarint(rest)
	if dist == 0 {
		rest = rest[2:] // the fingerprint
	}
	d := &specDec{b: rest, rng: 0xFFFFFFFF}
	for range 4 {
		d.code = d.code<<8 | d.byte()
	}
	// The models: the baseline's as its coding left them, or all at 2048.
	var base specKept
	if dist > 0 {
		var ok bool
		if base, ok = st.kept[tick-dist]; !ok {
			return vals, d.trace, os.ErrNotExist
		}
		d.p = append([]uint16(nil), base.probs...)
	} else {
		d.p = make([]uint16, specProbs)
		for i := range d.p {
			d.p[i] = 2048
		}
	}
	if dist == 0 || !d.bit(specMetaSame, "metaSame") {
		if n := d.int(specMetaLen, false, "metaLen"); n != 0 {
			return vals, d.trace, os.ErrInvalid
		}
	}
	names := [specN]string{"px", "pz", "vx", "vz", "yaw"}
	// values decodes in coding order; refine, for a baseline entity, is
	// Linear's Refine before the first component that is not a velocity.
	values := func(models func(k int) int, pred [specN]int64, refine func(pred, cur *[specN]int64)) {
		prev := false
		for j, k := range specOrder {
			if j == specNVel && refine != nil {
				refine(&pred, &vals)
			}
			r := d.int(models(k), j > 0 && prev, names[k])
			prev = r == 0
			if k == specYaw {
				vals[k] = ((pred[k]+r)%256 + 256) % 256
			} else {
				vals[k] = pred[k] + r
			}
		}
	}
	if dist > 0 {
		// Linear: velocity held, position moved on by it (Predict); then
		// moved on at the mean of the held and the decoded velocity (Refine).
		dt := t - base.t
		pred := base.q
		pred[specPX] = max(-1<<30, min(1<<30, pred[specPX]+specMulDiv(pred[specVX]*1000, dt, 100*1_000_000)))
		pred[specPZ] = max(-1<<30, min(1<<30, pred[specPZ]+specMulDiv(pred[specVZ]*1000, dt, 100*1_000_000)))
		specClamp(&pred)
		refine := func(pred, cur *[specN]int64) {
			pred[specPX] = max(-1<<30, min(1<<30, base.q[specPX]+specMulDiv((base.q[specVX]+cur[specVX])*1000, dt, 2*100*1_000_000)))
			pred[specPZ] = max(-1<<30, min(1<<30, base.q[specPZ]+specMulDiv((base.q[specVZ]+cur[specVZ])*1000, dt, 2*100*1_000_000)))
			specClamp(pred)
		}
		// One baseline entity: the first of its kind (prev Unchanged), in
		// the context of whether its baseline velocity is nonzero.
		moving := 0
		if base.q[specVX] != 0 || base.q[specVZ] != 0 {
			moving = 1
		}
		sym := specSym + (moving*4+0)*3
		switch {
		case !d.bit(sym, "sym.changed"):
			// Unchanged: every value is the prediction, refined once the
			// velocity (the prediction's own) is in place.
			for j, k := range specOrder {
				if j == specNVel {
					refine(&pred, &vals)
				}
				vals[k] = pred[k]
			}
		case d.bit(sym+1, "sym.sent"):
			values(specDeltaM, pred, refine)
		default:
			return vals, d.trace, os.ErrInvalid // left out or gone: not in the example
		}
	}
	n := d.int(specCount, false, "count")
	if n > 1 || dist == 0 && n != 1 {
		return vals, d.trace, os.ErrInvalid
	}
	if n == 1 {
		if id := d.int(specGap, false, "gap"); id != 7 {
			return vals, d.trace, os.ErrInvalid
		}
		values(specWholeM, [specN]int64{}, nil)
	}
	st.kept[tick] = specKept{q: vals, t: t, probs: d.p}
	return vals, d.trace, nil
}
