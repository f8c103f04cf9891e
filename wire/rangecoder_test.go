package wire

import (
	"math/rand/v2"
	"testing"
)

// op is one thing coded: a bit with one of a few adaptive probabilities, or
// raw bits.
type op struct {
	ctx  int // -1: raw
	bit  bool
	v    uint32
	bits int
}

func randomOps(rng *rand.Rand, n int) []op {
	ops := make([]op, n)
	skew := []float64{0.02, 0.5, 0.9, 0.999}
	for i := range ops {
		if rng.IntN(5) == 0 {
			w := rng.IntN(33)
			ops[i] = op{ctx: -1, v: rng.Uint32() & uint32(uint64(1)<<w-1), bits: w}
			continue
		}
		c := rng.IntN(len(skew))
		ops[i] = op{ctx: c, bit: rng.Float64() < skew[c]}
	}
	return ops
}

func encodeOps(dst []byte, ops []op) []byte {
	probs := [4]Prob{ProbHalf, ProbHalf, ProbHalf, ProbHalf}
	e := NewRangeEncoder(dst)
	for _, o := range ops {
		if o.ctx < 0 {
			e.Bits(o.v, o.bits)
		} else {
			e.Bit(&probs[o.ctx], o.bit)
		}
	}
	return e.Finish()
}

func TestRangeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		ops := randomOps(rng, rng.IntN(400))
		prefix := []byte{7, 0, 9}
		b := encodeOps(append([]byte(nil), prefix...), ops)
		if string(b[:3]) != string(prefix) {
			t.Fatalf("trial %d: the caller's bytes changed", trial)
		}
		probs := [4]Prob{ProbHalf, ProbHalf, ProbHalf, ProbHalf}
		d := NewRangeDecoder(b[3:])
		for i, o := range ops {
			if o.ctx < 0 {
				if got := d.Bits(o.bits); got != o.v {
					t.Fatalf("trial %d op %d: bits %x, want %x", trial, i, got, o.v)
				}
			} else if got := d.Bit(&probs[o.ctx]); got != o.bit {
				t.Fatalf("trial %d op %d: bit %v, want %v", trial, i, got, o.bit)
			}
		}
		if d.Overrun() > 8 {
			t.Fatalf("trial %d: read %d bytes past the end", trial, d.Overrun())
		}
	}
}

// A skewed bit costs a small fraction of a bit, as Cost says.
func TestRangeSkewedCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p, q := ProbHalf, ProbHalf
	e := NewRangeEncoder(nil)
	cost := 0
	const n = 8000
	for range n {
		bit := rng.Float64() < 0.01
		cost += q.Cost(bit)
		q.update(bit)
		e.Bit(&p, bit)
	}
	b := e.Finish()
	bits := float64(len(b) * 8)
	if bits > 0.16*n {
		t.Errorf("%d bits a 1 %% bit took %.3f bits each", n, bits/n)
	}
	if est := float64(cost) / CostUnit; bits < est-8 || bits > est*1.02+40 {
		t.Errorf("coded %v bits, Cost said %.0f", bits, est)
	}
}

// An empty message is empty; nothing but zero bits is too.
func TestRangeEmpty(t *testing.T) {
	e := NewRangeEncoder(nil)
	if b := e.Finish(); len(b) != 0 {
		t.Errorf("nothing coded: %d bytes", len(b))
	}
	e = NewRangeEncoder(nil)
	e.Bits(0, 20)
	if b := e.Finish(); len(b) != 0 {
		t.Errorf("zero bits: %d bytes %x", len(b), b)
	}
}

func TestRangeAllocs(t *testing.T) {
	ops := randomOps(rand.New(rand.NewPCG(5, 6)), 500)
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(50, func() { encodeOps(buf[:0], ops) }); n != 0 {
		t.Errorf("encode: %v allocs", n)
	}
}

func FuzzRangeDecoder(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 4 {
		f.Add(encodeOps(nil, randomOps(rng, 100)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewRangeDecoder(b)
		p := ProbHalf
		for i := range 200 {
			if i%3 == 0 {
				d.Bits(i % 33)
			} else {
				d.Bit(&p)
			}
		}
	})
}

// Ones codes the same bytes, and leaves the same probabilities, as a run of
// Bit with true.
func TestRangeOnes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := rng.IntN(40)
		a, b := make([]Prob, n), make([]Prob, n)
		for i := range a {
			a[i] = Prob(probMin + rng.IntN(ProbOne-2*probMin))
			b[i] = a[i]
		}
		lead := rng.Uint32()
		ea, eb := NewRangeEncoder(nil), NewRangeEncoder(nil)
		ea.Bits(lead, 32)
		eb.Bits(lead, 32)
		for i := range a {
			ea.Bit(&a[i], true)
		}
		eb.Ones(b)
		if got, want := string(eb.Finish()), string(ea.Finish()); got != want {
			t.Fatalf("Ones coded %x, Bit %x", got, want)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("prob %d: Ones left %d, Bit %d", i, b[i], a[i])
			}
		}
	}
}
