package crowd

import (
	"testing"
)

// stirred returns a crowd stirred for ten seconds with clients links, each
// acknowledging its baselines six ticks (100 ms) late, and within budget
// bytes.
func stirred(b *testing.B, clients, budget int) (*Game, []*link) {
	g := newGame(b, Config{Seed: 1})
	var ls []*link
	for range clients {
		ls = append(ls, newLink(b, g, 6, budget))
	}
	for range 600 {
		step(g)
		for _, l := range ls {
			if err := l.exchange(); err != nil {
				b.Fatal(err)
			}
		}
	}
	return g, ls
}

// BenchmarkTick is one server tick of the crowd of 1,000 spheres with four
// clients: the physics step and kicks, and every client's snapshot encoded
// against its acknowledged baseline within a 460-byte budget.
func BenchmarkTick(b *testing.B) {
	g, ls := stirred(b, 4, 460)
	b.ReportAllocs()
	for b.Loop() {
		step(g)
		for _, l := range ls {
			acked := l.acks[len(l.acks)-1-l.lag]
			l.buf = g.AppendSnapshotFor(l.buf[:0], l.slot, true, acked, l.budget)
			l.acks = append(l.acks[:0], l.acks[1:]...)
			l.acks = append(l.acks, acked)
		}
	}
}

// BenchmarkEncode is one client's snapshot of the crowd, against its
// baseline, within the budget: the per-client share of a tick.
func BenchmarkEncode(b *testing.B) {
	g, ls := stirred(b, 1, 460)
	l := ls[0]
	acked := l.acks[len(l.acks)-1-l.lag]
	b.ReportAllocs()
	for b.Loop() {
		l.buf = g.AppendSnapshotFor(l.buf[:0], l.slot, true, acked, l.budget)
	}
	b.ReportMetric(float64(len(l.buf)), "bytes/snapshot")
}

// BenchmarkDecode is one client's decode of a snapshot of the stirred crowd
// against its baseline.
func BenchmarkDecode(b *testing.B) {
	_, ls := stirred(b, 1, 460)
	l := ls[0]
	s := l.snap
	b.ReportAllocs()
	for b.Loop() {
		s.Entities = s.Entities[:0]
		// The snapshot is no newer than the baselines kept now: decoding
		// it again keeps nothing, as a duplicate's does.
		if err := l.cg.DecodeSnapshot(&s, l.buf); err != nil {
			b.Fatal(err)
		}
	}
}
