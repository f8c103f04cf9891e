package netsim

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// udpPair returns two UDP sockets on loopback.
func udpPair(t *testing.T) (a, b net.PacketConn) {
	t.Helper()
	a, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b, err = net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// receive reads datagrams carrying a uint32 sequence number until want have
// arrived or nothing arrives for a second; it returns them in arrival order.
func receive(t *testing.T, c net.PacketConn, want int) []uint32 {
	t.Helper()
	var got []uint32
	buf := make([]byte, 64)
	for len(got) < want {
		c.SetReadDeadline(time.Now().Add(time.Second))
		n, _, err := c.ReadFrom(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				break
			}
			t.Fatal(err)
		}
		if n == 4 {
			got = append(got, binary.BigEndian.Uint32(buf))
		}
	}
	return got
}

func TestPacketConnFates(t *testing.T) {
	a, b := udpPair(t)
	d := Direction{LatencyMs: 2, Jitter: Jitter{Dist: "uniform", MaxMs: 5}, Loss: Loss{Rate: 0.3}, Dup: 0.2}
	const n, seed = 300, 9
	// The fates are keyed by the wall-clock write times, so no twin path can
	// predict them one by one: check that what arrives is what the model
	// delivered, and that the model lost and duplicated at its rates.
	pc := NewPacketConn(a, d, seed)
	for i := range n {
		msg := binary.BigEndian.AppendUint32(nil, uint32(i))
		if m, err := pc.WriteTo(msg, b.LocalAddr()); m != 4 || err != nil {
			t.Fatalf("WriteTo = %d, %v", m, err)
		}
	}
	st := pc.Stats()
	total := int(st.Path.Delivered)
	got := receive(t, b, total)
	seen := make(map[uint32]int)
	for _, s := range got {
		seen[s]++
		if seen[s] > 2 {
			t.Fatalf("datagram %d arrived %d times", s, seen[s])
		}
	}
	// Loopback may in principle drop a datagram; allow a little slack.
	if len(got) < total*95/100 || len(got) > total {
		t.Errorf("received %d datagrams, the model delivered %d", len(got), total)
	}
	// 300 draws: the loss count's standard deviation is 7.9, the duplicates' 6.0.
	if st.Path.Sent != n || st.Path.Lost < 50 || st.Path.Lost > 130 || st.Path.Duplicated < 15 || st.Path.Duplicated > 70 || st.Overflow != 0 {
		t.Errorf("stats %+v: want %d sent, about 90 lost and 42 duplicated", st, n)
	}
	if err := pc.Close(); err != nil {
		t.Error(err)
	}
}

func TestPacketConnReorders(t *testing.T) {
	a, b := udpPair(t)
	pc := NewPacketConn(a, Direction{LatencyMs: 1, Jitter: Jitter{Dist: "uniform", MaxMs: 30}}, 4)
	defer pc.Close()
	const n = 100
	for i := range n {
		pc.WriteTo(binary.BigEndian.AppendUint32(nil, uint32(i)), b.LocalAddr())
	}
	got := receive(t, b, n)
	inversions := 0
	for i := 1; i < len(got); i++ {
		if got[i] < got[i-1] {
			inversions++
		}
	}
	// A burst written within a few milliseconds with 0..30 ms jitter arrives shuffled.
	if len(got) < n*9/10 || inversions == 0 {
		t.Errorf("received %d of %d with %d inversions", len(got), n, inversions)
	}
	// Buffers of delivered datagrams are reused intact.
	for i := range 20 {
		pc.WriteTo(binary.BigEndian.AppendUint32(nil, uint32(1000+i)), b.LocalAddr())
	}
	for _, s := range receive(t, b, 20) {
		if s < 1000 || s >= 1020 {
			t.Errorf("received %d, want 1000..1019", s)
		}
	}
}

func TestPacketConnReadPassesThrough(t *testing.T) {
	a, b := udpPair(t)
	pc := NewPacketConn(a, Direction{Loss: Loss{Rate: 0.99}}, 1) // the model applies to writes only
	defer pc.Close()
	for i := range 5 {
		b.WriteTo(binary.BigEndian.AppendUint32(nil, uint32(i)), pc.LocalAddr())
	}
	buf := make([]byte, 8)
	for i := range 5 {
		pc.SetDeadline(time.Now().Add(2 * time.Second))
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
		if n != 4 || from.String() != b.LocalAddr().String() {
			t.Errorf("read %d bytes from %v", n, from)
		}
	}
	pc.SetReadDeadline(time.Now().Add(time.Millisecond))
	if _, _, err := pc.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read past the deadline: %v", err)
	}
}

func TestPacketConnCloseAndOverflow(t *testing.T) {
	a, b := udpPair(t)
	// Nothing is due for a minute: everything stays pending until Close.
	pc := NewPacketConn(a, Direction{LatencyMs: 60_000}, 1)
	for i := range MaxPending + 10 {
		pc.WriteTo([]byte{byte(i)}, b.LocalAddr())
	}
	if st := pc.Stats(); st.Overflow != 10 || st.Path.Delivered != MaxPending+10 {
		t.Errorf("stats %+v, want 10 overflowed", st)
	}
	pc.SetWriteDeadline(time.Now().Add(-time.Second))
	if _, err := pc.WriteTo([]byte{1}, b.LocalAddr()); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("WriteTo past the deadline: %v", err)
	}
	if err := pc.Close(); err != nil {
		t.Error(err)
	}
	if _, err := pc.WriteTo([]byte{1}, b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteTo after Close: %v", err)
	}
	if err := pc.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := pc.ReadFrom(make([]byte, 8)); err == nil {
		t.Error("ReadFrom after Close succeeded")
	}
	// The goroutine is gone: checked by goleak in TestMain.
}
