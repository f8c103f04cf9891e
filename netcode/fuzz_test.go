package netcode

import (
	"bytes"
	"net/netip"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// sessionPackets returns real datagrams of a short session: requests,
// challenges, responses, keep-alives, payloads and disconnects.
func sessionPackets(t testing.TB) []captured {
	n := newVnet(t, 2, 2)
	for i, c := range n.clients {
		c.Connect(n.now, newTestToken(t, uint64(1+i), n.now, uint64(10+i)))
	}
	n.step(1)
	for k := 0; k < 3; k++ {
		for _, c := range n.clients {
			c.SendPayload(n.now, []byte{byte(k), 1, 2, 3})
			n.srv.SendPayload(n.now, c.ClientIndex(), bytes.Repeat([]byte{byte(k)}, 100))
		}
		n.step(1)
	}
	n.clients[0].Disconnect(n.now)
	n.srv.Disconnect(n.now, n.clients[1].ClientIndex())
	n.flush()
	return n.log
}

// FuzzServerReceive feeds arbitrary datagrams to a server with a connected
// client, from that client's address and from an unknown one.
func FuzzServerReceive(f *testing.F) {
	for _, c := range sessionPackets(f) {
		f.Add(c.data, false)
		f.Add(c.data, true)
	}
	f.Add([]byte{}, false)
	// One connected server per fuzzing process; inputs accumulate state,
	// which explores more than a fresh server each time.
	n := newVnet(f, 2, 1)
	n.clients[0].Connect(n.now, newTestToken(f, 1, n.now, 1))
	n.step(1)
	f.Fuzz(func(t *testing.T, data []byte, known bool) {
		from := netip.MustParseAddrPort("127.0.0.99:1")
		if known {
			from = n.addrs[0]
		}
		before := n.srv.Stats()
		idx, payload, err := n.srv.Receive(n.now, from, data)
		if err == nil && payload != nil && (idx < 0 || len(payload) > MaxPayloadSize) {
			t.Fatalf("bad payload result %d %d", idx, len(payload))
		}
		if err != nil && n.srv.Stats().Dropped.Total() != before.Dropped.Total()+1 {
			t.Fatal("drop not counted")
		}
		if n.srv.NumConnected() > 2 {
			t.Fatal("more clients than slots")
		}
		for {
			p, _, ok := n.srv.Transmit()
			if !ok {
				break
			}
			if len(p) > len(data) && !known {
				t.Fatalf("reply of %d bytes to %d-byte datagram", len(p), len(data))
			}
		}
	})
}

// FuzzClientReceive feeds arbitrary datagrams to a connected client.
func FuzzClientReceive(f *testing.F) {
	for _, c := range sessionPackets(f) {
		f.Add(c.data)
	}
	n := newVnet(f, 2, 1)
	n.clients[0].Connect(n.now, newTestToken(f, 1, n.now, 1))
	n.step(1)
	f.Fuzz(func(t *testing.T, data []byte) {
		payload, err := n.clients[0].Receive(n.now, testServer, data)
		if err == nil && len(payload) > MaxPayloadSize {
			t.Fatal("oversized payload")
		}
	})
}

// FuzzPacketHeader checks the pre-decryption parser and the decrypt path
// against a fixed key.
func FuzzPacketHeader(f *testing.F) {
	key := patternKey(5)
	a, _ := chacha20poly1305.New(key[:])
	sc := new(scratch)
	for _, typ := range []PacketType{PacketDenied, PacketChallenge, PacketResponse, PacketKeepAlive, PacketPayload, PacketDisconnect} {
		body := map[PacketType][]byte{PacketChallenge: make([]byte, 308), PacketResponse: make([]byte, 308), PacketKeepAlive: make([]byte, 8), PacketPayload: []byte("hello")}[typ]
		for _, seq := range []uint64{0, 1000, 1 << 63, ^uint64(0)} {
			f.Add(appendEncrypted(nil, typ, seq, body, a, katProtocol, sc))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := parseHeader(data, 0x7e)
		if err != nil {
			return
		}
		if h.body < 2 || h.body > 9 || !bodySizeOK(h.typ, len(data)-h.body-MACSize) {
			t.Fatalf("accepted header %+v for %d bytes", h, len(data))
		}
		var w replayWindow
		cp := append([]byte(nil), data...)
		h2, body, err := openPacket(cp, 0x7e, a, katProtocol, &w, sc)
		if err != nil {
			return
		}
		// A packet that opens must re-encode to the same bytes.
		if re := appendEncrypted(nil, h2.typ, h2.seq, body, a, katProtocol, sc); !bytes.Equal(re, data) && sequenceBytes(h2.seq) == int(data[0]>>4) {
			t.Fatal("opened packet does not re-encode identically")
		}
	})
}

// Where the parts of an encoded connect token that its decoder interprets
// lie: the header (version info, protocol id, timestamps) and everything
// from the timeout on. The nonce and sealed private part between them are
// copied without being read.
const (
	tokenHeadSize = VersionInfoSize + 3*8
	tokenTailAt   = tokenHeadSize + ConnectTokenNonceSize + PrivateTokenSize
)

// FuzzConnectToken decodes arbitrary connect tokens and checks round trips.
// The fuzzer mutates only what the decoder reads: data's first tokenHeadSize
// bytes are the header, the rest is laid from the timeout on, over a real
// token. Short inputs keep executions and minimisation cheap (mutating the
// whole 2048 bytes ran about 800 executions in 45 s).
func FuzzConnectToken(f *testing.F) {
	k := testKey()
	var base []byte
	for i := 0; i < 3; i++ {
		tok, err := NewConnectToken(testRand(uint64(i)), &k, TokenParams{ProtocolID: testProtocol, ClientID: uint64(i), ServerAddresses: katAddrs[:i%2+1], Now: testEpoch})
		if err != nil {
			f.Fatal(err)
		}
		b, _ := tok.MarshalBinary()
		base = b
		tail := bytes.TrimRight(b[tokenTailAt:], "\x00")
		f.Add(append(b[:tokenHeadSize:tokenHeadSize], tail...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > tokenHeadSize+ConnectTokenSize-tokenTailAt {
			return
		}
		in := append([]byte(nil), base...)
		n := copy(in[:tokenHeadSize], data)
		clear(in[tokenTailAt:])
		copy(in[tokenTailAt:], data[n:])
		var tok ConnectToken
		if tok.UnmarshalBinary(in) != nil {
			return
		}
		b, err := tok.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back ConnectToken
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		b2, _ := back.MarshalBinary()
		if !bytes.Equal(b, b2) {
			t.Fatal("token does not round-trip")
		}
		text, err := tok.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var fromText ConnectToken
		if err := fromText.UnmarshalText(append(text, '\n')); err != nil {
			t.Fatal(err)
		}
		if b3, _ := fromText.MarshalBinary(); !bytes.Equal(b, b3) {
			t.Fatal("token does not round-trip as text")
		}
		_ = fromText.UnmarshalText(data) // arbitrary text: an error, never a panic
	})
}

// FuzzPrivateToken decodes arbitrary private-token plaintexts and opens
// arbitrary sealed private tokens.
func FuzzPrivateToken(f *testing.F) {
	p := katPrivateToken()
	plain, _ := p.appendPlain(nil)
	key := patternKey(1)
	nonce := [24]byte(pattern(24, 6))
	sealed, _ := SealPrivateToken(nil, &p, &key, katProtocol, katExpire, &nonce)
	f.Add(plain)
	f.Add(sealed)
	f.Fuzz(func(t *testing.T, data []byte) {
		var q PrivateToken
		if len(data) >= privatePlainSize && q.decodePlain(data) == nil {
			b, err := q.appendPlain(nil)
			if err != nil {
				t.Fatal(err)
			}
			var r PrivateToken
			if err := r.decodePlain(b); err != nil || r.ClientID != q.ClientID || len(r.ServerAddresses) != len(q.ServerAddresses) {
				t.Fatal("private token does not round-trip")
			}
		}
		if len(data) == PrivateTokenSize {
			err := OpenPrivateToken(&q, data, &key, katProtocol, katExpire, &nonce)
			if err == nil && !bytes.Equal(data, sealed) {
				t.Fatal("forged private token opened")
			}
		}
	})
}

// FuzzChallengeToken opens arbitrary sealed challenge tokens.
func FuzzChallengeToken(f *testing.F) {
	key := patternKey(4)
	ct := ChallengeToken{ClientID: katClientID}
	sealed := SealChallengeToken(nil, &ct, &key, 3)
	f.Add(sealed, uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, seq uint64) {
		var back ChallengeToken
		err := OpenChallengeToken(&back, data, &key, seq)
		if err == nil && (seq != 3 || !bytes.Equal(data, sealed)) {
			t.Fatal("forged challenge token opened")
		}
	})
}
