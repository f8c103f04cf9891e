package replica

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
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
	specPrintText = "0/1000/5/0/-1073741824/1073741824/0;4/256/0/0/0/255/0;|0|1|replica.Linear#"
	specWhole     = "020500cea44b77f6773ffe1957e0"
	specDelta     = "020902f79138"
	specStill     = "020d0280"
	specWelcome   = "01073c1e"
	specAck       = "0902"
)

// TestSpecExample encodes the worked example of doc/wire.md with the
// package's encoder, checks the bytes against those the document quotes,
// and decodes them both with the package's decoder and with specState, a
// decoder written from the document alone.
func TestSpecExample(t *testing.T) {
	s, err := NewSchema(Kind{Name: "player", Fields: []Field{Position(1000, XZ), Yaw(256)}})
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New32a()
	h.Write([]byte(specPrintText))
	if h.Sum32() != 0x4711a4ce {
		t.Errorf("FNV-1a of the documented text %#08x, the document quotes 0x4711a4ce", h.Sum32())
	}
	if got := uint16(h.Sum32()); got != s.print {
		t.Errorf("fingerprint of the documented text %#04x, schema's %#04x", got, s.print)
	}
	welcome := protocol.Welcome{Self: 7, TickHz: 60, SnapshotHz: 30}
	for _, c := range []struct {
		tick uint64
		us   time.Duration
	}{{2, 33333}, {3, 49999}, {4, 66666}} {
		if got := welcome.TickTime(c.tick); got != c.us*time.Microsecond {
			t.Errorf("tick %d at %v, the document says %d µs", c.tick, got, c.us)
		}
	}
	enc := NewEncoder(s, Config{})
	enc.Join(0, 7)
	dec := NewDecoder(s)

	snap := func(tick uint64, x, z float64, yawTurns float64, acked uint64) []byte {
		w := enc.World()
		w.Reset()
		var e Entity
		e.ID = 7
		e.State.Pos = geom.V(x, 0, z)
		e.State.Rot = geom.AxisAngle(geom.V(0, 1, 0), yawTurns*2*math.Pi)
		w.Add(e)
		msg := protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: tick, Regular: true})
		return enc.Append(msg, 0, tick, welcome.TickTime(tick), acked, 0)
	}
	whole := snap(2, 1.5, -2.25, 0.25, 0)
	delta := snap(4, 1.52, -2.25, 66.0/256, 2)
	still := snap(6, 1.52, -2.25, 66.0/256, 4)
	t.Logf("fingerprint %#04x", s.print)
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
	for _, x := range []string{specPrintText, spaced(specWhole), spaced(specDelta), spaced(specStill), spaced(specWelcome), spaced(specAck), "0x4711a4ce"} {
		if !strings.Contains(string(doc), x) {
			t.Errorf("doc/wire.md does not quote %q", x)
		}
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
		x := []float64{1.5, 1.52, 1.52}[i]
		if p := out.Entities[0].State.Pos; p.X != x || p.Z != -2.25 {
			t.Errorf("snapshot %d: entity at %v", i, p)
		}
	}

	// The document's decoder.
	var st specState
	for i, c := range []struct {
		b    []byte
		want [3]int64
	}{{whole, [3]int64{1500, -2250, 64}}, {delta, [3]int64{1520, -2250, 66}}, {still, [3]int64{1520, -2250, 66}}} {
		got, trace, err := st.decode(c.b)
		t.Logf("snapshot %d: %s", i, strings.Join(trace, " "))
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("the document's decoder read snapshot %d as %v, want %v", i, got, c.want)
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
// decoder of the example's schema (one kind; Position(1000, XZ), Yaw(256);
// predictor Linear, which holds a kind without velocity).

type specDec struct {
	b         []byte
	code, rng uint32
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

func (d *specDec) bit(p *uint16, name string) bool {
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

type specInt struct {
	zero         [2]uint16
	sign         uint16
	length, mant [34]uint16
}

func newSpecInt() specInt {
	m := specInt{zero: [2]uint16{2048, 2048}, sign: 2048}
	for i := range m.length {
		m.length[i], m.mant[i] = 2048, 2048
	}
	return m
}

func (d *specDec) int(m *specInt, prevZero bool, name string) int64 {
	z := 0
	if prevZero {
		z = 1
	}
	if !d.bit(&m.zero[z], name+".nz") {
		return 0
	}
	neg := d.bit(&m.sign, name+".sign")
	n := 1
	for n < 34 && d.bit(&m.length[n-1], name+".len") {
		n++
	}
	u := int64(1)
	if n >= 2 {
		u = u << 1
		if d.bit(&m.mant[n-1], name+".mant") {
			u |= 1
		}
		u = u<<(n-2) | int64(d.raw(n-2, name))
	}
	if neg {
		return -u
	}
	return u
}

// specState is the client's baselines, for the example: one entity's
// values by tick.
type specState struct {
	kept map[uint64][3]int64
}

func (st *specState) decode(msg []byte) (vals [3]int64, trace []string, err error) {
	if st.kept == nil {
		st.kept = map[uint64][3]int64{}
	}
	if msg[0] != 2 {
		return vals, nil, os.ErrInvalid
	}
	// The snapshot header: tick<<1 | regular, as a uvarint; then the layer.
	v, i := uint64(0), 1
	for shift := 0; ; shift += 7 {
		v |= uint64(msg[i]&0x7f) << shift
		i++
		if msg[i-1] < 0x80 {
			break
		}
	}
	tick := v >> 1
	dist, j := uint64(0), i
	for shift := 0; ; shift += 7 {
		dist |= uint64(msg[j]&0x7f) << shift
		j++
		if msg[j-1] < 0x80 {
			break
		}
	}
	if dist == 0 {
		j += 2 // the fingerprint
	}
	d := &specDec{b: msg[j:], rng: 0xFFFFFFFF}
	for range 4 {
		d.code = d.code<<8 | d.byte()
	}
	p := func() uint16 { return 2048 }
	metaSame, metaLen := p(), newSpecInt()
	sym := [4][3]uint16{}
	for a := range sym {
		sym[a] = [3]uint16{2048, 2048, 2048}
	}
	var delta, whole [3]specInt
	for k := range 3 {
		delta[k], whole[k] = newSpecInt(), newSpecInt()
	}
	count, gap := newSpecInt(), newSpecInt()
	if dist == 0 || !d.bit(&metaSame, "metaSame") {
		if n := d.int(&metaLen, false, "metaLen"); n != 0 {
			return vals, d.trace, os.ErrInvalid
		}
	}
	values := func(ms *[3]specInt, pred [3]int64) {
		prev := false
		for k := range 3 {
			r := d.int(&ms[k], k > 0 && prev, []string{"x", "z", "yaw"}[k])
			prev = r == 0
			if k == 2 {
				vals[k] = ((pred[k]+r)%256 + 256) % 256
			} else {
				vals[k] = pred[k] + r
			}
		}
	}
	if dist > 0 {
		base, ok := st.kept[tick-dist]
		if !ok {
			return vals, d.trace, os.ErrNotExist
		}
		// One baseline entity; its symbol in the context of symbol 0.
		switch {
		case !d.bit(&sym[0][0], "sym.changed"):
			vals = base // the prediction: Linear holds a kind without velocity
		case d.bit(&sym[0][1], "sym.sent"):
			values(&delta, base)
		default:
			return vals, d.trace, os.ErrInvalid // left out or gone: not in the example
		}
	}
	n := d.int(&count, false, "count")
	if n > 1 || dist == 0 && n != 1 {
		return vals, d.trace, os.ErrInvalid
	}
	if n == 1 {
		if id := d.int(&gap, false, "gap"); id != 7 {
			return vals, d.trace, os.ErrInvalid
		}
		values(&whole, [3]int64{})
	}
	st.kept[tick] = vals
	return vals, d.trace, nil
}
