package movement

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/wire"
)

func testGame() Game[wstate, winput] { return &walker{} }

// TestPacketRoundTrip: a packet decodes to what was encoded, the position
// to the millimetre, read against a Ref anywhere within the residues' reach.
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
	ref := Ref{Seq: 99, Fix: 7}
	var q Packet[winput]
	for _, r := range []Ref{ref,
		{Seq: 100 + 1<<11 - 1, Fix: 7 + 1<<4 - 1}, // the far ends
		{Seq: 0, Fix: 0},
	} {
		if err := DecodePacket(&q, b, g, r); err != nil {
			t.Fatal(err)
		}
		if q.Fix != 7 || !q.HasPos || q.PosError(p.Pos) > PosUnit || len(q.Moves) != 5 {
			t.Fatalf("against %+v: %+v", r, q)
		}
		for i := range q.Moves {
			if q.Moves[i] != p.Moves[i] {
				t.Fatalf("against %+v, move %d: %+v, want %+v", r, i, q.Moves[i], p.Moves[i])
			}
		}
	}
	// Beyond a residue's reach the value read is another.
	if err := DecodePacket(&q, b, g, Ref{Seq: 100 + 1<<11 + 1}); err != nil || q.Moves[0].Seq == 100 {
		t.Fatalf("a sequence beyond reach: %v, %d", err, q.Moves[0].Seq)
	}
	for n := range len(b) {
		if err := DecodePacket(&q, b[:n], g, ref); !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("%d bytes: %v", n, err)
		}
	}
	if err := DecodePacket(&q, append(b, 0), g, ref); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte: %v", err)
	}
	// A packet carries one lag, its newest move's: the others' Views are
	// their ends less it, whatever they were.
	for i := range p.Moves {
		p.Moves[i].View = p.Moves[i].Time - time.Duration(70+i)*ms
	}
	if err := DecodePacket(&q, AppendPacket(nil, g, &p), g, ref); err != nil {
		t.Fatal(err)
	}
	for i, m := range q.Moves {
		if want := m.Time - 74*ms; m.View != want {
			t.Fatalf("move %d: view %v, want %v (its end less the newest move's lag)", i, m.View, want)
		}
	}
}

// TestPacketPosition: the position is compared to the millimetre, each
// coordinate read as the one of its residue nearest the server's.
func TestPacketPosition(t *testing.T) {
	g := testGame()
	pos := geom.V(1000.0123, -2, 37.5)
	p := Packet[winput]{HasPos: true, Pos: pos, Moves: []Move[winput]{{Seq: 1, Time: 5 * time.Second, Dt: 16 * ms, View: 5 * time.Second}}}
	var q Packet[winput]
	if err := DecodePacket(&q, AppendPacket(nil, g, &p), g, Ref{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   geom.Vec3
		want float64
	}{
		{pos, 0},
		{pos.Add(geom.V(0.05, 0, 0)), 0.05},
		{pos.Add(geom.V(0, -0.3, 0.4)), 0.5},
		{pos.Add(geom.V(PosWrap, 0, -3*PosWrap)), 0}, // a prediction whole wraps astray reads as right
	} {
		if got := q.PosError(c.at); math.Abs(got-c.want) > PosUnit {
			t.Fatalf("error against %v: %.5f m, want %.3f", c.at, got, c.want)
		}
	}
}

// TestPacketSameInput: a move that continues the one before it (the same
// length and input) costs two bits, and decodes to that move.
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
		if err := DecodePacket(&q, b, g, Ref{}); err != nil || len(q.Moves) != n {
			t.Fatalf("%d moves: %v, %+v", n, err, q)
		}
		for i := range q.Moves {
			if q.Moves[i] != p.Moves[i] {
				t.Fatalf("move %d: %+v, want %+v", i, q.Moves[i], p.Moves[i])
			}
		}
		return b
	}
	// The count of moves takes 7 bits from 13 to 28 moves, 9 from 29 to
	// 60: compare packets whose counts cost alike.
	for _, c := range [][2]int{{13, 1}, {20, 2}, {29, 7}, {30, 3}} {
		from, bytes := c[0], c[1]
		if got := len(packet(from+4*bytes)) - len(packet(from)); got != bytes {
			t.Fatalf("%d moves like the one before cost %d bytes, want %d", 4*bytes, got, bytes)
		}
	}
}

