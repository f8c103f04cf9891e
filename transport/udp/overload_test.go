package udp

import (
	"crypto/rand"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

// TestStarvedServerKeepsClients reproduces an overloaded host: the server's
// goroutine stalls for twice the clients' timeout (virtual time, through
// ServerConfig.Now) while 64 connected clients keep sending. When it runs
// again their packets wait in the socket, and no client may be judged silent:
// the server drains the socket before it runs its timers.
func TestStarvedServerKeepsClients(t *testing.T) {
	if !batchingAvailable(t) {
		t.Skip("draining needs batched reads (Linux)")
	}
	const clients = 64
	const timeout = 10 * time.Second
	var clk atomic.Int64
	clk.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clk.Load()) }

	stall := make(chan struct{})   // closed: the next payload stalls the server
	stalled := make(chan struct{}) // closed by the stalled server
	release := make(chan struct{}) // closed: the server runs again
	ticks := make(chan time.Time, 1024)
	var timedOut atomic.Int64
	raw := listen(t)
	e := &testEnv{key: mustKey(t), addr: addrOf(raw)}
	srv, err := NewServer(raw, ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: testProtocol, PrivateKey: e.key, MaxClients: clients},
		Now:     now,
		OnPayload: func(int, []byte, time.Time) {
			select {
			case <-stall:
				select {
				case <-stalled:
				default:
					close(stalled)
					<-release
				}
			default:
			}
		},
		OnDisconnect: func(_ int, _ uint64, reason error) {
			if errors.Is(reason, netcode.ErrTimeout) {
				timedOut.Add(1)
			}
		},
		OnTick: func(now time.Time) time.Time {
			select {
			case ticks <- now:
			default:
			}
			return now.Add(10 * time.Millisecond)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	e.srv = srv

	var conns []*Client
	var states []*stateWaiter
	for i := 0; i < clients; i++ {
		w := newWaiter()
		c, err := Dial(listen(t), e.token(t, uint64(i+1), netcode.TokenParams{Timeout: timeout}), ClientConfig{
			OnState: func(s netcode.ClientState) { w.ch <- s },
		})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
		states = append(states, w)
	}
	for _, w := range states {
		w.wait(t, netcode.StateConnected, 10*time.Second)
	}

	// Stall the server inside a callback, then let twice the timeout pass
	// while every client sends. Loopback delivers a datagram into the
	// server's socket before the sending call returns.
	close(stall)
	if err := conns[0].Send([]byte{1}); err != nil {
		t.Fatal(err)
	}
	<-stalled
	resumed := now().Add(2 * timeout)
	clk.Store(resumed.UnixNano())
	for _, c := range conns {
		if err := c.Send([]byte{2}); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	for tk := range ticks { // the first tick after the stall follows its Update
		if !tk.Before(resumed) {
			break
		}
	}
	if n := srv.NumConnected(); n != clients || timedOut.Load() != 0 {
		t.Fatalf("after a stall of %v: %d of %d clients connected, %d timed out", 2*timeout, n, clients, timedOut.Load())
	}
}

func mustKey(t *testing.T) netcode.Key {
	t.Helper()
	k, err := netcode.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// batchingAvailable reports whether a Server on a loopback UDP socket batches.
func batchingAvailable(t *testing.T) bool {
	t.Helper()
	c := listen(t)
	defer c.Close()
	return newBatcher(c) != nil
}

// TestFloodDrainedWithoutSleeping: when a drain stops at its cap with
// datagrams still in the socket (a flood), the next drain follows at once
// rather than after the next timer, so the socket's buffer does not fill
// and the kernel drop other clients' datagrams. 3,000 datagrams queued
// behind a stalled server, then a client's payload: the payload is taken
// in the same wake-up as the stall.
func TestFloodDrainedWithoutSleeping(t *testing.T) {
	if !batchingAvailable(t) {
		t.Skip("draining needs batched reads (Linux)")
	}
	raw := listen(t)
	e := &testEnv{key: mustKey(t), addr: addrOf(raw)}
	release := make(chan struct{})
	var srv *Server
	started := make(chan struct{})
	wakes := make(chan int, 2)
	s, err := NewServer(raw, ServerConfig{
		Netcode:    netcode.ServerConfig{ProtocolID: testProtocol, PrivateKey: e.key, MaxClients: 1},
		ReadBuffer: 8 << 20,
		OnPayload: func(_ int, p []byte, _ time.Time) {
			<-started
			wakes <- srv.wakeups
			if string(p) == "stall" {
				<-release
			}
		},
		OnTick: func(now time.Time) time.Time { return now.Add(time.Hour) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv = s
	close(started)
	cl := e.connect(t, 1)
	cl.Send([]byte("stall"))
	var stalled int
	select {
	case stalled = <-wakes:
	case <-time.After(10 * time.Second):
		t.Fatal("the stall payload did not arrive")
	}
	flood := listen(t)
	for i := range 3000 {
		if _, err := flood.WriteToUDPAddrPort([]byte{byte(i)}, e.addr); err != nil {
			t.Fatal(err)
		}
	}
	cl.Send([]byte("marker"))
	close(release)
	select {
	case got := <-wakes:
		if got != stalled {
			t.Fatalf("the payload behind 3,000 datagrams was taken %d wake-ups after the stall, want 0", got-stalled)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the marker payload did not arrive")
	}
	if d := s.Stats().Dropped.Malformed; d < 3000 {
		t.Fatalf("%d of the 3,000 datagrams handled", d)
	}
}
