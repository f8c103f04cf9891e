package movement

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/wire"
)

func testGame() Game[wstate, winput] { return &walker{} }

// TestPacketRoundTrip: a packet decodes to what was encoded, quantised where
// the format says.
func TestPacketRoundTrip(t *testing.T) {
	g := testGame()
	p := Packet[winput]{Fix: 7, HasPos: true, Pos: geom.V(1.23456, 0, -7.00004)}
	end := 5 * time.Second
	for i := range 5 {
		dt := time.Duration(16667+i) * time.Microsecond
		end += dt
		p.Moves = append(p.Moves, Move[winput]{Seq: 100 + uint32(i), Time: end, Dt: dt, View: end - 80*ms, Input: winput{Dir: geom.V(0, 0, -1), Kick: uint8(i)}})
	}
	b := AppendPacket(nil, g, &p)
	var q Packet[winput]
	if err := DecodePacket(&q, b, g); err != nil {
		t.Fatal(err)
	}
	if q.Fix != 7 || !q.HasPos || q.Pos.Dist(p.Pos) > PosUnit || len(q.Moves) != 5 {
		t.Fatalf("%+v", q)
	}
	for i := range q.Moves {
		if q.Moves[i] != p.Moves[i] {
			t.Logf("%v %v", q.Moves[i].View, p.Moves[i].View)
			t.Fatalf("move %d: %+v, want %+v", i, q.Moves[i], p.Moves[i])
		}
	}
	for n := range len(b) {
		if err := DecodePacket(&q, b[:n], g); !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("%d bytes: %v", n, err)
		}
	}
	if err := DecodePacket(&q, append(b, 0), g); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte: %v", err)
	}
	// A packet carries one lag, its newest move's: the others' Views are
	// their ends less it, whatever they were.
	for i := range p.Moves {
		p.Moves[i].View = p.Moves[i].Time - time.Duration(70+i)*ms
	}
	if err := DecodePacket(&q, AppendPacket(nil, g, &p), g); err != nil {
		t.Fatal(err)
	}
	for i, m := range q.Moves {
		if want := m.Time - 74*ms; m.View != want {
			t.Fatalf("move %d: view %v, want %v (its end less the newest move's lag)", i, m.View, want)
		}
	}
}

