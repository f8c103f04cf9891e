package netcode

import (
	"bytes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/netip"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Sizes fixed by the netcode 1.02 standard, in bytes.
const (
	VersionInfoSize       = 13                                                                     // "NETCODE 1.02" and a NUL
	UserDataSize          = 256                                                                    // application data carried in a token
	MACSize               = 16                                                                     // Poly1305 tag
	ConnectTokenSize      = 2048                                                                   // the whole (public) connect token
	PrivateTokenSize      = 1024                                                                   // the sealed private part, tag included
	ConnectTokenNonceSize = 24                                                                     // XChaCha20-Poly1305 nonce
	ChallengeTokenSize    = 300                                                                    // the sealed challenge token, tag included
	MaxPayloadSize        = 1200                                                                   // largest payload in one payload packet
	RequestPacketSize     = 1 + VersionInfoSize + 8 + 8 + ConnectTokenNonceSize + PrivateTokenSize // 1078
	// MaxPacketSize is the largest datagram the protocol produces
	// (a payload packet with an 8-byte sequence and a full payload).
	MaxPacketSize = 1 + 8 + MaxPayloadSize + MACSize
)

// VersionInfo is the version string at the start of tokens and request packets.
var VersionInfo = [VersionInfoSize]byte{'N', 'E', 'T', 'C', 'O', 'D', 'E', ' ', '1', '.', '0', '2', 0}

// PrivateToken is the part of a connect token that only the backend and the
// servers can read. It is sealed with XChaCha20-Poly1305 under the private key.
type PrivateToken struct {
	ClientID uint64
	// TimeoutSeconds: seconds without packets before the connection times
	// out; negative disables timeouts (development only).
	TimeoutSeconds    int32
	ServerAddresses   []netip.AddrPort // 1 to MaxServers addresses
	ClientToServerKey Key
	ServerToClientKey Key
	UserData          [UserDataSize]byte
}

// ConnectToken is what the backend hands to a client (2048 bytes encoded).
// Its public fields let the client talk to the servers; PrivateData is the
// sealed PrivateToken, opaque to the client.
type ConnectToken struct {
	ProtocolID        uint64
	CreateTimestamp   uint64 // Unix seconds
	ExpireTimestamp   uint64 // Unix seconds
	Nonce             [ConnectTokenNonceSize]byte
	PrivateData       [PrivateTokenSize]byte
	TimeoutSeconds    int32 // as in PrivateToken
	ServerAddresses   []netip.AddrPort
	ClientToServerKey Key
	ServerToClientKey Key
}

// TokenParams describes a connect token to mint. The zero value of each
// optional field picks the default shown.
type TokenParams struct {
	ProtocolID      uint64
	ClientID        uint64
	ServerAddresses []netip.AddrPort // required, 1 to MaxServers
	Now             time.Time        // creation time; required
	// Expiry is how long the token can be used to start connecting
	// (default 30 s): whole seconds, at least 1 s, as tokens carry
	// seconds. A Server refuses tokens that expire more than its
	// MaxTokenLife (default 1 h) ahead.
	Expiry time.Duration
	// Timeout is the connection timeout written into the token (default
	// 10 s): whole seconds. Negative disables timeouts, which the standard
	// allows for development; a Tether Server refuses such tokens, and
	// those above its MaxTimeout (default 60 s).
	Timeout  time.Duration
	UserData [UserDataSize]byte
}

// Default token parameters, and the defaults of ServerConfig's caps on them.
const (
	DefaultTokenExpiry  = 30 * time.Second
	DefaultTokenTimeout = 10 * time.Second
	DefaultMaxTokenLife = time.Hour
	DefaultMaxTimeout   = time.Minute
)

// NewConnectToken mints a connect token, as a matchmaking backend does: it
// draws fresh client-to-server and server-to-client keys and a nonce from
// rand and seals the private part under key.
func NewConnectToken(rand io.Reader, key *Key, p TokenParams) (*ConnectToken, error) {
	if n := len(p.ServerAddresses); n < 1 || n > MaxServers {
		return nil, &ConfigError{Field: "ServerAddresses", Value: n, Allowed: "1 to 32 addresses"}
	}
	addrs := make([]netip.AddrPort, len(p.ServerAddresses))
	for i, a := range p.ServerAddresses {
		if !validServerAddress(a) {
			return nil, &ConfigError{Field: "ServerAddresses", Value: a, Allowed: "valid IPv4 or IPv6 address and port"}
		}
		addrs[i] = normalizeAddr(a)
	}
	if p.Now.IsZero() {
		return nil, &ConfigError{Field: "Now", Value: p.Now, Allowed: "non-zero time"}
	}
	expiry := p.Expiry
	if expiry == 0 {
		expiry = DefaultTokenExpiry
	}
	if expiry < time.Second || expiry%time.Second != 0 {
		return nil, &ConfigError{Field: "Expiry", Value: expiry, Allowed: "whole seconds, at least 1s"}
	}
	timeout := int32(-1)
	switch {
	case p.Timeout == 0:
		timeout = int32(DefaultTokenTimeout / time.Second)
	case p.Timeout%time.Second != 0:
		return nil, &ConfigError{Field: "Timeout", Value: p.Timeout, Allowed: "whole seconds"}
	case p.Timeout > 0:
		s := p.Timeout / time.Second
		if s > math.MaxInt32 {
			return nil, &ConfigError{Field: "Timeout", Value: p.Timeout, Allowed: "at most 2^31-1 seconds"}
		}
		timeout = int32(s)
	}
	created := p.Now.Unix()
	if created < 0 {
		return nil, &ConfigError{Field: "Now", Value: p.Now, Allowed: "after 1970"}
	}
	t := &ConnectToken{
		ProtocolID:      p.ProtocolID,
		CreateTimestamp: uint64(created),
		ExpireTimestamp: uint64(created) + uint64(expiry/time.Second),
		TimeoutSeconds:  timeout,
		ServerAddresses: addrs,
	}
	var err error
	if t.ClientToServerKey, err = GenerateKey(rand); err != nil {
		return nil, err
	}
	if t.ServerToClientKey, err = GenerateKey(rand); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(rand, t.Nonce[:]); err != nil {
		return nil, fmt.Errorf("tether/netcode: token nonce: %w", err)
	}
	priv := PrivateToken{
		ClientID:          p.ClientID,
		TimeoutSeconds:    timeout,
		ServerAddresses:   addrs,
		ClientToServerKey: t.ClientToServerKey,
		ServerToClientKey: t.ServerToClientKey,
		UserData:          p.UserData,
	}
	if _, err := SealPrivateToken(t.PrivateData[:0], &priv, key, t.ProtocolID, t.ExpireTimestamp, &t.Nonce); err != nil {
		return nil, err
	}
	return t, nil
}

// AppendBinary appends the 2048-byte encoding of t to b.
func (t *ConnectToken) AppendBinary(b []byte) ([]byte, error) {
	if n := len(t.ServerAddresses); n < 1 || n > MaxServers {
		return b, fmt.Errorf("%w: %d server addresses", ErrTokenInvalid, n)
	}
	start := len(b)
	b = append(b, VersionInfo[:]...)
	b = binary.LittleEndian.AppendUint64(b, t.ProtocolID)
	b = binary.LittleEndian.AppendUint64(b, t.CreateTimestamp)
	b = binary.LittleEndian.AppendUint64(b, t.ExpireTimestamp)
	b = append(b, t.Nonce[:]...)
	b = append(b, t.PrivateData[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(t.TimeoutSeconds))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t.ServerAddresses)))
	for _, a := range t.ServerAddresses {
		a = normalizeAddr(a)
		if !validServerAddress(a) {
			return b[:start], fmt.Errorf("%w: bad server address", ErrTokenInvalid)
		}
		b = appendAddress(b, a)
	}
	b = append(b, t.ClientToServerKey[:]...)
	b = append(b, t.ServerToClientKey[:]...)
	return appendZeros(b, start+ConnectTokenSize-len(b)), nil
}

