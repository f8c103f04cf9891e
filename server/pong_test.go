package server

import (
	"testing"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/protocol"
)

// A packet carrying many pings earns one pong: replies never outgrow the
// pings that asked for them.
func TestOnePongPerPacket(t *testing.T) {
	s, _ := New(Config{}, newFake())
	p := newPeer(t)
	peers := map[int]*peer{0: p}
	if err := s.Connect(0, 0); err != nil {
		t.Fatal(err)
	}
	drain(t, s, 0, peers)
	var pings [][]byte
	for i := range 40 {
		pings = append(pings, protocol.AppendPing(nil, clock.Ping{ID: uint32(i)}))
	}
	before := s.Stats()
	if err := p.send(t, s, time.Millisecond, 0, pings...); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	drain(t, s, time.Millisecond, peers)
	if n := p.count(protocol.TagPong); n != 1 {
		t.Fatalf("%d pongs for one packet of 40 pings", n)
	}
	if st.BytesOut-before.BytesOut > st.BytesIn-before.BytesIn {
		t.Fatalf("%d bytes out for %d in", st.BytesOut-before.BytesOut, st.BytesIn-before.BytesIn)
	}
	if st.PingsIgnored != 39 {
		t.Fatalf("PingsIgnored %d, want 39", st.PingsIgnored)
	}
	if p.msgs[len(p.msgs)-1].Pong.ID != 39 {
		t.Fatalf("answered ping %d, want the last (39)", p.msgs[len(p.msgs)-1].Pong.ID)
	}
}

// A client pinging 2,000 times a second gets PongHz pongs a second (and a
// burst of PongHz/4); one pinging at the clock's fast rate gets every pong.
func TestPongRate(t *testing.T) {
	s, _ := New(Config{}, newFake())
	flood, honest := newPeer(t), newPeer(t)
	peers := map[int]*peer{0: flood, 1: honest}
	for slot := range peers {
		if err := s.Connect(0, slot); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, s, 0, peers)
	sent := 0
	for k := range 2000 {
		now := time.Duration(k) * 500 * time.Microsecond
		flood.send(t, s, now, 0, protocol.AppendPing(nil, clock.Ping{ID: uint32(k)}))
		drain(t, s, now, peers)
		if k%200 == 0 { // 10 Hz
			honest.send(t, s, now, 1, protocol.AppendPing(nil, clock.Ping{ID: uint32(k)}))
			drain(t, s, now, peers)
			sent++
		}
	}
	if n := flood.count(protocol.TagPong); n > 20+5 || n < 20 {
		t.Fatalf("flooder got %d pongs in 1 s, want 20 to 25", n)
	}
	if n := honest.count(protocol.TagPong); n != sent {
		t.Fatalf("honest client got %d of %d pongs", n, sent)
	}
}
