package netcode

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// Known-answer tests of the netcode 1.02 byte layouts. The expected bytes are
// written out by hand from the standard, and the cryptography is checked by
// opening our output with golang.org/x/crypto directly, with nonces and
// associated data assembled here byte by byte rather than by the helpers
// under test.

func pattern(n int, offset byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i) + offset
	}
	return b
}

func patternKey(offset byte) Key { return Key(pattern(KeySize, offset)) }

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

const (
	katProtocol = uint64(0x1122334455667788)
	katClientID = uint64(0x1122AABBCCDD3344)
	katExpire   = uint64(0x1234567890ABCDEF)
	katCreate   = katExpire - 30
)

var katAddrs = []netip.AddrPort{
	netip.MustParseAddrPort("127.0.0.1:40000"),
	netip.MustParseAddrPort("[fe80::202:b3ff:fe1e:8329]:50000"),
}

func TestKATVersionInfo(t *testing.T) {
	want := mustHex("4e4554434f444520312e303200") // "NETCODE 1.02\0"
	if !bytes.Equal(VersionInfo[:], want) {
		t.Fatalf("version info % x", VersionInfo)
	}
	if RequestPacketSize != 1078 || MaxPacketSize != 1225 {
		t.Fatalf("sizes %d %d", RequestPacketSize, MaxPacketSize)
	}
}

func TestKATPrefixAndSequence(t *testing.T) {
	cases := []struct {
		typ    PacketType
		seq    uint64
		prefix byte
		bytes  string
	}{
		{PacketPayload, 1000, 0x25, "e803"}, // the standard's example: 0x3E8 in two bytes, reversed
		{PacketKeepAlive, 0, 0x14, "00"},
		{PacketDenied, 0xff, 0x11, "ff"},
		{PacketDisconnect, 0x100, 0x26, "0001"},
		{PacketResponse, 0x1f, 0x13, "1f"},
		{PacketKeepAlive, 0x11223344, 0x44, "44332211"},
		{PacketChallenge, 1 << 63, 0x82, "0000000000000080"},
		{PacketPayload, ^uint64(0), 0x85, "ffffffffffffffff"},
	}
	for _, c := range cases {
		if p := prefixByte(c.typ, c.seq); p != c.prefix {
			t.Errorf("prefix(%v, %#x) = %#x, want %#x", c.typ, c.seq, p, c.prefix)
		}
		if got := appendSequence(nil, c.seq); !bytes.Equal(got, mustHex(c.bytes)) {
			t.Errorf("sequence %#x = % x, want %s", c.seq, got, c.bytes)
		}
	}
}

func TestKATNonceAndAssociatedData(t *testing.T) {
	// Erratum: the 96-bit nonce is four zero bytes then the sequence, little endian.
	if got := appendNonce(nil, 0x0102030405060708); !bytes.Equal(got, mustHex("000000000807060504030201")) {
		t.Fatalf("nonce % x", got)
	}
	ad := appendPacketAD(nil, katProtocol, 0x25)
	want := mustHex("4e4554434f444520312e303200" + "8877665544332211" + "25")
	if !bytes.Equal(ad, want) {
		t.Fatalf("packet AD % x", ad)
	}
	tad := appendTokenAD(nil, katProtocol, katExpire)
	want = mustHex("4e4554434f444520312e303200" + "8877665544332211" + "efcdab9078563412")
	if !bytes.Equal(tad, want) {
		t.Fatalf("token AD % x", tad)
	}
}

func katPrivateToken() PrivateToken {
	return PrivateToken{
		ClientID:          katClientID,
		TimeoutSeconds:    15,
		ServerAddresses:   katAddrs,
		ClientToServerKey: patternKey(2),
		ServerToClientKey: patternKey(3),
		UserData:          [UserDataSize]byte(pattern(UserDataSize, 0)),
	}
}