// MarshalBinary returns the 2048-byte encoding of t.
func (t *ConnectToken) MarshalBinary() ([]byte, error) {
	return t.AppendBinary(make([]byte, 0, ConnectTokenSize))
}

// MarshalText returns t as standard base64 of its 2048 bytes: the form a
// token travels in as text (a terminal, a file, a matchmaker's JSON).
func (t *ConnectToken) MarshalText() ([]byte, error) {
	b, err := t.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.AppendEncode(nil, b), nil
}

// UnmarshalText decodes MarshalText's form into t, as UnmarshalBinary
// does; white space around it is ignored.
func (t *ConnectToken) UnmarshalText(text []byte) error {
	b, err := base64.StdEncoding.AppendDecode(nil, bytes.TrimSpace(text))
	if err != nil {
		return fmt.Errorf("%w: token is not base64: %v", ErrMalformed, err)
	}
	return t.UnmarshalBinary(b)
}

// UnmarshalBinary decodes a 2048-byte connect token into t, reusing the
// capacity of t.ServerAddresses. It checks the layout, version info, address
// count and types and that the create timestamp is not after the expire
// timestamp; it cannot check the sealed private part.
func (t *ConnectToken) UnmarshalBinary(b []byte) error {
	if len(b) != ConnectTokenSize {
		return fmt.Errorf("%w: token is %d bytes, want %d", ErrMalformed, len(b), ConnectTokenSize)
	}
	if [VersionInfoSize]byte(b[:VersionInfoSize]) != VersionInfo {
		return ErrVersion
	}
	p := b[VersionInfoSize:]
	var tmp ConnectToken
	tmp.ProtocolID = binary.LittleEndian.Uint64(p)
	tmp.CreateTimestamp = binary.LittleEndian.Uint64(p[8:])
	tmp.ExpireTimestamp = binary.LittleEndian.Uint64(p[16:])
	p = p[24:]
	copy(tmp.Nonce[:], p)
	p = p[ConnectTokenNonceSize:]
	copy(tmp.PrivateData[:], p)
	p = p[PrivateTokenSize:]
	tmp.TimeoutSeconds = int32(binary.LittleEndian.Uint32(p))
	n := binary.LittleEndian.Uint32(p[4:])
	p = p[8:]
	if n < 1 || n > MaxServers {
		return fmt.Errorf("%w: %d server addresses", ErrTokenInvalid, n)
	}
	if tmp.CreateTimestamp > tmp.ExpireTimestamp {
		return fmt.Errorf("%w: created after it expires", ErrTokenInvalid)
	}
	addrs := t.ServerAddresses[:0]
	for i := uint32(0); i < n; i++ {
		a, sz, err := readAddress(p)
		if err != nil {
			return fmt.Errorf("%w: server address %d", ErrTokenInvalid, i)
		}
		addrs = append(addrs, a)
		p = p[sz:]
	}
	if len(p) < 2*KeySize {
		return ErrMalformed
	}
	copy(tmp.ClientToServerKey[:], p)
	copy(tmp.ServerToClientKey[:], p[KeySize:])
	tmp.ServerAddresses = addrs
	*t = tmp
	return nil
}

