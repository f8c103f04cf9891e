package server

import (
	"errors"
	"testing"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
)

// fakeGame records what the server asks of it.
type fakeGame struct {
	steps    []Tick
	joined   map[int]bool
	inputs   []Input
	extraAt  map[uint64]bool
	eventAt  map[uint64]bool
	refuse   bool
	snapshot []bool // regular flag of each AppendSnapshot
}

func newFake() *fakeGame {
	return &fakeGame{joined: map[int]bool{}, extraAt: map[uint64]bool{}, eventAt: map[uint64]bool{}}
}

func (g *fakeGame) Join(client int) (uint32, error) {
	if g.refuse {
		return 0, errors.New("refused")
	}
	g.joined[client] = true
	return uint32(100 + client), nil
}
func (g *fakeGame) Leave(client int) { delete(g.joined, client) }
func (g *fakeGame) Input(client int, in Input) {
	in.Data = append([]byte(nil), in.Data...)
	g.inputs = append(g.inputs, in)
}
func (g *fakeGame) Step(t Tick, ev Emitter) bool {
	g.steps = append(g.steps, t)
	if g.eventAt[t.N] {
		ev.Emit(event.Event{Kind: 1, Time: t.Time, Arg: uint32(t.N)})
	}
	return g.extraAt[t.N]
}
func (g *fakeGame) AppendSnapshot(dst []byte, regular bool) []byte {
	g.snapshot = append(g.snapshot, regular)
	return append(dst, byte(len(g.steps)))
}

// peer is a client's end of the channels, decoding what the server sends.
type peer struct {
	ep      *reliable.Endpoint
	msgs    []protocol.Message
	packets int           // packets received
	held    time.Duration // how long before send's now its packets arrived
}

