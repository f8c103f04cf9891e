package netcode

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
)

// PacketType is the low nibble of a packet's prefix byte.
type PacketType uint8

// The seven packet types of netcode 1.02.
const (
	PacketRequest    PacketType = 0 // connection request (not encrypted)
	PacketDenied     PacketType = 1 // connection denied
	PacketChallenge  PacketType = 2 // connection challenge
	PacketResponse   PacketType = 3 // connection response
	PacketKeepAlive  PacketType = 4 // connection keep-alive
	PacketPayload    PacketType = 5 // connection payload
	PacketDisconnect PacketType = 6 // connection disconnect
	numPacketTypes              = 7
)

var packetTypeNames = [numPacketTypes]string{"request", "denied", "challenge", "response", "keep-alive", "payload", "disconnect"}

func (t PacketType) String() string {
	if t < numPacketTypes {
		return packetTypeNames[t]
	}
	return fmt.Sprintf("PacketType(%d)", uint8(t))
}

// Sizes of the per-packet type data, before encryption.
const (
	challengeBodySize = 8 + ChallengeTokenSize // challenge sequence + sealed token
	keepAliveBodySize = 4 + 4                  // client index + max clients
	packetADSize      = VersionInfoSize + 8 + 1
	minEncryptedSize  = 1 + 1 + MACSize // 18
)

// sequenceBytes is the number of bytes needed for seq (1 to 8).
func sequenceBytes(seq uint64) int {
	n := 1
	for seq >>= 8; seq != 0; seq >>= 8 {
		n++
	}
	return n
}

// prefixByte combines the packet type (low nibble) with the sequence length
// (high nibble).
func prefixByte(t PacketType, seq uint64) byte {
	return byte(sequenceBytes(seq))<<4 | byte(t)
}

// appendSequence writes seq least significant byte first, omitting high zero bytes.
func appendSequence(b []byte, seq uint64) []byte {
	for n := sequenceBytes(seq); n > 0; n-- {
		b = append(b, byte(seq))
		seq >>= 8
	}
	return b
}

// appendPacketAD appends the associated data of an encrypted packet:
// version info, protocol id, prefix byte.
func appendPacketAD(b []byte, protocolID uint64, prefix byte) []byte {
	b = append(b, VersionInfo[:]...)
	b = binary.LittleEndian.AppendUint64(b, protocolID)
	return append(b, prefix)
}

// bodySizeOK reports whether n is a valid per-packet data size for t.
func bodySizeOK(t PacketType, n int) bool {
	switch t {
	case PacketDenied, PacketDisconnect:
		return n == 0
	case PacketChallenge, PacketResponse:
		return n == challengeBodySize
	case PacketKeepAlive:
		return n == keepAliveBodySize
	case PacketPayload:
		return n >= 1 && n <= MaxPayloadSize
	}
	return false
}

// appendEncrypted appends an encrypted packet: prefix, sequence, then body
// sealed with ChaCha20-Poly1305 (IETF). It does not allocate when dst has room.
func appendEncrypted(dst []byte, t PacketType, seq uint64, body []byte, aead cipher.AEAD, protocolID uint64, sc *scratch) []byte {
	prefix := prefixByte(t, seq)
	dst = append(dst, prefix)
	dst = appendSequence(dst, seq)
	ad := appendPacketAD(sc.ad[:0], protocolID, prefix)
	nonce := appendNonce(sc.nonce[:0], seq)
	return aead.Seal(dst, nonce, body, ad)
}

// scratch holds the nonce, associated data and plaintext buffers of the
// cryptographic calls. Slices passed to cipher.AEAD methods escape, so
// keeping these in a long-lived object (rather than on the stack) is what
// makes sealing and opening allocation-free.
type scratch struct {
	nonce [ConnectTokenNonceSize]byte
	ad    [tokenADSize]byte
	plain [privatePlainSize]byte
}

// packetHeader is the cleartext part of an encrypted packet.
type packetHeader struct {
	typ  PacketType
	seq  uint64
	body int // offset of the ciphertext
}

