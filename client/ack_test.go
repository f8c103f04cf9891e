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

// The client acknowledges the newest baseline its game kept, once, on a
// packet that goes anyway: one that carries an input or a ping, or the
// channel's acknowledgement of a packet received since the last Update; so
// a baseline is acknowledged at the first Update after it arrived.
func TestAckNewestBaseline(t *testing.T) {
	r := newRig(t)
	c, err := New(Config{}, baselineGame{})
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	c.Connected(0)
	var acks []uint64
	for n := uint64(1); n <= 120; n++ {
		r.now = time.Duration(n) * time.Second / 60
		if n%2 == 0 {
			msg := appendEnts(protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: n, Time: r.now, Regular: true}), 0, ent{id: 1, x: float64(n)})
			_ = r.srv.SendUnreliable(msg)
		}
		arrived := false // the channel owes an acknowledgement
		for {
			p, ok := r.srv.AppendPacket(nil, r.now)
			if !ok {
				break
			}
			if err := c.Receive(r.now, p); err != nil {
				t.Fatal(err)
			}
			arrived = true
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
				if !carrier && !arrived {
					t.Fatalf("tick %d: an ack in a packet of its own", n)
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
