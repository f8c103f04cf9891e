package reliable

import (
	"testing"
	"time"
)

// BenchmarkUnreliableRoundTrip: queue a 1000-byte unreliable message, build
// the packet, receive it and read the message.
func BenchmarkUnreliableRoundTrip(b *testing.B) {
	a, c := mustNew(b), mustNew(b)
	msg := make([]byte, 1000)
	buf := make([]byte, 0, MaxPacketSize)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	now := time.Duration(0)
	for b.Loop() {
		now += time.Millisecond
		a.SendUnreliable(msg)
		p, _ := a.AppendPacket(buf[:0], now)
		c.Receive(now, p)
		c.Read()
	}
}

// BenchmarkReliable64KiB: one 64 KiB reliable message sent in 64 fragments,
// reassembled, read and acknowledged, on a lossless link.
func BenchmarkReliable64KiB(b *testing.B) {
	a, c := mustNew(b), mustNew(b)
	msg := make([]byte, MaxMessageSize)
	buf := make([]byte, 0, MaxPacketSize)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	now := time.Duration(0)
	for b.Loop() {
		now += time.Millisecond
		a.SendReliable(msg)
		for p, ok := a.AppendPacket(buf[:0], now); ok; p, ok = a.AppendPacket(buf[:0], now) {
			c.Receive(now, p)
		}
		if m, _, ok := c.Read(); !ok || len(m) != len(msg) {
			b.Fatal("not delivered")
		}
		p, _ := c.AppendPacket(buf[:0], now)
		a.Receive(now, p)
	}
}

func mustNew(b *testing.B) *Endpoint {
	e, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	return e
}