func newPeer(t *testing.T) *peer {
	ep, err := reliable.New(reliable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &peer{ep: ep}
}

// drain delivers everything the server transmitted for slot to p.
func drain(t *testing.T, s *Server, now time.Duration, peers map[int]*peer) {
	t.Helper()
	for {
		slot, b, ok := s.Transmit()
		if !ok {
			return
		}
		p := peers[slot]
		if p == nil {
			continue
		}
		p.packets++
		if err := p.ep.Receive(now, b); err != nil {
			t.Fatal(err)
		}
		for {
			m, _, ok := p.ep.Read()
			if !ok {
				break
			}
			msg, err := protocol.Decode(m)
			if err != nil {
				t.Fatal(err)
			}
			msg.Body = append([]byte(nil), msg.Body...)
			p.msgs = append(p.msgs, msg)
		}
	}
}

// send delivers msgs from p to the server as one packet.
func (p *peer) send(t *testing.T, s *Server, now time.Duration, slot int, msgs ...[]byte) error {
	t.Helper()
	for _, m := range msgs {
		if err := p.ep.SendUnreliable(m); err != nil {
			t.Fatal(err)
		}
	}
	b, ok := p.ep.AppendPacket(nil, now)
	if !ok {
		t.Fatal("nothing to send")
	}
	return s.ReceiveAt(now, p.arrival(now), slot, b)
}

// arrival is when the peer's next packet arrived: now, unless held is set.
func (p *peer) arrival(now time.Duration) time.Duration { return now - p.held }

func (p *peer) count(tag protocol.Tag) int {
	n := 0
	for _, m := range p.msgs {
		if m.Tag == tag {
			n++
		}
	}
	return n
}

func TestConfig(t *testing.T) {
	for _, c := range []Config{{TickHz: -1}, {TickHz: 2000}, {SnapshotHz: 61}, {MaxCatchUp: -2}, {MaxClients: 5000}, {Hold: 2 * time.Second}, {Reliable: reliable.Config{MaxInFlight: 1}}} {
		if _, err := New(c, newFake()); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if _, err := New(Config{}, nil); !errors.Is(err, ErrConfig) {
		t.Error("nil game accepted")
	}
	s, err := New(Config{}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); c.TickHz != 60 || c.SnapshotHz != 30 || c.MaxCatchUp != 5 || c.MaxClients != 64 || s.TickInterval() != time.Second/60 {
		t.Fatalf("defaults %+v", c)
	}
}

// TestTicksAndSnapshots: ticks run on schedule, a regular snapshot every other
// tick, extra snapshots when the game asks, events reliably to every client.
func TestTicksAndSnapshots(t *testing.T) {
	g := newFake()
	g.extraAt[3] = true
	g.eventAt[4] = true
	s, _ := New(Config{}, g)
	peers := map[int]*peer{0: newPeer(t), 1: newPeer(t)}
	dt := s.TickInterval()
	for slot := range peers {
		if err := s.Connect(0, slot); err != nil {
			t.Fatal(err)
		}
		drain(t, s, 0, peers)
	}
	if err := s.Connect(0, 0); !errors.Is(err, ErrConnected) {
		t.Fatalf("connect twice: %v", err)
	}
	if s.Tick(dt-1) != 0 {
		t.Fatal("a tick ran early")
	}
	for n := 1; n <= 10; n++ {
		if got := s.Tick(time.Duration(n) * dt); got != 1 {
			t.Fatalf("tick %d ran %d", n, got)
		}
		drain(t, s, time.Duration(n)*dt, peers)
	}
	if len(g.steps) != 10 || g.steps[9].N != 10 || g.steps[9].Time != 10*dt || g.steps[0].Dt != dt {
		t.Fatalf("steps %+v", g.steps)
	}
	// Regular at ticks 2, 4, 6, 8, 10, extra at 3.
	want := []bool{true, false, true, true, true, true}
	if len(g.snapshot) != len(want) {
		t.Fatalf("snapshots %v, want %v", g.snapshot, want)
	}
	for _, p := range peers {
		if p.count(protocol.TagWelcome) != 1 || p.count(protocol.TagSnapshot) != 6 || p.count(protocol.TagEvent) != 1 {
			t.Fatalf("client got welcome %d, snapshots %d, events %d", p.count(protocol.TagWelcome), p.count(protocol.TagSnapshot), p.count(protocol.TagEvent))
		}
		if p.msgs[0].Welcome.Self != 100 && p.msgs[0].Welcome.Self != 101 || p.msgs[0].Welcome.TickHz != 60 {
			t.Fatalf("welcome %+v", p.msgs[0].Welcome)
		}
	}
	st := s.Stats()
	if st.Ticks != 10 || st.Snapshots != 12 || st.ExtraSnapshots != 2 || st.Events != 1 || st.Clients != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestOverrunCatchUp: a Tick call that finds many ticks due runs at most
// MaxCatchUp, skips the rest, and counts both.
func TestOverrunCatchUp(t *testing.T) {
	g := newFake()
	s, _ := New(Config{MaxCatchUp: 4}, g)
	dt := s.TickInterval()
	s.Tick(dt)
	if n := s.Tick(4 * dt); n != 3 {
		t.Fatalf("caught up %d ticks, want 3", n)
	}
	if n := s.Tick(time.Second); n != 4 {
		t.Fatalf("ran %d ticks after a 1 s stall, want 4", n)
	}
	st := s.Stats()
	if st.Ticks != 8 || st.Overruns != 2 || st.CaughtUp != 2+3 || st.Skipped != 52 || s.Ticks() != 60 {
		t.Fatalf("stats %+v, ticks %d", st, s.Ticks())
	}
	// Back on schedule: the next tick is due one interval after the last.
	if s.NextTick() != 61*dt || s.Tick(61*dt) != 1 {
		t.Fatal("not back on schedule")
	}
	if g.steps[len(g.steps)-1].Time != 61*dt {
		t.Fatalf("last step at %v", g.steps[len(g.steps)-1].Time)
	}
}

// TestPingInputLeave: pings are answered on receipt with the receive time;
// stale inputs are dropped (moves and plain inputs share one sequence, and
// the message's tag tells the game which it has); a client leaves and a
// refused one is counted.
func TestPingInputLeave(t *testing.T) {
	g := newFake()
	s, _ := New(Config{ClockEpoch: 42}, g)
	p := newPeer(t)
	peers := map[int]*peer{3: p}
	if err := s.Connect(time.Second, 3); err != nil {
		t.Fatal(err)
	}
	drain(t, s, time.Second, peers)
	now := 1234 * time.Millisecond
	h := protocol.Input{Sent: now, View: now - 100*time.Millisecond}
	in := func(seq uint32, data byte) []byte {
		h.Seq = seq
		return append(protocol.AppendInput(nil, h), data)
	}
	moves := func(seq uint32, data byte) []byte { return append(protocol.AppendMoves(nil, seq, 0), data) }
	if err := p.send(t, s, now, 3, protocol.AppendPing(nil, clock.Ping{ID: 5}), in(2, 'a'), moves(1, 'b'), moves(3, 'c')); err != nil {
		t.Fatal(err)
	}
	drain(t, s, now, peers)
	if p.count(protocol.TagPong) != 1 {
		t.Fatal("no pong")
	}
	pong := p.msgs[len(p.msgs)-1].Pong
	if pong.ID != 5 || pong.Epoch != 42 || pong.Recv != now || pong.Send != now {
		t.Fatalf("pong %+v", pong)
	}
	if len(g.inputs) != 2 || g.inputs[0].Seq != 2 || g.inputs[1].Data[0] != 'c' || g.inputs[0].View != now-100*time.Millisecond ||
		g.inputs[0].Moves || !g.inputs[1].Moves || g.inputs[1].Sent != 0 || g.inputs[1].View != 0 {
		t.Fatalf("inputs %+v", g.inputs)
	}
	if st := s.Stats(); st.StaleInputs != 1 || st.Pongs != 1 || st.Inputs != 2 {
		t.Fatalf("stats %+v", st)
	}
	if err := s.Receive(now, 3, []byte{1, 2}); err == nil || s.Stats().Malformed != 1 {
		t.Fatal("garbage accepted")
	}
	if cs, ok := s.ClientStats(3); !ok || cs.Self != 103 || cs.LastInput != 3 || cs.Connected != time.Second {
		t.Fatalf("client stats %+v", cs)
	}
	if err := s.Disconnect(now, 3); err != nil || g.joined[3] {
		t.Fatal("not left")
	}
	if err := s.Receive(now, 3, []byte{1}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("payload from a gone client: %v", err)
	}
	if err := s.Disconnect(now, 3); !errors.Is(err, ErrUnknown) {
		t.Fatal("left twice")
	}
	g.refuse = true
	if err := s.Connect(now, 4); err == nil || s.Stats().Refused != 1 {
		t.Fatal("refusal not reported")
	}
	if err := s.Connect(now, 64); !errors.Is(err, ErrSlot) {
		t.Fatalf("slot 64: %v", err)
	}
}

// TestReceiveAt: a payload handled later than it arrived (a driver reading
// once per tick) is answered with a pong saying when it arrived and when the
// pong left, and its input carries the arrival.
func TestReceiveAt(t *testing.T) {
	g := newFake()
	s, _ := New(Config{ClockEpoch: 42}, g)
	p := newPeer(t)
	peers := map[int]*peer{0: p}
	if err := s.Connect(time.Second, 0); err != nil {
		t.Fatal(err)
	}
	drain(t, s, time.Second, peers)
	now := 2 * time.Second
	p.held = 7 * time.Millisecond
	if err := p.send(t, s, now, 0, protocol.AppendPing(nil, clock.Ping{ID: 9}), append(protocol.AppendInput(nil, protocol.Input{Seq: 1}), 'x')); err != nil {
		t.Fatal(err)
	}
	drain(t, s, now, peers)
	pong := p.msgs[len(p.msgs)-1].Pong
	if pong.ID != 9 || pong.Recv != now-7*time.Millisecond || pong.Send != now {
		t.Fatalf("pong %+v, want Recv %v and Send %v", pong, now-7*time.Millisecond, now)
	}
	if len(g.inputs) != 1 || g.inputs[0].Arrival != now-7*time.Millisecond {
		t.Fatalf("inputs %+v", g.inputs)
	}
}

// TestLateJoiner: a client connecting mid-match has a regular snapshot, the
// whole state, within one snapshot interval.
func TestLateJoiner(t *testing.T) {
	s, _ := New(Config{}, newFake())
	dt := s.TickInterval()
	for n := 1; n <= 300; n++ {
		s.Tick(time.Duration(n) * dt)
	}
	joined := 300*dt + dt/3
	if err := s.Connect(joined, 9); err != nil {
		t.Fatal(err)
	}
	p := newPeer(t)
	peers := map[int]*peer{9: p}
	drain(t, s, joined, peers)
	for n := 301; p.count(protocol.TagSnapshot) == 0; n++ {
		s.Tick(time.Duration(n) * dt)
		drain(t, s, time.Duration(n)*dt, peers)
	}
	cs, _ := s.ClientStats(9)
	if wait := cs.FirstSnapshot - joined; wait > time.Second/30 {
		t.Fatalf("first snapshot %v after joining", wait)
	}
	var snap protocol.Message
	for _, m := range p.msgs {
		if m.Tag == protocol.TagSnapshot {
			snap = m
			break
		}
	}
	if !snap.Snapshot.Regular {
		t.Fatal("the first snapshot is not a full one")
	}
}

// replyGame is a fakeGame that answers each input with a reply naming it,
// and after each tick with one naming the tick.
type replyGame struct {
	*fakeGame
	owed []byte
}

func (g *replyGame) Input(client int, in Input) {
	g.fakeGame.Input(client, in)
	if in.Arrival <= 0 {
		panic("no arrival time")
	}
	g.owed = append(g.owed, 'i', in.Data[0])
}

func (g *replyGame) Step(t Tick, ev Emitter) bool {
	g.owed = append(g.owed, 't')
	return g.fakeGame.Step(t, ev)
}

func (g *replyGame) AppendReply(dst []byte, client int, now time.Duration) []byte {
	dst = append(dst, g.owed...)
	g.owed = g.owed[:0]
	return dst
}

// TestReplies: a Replier's answers reach the client that sent the input, as
// Reply messages, with the packets of the next tick.
func TestReplies(t *testing.T) {
	g := &replyGame{fakeGame: newFake()}
	s, _ := New(Config{}, g)
	p := newPeer(t)
	peers := map[int]*peer{0: p}
	if err := s.Connect(0, 0); err != nil {
		t.Fatal(err)
	}
	drain(t, s, 0, peers)
	now := 10 * time.Millisecond
	if err := p.send(t, s, now, 0, append(protocol.AppendInput(nil, protocol.Input{Seq: 1}), 'x')); err != nil {
		t.Fatal(err)
	}
	drain(t, s, now, peers)
	if p.count(protocol.TagReply) != 0 {
		t.Fatal("reply sent before the tick")
	}
	s.Tick(time.Second / 60)
	drain(t, s, time.Second/60, peers)
	var bodies []string
	for _, m := range p.msgs {
		if m.Tag == protocol.TagReply {
			bodies = append(bodies, string(m.Body))
		}
	}
	if len(bodies) != 2 || bodies[0] != "ix" || bodies[1] != "t" || s.Stats().Replies != 2 {
		t.Fatalf("replies %q, %+v", bodies, s.Stats())
	}
	// The replies' bytes are counted as such: a tag and a body each.
	if cs, _ := s.ClientStats(0); cs.ReplyBytes != 1+2+1+1 || cs.SnapshotBytes != 0 || cs.PongBytes != 0 || cs.EventBytes != 0 {
		t.Fatalf("client stats %+v", cs)
	}
}

// TestReplyHold: with Config.ReplyHold, a reply made at a tick without a
// snapshot waits for the next snapshot's packet, but no longer than the
// hold (as checked at each tick): the client gets its replies in fewer
// packets. An event waiting for its acknowledgement sends no packet of its
// own before its resend is due, so the replies' hold holds then too.
func TestReplyHold(t *testing.T) {
	for _, c := range []struct {
		hold       time.Duration
		snapshotHz int
		packets    int // in 60 ticks
		late       time.Duration
		event      bool // an event at the second tick (a snapshot's), never acknowledged
	}{
		{0, 30, 60, 0, false},
		{34 * time.Millisecond, 30, 30, time.Second / 60, false},
		{34 * time.Millisecond, 10, 20, 3 * time.Second / 60, false}, // the first tick 34 ms on: every third
		{34 * time.Millisecond, 30, 30, time.Second / 60, true},
	} {
		g := &replyGame{fakeGame: newFake()}
		g.eventAt[2] = c.event
		// No resend due within the second measured.
		s, err := New(Config{ReplyHold: c.hold, SnapshotHz: c.snapshotHz, Reliable: reliable.Config{MinResend: 2 * time.Second, MaxResend: 2 * time.Second}}, g)
		if err != nil {
			t.Fatal(err)
		}
		p := newPeer(t)
		peers := map[int]*peer{0: p}
		if err := s.Connect(0, 0); err != nil {
			t.Fatal(err)
		}
		drain(t, s, 0, peers)
		if err := p.send(t, s, 0, 0); err != nil { // the welcome acknowledged
			t.Fatal(err)
		}
		drain(t, s, 0, peers)
		start := p.packets
		var late time.Duration     // longest a reply waited
		since := time.Duration(-1) // when the oldest reply not sent was made
		for k := 1; k <= 60; k++ {
			now := time.Duration(k) * time.Second / 60
			s.Tick(now) // the game makes a reply at every tick
			if since < 0 {
				since = now
			}
			before := p.count(protocol.TagReply)
			drain(t, s, now, peers)
			if p.count(protocol.TagReply) > before {
				late, since = max(late, now-since), -1
			}
		}
		packets := p.packets - start
		t.Logf("hold %v, snapshots %d Hz, event %v: %d replies in %d packets, one waited %v", c.hold, c.snapshotHz, c.event, p.count(protocol.TagReply), packets, late)
		if packets != c.packets || late-c.late > time.Microsecond || c.late-late > time.Microsecond {
			t.Errorf("hold %v, snapshots %d Hz, event %v: %d packets in 60 ticks (want %d), a reply waited %v (want %v)", c.hold, c.snapshotHz, c.event, packets, c.packets, late, c.late)
		}
	}
}

// TestClientBytesIn: the messages read from a client's payloads are counted
// by kind as the client counts what it sends: an Input message whole, a
// Moves message less its header's ack field (counted as an
// acknowledgement's), an Ack message whole, a ping whole.
func TestClientBytesIn(t *testing.T) {
	s, _ := New(Config{}, newFake())
	p := newPeer(t)
	if err := s.Connect(0, 0); err != nil {
		t.Fatal(err)
	}
	drain(t, s, 0, map[int]*peer{0: p})
	in := append(protocol.AppendInput(nil, protocol.Input{Seq: 1}), 'x')
	moves := append(protocol.AppendMoves(nil, 2, 300), 'y', 'z') // ack 300: 2 bytes
	ack := protocol.AppendAck(nil, 5)
	ping := protocol.AppendPing(nil, clock.Ping{})
	if err := p.send(t, s, 10*time.Millisecond, 0, in, moves, ack, ping); err != nil {
		t.Fatal(err)
	}
	cs, _ := s.ClientStats(0)
	if cs.InputBytes != uint64(len(in)+len(moves)-2) || cs.AckBytes != uint64(2+len(ack)) || cs.PingBytes != uint64(len(ping)) {
		t.Errorf("input %d, ack %d, ping %d bytes: want %d, %d, %d", cs.InputBytes, cs.AckBytes, cs.PingBytes, len(in)+len(moves)-2, 2+len(ack), len(ping))
	}
	if cs.BytesIn <= cs.InputBytes+cs.AckBytes+cs.PingBytes {
		t.Errorf("%d bytes in, no more than the messages' %d", cs.BytesIn, cs.InputBytes+cs.AckBytes+cs.PingBytes)
	}
}