// privatePlainSize is the plaintext size of the private token.
const privatePlainSize = PrivateTokenSize - MACSize

// appendPrivatePlain appends the 1008-byte plaintext private token.
func (p *PrivateToken) appendPlain(b []byte) ([]byte, error) {
	if n := len(p.ServerAddresses); n < 1 || n > MaxServers {
		return b, fmt.Errorf("%w: %d server addresses", ErrTokenInvalid, n)
	}
	start := len(b)
	b = binary.LittleEndian.AppendUint64(b, p.ClientID)
	b = binary.LittleEndian.AppendUint32(b, uint32(p.TimeoutSeconds))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p.ServerAddresses)))
	for _, a := range p.ServerAddresses {
		a = normalizeAddr(a)
		if !validServerAddress(a) {
			return b[:start], fmt.Errorf("%w: bad server address", ErrTokenInvalid)
		}
		b = appendAddress(b, a)
	}
	b = append(b, p.ClientToServerKey[:]...)
	b = append(b, p.ServerToClientKey[:]...)
	b = append(b, p.UserData[:]...)
	return appendZeros(b, start+privatePlainSize-len(b)), nil
}

// decodePlain decodes a plaintext private token, reusing the capacity of
// p.ServerAddresses (allocation-free when it has room for 32 addresses).
func (p *PrivateToken) decodePlain(b []byte) error {
	if len(b) < privatePlainSize {
		return ErrMalformed
	}
	p.ClientID = binary.LittleEndian.Uint64(b)
	p.TimeoutSeconds = int32(binary.LittleEndian.Uint32(b[8:]))
	n := binary.LittleEndian.Uint32(b[12:])
	if n < 1 || n > MaxServers {
		return ErrTokenInvalid
	}
	b = b[16:]
	addrs := p.ServerAddresses[:0]
	for i := uint32(0); i < n; i++ {
		a, sz, err := readAddress(b)
		if err != nil {
			return ErrTokenInvalid
		}
		addrs = append(addrs, a)
		b = b[sz:]
	}
	p.ServerAddresses = addrs
	copy(p.ClientToServerKey[:], b)
	copy(p.ServerToClientKey[:], b[KeySize:])
	copy(p.UserData[:], b[2*KeySize:])
	return nil
}

