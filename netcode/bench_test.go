package netcode

import (
	"testing"
	"time"
)

// BenchmarkSealSend: the server seals one 1200-byte payload packet and hands
// it to the driver (SendPayload + Transmit).
func BenchmarkSealSend(b *testing.B) {
	n := newVnet(b, 2, 1)
	n.clients[0].Connect(n.now, newTestToken(b, 1, n.now, 1))
	n.step(1)
	n.clients[0].SendPayload(n.now, []byte{1})
	n.flush() // confirms the slot
	payload := make([]byte, MaxPayloadSize)
	b.SetBytes(MaxPayloadSize)
	b.ReportAllocs()
	for b.Loop() {
		n.srv.SendPayload(n.now, 0, payload)
		n.srv.Transmit()
		n.srv.Transmit()
	}
}

// BenchmarkReceiveOpen: the server receives, authenticates and decrypts one
// 1200-byte payload packet.
func BenchmarkReceiveOpen(b *testing.B) {
	n := newVnet(b, 2, 1)
	cl := n.clients[0]
	cl.Connect(n.now, newTestToken(b, 1, n.now, 1))
	n.step(1)
	payload := make([]byte, MaxPayloadSize)
	const batch = 4096
	pkts := make([][]byte, batch)
	orig := make([][]byte, batch)
	refill := func() {
		for i := range pkts {
			cl.SendPayload(n.now, payload)
			p, _, _ := cl.Transmit()
			orig[i] = append(orig[i][:0], p...)
			pkts[i] = append(pkts[i][:0], p...)
		}
	}
	refill()
	b.SetBytes(MaxPayloadSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == batch {
			b.StopTimer()
			refill()
			i = 0
			b.StartTimer()
		}
		if _, _, err := n.srv.Receive(n.now, n.addrs[0], pkts[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkServer64Clients60Hz: one op is one second of traffic on a server
// with 64 clients: 60 ticks, each receiving a 100-byte input from every
// client and sending every client a 1000-byte snapshot. ns/op is CPU time
// per second of traffic.
func BenchmarkServer64Clients60Hz(b *testing.B) {
	const clients, hz = 64, 60
	n := newVnet(b, clients, clients)
	for i, c := range n.clients {
		c.Connect(n.now, newTestToken(b, uint64(i+1), n.now, uint64(i)))
	}
	n.step(1)
	for _, c := range n.clients {
		c.SendPayload(n.now, []byte{1})
	}
	n.flush()
	if n.srv.NumConnected() != clients {
		b.Fatal("not all connected")
	}
	input := make([]byte, 100)
	snapshot := make([]byte, 1000)
	pkts := make([][]byte, clients*hz)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for t := 0; t < hz; t++ {
			for i, c := range n.clients {
				c.SendPayload(n.now, input)
				p, _, _ := c.Transmit()
				pkts[t*clients+i] = append(pkts[t*clients+i][:0], p...)
			}
		}
		b.StartTimer()
		now := n.now
		for t := 0; t < hz; t++ {
			now = now.Add(time.Second / hz)
			for i := 0; i < clients; i++ {
				n.srv.Receive(now, n.addrs[i], pkts[t*clients+i])
			}
			for i := 0; i < clients; i++ {
				n.srv.SendPayload(now, i, snapshot)
			}
			n.srv.Update(now)
			for {
				if _, _, ok := n.srv.Transmit(); !ok {
					break
				}
			}
		}
	}
}
