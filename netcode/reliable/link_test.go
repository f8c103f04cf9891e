package reliable

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// vlink is a lossy, duplicating, reordering one-way link in virtual time.
type vlink struct {
	rng       *rand.Rand
	loss, dup float64
	base      time.Duration
	jitter    time.Duration // mean of an exponential extra delay
	q         pktHeap
	seq       int
}

type inflightPkt struct {
	at   time.Duration
	n    int
	data []byte
}

type pktHeap []inflightPkt

func (h pktHeap) Len() int { return len(h) }
func (h pktHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].n < h[j].n
}
func (h pktHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pktHeap) Push(x any)   { *h = append(*h, x.(inflightPkt)) }
func (h *pktHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (l *vlink) send(now time.Duration, p []byte) {
	copies := 1
	if l.rng.Float64() < l.dup {
		copies = 2
	}
	for c := 0; c < copies; c++ {
		if l.rng.Float64() < l.loss {
			continue
		}
		d := l.base + time.Duration(l.rng.ExpFloat64()*float64(l.jitter))
		l.seq++
		heap.Push(&l.q, inflightPkt{at: now + d, n: l.seq, data: append([]byte(nil), p...)})
	}
}

func (l *vlink) deliver(now time.Duration, to *Endpoint, t *testing.T) {
	for len(l.q) > 0 && l.q[0].at <= now {
		p := heap.Pop(&l.q).(inflightPkt)
		if err := to.Receive(now, p.data); err != nil && err != ErrDuplicate {
			t.Fatalf("receive: %v", err)
		}
	}
}

// peer sends numbered messages and checks what it receives.
type peer struct {
	ep        *Endpoint
	sentRel   [][]byte
	nextRel   int // next reliable message expected from the other side
	gotUnrel  map[uint64]bool
	unrelSent uint64
	unrelGot  int
	dupUnrel  int
}

func relMessage(rng *rand.Rand, i int) []byte {
	var n int
	switch r := rng.IntN(100); {
	case r < 70:
		n = rng.IntN(200)
	case r < 95:
		n = rng.IntN(5000)
	default:
		n = rng.IntN(MaxMessageSize + 1)
	}
	m := make([]byte, n)
	for j := range m {
		m[j] = byte(i*31 + j)
	}
	if n >= 4 {
		binary.LittleEndian.PutUint32(m, uint32(i))
	}
	return m
}

// runLink drives two endpoints over lossy links for the given number of
// 16 ms ticks, then keeps ticking (bounded) until every reliable message is
// delivered. It returns both peers.
func runLink(t *testing.T, seed uint64, ticks int, loss, dup float64) (*peer, *peer, time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 1))
	mk := func() *peer {
		ep, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		return &peer{ep: ep, gotUnrel: map[uint64]bool{}}
	}
	a, b := mk(), mk()
	ab := &vlink{rng: rand.New(rand.NewPCG(seed, 2)), loss: loss, dup: dup, base: 25 * time.Millisecond, jitter: 15 * time.Millisecond}
	ba := &vlink{rng: rand.New(rand.NewPCG(seed, 3)), loss: loss, dup: dup, base: 25 * time.Millisecond, jitter: 15 * time.Millisecond}
	const tick = 16 * time.Millisecond
	var now time.Duration
	buf := make([]byte, 0, MaxPacketSize)
	step := func(p, q *peer, link *vlink, send bool, i int) {
		if send {
			if rng.IntN(4) == 0 && p.ep.Pending() < 200 {
				m := relMessage(rng, len(p.sentRel))
				if err := p.ep.SendReliable(m); err == nil {
					p.sentRel = append(p.sentRel, m)
				}
			}
			var u [8]byte
			binary.LittleEndian.PutUint64(u[:], p.unrelSent)
			if p.ep.SendUnreliable(u[:]) == nil {
				p.unrelSent++
			}
		}
		for k := 0; k < 64; k++ {
			pkt, ok := p.ep.AppendPacket(buf[:0], now)
			if !ok {
				break
			}
			if len(pkt) > MaxPacketSize {
				t.Fatalf("packet of %d bytes", len(pkt))
			}
			link.send(now, pkt)
		}
	}
	read := func(q *peer, from *peer) {
		for {
			m, rel, ok := q.ep.Read()
			if !ok {
				return
			}
			if rel {
				if q.nextRel >= len(from.sentRel) || !bytes.Equal(m, from.sentRel[q.nextRel]) {
					t.Fatalf("reliable message %d wrong or out of order (%d bytes)", q.nextRel, len(m))
				}
				q.nextRel++
			} else {
				id := binary.LittleEndian.Uint64(m)
				if q.gotUnrel[id] {
					q.dupUnrel++
				}
				q.gotUnrel[id] = true
				q.unrelGot++
			}
		}
	}
	for i := 0; ; i++ {
		now += tick
		sending := i < ticks
		step(a, b, ab, sending, i)
		step(b, a, ba, sending, i)
		ab.deliver(now, b.ep, t)
		ba.deliver(now, a.ep, t)
		read(b, a)
		read(a, b)
		if !sending && b.nextRel == len(a.sentRel) && a.nextRel == len(b.sentRel) {
			break
		}
		if i > ticks+5000 {
			t.Fatalf("not drained: a→b %d/%d, b→a %d/%d", b.nextRel, len(a.sentRel), a.nextRel, len(b.sentRel))
		}
	}
	return a, b, now
}

