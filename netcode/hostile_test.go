package netcode

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

// newDefaultVnet is a vnet whose server has the default budgets and token
// limits.
func newDefaultVnet(t *testing.T, maxClients, nClients int, cfg ServerConfig) *vnet {
	t.Helper()
	n := newVnet(t, maxClients, nClients)
	cfg.ProtocolID = testProtocol
	cfg.PrivateKey = testKey()
	cfg.PublicAddress = testServer
	cfg.MaxClients = maxClients
	cfg.Rand = testRand(99)
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.srv = s
	return n
}

// An authenticated client sending 2,000 datagrams a second gets its budget
// through (250/s and a 250 ms burst by default) and no more; an honest
// client next to it loses nothing.
func TestClientBudget(t *testing.T) {
	n := newDefaultVnet(t, 2, 2, ServerConfig{})
	connectAll(t, n, 0)
	flooder, honest := n.clients[0], n.clients[1]
	before := n.srv.Stats()
	start := n.now
	for k := 0; k < 2000; k++ {
		flooder.SendPayload(n.now, make([]byte, 200))
		if k%33 == 0 { // 60 Hz
			honest.SendPayload(n.now, make([]byte, 100))
		}
		n.step(500 * time.Microsecond)
	}
	st := n.srv.Stats()
	got := n.srvIn[flooder.ClientIndex()]
	limit := int(n.now.Sub(start).Seconds()*250) + 250/4 + 1
	if len(got) > limit || len(got) < 200 {
		t.Fatalf("flooder: %d of 2000 payloads accepted in %v, want 200 to %d", len(got), n.now.Sub(start), limit)
	}
	if d := st.Dropped.OverBudget - before.Dropped.OverBudget; d+uint64(len(got)) < 1900 {
		t.Fatalf("over budget %d, accepted %d", d, len(got))
	}
	if h := len(n.srvIn[honest.ClientIndex()]); h != 61 {
		t.Fatalf("honest client: %d of 61 payloads accepted", h)
	}
	if flooder.State() != StateConnected || honest.State() != StateConnected {
		t.Fatalf("states %v, %v", flooder.State(), honest.State())
	}
	t.Logf("flooder: %d of 2000 accepted in %v, %d over budget", len(got), n.now.Sub(start), st.Dropped.OverBudget)
}

// The byte budget (128 KiB/s) binds before the packet budget for large
// payloads (over 5 s: MaxOverBudget raised to keep the client).
func TestClientByteBudget(t *testing.T) {
	n := newDefaultVnet(t, 1, 1, ServerConfig{MaxOverBudget: time.Minute})
	connectAll(t, n, 0)
	c := n.clients[0]
	start := n.now
	for k := 0; k < 1000; k++ { // 200/s of 1200 B: 240 KB/s
		c.SendPayload(n.now, make([]byte, MaxPayloadSize))
		n.step(5 * time.Millisecond)
	}
	got := len(n.srvIn[c.ClientIndex()])
	perPacket := float64(MaxPayloadSize + 1 + 8 + MACSize) // at most 9 sequence bytes
	limit := int((n.now.Sub(start).Seconds()+0.25)*128*1024/(perPacket-8)) + 1
	if got > limit || got < limit/2 {
		t.Fatalf("%d of 1000 accepted, want about %d", got, limit)
	}
}

// Datagrams forged with a client's source address do not spend its budget.
func TestForgedSourceKeepsBudget(t *testing.T) {
	n := newDefaultVnet(t, 1, 1, ServerConfig{})
	connectAll(t, n, 0)
	c := n.clients[0]
	addr := n.addrs[0]
	forged := make([]byte, 200)
	forged[0] = byte(PacketPayload) | 1<<4
	for k := 0; k < 10000; k++ {
		forged[1] = byte(k)
		if _, _, err := n.srv.Receive(n.now, addr, append([]byte(nil), forged...)); !errors.Is(err, ErrAuth) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("forged datagram %d: %v", k, err)
		}
	}
	c.SendPayload(n.now, []byte{1})
	n.flush()
	if len(n.srvIn[c.ClientIndex()]) != 1 {
		t.Fatal("the client's payload was dropped after forged traffic")
	}
}

