package netcode

import (
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// testRand is a deterministic randomness source for tests.
func testRand(seed uint64) *rand.ChaCha8 {
	var s [32]byte
	for i := range s {
		s[i] = byte(seed >> (8 * (i % 8)))
	}
	return rand.NewChaCha8(s)
}

var (
	testProtocol = uint64(0x1122334455667788)
	testServer   = netip.MustParseAddrPort("127.0.0.1:40000")
	testEpoch    = time.Unix(1_700_000_000, 0)
)

func testKey() Key {
	var k Key
	for i := range k {
		k[i] = byte(i + 1)
	}
	return k
}

// newTestServer returns a server whose per-client budgets are as wide as
// allowed: the tests using it send bursts far beyond a game's rates (the
// budget's own tests configure theirs).
func newTestServer(t testing.TB, maxClients int) *Server {
	t.Helper()
	s, err := NewServer(ServerConfig{
		ProtocolID:       testProtocol,
		PrivateKey:       testKey(),
		PublicAddress:    testServer,
		MaxClients:       maxClients,
		Rand:             testRand(99),
		ClientPacketRate: 100000,
		ClientByteRate:   100 << 20,
		ClientBurst:      10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newTestToken(t testing.TB, clientID uint64, now time.Time, seed uint64) *ConnectToken {
	t.Helper()
	k := testKey()
	tok, err := NewConnectToken(testRand(seed), &k, TokenParams{
		ProtocolID:      testProtocol,
		ClientID:        clientID,
		ServerAddresses: []netip.AddrPort{testServer},
		Now:             now,
		Timeout:         5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// captured is a datagram seen on the virtual wire.
type captured struct {
	from, to netip.AddrPort
	data     []byte
}

// vnet wires one server and several clients together in virtual time.
// Every datagram is copied into log; drop, when set, decides losses.
type vnet struct {
	t       testing.TB
	now     time.Time
	srv     *Server
	clients []*Client
	addrs   []netip.AddrPort
	log     []captured
	drop    func(c captured) bool
	srvIn   [][][]byte // payloads received by the server, per client slot
	cliIn   [][][]byte
}

func newVnet(t testing.TB, maxClients, nClients int) *vnet {
	n := &vnet{t: t, now: testEpoch, srv: newTestServer(t, maxClients)}
	for i := 0; i < nClients; i++ {
		c, err := NewClient(ClientConfig{})
		if err != nil {
			t.Fatal(err)
		}
		n.clients = append(n.clients, c)
		n.addrs = append(n.addrs, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), uint16(50000+i)))
	}
	n.srvIn = make([][][]byte, maxClients)
	n.cliIn = make([][][]byte, nClients)
	return n
}

func (n *vnet) clientByAddr(a netip.AddrPort) int {
	for i, x := range n.addrs {
		if x == a {
			return i
		}
	}
	return -1
}

// flush moves queued packets until the network is quiet.
func (n *vnet) flush() {
	for round := 0; round < 100; round++ {
		moved := false
		for {
			p, to, ok := n.srv.Transmit()
			if !ok {
				break
			}
			moved = true
			c := captured{from: testServer, to: to, data: append([]byte(nil), p...)}
			n.log = append(n.log, c)
			if n.drop != nil && n.drop(c) {
				continue
			}
			if i := n.clientByAddr(to); i >= 0 {
				if pl, err := n.clients[i].Receive(n.now, testServer, append([]byte(nil), c.data...)); err == nil && pl != nil {
					n.cliIn[i] = append(n.cliIn[i], append([]byte(nil), pl...))
				}
			}
		}
		for i, cl := range n.clients {
			for {
				p, to, ok := cl.Transmit()
				if !ok {
					break
				}
				moved = true
				c := captured{from: n.addrs[i], to: to, data: append([]byte(nil), p...)}
				n.log = append(n.log, c)
				if n.drop != nil && n.drop(c) {
					continue
				}
				if to == testServer {
					idx, pl, err := n.srv.Receive(n.now, n.addrs[i], append([]byte(nil), c.data...))
					if err == nil && pl != nil {
						n.srvIn[idx] = append(n.srvIn[idx], append([]byte(nil), pl...))
					}
				}
			}
		}
		if !moved {
			return
		}
	}
	n.t.Fatal("network did not settle")
}

// step advances virtual time by d, updating everyone.
func (n *vnet) step(d time.Duration) {
	n.now = n.now.Add(d)
	n.srv.Update(n.now)
	for _, c := range n.clients {
		c.Update(n.now)
	}
	n.flush()
}

func (n *vnet) run(total, dt time.Duration) {
	for el := time.Duration(0); el < total; el += dt {
		n.step(dt)
	}
}
