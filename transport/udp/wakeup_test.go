package udp

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

// TestWakeupsFollowTicks runs a 50 Hz OnTick that sends a payload to a
// connected client each tick: the batching server wakes once per tick, not
// also every 10 ms for netcode's Update (which then had nothing to do).
func TestWakeupsFollowTicks(t *testing.T) {
	if !batchingAvailable(t) {
		t.Skip("no batching here: the server wakes for every datagram")
	}
	const period, ticks = 20 * time.Millisecond, 40
	raw := listen(t)
	e := &testEnv{key: mustKey(t), addr: addrOf(raw)}
	started := make(chan *Server, 1)
	var srv *Server // the callbacks' copy, taken from started
	client := -1
	var counted, wakeups atomic.Int64 // the ticks and wake-ups since the client connected
	var firstWake int
	done := make(chan struct{})
	s, err := NewServer(raw, ServerConfig{
		Netcode:   netcode.ServerConfig{ProtocolID: testProtocol, PrivateKey: e.key, MaxClients: 1},
		OnConnect: func(c int, _ uint64) { client = c },
		OnTick: func(now time.Time) time.Time {
			if client < 0 {
				return now.Add(period)
			}
			n := counted.Add(1)
			if n == 1 {
				srv = <-started
				firstWake = srv.wakeups
			}
			wakeups.Store(int64(srv.wakeups - firstWake + 1))
			srv.Send(client, []byte("snapshot"))
			if n == ticks {
				close(done)
			}
			return now.Add(period)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	started <- s
	e.connect(t, 1)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%d of %d ticks ran", counted.Load(), ticks)
	}
	// A stall of more than a keep-alive interval (100 ms) between two ticks
	// on a busy machine adds one wake-up for the keep-alive: allow a few.
	if got := wakeups.Load(); got > ticks+ticks/8 {
		t.Errorf("%d wake-ups for %d ticks", got, ticks)
	}
}