// capture returns the datagrams client i sent to the server.
func (n *vnet) sentBy(i int) [][]byte {
	var out [][]byte
	for _, c := range n.log {
		if c.from == n.addrs[i] && c.to == testServer {
			out = append(out, c.data)
		}
	}
	return out
}

// A handshake captured and replayed from the same address after its
// client left does not bring the session back.
func TestReplayedHandshakeAfterLeave(t *testing.T) {
	n := newVnet(t, 2, 1)
	connectAll(t, n, 0)
	handshake := n.sentBy(0)
	n.clients[0].Disconnect(n.now)
	n.step(10 * time.Millisecond)
	if n.srv.NumConnected() != 0 {
		t.Fatal("client did not leave")
	}
	var errs []error
	for _, p := range handshake {
		_, _, err := n.srv.Receive(n.now, n.addrs[0], append([]byte(nil), p...))
		errs = append(errs, err)
		drainServer(n.srv)
	}
	if n.srv.NumConnected() != 0 {
		t.Fatalf("replayed handshake connected again (errors %v)", errs)
	}
	if !errors.Is(errs[0], ErrTokenReused) {
		t.Fatalf("replayed request: %v, want ErrTokenReused", errs[0])
	}
}

// mintTimeout mints a token and reseals its private part with a timeout of
// sec seconds (which NewConnectToken cannot express for 0).
func mintTimeout(t *testing.T, now time.Time, sec int32, expiry time.Duration) *ConnectToken {
	t.Helper()
	k := testKey()
	tok, err := NewConnectToken(testRand(5), &k, TokenParams{ProtocolID: testProtocol, ClientID: 9, ServerAddresses: []netip.AddrPort{testServer}, Now: now, Expiry: expiry})
	if err != nil {
		t.Fatal(err)
	}
	var p PrivateToken
	if err := OpenPrivateToken(&p, tok.PrivateData[:], &k, testProtocol, tok.ExpireTimestamp, &tok.Nonce); err != nil {
		t.Fatal(err)
	}
	p.TimeoutSeconds = sec
	tok.TimeoutSeconds = sec
	if _, err := SealPrivateToken(tok.PrivateData[:0], &p, &k, testProtocol, tok.ExpireTimestamp, &tok.Nonce); err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTokenLimits(t *testing.T) {
	from := netip.MustParseAddrPort("127.0.0.5:5000")
	for _, c := range []struct {
		name    string
		timeout int32
		expiry  time.Duration
		want    error
	}{
		{"no timeout", -1, time.Minute, ErrTokenTimeout},
		{"zero timeout", 0, time.Minute, ErrTokenTimeout},
		{"timeout above the cap", 61, time.Minute, ErrTokenTimeout},
		{"expiry above the cap", 10, time.Hour + 2*time.Second, ErrTokenLife},
		{"at the caps", 60, time.Hour, nil},
	} {
		s := newTestServer(t, 2)
		var refused []error
		s.cfg.OnRefused = func(a netip.AddrPort, err error) {
			if a != from {
				t.Errorf("refused %v, want %v", a, from)
			}
			refused = append(refused, err)
		}
		tok := mintTimeout(t, testEpoch, c.timeout, c.expiry)
		_, _, err := s.Receive(testEpoch, from, appendRequest(nil, tok))
		if err != c.want {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if c.want != nil && (len(refused) != 1 || refused[0] != c.want) {
			t.Errorf("%s: OnRefused got %v", c.name, refused)
		}
	}
}

// OnRefused names the reason a client could fix.
func TestRefusalReasons(t *testing.T) {
	k := testKey()
	other := Key{1, 2, 3}
	from := netip.MustParseAddrPort("127.0.0.5:5000")
	mint := func(key *Key, pid uint64, now time.Time, id uint64) []byte {
		tok, err := NewConnectToken(testRand(id), key, TokenParams{ProtocolID: pid, ClientID: id, ServerAddresses: []netip.AddrPort{testServer}, Now: now, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return appendRequest(nil, tok)
	}
	s := newTestServer(t, 1)
	var got []error
	s.cfg.OnRefused = func(_ netip.AddrPort, err error) { got = append(got, err) }
	used := mint(&k, testProtocol, testEpoch, 1)
	for _, req := range [][]byte{
		mint(&k, testProtocol+1, testEpoch, 2),
		mint(&other, testProtocol, testEpoch, 3),
		mint(&k, testProtocol, testEpoch.Add(-time.Hour), 4),
		used,
	} {
		s.Receive(testEpoch, from, req)
		drainServer(s)
	}
	s.Receive(testEpoch, netip.MustParseAddrPort("127.0.0.6:5000"), append([]byte(nil), used...))
	want := []error{ErrProtocolID, ErrAuth, ErrTokenExpired, ErrTokenReused}
	if len(got) != len(want) {
		t.Fatalf("refusals %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("refusal %d: %v, want %v", i, got[i], want[i])
		}
	}
	// Full: a second client meets the first one's slot.
	n := newVnet(t, 1, 2)
	var full []error
	n.srv.cfg.OnRefused = func(_ netip.AddrPort, err error) { full = append(full, err) }
	n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
	n.step(10 * time.Millisecond)
	n.clients[1].Connect(n.now, newTestToken(t, 2, n.now, 2))
	n.step(10 * time.Millisecond)
	if len(full) == 0 || full[0] != ErrServerFull || n.clients[1].State() != StateDenied {
		t.Fatalf("full server: refusals %v, client %v", full, n.clients[1].State())
	}
}

// Tokens used before a restart, handed to the new server, stay used.
func TestUsedTokensAcrossRestart(t *testing.T) {
	var log []UsedToken
	first := newDefaultVnet(t, 2, 1, ServerConfig{OnTokenUsed: func(u UsedToken) { log = append(log, u) }})
	connectAll(t, first, 0)
	if len(log) != 1 {
		t.Fatalf("%d tokens reported used, want 1", len(log))
	}
	req := first.sentBy(0)[0]

	second := newDefaultVnet(t, 2, 1, ServerConfig{UsedTokens: log})
	second.now = first.now
	if _, _, err := second.srv.Receive(second.now, first.addrs[0], append([]byte(nil), req...)); err != ErrTokenReused {
		t.Fatalf("used token after restart: %v, want ErrTokenReused", err)
	}
	// Without the log the restarted server accepts it: what UsedTokens is for.
	third := newDefaultVnet(t, 2, 1, ServerConfig{})
	if _, _, err := third.srv.Receive(first.now, first.addrs[0], append([]byte(nil), req...)); err != nil {
		t.Fatalf("fresh server: %v", err)
	}
}

// The client refuses, before sending anything, a token that expired or was
// minted for another protocol id.
func TestClientChecksToken(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   ClientConfig
		at    time.Time
		want  error
		state ClientState
	}{
		{"expired", ClientConfig{}, testEpoch.Add(31 * time.Second), ErrTokenExpired, StateTokenExpired},
		{"other protocol", ClientConfig{ProtocolID: testProtocol + 1}, testEpoch, ErrProtocolID, StateInvalidToken},
		{"good", ClientConfig{ProtocolID: testProtocol}, testEpoch.Add(29 * time.Second), nil, StateSendingRequest},
	} {
		cl, err := NewClient(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = cl.Connect(c.at, newTestToken(t, 1, testEpoch, 1))
		if !errors.Is(err, c.want) || cl.State() != c.state {
			t.Errorf("%s: %v in %v, want %v in %v", c.name, err, cl.State(), c.want, c.state)
		}
		if _, _, sent := cl.Transmit(); sent != (c.want == nil) {
			t.Errorf("%s: sent %v", c.name, sent)
		}
	}
}

// Durations a token cannot carry are an error, not a silent cut.
func TestTokenWholeSeconds(t *testing.T) {
	k := testKey()
	for _, p := range []TokenParams{{Expiry: 1500 * time.Millisecond}, {Timeout: 2500 * time.Millisecond}, {Expiry: 500 * time.Millisecond}} {
		p.ServerAddresses = []netip.AddrPort{testServer}
		p.Now = testEpoch
		if _, err := NewConnectToken(testRand(1), &k, p); !errors.Is(err, ErrConfig) {
			t.Errorf("expiry %v, timeout %v: %v, want ErrConfig", p.Expiry, p.Timeout, err)
		}
	}
}

// admitAndLeave connects client 0 of n with tok and disconnects it.
func admitAndLeave(t *testing.T, n *vnet, tok *ConnectToken) {
	t.Helper()
	c := n.clients[0]
	if err := c.Connect(n.now, tok); err != nil {
		t.Fatal(err)
	}
	n.step(10 * time.Millisecond)
	if c.State() != StateConnected {
		t.Fatalf("client: %v", c.State())
	}
	c.Disconnect(n.now)
	n.step(10 * time.Millisecond)
	if n.srv.NumConnected() != 0 {
		t.Fatal("client did not leave")
	}
}

// A used token is refused until it expires, however many tokens were used
// since (the case: one slot, E0 then E1..E9 used, E0 again), and
// across a restart; once expired, it is forgotten.
func TestTokenHistoryUntilExpiry(t *testing.T) {
	var used []UsedToken
	n := newDefaultVnet(t, 1, 1, ServerConfig{OnTokenUsed: func(u UsedToken) { used = append(used, u) }})
	other := netip.MustParseAddrPort("127.0.0.9:7000")
	var toks []*ConnectToken
	for i := range 10 {
		toks = append(toks, newTestToken(t, uint64(100+i), n.now, uint64(200+i)))
		admitAndLeave(t, n, toks[i])
	}
	for i, tok := range toks {
		if _, _, err := n.srv.Receive(n.now, other, appendRequest(nil, tok)); err != ErrTokenReused {
			t.Fatalf("token %d of 10 used again: %v, want ErrTokenReused", i, err)
		}
	}
	if len(used) != 10 {
		t.Fatalf("%d tokens reported used, want 10", len(used))
	}
	again := newDefaultVnet(t, 1, 1, ServerConfig{UsedTokens: used})
	again.now = n.now
	for i, tok := range toks {
		if _, _, err := again.srv.Receive(again.now, other, appendRequest(nil, tok)); err != ErrTokenReused {
			t.Fatalf("after a restart, token %d used again: %v, want ErrTokenReused", i, err)
		}
	}
	n.now = n.now.Add(DefaultTokenExpiry)
	n.srv.Update(n.now)
	if h := n.srv.Stats().TokenHistory; h != 0 {
		t.Fatalf("%d tokens remembered after all expired", h)
	}
}

// A history full of unexpired tokens refuses new clients, with a denied
// packet, rather than forget one; it admits them again once some expired.
func TestTokenHistoryFull(t *testing.T) {
	n := newDefaultVnet(t, 1, 1, ServerConfig{TokenHistory: 3})
	other := netip.MustParseAddrPort("127.0.0.9:7000")
	start := n.now
	for i := range 3 {
		admitAndLeave(t, n, newTestToken(t, uint64(100+i), n.now, uint64(200+i)))
		n.now = n.now.Add(time.Second)
	}
	var refused []error
	n.srv.cfg.OnRefused = func(_ netip.AddrPort, err error) { refused = append(refused, err) }
	if _, _, err := n.srv.Receive(n.now, other, appendRequest(nil, newTestToken(t, 300, n.now, 300))); err != ErrTokenHistoryFull {
		t.Fatalf("a fresh token with 3 remembered: %v, want ErrTokenHistoryFull", err)
	}
	if _, to, ok := n.srv.Transmit(); !ok || to != other || len(refused) != 1 {
		t.Fatalf("no denied packet (%v) or refusals %v", ok, refused)
	}
	if got := n.srv.Stats(); got.TokenHistory != 3 || got.Dropped.HistoryFull != 1 {
		t.Fatalf("history %d, %d refused as full", got.TokenHistory, got.Dropped.HistoryFull)
	}
	n.now = start.Add(DefaultTokenExpiry) // the first token expired
	admitAndLeave(t, n, newTestToken(t, 301, n.now, 301))
	if h := n.srv.Stats().TokenHistory; h != 3 {
		t.Fatalf("%d tokens remembered, want 3", h)
	}
}

// A token is recorded when its client is admitted: requests that a full
// server refuses, or whose handshake never completes, record nothing.
func TestTokenRecordedOnAdmission(t *testing.T) {
	var used []UsedToken
	n := newDefaultVnet(t, 1, 1, ServerConfig{OnTokenUsed: func(u UsedToken) { used = append(used, u) }})
	connectAll(t, n, 0)
	for i := range 100 {
		from := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.9"), uint16(7000+i))
		n.srv.Receive(n.now, from, appendRequest(nil, newTestToken(t, uint64(100+i), n.now, uint64(100+i))))
		drainServer(n.srv)
	}
	n.clients[0].Disconnect(n.now)
	n.step(10 * time.Millisecond)
	for i := range 100 { // a free slot now: requests answered, never completed
		from := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.9"), uint16(8000+i))
		if _, _, err := n.srv.Receive(n.now, from, appendRequest(nil, newTestToken(t, uint64(200+i), n.now, uint64(200+i)))); err != nil && err != ErrPendingFull {
			t.Fatalf("request %d: %v", i, err)
		}
		drainServer(n.srv)
	}
	if len(used) != 1 || n.srv.Stats().TokenHistory != 1 {
		t.Fatalf("%d tokens recorded, %d remembered after 1 admission and 200 requests", len(used), n.srv.Stats().TokenHistory)
	}
}

// A draining server's refusal says so, not that it is full.
func TestRefuseNewReason(t *testing.T) {
	n := newDefaultVnet(t, 2, 1, ServerConfig{})
	var refused []error
	n.srv.cfg.OnRefused = func(_ netip.AddrPort, err error) { refused = append(refused, err) }
	n.srv.RefuseNew(true)
	n.clients[0].Connect(n.now, newTestToken(t, 1, n.now, 1))
	n.step(10 * time.Millisecond)
	if n.clients[0].State() != StateDenied || len(refused) == 0 || refused[0] != ErrRefusingNew {
		t.Fatalf("client %v, refusals %v, want denied with ErrRefusingNew", n.clients[0].State(), refused)
	}
}

// A client over its budget without a pause for MaxOverBudget (2 s) is
// disconnected once, its event naming the reason and its drops; a client
// whose bursts pause is not, and an honest client beside them loses
// nothing.
func TestOverBudgetDisconnects(t *testing.T) {
	n := newDefaultVnet(t, 3, 3, ServerConfig{})
	connectAll(t, n, 0)
	for {
		if _, ok := n.srv.PollEvent(); !ok {
			break
		}
	}
	flooder, bursty, honest := n.clients[0], n.clients[1], n.clients[2]
	fi, bi := flooder.ClientIndex(), bursty.ClientIndex()
	start := n.now
	var left []Event
	var dropsBefore uint64
	for k := 0; n.now.Sub(start) < 4*time.Second; k++ { // 1 ms steps
		if flooder.State() == StateConnected {
			flooder.SendPayload(n.now, make([]byte, 100)) // 1,000 a second
			dropsBefore = n.srv.ClientOverBudget(fi)
		}
		if k%1000 < 500 { // 1,000 a second for half of every second
			bursty.SendPayload(n.now, make([]byte, 100))
		}
		if k%16 == 0 {
			honest.SendPayload(n.now, make([]byte, 100))
		}
		n.step(time.Millisecond)
		for {
			e, ok := n.srv.PollEvent()
			if !ok {
				break
			}
			left = append(left, e)
		}
	}
	if len(left) != 1 || left[0].Client != fi || left[0].Kind != EventDisconnected {
		t.Fatalf("events %+v, want the flooder's (slot %d) disconnect alone", left, fi)
	}
	var obe *OverBudgetError
	if !errors.As(left[0].Reason, &obe) || !errors.Is(left[0].Reason, ErrOverBudget) || obe.For < 2*time.Second || obe.Dropped < 1500 || obe.Dropped < dropsBefore {
		t.Fatalf("reason %v, want over budget for 2 s with its drops (%d counted before)", left[0].Reason, dropsBefore)
	}
	if flooder.State() != StateDisconnected || bursty.State() != StateConnected || honest.State() != StateConnected {
		t.Fatalf("states: flooder %v, bursty %v, honest %v", flooder.State(), bursty.State(), honest.State())
	}
	if n.srv.ClientOverBudget(bi) == 0 {
		t.Fatal("the bursty client's drops were not counted")
	}
	if h := len(n.srvIn[honest.ClientIndex()]); h != 250 {
		t.Fatalf("honest client: %d of 250 payloads taken", h)
	}
	t.Logf("flooder: %v; bursty client: %d over budget, still connected", left[0].Reason, n.srv.ClientOverBudget(bi))
}
