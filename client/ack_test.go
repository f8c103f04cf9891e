package client

import (
	"testing"
	"time"

	"github.com/tether-net/tether/protocol"
)

// baselineGame keeps every snapshot as a baseline.
type baselineGame struct{ testGame }

func (g baselineGame) DecodeSnapshot(s *Snapshot, b []byte) error {
	err := g.testGame.DecodeSnapshot(s, b)
	s.Baseline = err == nil && s.Tick%4 == 0 // every other regular one
	return err
}

// The client acknowledges the newest baseline its game kept, once, at the
// first Update after it arrived: while it sends no inputs, in a packet of its
// own if no other goes (Config.AckEvery negative: at once); once it sends
// inputs (one every Update here), on the packet of the input.
func TestAckNewestBaseline(t *testing.T) {
	r := newRig(t)
	c, err := New(Config{AckEvery: -1}, baselineGame{})
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	c.Connected(0)
	var acks []uint64
	for n := uint64(1); n <= 120; n++ {
		r.now = time.Duration(n) * time.Second / 60
		if n%2 == 0 {
			msg := appendEnts(protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: n, Regular: true}), 0, ent{id: 1, x: float64(n)})
			_ = r.srv.SendUnreliable(msg)
		}
		for {
			p, ok := r.srv.AppendPacket(nil, r.now)
			if !ok {
				break
			}
			if err := c.Receive(r.now, p); err != nil {
				t.Fatal(err)
			}
		}
		if n > 60 {
			c.SetInput([]byte{1}) // inputs from the second second on
		}
		c.Update(r.now)
		acked := uint64(0)
		for {
			p, ok := c.Transmit()
			if !ok {
				break
			}
			if err := r.srv.Receive(r.now, p); err != nil {
				t.Fatal(err)
			}
			carrier := false
			var ack uint64
			for {
				m, _, ok := r.srv.Read()
				if !ok {
					break
				}
				msg, _ := protocol.Decode(m)
				switch msg.Tag {
				case protocol.TagInput, protocol.TagMoves, protocol.TagPing:
					carrier = true
				case protocol.TagAck:
					ack = msg.Ack
				}
			}
			if ack != 0 {
				if !carrier && n > 60 {
					t.Fatalf("tick %d: an ack in a packet of its own while inputs go", n)
				}
				if len(acks) > 0 && ack <= acks[len(acks)-1] || ack%4 != 0 || ack > n {
					t.Fatalf("tick %d: ack %d after %v", n, ack, acks)
				}
				acks = append(acks, ack)
				acked = ack
			}
		}
		if n%4 == 0 && acked != n {
			t.Fatalf("tick %d: baseline %d kept, acknowledged %d", n, n, acked)
		}
	}
	if st := c.Stats(); len(acks) < 25 || acks[len(acks)-1] != 120 || st.Acks != uint64(len(acks)) || st.AckBytesOut == 0 {
		t.Fatalf("acks %v, stats %+v", acks, st)
	}
}

// A client that sends no inputs acknowledges in packets of their own at
// most every Config.AckEvery (100 ms by default), the newest baseline each
// time; one that sends inputs, on every input, whatever AckEvery says.
func TestAckEvery(t *testing.T) {
	r := newRig(t)
	c, err := New(Config{}, baselineGame{})
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	c.Connected(0)
	var own, carried []time.Duration
	for n := uint64(1); n <= 240; n++ {
		r.now = time.Duration(n) * time.Second / 60
		if n%2 == 0 {
			_ = r.srv.SendUnreliable(appendEnts(protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: n, Regular: true}), 0, ent{id: 1, x: float64(n)}))
		}
		for {
			p, ok := r.srv.AppendPacket(nil, r.now)
			if !ok {
				break
			}
			if err := c.Receive(r.now, p); err != nil {
				t.Fatal(err)
			}
		}
		if n > 120 {
			c.SetInput([]byte{1})
		}
		c.Update(r.now)
		for {
			p, ok := c.Transmit()
			if !ok {
				break
			}
			if err := r.srv.Receive(r.now, p); err != nil {
				t.Fatal(err)
			}
			input, ping, ack := false, false, false
			for {
				m, _, ok := r.srv.Read()
				if !ok {
					break
				}
				msg, _ := protocol.Decode(m)
				input = input || msg.Tag == protocol.TagInput
				ping = ping || msg.Tag == protocol.TagPing
				ack = ack || msg.Tag == protocol.TagAck
			}
			switch {
			case ack && input:
				carried = append(carried, r.now)
			case ack && !ping && n <= 120:
				own = append(own, r.now)
			}
		}
	}
	for i := 1; i < len(own); i++ {
		if d := own[i] - own[i-1]; d < 100*time.Millisecond {
			t.Fatalf("acks of their own %v apart: %v", d, own)
		}
	}
	if len(own) < 5 || len(own) > 20 || len(carried) < 25 {
		t.Fatalf("%d acks of their own in 2 s (want some, at most 20: every 100 ms but those on pings), %d on inputs in 2 s (want one a baseline kept, 30)", len(own), len(carried))
	}
	t.Logf("%d acks in packets of their own in 2 s without inputs, %d on inputs in 2 s", len(own), len(carried))
}

// predictBaselines predicts (predictGame) and keeps baselines as
// baselineGame does.
type predictBaselines struct{ *predictGame }

func (g predictBaselines) DecodeSnapshot(s *Snapshot, b []byte) error {
	return baselineGame{}.DecodeSnapshot(s, b)
}

// A predicting client acknowledges the newest baseline in the header of its
// Moves message (a byte or two, where an Ack message costs its tag and
// framing too); at an Update that sends no moves (every other one here) it
// waits for the next, unless a ping goes (then in an Ack message beside it).
// Never both at once, never in a packet of its own, and every
// acknowledgement is of the newest baseline kept.
func TestAckInMovesHeader(t *testing.T) {
	g := &predictGame{}
	c, err := New(Config{}, predictBaselines{g})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	r.c = c
	c.Connected(0)
	r.run(2*time.Second, func(now time.Duration) ([]ent, bool) {
		c.SetInput([]byte("in"))
		return []ent{{id: 1, kind: 1, x: 3}}, every30Hz(now)
	}, nil)
	inMoves := 0
	for i, a := range r.acks {
		if a.inMoves {
			inMoves++
		} else if !a.withPing {
			t.Fatalf("acknowledgement %d: %+v in a packet of its own", i, a)
		}
		if a.tick%4 != 0 || (i > 0 && (a.tick <= r.acks[i-1].tick || a.at == r.acks[i-1].at)) {
			t.Fatalf("acknowledgement %d: %+v after %+v", i, a, r.acks[max(i-1, 0)])
		}
	}
	st := c.Stats()
	t.Logf("%d of %d acknowledgements in Moves headers; ack bytes %d, input bytes %d", inMoves, len(r.acks), st.AckBytesOut, st.InputBytesOut)
	if inMoves == 0 || st.Acks != uint64(len(r.acks)) {
		t.Fatalf("%d of %d acknowledgements in Moves headers, %d counted", inMoves, len(r.acks), st.Acks)
	}
	if last := r.acks[len(r.acks)-1].tick; last+4 < uint64(2*60) {
		t.Fatalf("newest baseline acknowledged %d, want one of the last snapshots", last)
	}
}