// appendTokenAD appends the associated data of the private token:
// version info, protocol id and expire timestamp.
func appendTokenAD(b []byte, protocolID, expire uint64) []byte {
	b = append(b, VersionInfo[:]...)
	b = binary.LittleEndian.AppendUint64(b, protocolID)
	return binary.LittleEndian.AppendUint64(b, expire)
}

const tokenADSize = VersionInfoSize + 8 + 8

// SealPrivateToken encrypts p with XChaCha20-Poly1305 under key and appends
// the 1024-byte sealed private token to dst.
func SealPrivateToken(dst []byte, p *PrivateToken, key *Key, protocolID, expireTimestamp uint64, nonce *[ConnectTokenNonceSize]byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		return dst, err
	}
	plain, err := p.appendPlain(make([]byte, 0, privatePlainSize))
	if err != nil {
		return dst, err
	}
	ad := appendTokenAD(make([]byte, 0, tokenADSize), protocolID, expireTimestamp)
	return aead.Seal(dst, nonce[:], plain, ad), nil
}

// OpenPrivateToken authenticates and decrypts a 1024-byte sealed private
// token into p. It returns ErrAuth if the tag does not verify and
// ErrTokenInvalid if the contents are out of range.
func OpenPrivateToken(p *PrivateToken, sealed []byte, key *Key, protocolID, expireTimestamp uint64, nonce *[ConnectTokenNonceSize]byte) error {
	aead, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		return err
	}
	return openPrivate(p, sealed, aead, protocolID, expireTimestamp, nonce[:], new(scratch))
}

// openPrivate decrypts sealed using sc and decodes the result into p.
func openPrivate(p *PrivateToken, sealed []byte, aead cipher.AEAD, protocolID, expire uint64, nonce []byte, sc *scratch) error {
	if len(sealed) != PrivateTokenSize {
		return ErrMalformed
	}
	copy(sc.nonce[:], nonce)
	ad := appendTokenAD(sc.ad[:0], protocolID, expire)
	plain, err := aead.Open(sc.plain[:0], sc.nonce[:len(nonce)], sealed, ad)
	if err != nil {
		return ErrAuth
	}
	return p.decodePlain(plain)
}

func appendZeros(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, 0)
	}
	return b
}
