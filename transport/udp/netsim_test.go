package udp

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/netsim"
)

// side is one end of the reliable channels over a udp driver.
type side struct {
	mu       sync.Mutex
	ep       *reliable.Endpoint
	start    time.Time
	sentRel  [][]byte   // what this side queued, in order; written under mu and relMu
	relMu    sync.Mutex // a leaf lock: the peer reads sentRel under it
	nextRel  int        // next expected from the peer
	badOrder int
	unrel    map[uint64]int
	dupUnrel int
	maxSeq   int
	reorder  int
	anySeq   bool
}

func newSide(t *testing.T, start time.Time) *side {
	ep, err := reliable.New(reliable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &side{ep: ep, start: start, unrel: map[uint64]int{}}
}

// receive handles one netcode payload: a reliable-layer packet.
func (s *side) receive(p []byte, peer *side) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(p) >= 3 { // count reordering from the reliable header's sequence
		seq := int(binary.LittleEndian.Uint16(p[1:]))
		if s.anySeq && seq < s.maxSeq {
			s.reorder++
		}
		if !s.anySeq || seq > s.maxSeq {
			s.maxSeq, s.anySeq = seq, true
		}
	}
	s.ep.Receive(time.Since(s.start), p)
	for {
		m, rel, ok := s.ep.Read()
		if !ok {
			return
		}
		if !rel {
			id := binary.LittleEndian.Uint64(m)
			if s.unrel[id] > 0 {
				s.dupUnrel++
			}
			s.unrel[id]++
			continue
		}
		peer.relMu.Lock()
		want := []byte(nil)
		if s.nextRel < len(peer.sentRel) {
			want = peer.sentRel[s.nextRel]
		}
		peer.relMu.Unlock()
		if !bytes.Equal(m, want) {
			s.badOrder++
		}
		s.nextRel++
	}
}

// flush sends every packet the endpoint has due through send.
func (s *side) flush(send func([]byte) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Since(s.start)
	buf := make([]byte, 0, reliable.MaxPacketSize)
	for k := 0; k < 128; k++ {
		p, ok := s.ep.AppendPacket(buf[:0], now)
		if !ok {
			return
		}
		send(p)
	}
}

// TestReliableThroughNetsim runs the reliable and unreliable channels over
// netcode over real loopback sockets wrapped by netsim: 10 % loss, 10 %
// duplication and exponential jitter (which reorders) in both directions.
func TestReliableThroughNetsim(t *testing.T) {
	dir := netsim.Direction{
		LatencyMs: 10,
		Jitter:    netsim.Jitter{Dist: "exponential", MeanMs: 5},
		Loss:      netsim.Loss{Rate: 0.1},
		Dup:       0.1,
	}
	start := time.Now()
	srvSide, cliSide := newSide(t, start), newSide(t, start)
	var srvConn, cliConn *netsim.PacketConn
	e := newEnvWrap(t, 2, func(c net.PacketConn) net.PacketConn {
		srvConn = netsim.NewPacketConn(c, dir, 1)
		return srvConn
	}, func(e *testEnv, client int, p []byte) { srvSide.receive(p, cliSide) })
	cliConn = netsim.NewPacketConn(listen(t), dir, 2)
	w := newWaiter()
	cl, err := Dial(cliConn, e.token(t, 1, netcode.TokenParams{}), ClientConfig{
		OnState:   func(s netcode.ClientState) { w.ch <- s },
		OnPayload: func(p []byte) { cliSide.receive(p, srvSide) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	w.wait(t, netcode.StateConnected, 10*time.Second)
	idx := cl.ClientIndex()
	srvSend := func(p []byte) error { return e.server().Send(idx, p) }
	cliSend := cl.Send

	rng := rand.New(rand.NewPCG(5, 6))
	const ticks, tick = 150, 10 * time.Millisecond // 1.5 s of sending
	var unrelID uint64
	queue := func(s *side, i int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if i < ticks {
			if rng.IntN(2) == 0 {
				n := rng.IntN(300)
				if rng.IntN(30) == 0 {
					n = rng.IntN(reliable.MaxMessageSize + 1)
				}
				m := make([]byte, n)
				for j := range m {
					m[j] = byte(len(s.sentRel) + j)
				}
				if s.ep.SendReliable(m) == nil {
					s.relMu.Lock()
					s.sentRel = append(s.sentRel, m)
					s.relMu.Unlock()
				}
			}
			var u [8]byte
			binary.LittleEndian.PutUint64(u[:], unrelID)
			unrelID++
			s.ep.SendUnreliable(u[:])
		}
	}
	done := func() bool {
		srvSide.mu.Lock()
		cliSide.mu.Lock()
		defer srvSide.mu.Unlock()
		defer cliSide.mu.Unlock()
		return srvSide.nextRel == len(cliSide.sentRel) && cliSide.nextRel == len(srvSide.sentRel)
	}
	tk := time.NewTicker(tick)
	defer tk.Stop()
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; ; i++ {
		<-tk.C
		queue(srvSide, i)
		queue(cliSide, i)
		srvSide.flush(srvSend)
		cliSide.flush(cliSend)
		if i >= ticks && done() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not all reliable messages delivered: %d/%d and %d/%d", srvSide.nextRel, len(cliSide.sentRel), cliSide.nextRel, len(srvSide.sentRel))
		}
	}
	for _, s := range []*side{srvSide, cliSide} {
		s.mu.Lock()
		if s.badOrder != 0 || s.dupUnrel != 0 {
			t.Errorf("out of order or wrong %d, unreliable twice %d", s.badOrder, s.dupUnrel)
		}
		s.mu.Unlock()
	}
	ss, cs := srvConn.Stats().Path, cliConn.Stats().Path
	st := e.srv.Stats()
	srvSide.mu.Lock()
	cliSide.mu.Lock()
	rs, rc := srvSide.ep.Stats(), cliSide.ep.Stats()
	t.Logf("netsim down: sent %d lost %d duplicated %d; up: sent %d lost %d duplicated %d; reordered arrivals seen %d (server) %d (client)",
		ss.Sent, ss.Lost, ss.Duplicated, cs.Sent, cs.Lost, cs.Duplicated, srvSide.reorder, cliSide.reorder)
	t.Logf("reliable: %d up and %d down delivered exactly once in order (largest %d bytes); unreliable delivered %d up, %d down of %d each, 0 twice; netcode replay drops at server %d; fragments resent %d+%d; rtt %v/%v",
		srvSide.nextRel, cliSide.nextRel, largest(cliSide.sentRel, srvSide.sentRel), len(srvSide.unrel), len(cliSide.unrel), ticks, st.Dropped.Replay, rs.FragmentsResent, rc.FragmentsResent, rs.RTT.Round(time.Millisecond), rc.RTT.Round(time.Millisecond))
	cliSide.mu.Unlock()
	srvSide.mu.Unlock()
}

func largest(lists ...[][]byte) int {
	n := 0
	for _, l := range lists {
		for _, m := range l {
			n = max(n, len(m))
		}
	}
	return n
}
