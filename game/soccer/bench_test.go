package soccer

import (
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
	"github.com/tether-net/tether/server"
)

// benchServer is a server core running a match with n players, each the
// player of a connected client whose channel acknowledges everything.
func benchServer(b *testing.B, n int) (*server.Server, *Game, []*reliable.Endpoint) {
	g, err := NewGame(DefaultRules(), 60)
	if err != nil {
		b.Fatal(err)
	}
	s, err := server.New(server.Config{MaxClients: n}, g)
	if err != nil {
		b.Fatal(err)
	}
	peers := make([]*reliable.Endpoint, n)
	for c := range n {
		if err := s.Connect(0, c); err != nil {
			b.Fatal(err)
		}
		peers[c], _ = reliable.New(reliable.Config{})
		for {
			_, p, ok := s.Transmit()
			if !ok {
				break
			}
			_ = peers[c].Receive(0, p)
		}
		// Every player runs in circles.
		in := AppendInput(nil, Input{Dir: geom.V(float64(c%3)-1, 0, float64(c%2)*2-1), Sprint: c%2 == 0})
		g.Input(c, server.Input{Data: in})
	}
	return s, g, peers
}

// BenchmarkServerTick is one server tick of a full match: 22 players and the
// ball simulated, the snapshot built for each of 22 clients against the
// baseline it acknowledged and queued, their packets
// produced (every other tick, at 30 Hz). Sealing is measured separately.
func BenchmarkServerTick(b *testing.B) {
	const n = 22
	s, g, peers := benchServer(b, n)
	dt := s.TickInterval()
	now := time.Duration(0)
	ack := make([]byte, 0, reliable.MaxPacketSize)
	newest := make([]uint64, n) // the newest snapshot each client got
	tick := func() {
		now += dt
		s.Tick(now)
		for {
			c, p, ok := s.Transmit()
			if !ok {
				break
			}
			_ = peers[c].Receive(now, p)
			for {
				b, _, ok := peers[c].Read()
				if !ok {
					break
				}
				if m, err := protocol.Decode(b); err == nil && m.Tag == protocol.TagSnapshot && m.Snapshot.Regular {
					newest[c] = m.Snapshot.Tick
				}
			}
		}
	}
	// Clients acknowledge their newest snapshot (a baseline of at most 30
	// ticks before), and their channels everything.
	acknowledge := func() {
		for c := range n {
			_ = peers[c].SendUnreliable(protocol.AppendAck(ack[:0], newest[c]))
			if p, ok := peers[c].AppendPacket(ack[:0], now); ok {
				_ = s.Receive(now, c, p)
			}
		}
	}
	for range 120 {
		tick()
		acknowledge()
	}
	var tr Truth
	g.Truth(&tr)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tick()
		if i%30 == 0 {
			b.StopTimer()
			acknowledge()
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(s.Stats().BytesOut)/float64(s.Stats().PacketsOut), "bytes/packet")
}

// BenchmarkSeal22 is the netcode sealing of one tick's 22 snapshot payloads
// (ChaCha20-Poly1305 over a full match's snapshot), what the transport adds to
// a server tick on snapshot ticks.
func BenchmarkSeal22(b *testing.B) {
	s, _, _ := benchServer(b, 22)
	s.Tick(s.TickInterval())
	s.Tick(2 * s.TickInterval())
	var payload []byte
	for {
		_, p, ok := s.Transmit()
		if !ok {
			break
		}
		if len(p) > len(payload) {
			payload = append(payload[:0], p...)
		}
	}
	key := make([]byte, chacha20poly1305.KeySize)
	aead, _ := chacha20poly1305.New(key)
	nonce := make([]byte, aead.NonceSize())
	dst := make([]byte, 0, len(payload)+aead.Overhead())
	b.ReportAllocs()
	b.SetBytes(int64(22 * len(payload)))
	for b.Loop() {
		for range 22 {
			dst = aead.Seal(dst[:0], nonce, payload, nil)
		}
	}
}
