package reliable

import (
	"testing"
	"time"
)

// realPackets returns packets of a short exchange: acks, unreliable
// messages, single-fragment and multi-fragment reliable messages.
func realPackets() [][]byte {
	a, _ := New(Config{})
	b, _ := New(Config{})
	var out [][]byte
	a.SendUnreliable([]byte("snapshot"))
	a.SendReliable([]byte("hello"))
	a.SendReliable(make([]byte, 2500))
	a.SendReliable(nil)
	for now := time.Duration(0); now < 100*time.Millisecond; now += 16 * time.Millisecond {
		for _, pair := range [][2]*Endpoint{{a, b}, {b, a}} {
			for {
				p, ok := pair[0].AppendPacket(nil, now)
				if !ok {
					break
				}
				out = append(out, p)
				pair[1].Receive(now, p)
			}
		}
	}
	return out
}

// FuzzReceive feeds arbitrary packets (reliable header, unreliable chunks and
// fragments) to an endpoint that has sent some messages.
func FuzzReceive(f *testing.F) {
	for _, p := range realPackets() {
		f.Add(p, p)
	}
	f.Fuzz(func(t *testing.T, p1, p2 []byte) {
		e, _ := New(Config{})
		e.SendReliable(make([]byte, 3000))
		e.SendReliable([]byte("x"))
		e.AppendPacket(nil, 0)
		for i, p := range [][]byte{p1, p2} {
			before := e.Stats()
			err := e.Receive(time.Duration(i)*time.Millisecond, p)
			if err == ErrMalformed && (e.Stats().PacketsReceived != before.PacketsReceived) {
				t.Fatal("malformed packet was applied")
			}
			for {
				m, _, ok := e.Read()
				if !ok {
					break
				}
				if len(m) > MaxMessageSize {
					t.Fatal("oversized message")
				}
			}
			if e.inflight < 0 || e.queued < 0 || e.rxBuffered < 0 {
				t.Fatalf("negative accounting %d %d %d", e.inflight, e.queued, e.rxBuffered)
			}
		}
		if pkt, ok := e.AppendPacket(nil, time.Second); ok && len(pkt) > MaxPacketSize {
			t.Fatal("oversized packet")
		}
	})
}

// FuzzFragments builds packets from fragment fields directly.
func FuzzFragments(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint8(0), []byte("abc"))
	f.Add(uint16(0), uint8(1), uint8(2), make([]byte, FragmentSize))
	f.Add(uint16(300), uint8(63), uint8(63), make([]byte, 10))
	f.Fuzz(func(t *testing.T, id uint16, frag, last uint8, data []byte) {
		if len(data) > FragmentSize {
			data = data[:FragmentSize]
		}
		p := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, tagFragment, byte(id), byte(id >> 8), frag, last, byte(len(data)), byte(len(data) >> 8)}
		p = append(p, data...)
		e, _ := New(Config{})
		_, err := parse(p)
		if err2 := e.Receive(0, p); (err == nil) != (err2 == nil) {
			t.Fatalf("parse %v, receive %v", err, err2)
		}
		if m, rel, ok := e.Read(); ok && (!rel || id != 0 || last != 0 || len(m) != len(data)) {
			t.Fatalf("unexpected delivery of %d bytes", len(m))
		}
	})
}
