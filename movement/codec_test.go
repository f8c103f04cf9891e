package movement

import (
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
}

// TestPacketSameInput: a move that continues the one before it (the same
// length, lag and input) costs one byte, and decodes to that move.
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
	one, eight := packet(1), packet(8)
	if got := len(eight) - len(one); got != 7 {
		t.Fatalf("7 moves like the first cost %d bytes, want 7", got)
	}
	// The second move's flags byte follows the first move, and is the flag
	// alone. With a whole input as well it is malformed, and so is the flag
	// on the first move (its flags byte follows flags, sequence, fix, count
	// and start time).
	second, first := len(one), 4+len(wire.AppendTime(nil, 5*time.Second))
	if eight[second] != moveSame || eight[first] != moveDt|moveLag|moveWhole {
		t.Fatalf("flags %#x and %#x", eight[first], eight[second])
	}
	for _, i := range []int{first, second} {
		bad := append([]byte(nil), eight...)
		bad[i] |= moveSame | moveWhole
		if err := DecodePacket(&Packet[winput]{}, bad, g); !errors.Is(err, ErrMalformed) {
			t.Fatalf("flags %#x at byte %d: %v", bad[i], i, err)
		}
	}
}

// TestReplyRoundTrip: every kind of reply decodes to what was encoded.
func TestReplyRoundTrip(t *testing.T) {
	g := testGame()
	for _, r := range []Reply[wstate]{
		{Kind: Ack, Seq: 9},
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
