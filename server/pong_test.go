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
		s.Tick(now)
		drain(t, s, now, peers)
	}
	if n := flood.count(protocol.TagPong); n > 20+5 || n < 20 {
		t.Fatalf("flooder got %d pongs in 1 s, want 20 to 25", n)
	}
	if n := honest.count(protocol.TagPong); n != sent {
		t.Fatalf("honest client got %d of %d pongs", n, sent)
	}
}

// TestHeldPong: a client's first pongs (promptPongs: its clock's first
// burst) go at once; later ones wait for the client's next snapshot and
// share its packet, stamped with the time they leave; with snapshots
// further apart than Config.Hold one goes alone at the first tick Hold after
// the ping; with a negative Hold, at once.
func TestHeldPong(t *testing.T) {
	for _, tc := range []struct {
		cfg      Config
		at       time.Duration // the tick whose packet carries the pong
		snapshot bool          // and a snapshot
	}{
		{Config{}, 62 * time.Second / 60, true},
		{Config{SnapshotHz: 6, Hold: 30 * time.Millisecond}, 63 * time.Second / 60, false},
		{Config{Hold: -1}, 0, false},
	} {
		s, _ := New(tc.cfg, newFake())
		p := newPeer(t)
		peers := map[int]*peer{0: p}
		if err := s.Connect(0, 0); err != nil {
			t.Fatal(err)
		}
		drain(t, s, 0, peers)
		tick := 0 // ticks run
		ping := func(id uint32, at time.Duration) {
			for ; time.Duration(tick+1)*time.Second/60 <= at; tick++ {
				s.Tick(time.Duration(tick+1) * time.Second / 60)
				drain(t, s, time.Duration(tick+1)*time.Second/60, peers)
			}
			if err := p.send(t, s, at, 0, protocol.AppendPing(nil, clock.Ping{ID: id})); err != nil {
				t.Fatal(err)
			}
			drain(t, s, at, peers)
		}
		for k := range promptPongs { // pings at 20 Hz, between ticks
			ping(uint32(k), time.Duration(k)*time.Second/20+time.Millisecond)
			if n := p.count(protocol.TagPong); n != k+1 {
				t.Fatalf("%+v: ping %d of the first %d answered by %d pongs at once", tc.cfg, k, promptPongs, n)
			}
		}
		arrival := time.Second + 10*time.Millisecond
		ping(99, arrival)
		if n, want := p.count(protocol.TagPong), promptPongs+b2i(tc.cfg.Hold < 0); n != want {
			t.Fatalf("%+v: %d pongs right after the ping, want %d", tc.cfg, n, want)
		}
		for k := tick + 1; p.count(protocol.TagPong) == promptPongs; k++ {
			now := time.Duration(k) * time.Second / 60
			if now > tc.at {
				t.Fatalf("%+v: no pong by %v", tc.cfg, tc.at)
			}
			before, snaps := p.packets, p.count(protocol.TagSnapshot)
			s.Tick(now)
			drain(t, s, now, peers)
			if p.count(protocol.TagPong) == promptPongs {
				continue
			}
			pong := p.msgs[len(p.msgs)-1].Pong
			if now != tc.at || p.packets != before+1 || pong.ID != 99 || pong.Recv != arrival || pong.Send != now.Truncate(time.Microsecond) ||
				(p.count(protocol.TagSnapshot) > snaps) != tc.snapshot {
				t.Fatalf("%+v: pong %+v at %v in %d packets; want at %v", tc.cfg, pong, now, p.packets-before, tc.at)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