// TestPacketAnchor: with an Anchor the first move's input is sent as its
// change from the anchor's (an input the same as it costs a bit); the
// server decodes it with the anchor's input (Ref.Input), and without it the
// packet is ErrNoAnchor; an anchor further back than MaxAnchorAge goes
// unused.
func TestPacketAnchor(t *testing.T) {
	g := testGame()
	in := winput{Dir: geom.V(0, 0, 1), Kick: 9}
	enc := g.AppendInput(nil, in)
	end := 5 * time.Second
	p := Packet[winput]{Moves: []Move[winput]{{Seq: 40, Time: end, Dt: 16 * ms, View: end - 80*ms, Input: in}}}
	whole := AppendPacket(nil, g, &p)
	ref := Ref{Seq: 35, Held: func(seq uint32) (time.Duration, []byte) {
		if seq == 30 {
			return end - 16*ms - 9*17*ms, enc // nine moves of 17 ms between
		}
		return 0, nil
	}}
	for _, c := range []struct {
		anchor uint32
		used   bool
	}{{30, true}, {31, true}, {40 - MaxAnchorAge, true}, {40 - MaxAnchorAge - 1, false}, {40, false}} {
		p.Anchor, p.AnchorEnd, p.AnchorInput = c.anchor, end-16*ms-time.Duration(39-c.anchor)*17*ms, enc
		b := AppendPacket(nil, g, &p)
		var q Packet[winput]
		err := DecodePacket(&q, b, g, ref)
		switch {
		case !c.used && (err != nil || q.Anchor != 0 || len(b) != len(whole)):
			t.Fatalf("anchor %d, too far: %v, anchor %d, %d bytes for %d", c.anchor, err, q.Anchor, len(b), len(whole))
		case c.used && c.anchor == 30 && (err != nil || q.Anchor != 30 || q.Moves[0] != p.Moves[0] || len(b) > len(whole)-len(enc)+1):
			t.Fatalf("anchor 30: %v, anchor %d, %+v, %d bytes for %d whole", err, q.Anchor, q.Moves[0], len(b), len(whole))
		case c.used && c.anchor != 30 && !errors.Is(err, ErrNoAnchor):
			t.Fatalf("anchor %d, not held: %v", c.anchor, err)
		}
	}
	// A change from the anchor's input.
	p.Anchor, p.AnchorEnd, p.Moves[0].Input = 30, end-16*ms-9*17*ms, winput{Dir: geom.V(1, 0, 1), Kick: 9}
	var q Packet[winput]
	if err := DecodePacket(&q, AppendPacket(nil, g, &p), g, ref); err != nil || q.Moves[0] != p.Moves[0] {
		t.Fatalf("a change from the anchor: %v, %+v, want %+v", err, q.Moves[0], p.Moves[0])
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
	for i := range 8 { // the same input: moves that cost a bit
		now := time.Duration(20+i) * time.Second / 60
		p.cli.Move(now, now-70*ms, winput{Dir: geom.V(1, 0, 0)})
		if b, ok := p.cli.AppendPacket(nil, now); ok {
			f.Add(b)
		}
	}
	anchored := Packet[winput]{Anchor: 3, AnchorEnd: -ms, AnchorInput: g.AppendInput(nil, winput{Kick: 1}),
		Moves: []Move[winput]{{Seq: 5, Time: 16 * ms, Dt: 16 * ms, Input: winput{Kick: 2}}}}
	f.Add(AppendPacket(nil, g, &anchored))
	f.Add([]byte{0})
	// Every move is held, as the one of kick 1 ending at -1 ms.
	ref := Ref{Held: func(uint32) (time.Duration, []byte) { return anchored.AnchorEnd, anchored.AnchorInput }}
	f.Fuzz(func(t *testing.T, b []byte) {
		var q Packet[winput]
		if err := DecodePacket(&q, b, g, ref); err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v", err)
			}
			return
		}
		// What decodes encodes back to the same moves.
		again := AppendPacket(nil, g, &q)
		var r Packet[winput]
		if err := DecodePacket(&r, again, g, Ref{Seq: q.Moves[0].Seq, Fix: q.Fix, Held: ref.Held}); err != nil || len(r.Moves) != len(q.Moves) || r.Moves[0] != q.Moves[0] {
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

// TestPacketLengths: each move's length decodes exactly, the first's coded
// against a frame at 60 a second, a later one's as its change.
func TestPacketLengths(t *testing.T) {
	g := testGame()
	for _, dts := range [][]time.Duration{
		{16667, 16666, 16667, 16667},
		{1, 10 * time.Second / wire.TimeUnit, 1},
		{33333, 6944, 6945, 100000},
	} {
		p := Packet[winput]{}
		end := 5 * time.Second
		for i, dt := range dts {
			dt *= wire.TimeUnit
			end += dt
			p.Moves = append(p.Moves, Move[winput]{Seq: 1 + uint32(i), Time: end, Dt: dt, View: end - 80*ms, Input: winput{Dir: geom.V(0, 0, -1)}})
		}
		var q Packet[winput]
		if err := DecodePacket(&q, AppendPacket(nil, g, &p), g, Ref{}); err != nil {
			t.Fatalf("lengths %v: %v", dts, err)
		}
		for i := range q.Moves {
			if q.Moves[i] != p.Moves[i] {
				t.Fatalf("lengths %v, move %d: %+v, want %+v", dts, i, q.Moves[i], p.Moves[i])
			}
		}
	}
}

// blob is an input of 60 bytes, longer than an input sent as a change may
// be (maxMask): blobGame carries it as it is.
type blob [60]byte

type blobGame struct{ walker }

func (blobGame) Move(s wstate, _ *Move[blob]) wstate    { return s }
func (blobGame) Clamp(in blob) (blob, bool)             { return in, true }
func (blobGame) Combine(_, _ blob) bool                 { return false }
func (blobGame) AppendInput(dst []byte, in blob) []byte { return append(dst, in[:]...) }
func (blobGame) DecodeInput(in *blob, b []byte) (int, error) {
	if len(b) < len(in) {
		return 0, ErrTruncated
	}
	return copy(in[:], b), nil
}

// TestPacketLongInputs: inputs longer than a change's mask go whole, and
// a packet of them decodes to what was encoded.
func TestPacketLongInputs(t *testing.T) {
	g := Game[wstate, blob](&blobGame{})
	p := Packet[blob]{}
	end := 5 * time.Second
	for i := range 6 {
		end += 16 * ms
		var in blob
		in[0], in[59] = byte(i), byte(i/2)
		p.Moves = append(p.Moves, Move[blob]{Seq: 1 + uint32(i), Time: end, Dt: 16 * ms, View: end - 80*ms, Input: in})
	}
	var q Packet[blob]
	if err := DecodePacket(&q, AppendPacket(nil, g, &p), g, Ref{}); err != nil || len(q.Moves) != len(p.Moves) {
		t.Fatalf("%v, %d moves", err, len(q.Moves))
	}
	for i := range q.Moves {
		if q.Moves[i] != p.Moves[i] {
			t.Fatalf("move %d: %+v, want %+v", i, q.Moves[i].Input, p.Moves[i].Input)
		}
	}
}
