package crowd

import (
	"testing"
	"time"

	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

func newGame(t testing.TB, cfg Config) *Game {
	t.Helper()
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// stirred is the crowd stirred for ten seconds, replicated by the layer to
// one client whose acknowledgements arrive six ticks (100 ms) late, within
// the lab's 460-byte budget.
type stirred struct {
	g    *Game
	enc  *replica.Encoder
	dec  *replica.Decoder
	tick uint64
	buf  []byte
	out  replica.Decoded
}

const benchBudget = 460

func newStirred(b *testing.B) *stirred {
	s := &stirred{g: newGame(b, Config{Seed: 1})}
	_, rc := s.g.Replication()
	s.enc = replica.NewEncoder(Schema, rc)
	s.enc.Join(0, NoSelf)
	s.dec = replica.NewDecoder(Schema)
	for range 600 {
		s.step(b)
	}
	return s
}

func (s *stirred) now() time.Duration {
	return time.Duration(s.tick) * time.Second / 60 / time.Microsecond * time.Microsecond
}

// step steps the crowd, encodes and decodes the client's snapshot.
func (s *stirred) step(b *testing.B) {
	s.tick++
	s.g.Step(server.Tick{N: s.tick, Time: time.Duration(s.tick) * time.Second / 60, Dt: time.Second / 60}, nil)
	s.encode()
	s.out.Entities = s.out.Entities[:0]
	if err := s.dec.Decode(&s.out, s.tick, s.now(), s.buf); err != nil {
		b.Fatal(err)
	}
}

func (s *stirred) encode() {
	s.fill()
	s.buf = s.enc.Append(s.buf[:0], 0, s.tick, s.now(), max(0, s.tick-6), benchBudget)
}

// fill fills the encoder's world with the crowd's tick, as a server does
// once per tick for all its clients.
func (s *stirred) fill() {
	w := s.enc.World()
	w.Reset()
	s.g.Replicate(w)
}

// BenchmarkEncode is one client's snapshot of the stirred crowd of 1,000
// spheres, against its baseline, within the budget: what each client adds
// to a tick, its world filled and quantised once for all
// (BenchmarkFillEncode).
func BenchmarkEncode(b *testing.B) {
	s := newStirred(b)
	s.encode() // the world quantised for this tick
	b.ReportAllocs()
	for b.Loop() {
		s.buf = s.enc.Append(s.buf[:0], 0, s.tick, s.now(), max(0, s.tick-6), benchBudget)
	}
	b.ReportMetric(float64(len(s.buf)), "bytes/snapshot")
}

// BenchmarkFillEncode is a tick of one client: the world filled with the
// crowd's 1,000 spheres and quantised, then the client's snapshot. With n
// clients a tick costs this and n-1 times BenchmarkEncode.
func BenchmarkFillEncode(b *testing.B) {
	s := newStirred(b)
	b.ReportAllocs()
	for b.Loop() {
		s.encode()
	}
}

// BenchmarkDecode is one client's decode of a snapshot of the stirred crowd
// against its baseline.
func BenchmarkDecode(b *testing.B) {
	s := newStirred(b)
	b.ReportAllocs()
	for b.Loop() {
		s.out.Entities = s.out.Entities[:0]
		// The snapshot is no newer than the baselines kept now: decoding
		// it again keeps nothing, as a duplicate's does.
		if err := s.dec.Decode(&s.out, s.tick, s.now(), s.buf); err != nil {
			b.Fatal(err)
		}
	}
}