func TestReliableOverLossyLink(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		a, b, elapsed := runLink(t, seed, 1500, 0.10, 0.10)
		for _, p := range []*peer{a, b} {
			if p.dupUnrel != 0 {
				t.Fatalf("seed %d: %d unreliable messages delivered twice", seed, p.dupUnrel)
			}
		}
		sa := a.ep.Stats()
		t.Logf("seed %d: %d+%d reliable messages delivered exactly once in order; unreliable delivered %d/%d and %d/%d, 0 twice; %d fragments resent of %d; rtt %v; %v virtual",
			seed, b.nextRel, a.nextRel, b.unrelGot, a.unrelSent, a.unrelGot, b.unrelSent, sa.FragmentsResent, sa.FragmentsSent, sa.RTT.Round(time.Millisecond), elapsed)
	}
}

func TestMalformedChangesNothing(t *testing.T) {
	e, _ := New(Config{})
	bad := [][]byte{
		{},
		{0, 0},                         // short
		{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, // short for its acknowledgements
		{3, 0, 0, 0, 0, 0},             // short for its acknowledgements, bit field left out
		{2, 0, 0},                      // all acknowledged, but no acknowledgements
		{4, 0, 0},                      // unknown flag
		{0, 0, 0, 9},                   // unknown tag
		{3, 0, 0, 0, 0, 0, 0, 9},       // unknown tag after acknowledgements
		{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 5, 0, 1},        // truncated unreliable
		{0, 0, 0, tagFragment, 0, 0, 0, 1, 3, 0, 1, 2, 3},    // non-last fragment not full size
		{3, 0, 0, 0, 0, 0, 0, tagFragment, 0, 0, 2, 1, 0, 0}, // index beyond count
		{0, 0, 0, tagFragment, 0, 0, 0, 64, 0, 0},            // 65 fragments
	}
	for i, p := range bad {
		if err := e.Receive(0, p); err != ErrMalformed {
			t.Fatalf("case %d: %v", i, err)
		}
	}
	if e.rxAny || e.ackOwed || e.Stats().Malformed != uint64(len(bad)) {
		t.Fatal("malformed packet changed state")
	}
	if _, ok := e.AppendPacket(nil, 0); ok {
		t.Fatal("ack owed after malformed input")
	}
}

// TestHeaderSizes: a packet's header is 3 bytes unless packets with
// reliable fragments arrived since the last acknowledgement sent; then the
// next packet carries the acknowledgements, 7 bytes while the 32 packets
// before the newest received all arrived (the bit field left out), and 11
// with it (a loss in the last 32, or fewer than 33 received). Packets of
// unreliable messages alone owe no acknowledgement, nor a packet of its own.
func TestHeaderSizes(t *testing.T) {
	a, _ := New(Config{})
	b, _ := New(Config{})
	var now time.Duration
	send := func(from, to *Endpoint, deliver, event bool) int {
		from.SendUnreliable([]byte("x"))
		p, ok := from.AppendPacket(nil, now)
		if !ok {
			t.Fatal("nothing sent")
		}
		h := len(p) - 2 // a message of 1 byte, last in its packet: its tag and itself
		if event {
			from.SendReliable([]byte("e"))
			q, ok := from.AppendPacket(nil, now)
			if !ok {
				t.Fatal("event not sent")
			}
			if deliver {
				if err := to.Receive(now, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		if deliver {
			if err := to.Receive(now, p); err != nil {
				t.Fatal(err)
			}
		}
		now += 10 * time.Millisecond
		return h
	}
	if h := send(a, b, true, false); h != noAckHeaderSize {
		t.Fatalf("first header %d bytes, want %d", h, noAckHeaderSize)
	}
	if h := send(b, a, true, false); h != noAckHeaderSize {
		t.Fatalf("b's first header %d bytes, want %d: nothing to acknowledge", h, noAckHeaderSize)
	}
	if _, ok := b.AppendPacket(nil, now); ok {
		t.Fatal("a packet of its own for unreliable messages received")
	}
	send(a, b, true, true) // an event
	if !b.AckOwed() {
		t.Fatal("no acknowledgement owed for a fragment")
	}
	if h := send(b, a, true, false); h != headerSize {
		t.Fatalf("b's header after an event %d bytes, want %d: fewer than 33 packets received", h, headerSize)
	}
	if h := send(b, a, true, false); h != noAckHeaderSize {
		t.Fatalf("b's next header %d bytes, want %d: acknowledged once", h, noAckHeaderSize)
	}
	for range 32 {
		send(a, b, true, false)
	}
	for i := range 40 {
		send(a, b, i != 5, true) // a's packets of the 6th round are lost
		want := allAckedHeaderSize
		if i > 5 && i <= 5+16 {
			want = headerSize // b still reports them missing (two packets a round)
		}
		if i == 5 {
			want = noAckHeaderSize // nothing arrived to acknowledge
		}
		if h := send(b, a, true, false); h != want {
			t.Fatalf("b's packet %d: header %d bytes, want %d", i, h, want)
		}
	}
	// An acknowledgement alone, when nothing else is due.
	send(a, b, true, true)
	p, ok := b.AppendPacket(nil, now)
	if !ok || len(p) != allAckedHeaderSize {
		t.Fatalf("acknowledgement of its own: %v, %d bytes, want %d", ok, len(p), allAckedHeaderSize)
	}
	if _, ok := b.AppendPacket(nil, now); ok || b.AckOwed() {
		t.Fatal("acknowledged twice")
	}
}

// TestRTTFromNewestAcknowledged: acknowledgements come only after packets
// with fragments, so one names packets that arrived long before (in its bit
// field); they are acknowledged, but only the newest packet named, the first
// time it is, times the round trip.
func TestRTTFromNewestAcknowledged(t *testing.T) {
	a, _ := New(Config{})
	b, _ := New(Config{})
	const oneWay = 20 * time.Millisecond
	var now time.Duration
	// a sends b a packet of unreliable messages every 16 ms for half a
	// second; b sends nothing back.
	for range 30 {
		a.SendUnreliable([]byte("snapshot"))
		p, _ := a.AppendPacket(nil, now)
		if err := b.Receive(now+oneWay, p); err != nil {
			t.Fatal(err)
		}
		now += 16 * time.Millisecond
	}
	// Then an event; b acknowledges it at once.
	a.SendReliable([]byte("goal"))
	p, _ := a.AppendPacket(nil, now)
	if err := b.Receive(now+oneWay, p); err != nil {
		t.Fatal(err)
	}
	q, ok := b.AppendPacket(nil, now+oneWay)
	if !ok {
		t.Fatal("no acknowledgement")
	}
	if err := a.Receive(now+2*oneWay, q); err != nil {
		t.Fatal(err)
	}
	if a.Pending() != 0 {
		t.Fatal("event not acknowledged")
	}
	if r := a.RTT(); r != 2*oneWay {
		t.Fatalf("RTT %v, want %v: only the newest packet named is a sample", r, 2*oneWay)
	}
	// The same acknowledgement again (b's packet duplicated on the way is
	// dropped; a copy in a later packet names nothing new): no sample.
	a.SendReliable([]byte("kick"))
	p, _ = a.AppendPacket(nil, now+100*time.Millisecond)
	_ = p // lost
	b.SendUnreliable([]byte("input"))
	b.ackOwed = true // as if the lost packet's fragment had been resent and had arrived
	q, _ = b.AppendPacket(nil, now+200*time.Millisecond)
	if err := a.Receive(now+500*time.Millisecond, q); err != nil {
		t.Fatal(err)
	}
	if r := a.RTT(); r != 2*oneWay {
		t.Fatalf("RTT %v after an acknowledgement naming a packet acknowledged before, want %v", r, 2*oneWay)
	}
}

// TestDue: a reliable message is due at once, then again only when its
// resend timeout expires; a message the in-flight limit holds back is not
// due, and unreliable messages and acknowledgements never make a packet due.
func TestDue(t *testing.T) {
	a, _ := New(Config{InitialRTT: 50 * time.Millisecond, MaxInFlight: 1 << 10})
	a.SendUnreliable([]byte("reply"))
	a.ackOwed = true
	if a.Due(0) {
		t.Fatal("due with only an unreliable message and an acknowledgement owed")
	}
	a.SendReliable(make([]byte, 1000))
	if !a.Due(0) {
		t.Fatal("a new message not due")
	}
	if _, ok := a.AppendPacket(nil, 0); !ok {
		t.Fatal("nothing sent")
	}
	a.SendReliable(make([]byte, 100)) // over the in-flight limit until the first is acknowledged
	for _, c := range []struct {
		now time.Duration
		due bool
	}{{0, false}, {99 * time.Millisecond, false}, {100 * time.Millisecond, true}} { // the resend timeout: 2 × InitialRTT
		if got := a.Due(c.now); got != c.due {
			t.Errorf("at %v: due %v, want %v", c.now, got, c.due)
		}
	}
}

// TestLastMessageHasNoLength: an unreliable message that ends its packet
// goes without its length (the rest of the packet is the message); one
// followed by another chunk keeps it.
func TestLastMessageHasNoLength(t *testing.T) {
	a, _ := New(Config{})
	b, _ := New(Config{})
	a.SendUnreliable([]byte("first"))
	a.SendUnreliable([]byte("second"))
	p, _ := a.AppendPacket(nil, 0)
	if want := noAckHeaderSize + unreliableOverhead + len("first") + 1 + len("second"); len(p) != want {
		t.Fatalf("packet of %d bytes, want %d", len(p), want)
	}
	a.SendUnreliable([]byte("third"))
	a.SendReliable([]byte("event"))
	q, _ := a.AppendPacket(nil, 0)
	if want := noAckHeaderSize + unreliableOverhead + len("third") + reliableOverhead + len("event"); len(q) != want {
		t.Fatalf("packet with a fragment after the message: %d bytes, want %d", len(q), want)
	}
	var got []string
	for _, pk := range [][]byte{p, q} {
		if err := b.Receive(0, pk); err != nil {
			t.Fatal(err)
		}
		for m, _, ok := b.Read(); ok; m, _, ok = b.Read() {
			got = append(got, string(m))
		}
	}
	if fmt.Sprint(got) != "[first second third event]" {
		t.Fatalf("received %q", got)
	}
}

func TestZeroAllocSteadyState(t *testing.T) {
	a, _ := New(Config{})
	b, _ := New(Config{})
	msg := make([]byte, 3000)
	small := make([]byte, 100)
	buf := make([]byte, 0, MaxPacketSize)
	now := time.Duration(0)
	round := func() {
		now += 16 * time.Millisecond
		a.SendReliable(msg)
		a.SendUnreliable(small)
		for {
			p, ok := a.AppendPacket(buf[:0], now)
			if !ok {
				break
			}
			b.Receive(now, p)
		}
		for {
			if _, _, ok := b.Read(); !ok {
				break
			}
		}
		for {
			p, ok := b.AppendPacket(buf[:0], now)
			if !ok {
				break
			}
			a.Receive(now, p)
		}
	}
	for i := 0; i < 50; i++ {
		round()
	}
	if allocs := testing.AllocsPerRun(200, round); allocs != 0 {
		t.Fatalf("%.1f allocs per round", allocs)
	}
	if a.Pending() != 0 {
		t.Fatalf("%d pending", a.Pending())
	}
}

func TestLimits(t *testing.T) {
	e, _ := New(Config{})
	if err := e.SendReliable(make([]byte, MaxMessageSize+1)); err != ErrTooLarge {
		t.Fatal(err)
	}
	if err := e.SendUnreliable(make([]byte, MaxUnreliableSize+1)); err != ErrTooLarge {
		t.Fatal(err)
	}
	for i := 0; i < 16; i++ {
		if err := e.SendReliable(make([]byte, MaxMessageSize)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SendReliable(make([]byte, 1)); err != ErrQueueFull {
		t.Fatalf("queue not bounded: %v", err)
	}
	if _, err := New(Config{MaxInFlight: 1}); err == nil {
		t.Fatal("bad config accepted")
	}
}