func TestKATPrivateTokenLayout(t *testing.T) {
	p := katPrivateToken()
	plain, err := p.appendPlain(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 1008 {
		t.Fatalf("plaintext %d bytes", len(plain))
	}
	var want []byte
	want = append(want, mustHex("4433ddccbbaa2211")...) // client id
	want = append(want, mustHex("0f000000")...)         // timeout seconds
	want = append(want, mustHex("02000000")...)         // two addresses
	want = append(want, mustHex("01"+"7f000001"+"409c")...)
	// IPv6: type 2, eight 16-bit groups little endian, port 50000 = 0xc350.
	want = append(want, mustHex("02"+"80fe"+"0000"+"0000"+"0000"+"0202"+"ffb3"+"1efe"+"2983"+"50c3")...)
	want = append(want, pattern(32, 2)...)
	want = append(want, pattern(32, 3)...)
	want = append(want, pattern(256, 0)...)
	want = append(want, make([]byte, 1008-len(want))...)
	if !bytes.Equal(plain, want) {
		t.Fatalf("private token plaintext differs:\n got % x\nwant % x", plain[:80], want[:80])
	}

	// Sealed with XChaCha20-Poly1305: open it directly.
	key := patternKey(1)
	nonce := [24]byte(pattern(24, 6))
	sealed, err := SealPrivateToken(nil, &p, &key, katProtocol, katExpire, &nonce)
	if err != nil || len(sealed) != PrivateTokenSize {
		t.Fatalf("seal: %v, %d bytes", err, len(sealed))
	}
	x, _ := chacha20poly1305.NewX(key[:])
	ad := append(append([]byte("NETCODE 1.02\x00"), mustHex("8877665544332211")...), mustHex("efcdab9078563412")...)
	opened, err := x.Open(nil, nonce[:], sealed, ad)
	if err != nil || !bytes.Equal(opened, want) {
		t.Fatalf("direct open: %v", err)
	}
	var back PrivateToken
	if err := OpenPrivateToken(&back, sealed, &key, katProtocol, katExpire, &nonce); err != nil {
		t.Fatal(err)
	}
	if back.ClientID != katClientID || back.TimeoutSeconds != 15 || back.ServerAddresses[1] != katAddrs[1] || back.UserData != p.UserData {
		t.Fatalf("round trip %+v", back)
	}
	// The expire timestamp is authenticated.
	if err := OpenPrivateToken(&back, sealed, &key, katProtocol, katExpire+1, &nonce); err != ErrAuth {
		t.Fatalf("tampered expiry: %v", err)
	}
}

func TestKATConnectTokenLayout(t *testing.T) {
	tok := ConnectToken{
		ProtocolID:        katProtocol,
		CreateTimestamp:   katCreate,
		ExpireTimestamp:   katExpire,
		Nonce:             [24]byte(pattern(24, 6)),
		PrivateData:       [1024]byte(pattern(1024, 9)),
		TimeoutSeconds:    15,
		ServerAddresses:   katAddrs,
		ClientToServerKey: patternKey(2),
		ServerToClientKey: patternKey(3),
	}
	b, err := tok.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 2048 {
		t.Fatalf("%d bytes", len(b))
	}
	var want []byte
	want = append(want, []byte("NETCODE 1.02\x00")...)
	want = append(want, mustHex("8877665544332211")...)
	want = append(want, mustHex("d1cdab9078563412")...) // create = expire - 30
	want = append(want, mustHex("efcdab9078563412")...)
	want = append(want, pattern(24, 6)...)
	want = append(want, pattern(1024, 9)...)
	want = append(want, mustHex("0f000000")...) // timeout before the address count in 1.02
	want = append(want, mustHex("02000000")...)
	want = append(want, mustHex("01"+"7f000001"+"409c")...)
	want = append(want, mustHex("02"+"80fe"+"0000"+"0000"+"0000"+"0202"+"ffb3"+"1efe"+"2983"+"50c3")...)
	want = append(want, pattern(32, 2)...)
	want = append(want, pattern(32, 3)...)
	want = append(want, make([]byte, 2048-len(want))...)
	if !bytes.Equal(b, want) {
		t.Fatal("connect token layout differs")
	}
	var back ConnectToken
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	b2, _ := back.MarshalBinary()
	if !bytes.Equal(b, b2) {
		t.Fatal("token does not round-trip")
	}
}

func TestKATChallengeToken(t *testing.T) {
	key := patternKey(4)
	ct := ChallengeToken{ClientID: katClientID, UserData: [256]byte(pattern(256, 0))}
	sealed := SealChallengeToken(nil, &ct, &key, 0xBADD)
	if len(sealed) != ChallengeTokenSize {
		t.Fatalf("%d bytes", len(sealed))
	}
	a, _ := chacha20poly1305.New(key[:])
	nonce := mustHex("00000000" + "ddba000000000000")
	plain, err := a.Open(nil, nonce, sealed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(mustHex("4433ddccbbaa2211"), pattern(256, 0)...), make([]byte, 300-16-8-256)...)
	if !bytes.Equal(plain, want) {
		t.Fatal("challenge token plaintext differs")
	}
	var back ChallengeToken
	if err := OpenChallengeToken(&back, sealed, &key, 0xBADD); err != nil || back != ct {
		t.Fatalf("round trip: %v", err)
	}
}

func TestKATRequestPacket(t *testing.T) {
	tok := ConnectToken{ProtocolID: katProtocol, ExpireTimestamp: katExpire, Nonce: [24]byte(pattern(24, 6)), PrivateData: [1024]byte(pattern(1024, 9))}
	p := appendRequest(nil, &tok)
	var want []byte
	want = append(want, 0)
	want = append(want, []byte("NETCODE 1.02\x00")...)
	want = append(want, mustHex("8877665544332211")...)
	want = append(want, mustHex("efcdab9078563412")...)
	want = append(want, pattern(24, 6)...)
	want = append(want, pattern(1024, 9)...)
	if !bytes.Equal(p, want) || len(p) != 1078 {
		t.Fatal("request packet layout differs")
	}
}

// TestKATEncryptedPackets seals each encrypted packet type and opens it with
// x/crypto using a nonce and associated data built here by hand.
func TestKATEncryptedPackets(t *testing.T) {
	key := patternKey(5)
	a, _ := chacha20poly1305.New(key[:])
	keepAlive := mustHex("05000000" + "20000000") // client index 5, max clients 32
	cases := []struct {
		typ  PacketType
		seq  uint64
		body []byte
		size int
	}{
		{PacketDenied, 1 << 63, nil, 1 + 8 + 16},
		{PacketChallenge, 1<<63 + 5, append(mustHex("ddba000000000000"), pattern(300, 7)...), 1 + 8 + 308 + 16},
		{PacketResponse, 0x1f, append(mustHex("ddba000000000000"), pattern(300, 7)...), 1 + 1 + 308 + 16},
		{PacketKeepAlive, 0x11223344, keepAlive, 1 + 4 + 8 + 16},
		{PacketPayload, 1000, pattern(1200, 0), 1 + 2 + 1200 + 16},
		{PacketDisconnect, 7, nil, 1 + 1 + 16},
	}
	for _, c := range cases {
		p := appendEncrypted(nil, c.typ, c.seq, c.body, a, katProtocol, new(scratch))
		if len(p) != c.size {
			t.Errorf("%v: %d bytes, want %d", c.typ, len(p), c.size)
			continue
		}
		sb := int(p[0] >> 4)
		if PacketType(p[0]&15) != c.typ || sb != sequenceBytes(c.seq) {
			t.Errorf("%v: prefix %#x", c.typ, p[0])
		}
		var seq [8]byte
		copy(seq[:], p[1:1+sb])
		if binary.LittleEndian.Uint64(seq[:]) != c.seq {
			t.Errorf("%v: sequence bytes % x", c.typ, p[1:1+sb])
		}
		nonce := append([]byte{0, 0, 0, 0}, seq[:]...)
		ad := append(append([]byte("NETCODE 1.02\x00"), mustHex("8877665544332211")...), p[0])
		plain, err := a.Open(nil, nonce, p[1+sb:], ad)
		if err != nil || !bytes.Equal(plain, c.body) {
			t.Errorf("%v: direct open failed: %v", c.typ, err)
		}
		var w replayWindow
		h, body, err := openPacket(append([]byte(nil), p...), 0x7e, a, katProtocol, &w, new(scratch))
		if err != nil || h.typ != c.typ || h.seq != c.seq || !bytes.Equal(body, c.body) {
			t.Errorf("%v: openPacket: %v", c.typ, err)
		}
	}
	// A pinned vector guards against silent drift: disconnect packet, sequence 7, key pattern 5.
	p := appendEncrypted(nil, PacketDisconnect, 7, nil, a, katProtocol, new(scratch))
	if got := hex.EncodeToString(p); got != katDisconnectHex {
		t.Fatalf("disconnect packet %s, want %s", got, katDisconnectHex)
	}
}

const katDisconnectHex = "16074639ccea4474a98444c797fcd1cc81a0"