// TestPacketSameInput: a move that continues the one before it (the same
// length and input) costs one byte, and a run of up to 32 of them one
// byte in all, and decodes to those moves; a run counting past the packet's
// moves is malformed.
func TestPacketSameInput(t *testing.T) {
	g := testGame()
	packet := func(n int) []byte {
		p := Packet[winput]{}
		end := 5 * time.Second
		for i := range n {
			end += 16 * ms
			p.Moves = append(p.Moves, Move[winput]{Seq: 1 + uint32(i), Time: end, Dt: 16 * ms, View: end - 80*ms, Input: winput{Dir: geom.V(0, 0, -1), Kick: 3}})
		}
		b := AppendPacket(nil, g, &p)
		var q Packet[winput]
		if err := DecodePacket(&q, b, g); err != nil || len(q.Moves) != n {
			t.Fatalf("%d moves: %v, %+v", n, err, q)
		}
		for i := range q.Moves {
			if q.Moves[i] != p.Moves[i] {
				t.Fatalf("move %d: %+v, want %+v", i, q.Moves[i], p.Moves[i])
			}
		}
		return b
	}
	one, two, eight := packet(1), packet(2), packet(8)
	if got := len(eight) - len(one); got != 1 {
		t.Fatalf("7 moves like the first cost %d bytes, want 1", got)
	}
	for n, want := range map[int]int{16: 1, 33: 1, 34: 2, 64: 2} {
		if got := len(packet(n)) - len(one); got != want {
			t.Fatalf("%d moves like the first cost %d bytes, want %d", n-1, got, want)
		}
	}
	// The second move's flags byte follows the first move, and is the flag
	// alone, with the run's count above it. With a whole input as well it is
	// malformed, and so is the flag on the first move (its flags byte
	// follows the packet's flags and count, sequence, fix, start time and
	// lag).
	second, first := len(one), 3+len(wire.AppendTime(nil, 5*time.Second))+len(binary.AppendUvarint(nil, uint64(80*ms/LagUnit)))
	if two[second] != moveSame || eight[second] != moveSame|6*moveRun || eight[first] != moveDt|moveWhole {
		t.Fatalf("flags %#x, %#x and %#x", eight[first], two[second], eight[second])
	}
	for _, bad := range [][]byte{
		append(append([]byte(nil), eight[:second]...), moveSame|moveWhole|6*moveRun), // a run of whole inputs
		append(append([]byte(nil), eight[:second]...), moveSame|7*moveRun),           // one move too many
		append(append([]byte(nil), eight[:first]...), moveSame|moveRun),              // a run first
	} {
		if err := DecodePacket(&Packet[winput]{}, append(bad, eight[len(bad):]...), g); !errors.Is(err, ErrMalformed) {
			t.Fatalf("flags %#x: %v", bad[len(bad)-1], err)
		}
	}
	for _, i := range []int{first, second} {
		bad := append([]byte(nil), eight...)
		bad[i] |= moveSame | moveWhole
		if err := DecodePacket(&Packet[winput]{}, bad, g); !errors.Is(err, ErrMalformed) {
			t.Fatalf("flags %#x at byte %d: %v", bad[i], i, err)
		}
	}
	// The packet's first byte holds the count of moves less one above its
	// flags; its top bit set is malformed.
	if eight[0] != 7<<packetCount {
		t.Fatalf("packet flags %#x, want %#x", eight[0], 7<<packetCount)
	}
	bad := append([]byte(nil), eight...)
	bad[0] |= packetBad
	if err := DecodePacket(&Packet[winput]{}, bad, g); !errors.Is(err, ErrMalformed) {
		t.Fatalf("packet flags %#x: %v", bad[0], err)
	}
}

// TestReplyGapOnAckOnly: Gap rides on an Ack's kind byte; on an adjustment it
// is malformed.
func TestReplyGapOnAckOnly(t *testing.T) {
	g := testGame()
	b := AppendReply(nil, g, &Reply[wstate]{Kind: Adjust, Seq: 3, ID: 1})
	b[0] |= replyGap
	if err := DecodeReply(&Reply[wstate]{}, b, g); !errors.Is(err, ErrMalformed) {
		t.Fatalf("an adjustment with Gap: %v", err)
	}
}

// TestReplyRoundTrip: every kind of reply decodes to what was encoded.
func TestReplyRoundTrip(t *testing.T) {
	g := testGame()
	for _, r := range []Reply[wstate]{
		{Kind: Ack, Seq: 9},
		{Kind: Ack, Seq: 9, Gap: true},
		{Kind: Adjust, Seq: 10, ID: 3, Time: 1234567 * time.Microsecond, State: wstate{Pos: geom.V(1.0/3, 0, 2), Vel: geom.V(-1, 0, 1e-9)}},
		{Kind: Reset, Seq: 0, ID: 1, State: wstate{Pos: geom.V(-9, 0, 0)}},
	} {
		b := AppendReply(nil, g, &r)
		var q Reply[wstate]
		if err := DecodeReply(&q, b, g); err != nil || q != r {
			t.Fatalf("%+v → %+v, %v", r, q, err)
		}
		for n := range len(b) {
			if err := DecodeReply(&q, b[:n], g); err == nil {
				t.Fatalf("%v: %d bytes decoded", r.Kind, n)
			}
		}
	}
}

