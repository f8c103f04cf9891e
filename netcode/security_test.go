package netcode

import (
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// connectAll connects every client of n and exchanges some payloads, so
// the capture log holds every packet type of a real session.
func connectAll(t *testing.T, n *vnet, payloads int) {
	t.Helper()
	for i, c := range n.clients {
		if err := c.Connect(n.now, newTestToken(t, uint64(1+i), n.now, uint64(10+i))); err != nil {
			t.Fatal(err)
		}
	}
	n.step(10 * time.Millisecond)
	for i, c := range n.clients {
		if c.State() != StateConnected {
			t.Fatalf("client %d: %v", i, c.State())
		}
	}
	for k := 0; k < payloads; k++ {
		for _, c := range n.clients {
			c.SendPayload(n.now, []byte{byte(k), 1, 2, 3})
			n.srv.SendPayload(n.now, c.ClientIndex(), []byte{byte(k), 4, 5})
		}
		n.step(16 * time.Millisecond)
	}
}

// replayAll re-sends every captured datagram to its original receiver and
// returns how many were accepted (no error).
func replayAll(n *vnet, log []captured) (accepted, total int) {
	for _, c := range log {
		data := append([]byte(nil), c.data...)
		var err error
		if c.to == testServer {
			_, _, err = n.srv.Receive(n.now, c.from, data)
		} else if i := n.clientByAddr(c.to); i >= 0 {
			_, err = n.clients[i].Receive(n.now, c.from, data)
		}
		total++
		if err == nil {
			accepted++
		}
		for {
			if _, _, ok := n.srv.Transmit(); !ok {
				break
			}
		}
	}
	return accepted, total
}

func TestReplayRejected(t *testing.T) {
	n := newVnet(t, 8, 4)
	connectAll(t, n, 20)
	log := append([]captured(nil), n.log...)
	before := n.srv.Stats()

	// Re-sent at once: every datagram is refused.
	acc, total := replayAll(n, log)
	if acc != 0 {
		t.Fatalf("immediate replay: %d of %d accepted", acc, total)
	}
	// After the window moved on (more than 256 packets each way).
	for k := 0; k < 300; k++ {
		for _, c := range n.clients {
			c.SendPayload(n.now, []byte{1})
			n.srv.SendPayload(n.now, c.ClientIndex(), []byte{2})
		}
		n.step(time.Millisecond)
	}
	acc2, total2 := replayAll(n, log)
	if acc2 != 0 {
		t.Fatalf("late replay: %d of %d accepted", acc2, total2)
	}
	after := n.srv.Stats()
	if after.PayloadsIn-before.PayloadsIn != uint64(300*len(n.clients)) || after.Connects != before.Connects {
		t.Fatalf("replays changed state: payloads %d, connects %d", after.PayloadsIn-before.PayloadsIn, after.Connects)
	}
	// From an attacker's address: requests are token reuse, the rest unknown.
	evil := netip.MustParseAddrPort("127.0.0.66:6666")
	for _, c := range log {
		if c.to != testServer {
			continue
		}
		if _, _, err := n.srv.Receive(n.now, evil, append([]byte(nil), c.data...)); err == nil {
			t.Fatal("spoofed replay accepted")
		}
	}
	if _, _, ok := n.srv.Transmit(); ok {
		t.Fatal("server answered a spoofed replay")
	}
	t.Logf("replayed %d datagrams at once and %d after the window moved: 0 accepted", total, total2)
}

func TestReplayWindow(t *testing.T) {
	var w replayWindow
	if w.seen(0) {
		t.Fatal("fresh window rejects 0")
	}
	w.mark(0)
	if !w.seen(0) {
		t.Fatal("0 accepted twice")
	}
	for s := uint64(1); s < 1000; s += 2 {
		w.mark(s)
	}
	if !w.seen(999) || w.seen(998) || !w.seen(999-256) || !w.seen(999-300) || w.seen(744) {
		t.Fatal("window bookkeeping")
	}
	// Near 2^64 (the overflow erratum): the top of the space still works.
	w = replayWindow{}
	top := ^uint64(0)
	for s := top - 300; s != top; s++ {
		if s%3 == 0 {
			continue
		}
		if w.seen(s) {
			t.Fatalf("fresh %#x rejected", s)
		}
		w.mark(s)
	}
	if w.seen(top) {
		t.Fatal("2^64-1 rejected before use")
	}
	w.mark(top)
	if !w.seen(top) || !w.seen(top-1) || !w.seen(top-256) {
		t.Fatal("duplicates near 2^64 accepted")
	}
	if w.seen(top - 3) {
		t.Fatal("unreceived sequence near 2^64 rejected")
	}
}

func TestAmplification(t *testing.T) {
	n := newVnet(t, 2, 2)
	connectAll(t, n, 0) // two honest handshakes fill the server
	rng := rand.New(rand.NewPCG(1, 2))
	k := testKey()
	var maxRatio float64
	// Fresh valid tokens from spoofed addresses (the worst case): server full, so denied.
	for i := 0; i < 200; i++ {
		tok, _ := NewConnectToken(testRand(uint64(1000+i)), &k, TokenParams{ProtocolID: testProtocol, ClientID: uint64(5000 + i), ServerAddresses: []netip.AddrPort{testServer}, Now: n.now})
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 9, byte(i), 1}), uint16(rng.IntN(60000)+1))
		req := appendRequest(nil, tok)
		n.srv.Receive(n.now, from, req)
		for {
			p, _, ok := n.srv.Transmit()
			if !ok {
				break
			}
			if r := float64(len(p)) / float64(len(req)); r > maxRatio {
				maxRatio = r
			}
		}
	}
	// Free the slots: now spoofed valid requests get challenges.
	n.srv.DisconnectAll(n.now)
	for {
		if _, _, ok := n.srv.Transmit(); !ok {
			break
		}
	}
	for i := 0; i < 200; i++ {
		tok, _ := NewConnectToken(testRand(uint64(3000+i)), &k, TokenParams{ProtocolID: testProtocol, ClientID: uint64(9000 + i), ServerAddresses: []netip.AddrPort{testServer}, Now: n.now})
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 10, byte(i), 1}), 999)
		req := appendRequest(nil, tok)
		n.srv.Receive(n.now, from, req)
		for {
			p, _, ok := n.srv.Transmit()
			if !ok {
				break
			}
			if r := float64(len(p)) / float64(len(req)); r > maxRatio {
				maxRatio = r
			}
		}
	}
	st := n.srv.Stats()
	ratio := float64(st.UnauthBytesOut) / float64(st.UnauthBytesIn)
	if ratio > 1 || maxRatio > 1 {
		t.Fatalf("amplification: total %.3f, worst single reply %.3f", ratio, maxRatio)
	}
	t.Logf("unauthenticated bytes in %d, out %d: ratio %.3f; worst single reply/request %.3f", st.UnauthBytesIn, st.UnauthBytesOut, ratio, maxRatio)
}

