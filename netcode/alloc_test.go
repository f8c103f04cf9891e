package netcode

import (
	"net/netip"
	"testing"
	"time"
)

func drainServer(s *Server) {
	for {
		if _, _, ok := s.Transmit(); !ok {
			return
		}
	}
}

func drainClient(c *Client) {
	for {
		if _, _, ok := c.Transmit(); !ok {
			return
		}
	}
}

// TestZeroAllocReceive checks that receiving does not allocate, for valid
// packets of every kind and for rejected ones.
func TestZeroAllocReceive(t *testing.T) {
	n := newVnet(t, 4, 2)
	connectAll(t, n, 1)
	cl := n.clients[0]
	from := n.addrs[0]
	const runs = 200

	// Pre-encrypt enough fresh packets from client 0.
	payloads := make([][]byte, 0, runs+2)
	keepAlives := make([][]byte, 0, runs+2)
	for i := 0; i < runs+2; i++ {
		cl.SendPayload(n.now, make([]byte, 1200))
		p, _, _ := cl.Transmit()
		payloads = append(payloads, append([]byte(nil), p...))
		drainClient(cl)
	}
	for i := 0; i < runs+2; i++ {
		cl.send1(n.now)
		p, _, _ := cl.Transmit()
		keepAlives = append(keepAlives, append([]byte(nil), p...))
		drainClient(cl)
	}
	replayed := append([]byte(nil), payloads[0]...)
	garbage := make([]byte, 300)
	for i := range garbage {
		garbage[i] = byte(i * 7)
	}
	forged := append([]byte(nil), payloads[1]...)
	forged[len(forged)-1] ^= 1
	unknown := netip.MustParseAddrPort("127.0.0.9:9")

	// A pending client re-sending its request: the challenge is resent
	// from cached state without allocating.
	pendTok := newTestToken(t, 77, n.now, 77)
	pendAddr := netip.MustParseAddrPort("127.0.0.77:77")
	req := appendRequest(nil, pendTok)
	n.srv.Receive(n.now, pendAddr, append([]byte(nil), req...))
	drainServer(n.srv)

	check := func(name string, f func()) {
		t.Helper()
		if a := testing.AllocsPerRun(runs, f); a != 0 {
			t.Errorf("%s: %.1f allocs per packet", name, a)
		}
	}
	buf := make([]byte, 2048)
	i := 0
	check("server payload", func() {
		n.srv.Receive(n.now, from, payloads[i])
		i++
	})
	i = 0
	check("server keep-alive", func() {
		n.srv.Receive(n.now, from, keepAlives[i])
		i++
	})
	check("server replayed", func() {
		copy(buf, replayed)
		if _, _, err := n.srv.Receive(n.now, from, buf[:len(replayed)]); err != ErrReplay {
			t.Fatal(err)
		}
	})
	check("server forged", func() {
		copy(buf, forged)
		n.srv.Receive(n.now, from, buf[:len(forged)])
	})
	check("server garbage", func() { n.srv.Receive(n.now, unknown, garbage) })
	check("server unknown address", func() {
		copy(buf, forged)
		n.srv.Receive(n.now, unknown, buf[:len(forged)])
	})
	check("server repeated request", func() {
		copy(buf, req)
		if _, _, err := n.srv.Receive(n.now, pendAddr, buf[:len(req)]); err != nil {
			t.Fatal(err)
		}
		drainServer(n.srv)
	})
	check("server send payload", func() {
		n.srv.SendPayload(n.now, 0, garbage)
		drainServer(n.srv)
	})
	check("server update", func() {
		n.srv.Update(n.now)
		drainServer(n.srv)
	})

	// Client side.
	spk := make([][]byte, 0, runs+2)
	for k := 0; k < runs+2; k++ {
		n.srv.SendPayload(n.now, cl.ClientIndex(), make([]byte, 1200))
		p, _, _ := n.srv.Transmit()
		spk = append(spk, append([]byte(nil), p...))
		drainServer(n.srv)
	}
	i = 0
	check("client payload", func() {
		cl.Receive(n.now, testServer, spk[i])
		i++
	})
	check("client garbage", func() { cl.Receive(n.now, testServer, garbage) })
	check("client send payload", func() {
		cl.SendPayload(n.now, garbage)
		drainClient(cl)
	})
	check("client update", func() {
		cl.Update(n.now.Add(time.Second))
		drainClient(cl)
	})
}
