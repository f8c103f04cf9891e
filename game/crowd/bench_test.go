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
	w := s.enc.World()
	w.Reset()
	s.g.Replicate(w)
	s.buf = s.enc.Append(s.buf[:0], 0, s.tick, s.now(), max(0, s.tick-6), benchBudget)
}

// BenchmarkEncode is one client's snapshot of the stirred crowd of 1,000
// spheres, against its baseline, within the budget: the per-client share of
// a tick, the world's filling included.
func BenchmarkEncode(b *testing.B) {
	s := newStirred(b)
	b.ReportAllocs()
	for b.Loop() {
		s.encode()
	}
	b.ReportMetric(float64(len(s.buf)), "bytes/snapshot")
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