func FuzzDecodePacket(f *testing.F) {
	g := testGame()
	p := newPipe(ClientConfig{}, ServerConfig{}, 30*ms)
	for i := range 20 {
		now := time.Duration(i) * time.Second / 60
		p.cli.Move(now, now-70*ms, winput{Dir: geom.V(float64(i%3-1), 0, 1), Kick: uint8(i)})
		if b, ok := p.cli.AppendPacket(nil, now); ok {
			f.Add(b)
		}
	}
	for i := range 8 { // the same input: moves that cost a byte
		now := time.Duration(20+i) * time.Second / 60
		p.cli.Move(now, now-70*ms, winput{Dir: geom.V(1, 0, 0)})
		if b, ok := p.cli.AppendPacket(nil, now); ok {
			f.Add(b)
		}
	}
	f.Add([]byte{packetPos})
	f.Fuzz(func(t *testing.T, b []byte) {
		var q Packet[winput]
		if err := DecodePacket(&q, b, g); err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v", err)
			}
			return
		}
		// What decodes encodes back to the same bytes, but for the
		// position's rounding.
		again := AppendPacket(nil, g, &q)
		var r Packet[winput]
		if err := DecodePacket(&r, again, g); err != nil || len(r.Moves) != len(q.Moves) || r.Moves[0] != q.Moves[0] {
			t.Fatalf("re-encoding: %v", err)
		}
		// A server takes it without panicking.
		s, _ := NewServer(ServerConfig{}, g, wstate{}, nil)
		_ = s.Receive(time.Second, b)
		_ = s.AppendReply(nil, time.Second)
	})
}

func FuzzDecodeReply(f *testing.F) {
	g := testGame()
	f.Add(AppendReply(nil, g, &Reply[wstate]{Kind: Ack, Seq: 9}))
	f.Add(AppendReply(nil, g, &Reply[wstate]{Kind: Ack, Seq: 9, Gap: true}))
	f.Add(AppendReply(nil, g, &Reply[wstate]{Kind: Adjust, Seq: 3, ID: 2, Time: time.Second, State: wstate{Pos: geom.V(1, 0, 2)}}))
	f.Add(AppendReply(nil, g, &Reply[wstate]{Kind: Reset, Seq: 0, ID: 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Reply[wstate]
		err := DecodeReply(&r, b, g)
		if err != nil && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v", err)
		}
		// A client takes any reply without panicking or leaving the
		// finite.
		c, _ := NewClient(ClientConfig{}, g, wstate{})
		for i := range 5 {
			now := time.Duration(i) * time.Second / 60
			c.Move(now, now, winput{Dir: geom.V(1, 0, 0)})
			c.AppendPacket(nil, now)
		}
		_ = c.HandleReply(b, 100*ms)
		if _, pos, _ := c.Draw(100 * ms); !pos.IsFinite() {
			t.Fatalf("drawn at %v", pos)
		}
	})
}

// TestPacketSmallLength: a change of a move's length by -16 to 15
// wire.TimeUnits rides in its flags byte, a larger one follows it; both
// decode exactly.
func TestPacketSmallLength(t *testing.T) {
	g := testGame()
	for _, d := range []int{-17, -16, -1, 1, 15, 16} {
		p := Packet[winput]{}
		end := 5 * time.Second
		for i, dt := range []time.Duration{166, 166 + time.Duration(d), 166} {
			dt *= wire.TimeUnit
			end += dt
			p.Moves = append(p.Moves, Move[winput]{Seq: 1 + uint32(i), Time: end, Dt: dt, View: end - 80*ms, Input: winput{Dir: geom.V(0, 0, -1)}})
		}
		b := AppendPacket(nil, g, &p)
		var q Packet[winput]
		if err := DecodePacket(&q, b, g); err != nil {
			t.Fatalf("change %d: %v", d, err)
		}
		for i := range q.Moves {
			if q.Moves[i] != p.Moves[i] {
				t.Fatalf("change %d, move %d: %+v, want %+v", d, i, q.Moves[i], p.Moves[i])
			}
		}
		one := AppendPacket(nil, g, &Packet[winput]{Moves: p.Moves[:1]})
		want := 2 // two flags bytes, and a varint byte for each change out of range
		for _, c := range []int{d, -d} {
			if c < -16 || c > 15 {
				want++
			}
		}
		if got := len(b) - len(one); got != want {
			t.Fatalf("change %d: two moves cost %d bytes, want %d", d, got, want)
		}
	}
}
