package netcode

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

func TestConnectExchangeDisconnect(t *testing.T) {
	n := newVnet(t, 4, 3)
	for i, c := range n.clients {
		if err := c.Connect(n.now, newTestToken(t, uint64(100+i), n.now, uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	n.flush()
	n.step(10 * time.Millisecond)
	for i, c := range n.clients {
		if c.State() != StateConnected {
			t.Fatalf("client %d state %v", i, c.State())
		}
	}
	if n.srv.NumConnected() != 3 {
		t.Fatalf("server has %d clients", n.srv.NumConnected())
	}
	var connects int
	for {
		e, ok := n.srv.PollEvent()
		if !ok {
			break
		}
		if e.Kind == EventConnected {
			connects++
		}
	}
	if connects != 3 {
		t.Fatalf("%d connect events", connects)
	}
	// Exchange payloads both ways.
	for k := 0; k < 10; k++ {
		for i, c := range n.clients {
			if err := c.SendPayload(n.now, []byte(fmt.Sprintf("c%d-%d", i, k))); err != nil {
				t.Fatal(err)
			}
			if err := n.srv.SendPayload(n.now, c.ClientIndex(), []byte(fmt.Sprintf("s%d-%d", i, k))); err != nil {
				t.Fatal(err)
			}
		}
		n.step(16 * time.Millisecond)
	}
	for i, c := range n.clients {
		got := n.srvIn[c.ClientIndex()]
		if len(got) != 10 || !bytes.Equal(got[9], []byte(fmt.Sprintf("c%d-9", i))) {
			t.Fatalf("server got %q from client %d", got, i)
		}
		if len(n.cliIn[i]) != 10 || !bytes.Equal(n.cliIn[i][0], []byte(fmt.Sprintf("s%d-0", i))) {
			t.Fatalf("client %d got %q", i, n.cliIn[i])
		}
	}
	// Client 0 disconnects; the server frees its slot at once, and the
	// redundant copies of its disconnect packet that follow come from an
	// address it no longer knows (not a wrong type of packet).
	idx := n.clients[0].ClientIndex()
	before := n.srv.Stats().Dropped
	n.clients[0].Disconnect(n.now)
	n.flush()
	if n.srv.Connected(idx) {
		t.Fatal("slot still connected after client disconnect")
	}
	if d := n.srv.Stats().Dropped; d.UnknownAddress-before.UnknownAddress != 9 || d.PacketType != before.PacketType {
		t.Fatalf("after a disconnect: %d unknown address, %d packet type drops; want 9, 0",
			d.UnknownAddress-before.UnknownAddress, d.PacketType-before.PacketType)
	}
	e, ok := n.srv.PollEvent()
	if !ok || e.Kind != EventDisconnected || !errors.Is(e.Reason, ErrDisconnected) {
		t.Fatalf("event %+v %v", e, ok)
	}
	// The server disconnects client 1.
	if err := n.srv.Disconnect(n.now, n.clients[1].ClientIndex()); err != nil {
		t.Fatal(err)
	}
	n.flush()
	if n.clients[1].State() != StateDisconnected {
		t.Fatalf("client 1 state %v", n.clients[1].State())
	}
}

func TestKeepAlivesHoldIdleConnection(t *testing.T) {
	n := newVnet(t, 2, 1)
	n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
	n.run(20*time.Second, 50*time.Millisecond) // far beyond the 5 s timeout
	if n.clients[0].State() != StateConnected || n.srv.NumConnected() != 1 {
		t.Fatalf("idle connection dropped: %v", n.clients[0].State())
	}
}

func TestSilentClientTimesOut(t *testing.T) {
	n := newVnet(t, 2, 1)
	n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
	n.step(10 * time.Millisecond)
	if n.srv.NumConnected() != 1 {
		t.Fatal("not connected")
	}
	// The client goes silent: drop everything it sends.
	n.drop = func(c captured) bool { return c.to == testServer }
	var dropped bool
	for el := time.Duration(0); el < 7*time.Second; el += 100 * time.Millisecond {
		n.step(100 * time.Millisecond)
		for {
			e, ok := n.srv.PollEvent()
			if !ok {
				break
			}
			if e.Kind == EventDisconnected && errors.Is(e.Reason, ErrTimeout) {
				dropped = true
				if el < 5*time.Second {
					t.Fatalf("dropped after %v, before the 5 s timeout", el)
				}
			}
		}
	}
	if !dropped || n.srv.NumConnected() != 0 {
		t.Fatal("silent client not dropped")
	}
	if s := n.srv.Stats(); s.TimedOut != 1 {
		t.Fatalf("TimedOut = %d", s.TimedOut)
	}
	// The server told the client with redundant disconnect packets.
	if n.clients[0].State() != StateDisconnected {
		t.Fatalf("client state %v", n.clients[0].State())
	}
}

func TestClientTimesOutWhenServerSilent(t *testing.T) {
	n := newVnet(t, 2, 1)
	n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
	n.step(10 * time.Millisecond)
	n.drop = func(c captured) bool { return true }
	n.run(4900*time.Millisecond, 100*time.Millisecond)
	if n.clients[0].State() != StateConnected {
		t.Fatalf("client gave up early: %v", n.clients[0].State())
	}
	n.run(200*time.Millisecond, 100*time.Millisecond)
	if n.clients[0].State() != StateConnectionTimedOut {
		t.Fatalf("client state %v", n.clients[0].State())
	}
}

func TestRefusals(t *testing.T) {
	t.Run("expired token", func(t *testing.T) {
		n := newVnet(t, 2, 1)
		tok := newTestToken(t, 1, n.now.Add(-time.Hour), 1) // expired long ago
		n.clients[0].Connect(n.now, tok)
		n.run(6*time.Second, 100*time.Millisecond)
		if n.srv.NumConnected() != 0 || n.clients[0].State() != StateTokenExpired {
			t.Fatalf("state %v", n.clients[0].State())
		}
		// The client sent nothing; a request sent anyway is dropped.
		if _, _, err := n.srv.Receive(n.now, n.addrs[0], appendRequest(nil, tok)); err != ErrTokenExpired {
			t.Fatalf("expired request: %v", err)
		}
		if n.srv.Stats().Dropped.Expired != 1 {
			t.Fatal("no expired drops counted")
		}
	})
	t.Run("wrong protocol id", func(t *testing.T) {
		n := newVnet(t, 2, 1)
		k := testKey()
		tok, _ := NewConnectToken(testRand(1), &k, TokenParams{ProtocolID: 7, ClientID: 1, ServerAddresses: []netip.AddrPort{testServer}, Now: n.now, Timeout: time.Second})
		n.clients[0].Connect(n.now, tok)
		n.run(2*time.Second, 100*time.Millisecond)
		if n.clients[0].State() != StateRequestTimedOut {
			t.Fatalf("state %v", n.clients[0].State())
		}
		if n.srv.Stats().Dropped.ProtocolID == 0 {
			t.Fatal("no protocol drops counted")
		}
	})
	t.Run("token from second address", func(t *testing.T) {
		n := newVnet(t, 4, 2)
		tok := newTestToken(t, 1, n.now, 1)
		n.clients[0].Connect(n.now, tok)
		n.step(10 * time.Millisecond)
		n.clients[1].Connect(n.now, tok) // same token, another address
		n.run(6*time.Second, 100*time.Millisecond)
		if n.clients[1].State() == StateConnected {
			t.Fatal("token accepted from second address")
		}
		if n.srv.Stats().Dropped.TokenReused+n.srv.Stats().Dropped.AlreadyConnected == 0 {
			t.Fatal("no refusal counted")
		}
	})
	t.Run("token from second address before first connects", func(t *testing.T) {
		n := newVnet(t, 4, 2)
		tok := newTestToken(t, 1, n.now, 1)
		n.drop = func(c captured) bool { return c.to == n.addrs[0] } // first never hears back
		n.clients[0].Connect(n.now, tok)
		n.flush()
		n.drop = nil
		n.clients[1].Connect(n.now, tok)
		n.run(2*time.Second, 100*time.Millisecond)
		if n.clients[1].State() == StateConnected {
			t.Fatal("token accepted from second address")
		}
		if n.srv.Stats().Dropped.TokenReused == 0 {
			t.Fatal("no token reuse counted")
		}
	})
	t.Run("server full", func(t *testing.T) {
		n := newVnet(t, 1, 2)
		n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
		n.step(10 * time.Millisecond)
		n.clients[1].Connect(n.now, newTestToken(t, 2, n.now, 2))
		n.step(10 * time.Millisecond)
		if n.clients[1].State() != StateDenied {
			t.Fatalf("state %v", n.clients[1].State())
		}
	})
	t.Run("refusing new clients", func(t *testing.T) {
		n := newVnet(t, 4, 2)
		n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
		n.step(10 * time.Millisecond)
		n.srv.RefuseNew(true)
		n.clients[1].Connect(n.now, newTestToken(t, 2, n.now, 2))
		n.step(10 * time.Millisecond)
		if s0, s1 := n.clients[0].State(), n.clients[1].State(); s0 != StateConnected || s1 != StateDenied {
			t.Fatalf("states %v, %v; want the connected client kept and the new one denied", s0, s1)
		}
	})
}