func TestGarbageFlood(t *testing.T) {
	n := newVnet(t, 4, 2)
	connectAll(t, n, 2)
	before := n.srv.Stats()
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 1500)
	const N = 20000
	for i := 0; i < N; i++ {
		size := rng.IntN(len(buf) + 1)
		for j := 0; j < size; j++ {
			buf[j] = byte(rng.Uint32())
		}
		switch i % 5 {
		case 0: // request-shaped: right size, zero prefix, right version
			size = RequestPacketSize
			buf[0] = 0
			copy(buf[1:], VersionInfo[:])
		case 1: // plausible encrypted prefix
			if size > 0 {
				buf[0] = byte(rng.IntN(8)+1)<<4 | byte(rng.IntN(7))
			}
		}
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 1, byte(i >> 8), byte(i)}), uint16(i))
		if i%7 == 0 { // from a connected client's address
			from = n.addrs[i%2]
		}
		if _, _, err := n.srv.Receive(n.now, from, buf[:size]); err == nil {
			t.Fatalf("garbage datagram %d accepted", i)
		}
		if _, err := n.clients[i%2].Receive(n.now, testServer, buf[:size]); err == nil {
			t.Fatalf("garbage datagram %d accepted by client", i)
		}
	}
	st := n.srv.Stats()
	if got := st.Dropped.Total() - before.Dropped.Total(); got != N {
		t.Fatalf("dropped %d of %d", got, N)
	}
	if st.Pending != 0 || st.TokenHistory != before.TokenHistory || n.srv.NumConnected() != 2 || st.PacketsOut != before.PacketsOut {
		t.Fatalf("state grew: %+v", st)
	}
	if _, _, ok := n.srv.Transmit(); ok {
		t.Fatal("server answered garbage")
	}
	t.Logf("garbage flood: %d datagrams, %d dropped (malformed %d, version %d, unknown address %d, auth %d, replay %d, packet type %d), pending %d, outgoing 0",
		N, st.Dropped.Total()-before.Dropped.Total(), st.Dropped.Malformed, st.Dropped.Version, st.Dropped.UnknownAddress, st.Dropped.Auth, st.Dropped.Replay, st.Dropped.PacketType, st.Pending)
	// Still works afterwards.
	n.clients[0].SendPayload(n.now, []byte("ok"))
	n.flush()
	if got := n.srvIn[n.clients[0].ClientIndex()]; string(got[len(got)-1]) != "ok" {
		t.Fatal("connection broken by flood")
	}
}

func TestPendingCapped(t *testing.T) {
	s, err := NewServer(ServerConfig{ProtocolID: testProtocol, PrivateKey: testKey(), PublicAddress: testServer, MaxClients: 2, MaxPending: 8, Rand: testRand(1)})
	if err != nil {
		t.Fatal(err)
	}
	k := testKey()
	now := testEpoch
	var full int
	for i := 0; i < 50; i++ {
		tok, _ := NewConnectToken(testRand(uint64(i)), &k, TokenParams{ProtocolID: testProtocol, ClientID: uint64(i), ServerAddresses: []netip.AddrPort{testServer}, Now: now})
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, byte(i + 2)}), 1)
		if _, _, err := s.Receive(now, from, appendRequest(nil, tok)); err == ErrPendingFull {
			full++
		}
	}
	if st := s.Stats(); st.Pending != 8 || full != 42 {
		t.Fatalf("pending %d, refused %d", st.Pending, full)
	}
	// Pending entries expire with their timeout, making room again.
	now = now.Add(11 * time.Second)
	s.Update(now)
	if st := s.Stats(); st.Pending != 0 {
		t.Fatalf("pending %d after expiry", st.Pending)
	}
}

func TestGlobalSequenceSeeded(t *testing.T) {
	// Erratum 3: packets sent before a slot exists use sequences >= 2^63,
	// for every Server, so they never share a nonce with per-client packets.
	for i := 0; i < 2; i++ {
		n := newVnet(t, 1, 1)
		n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
		n.flush()
		for _, c := range n.log {
			if c.from == testServer && PacketType(c.data[0]&15) == PacketChallenge {
				h, err := parseHeader(c.data, 1<<PacketChallenge)
				if err != nil || h.seq < 1<<63 {
					t.Fatalf("challenge sequence %#x", h.seq)
				}
			}
		}
	}
}