// parseHeader performs the pre-decryption checks of the standard, in its
// order: size, type, allowed types, sequence length, per-type data size.
// allowed is a bit set of accepted packet types.
func parseHeader(p []byte, allowed uint8) (packetHeader, error) {
	if len(p) < minEncryptedSize {
		return packetHeader{}, ErrMalformed
	}
	t := PacketType(p[0] & 0x0f)
	if t >= numPacketTypes || t == PacketRequest {
		return packetHeader{}, ErrMalformed
	}
	if allowed&(1<<t) == 0 {
		return packetHeader{}, ErrPacketType
	}
	sb := int(p[0] >> 4)
	if sb < 1 || sb > 8 {
		return packetHeader{}, ErrMalformed
	}
	if len(p) < 1+sb+MACSize {
		return packetHeader{}, ErrMalformed
	}
	if !bodySizeOK(t, len(p)-1-sb-MACSize) {
		return packetHeader{}, ErrMalformed
	}
	var seq uint64
	for i := sb; i >= 1; i-- {
		seq = seq<<8 | uint64(p[i])
	}
	return packetHeader{typ: t, seq: seq, body: 1 + sb}, nil
}

// replayProtected reports whether packets of type t go through the replay window.
func replayProtected(t PacketType) bool { return t >= PacketKeepAlive }

// openPacket checks, authenticates and decrypts an encrypted packet in place.
// When w is non-nil, keep-alive, payload and disconnect packets are checked
// against it before decryption and marked in it after. It returns the header
// and the decrypted per-packet data (a sub-slice of p).
func openPacket(p []byte, allowed uint8, aead cipher.AEAD, protocolID uint64, w *replayWindow, sc *scratch) (packetHeader, []byte, error) {
	h, err := parseHeader(p, allowed)
	if err != nil {
		return h, nil, err
	}
	if w != nil && replayProtected(h.typ) && w.seen(h.seq) {
		return h, nil, ErrReplay
	}
	ad := appendPacketAD(sc.ad[:0], protocolID, p[0])
	nonce := appendNonce(sc.nonce[:0], h.seq)
	ct := p[h.body:]
	body, err := aead.Open(ct[:0], nonce, ct, ad)
	if err != nil {
		return h, nil, ErrAuth
	}
	if w != nil && replayProtected(h.typ) {
		w.mark(h.seq)
	}
	return h, body, nil
}

// appendRequest appends a connection request packet (1078 bytes).
func appendRequest(b []byte, t *ConnectToken) []byte {
	b = append(b, byte(PacketRequest))
	b = append(b, VersionInfo[:]...)
	b = binary.LittleEndian.AppendUint64(b, t.ProtocolID)
	b = binary.LittleEndian.AppendUint64(b, t.ExpireTimestamp)
	b = append(b, t.Nonce[:]...)
	return append(b, t.PrivateData[:]...)
}

// requestPacket is a parsed connection request; its slices alias the packet.
type requestPacket struct {
	protocolID uint64
	expire     uint64
	nonce      []byte
	private    []byte
}

// parseRequest checks a connection request's size and version info.
func parseRequest(p []byte) (requestPacket, error) {
	if len(p) != RequestPacketSize || p[0] != byte(PacketRequest) {
		return requestPacket{}, ErrMalformed
	}
	if [VersionInfoSize]byte(p[1:1+VersionInfoSize]) != VersionInfo {
		return requestPacket{}, ErrVersion
	}
	q := p[1+VersionInfoSize:]
	return requestPacket{
		protocolID: binary.LittleEndian.Uint64(q),
		expire:     binary.LittleEndian.Uint64(q[8:]),
		nonce:      q[16 : 16+ConnectTokenNonceSize],
		private:    q[16+ConnectTokenNonceSize:],
	}, nil
}

// PayloadOverhead is the size, in bytes, that a payload packet with sequence
// number seq adds to its payload: the prefix byte, the sequence number and
// the MAC. Sequence numbers start at 1 for a connection's first packet.
func PayloadOverhead(seq uint64) int { return 1 + sequenceBytes(seq) + MACSize }
