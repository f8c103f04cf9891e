package netcode

import (
	"crypto/cipher"
	"encoding/binary"

	"golang.org/x/crypto/chacha20poly1305"
)

// ChallengeToken is what the server sends a would-be client to prove that it
// can receive packets at its source address. It is sealed with
// ChaCha20-Poly1305 (IETF) under a key drawn when the server is created, with
// the challenge sequence number as nonce and no associated data.
type ChallengeToken struct {
	ClientID uint64
	UserData [UserDataSize]byte
}

const challengePlainSize = ChallengeTokenSize - MACSize

// appendNonce appends the 96-bit nonce of a 64-bit sequence number: four
// zero bytes, then the sequence little endian (the IMPLEMENTERS.md erratum).
func appendNonce(b []byte, seq uint64) []byte {
	b = append(b, 0, 0, 0, 0)
	return binary.LittleEndian.AppendUint64(b, seq)
}

// SealChallengeToken appends the 300-byte sealed challenge token to dst.
func SealChallengeToken(dst []byte, t *ChallengeToken, key *Key, sequence uint64) []byte {
	aead, _ := chacha20poly1305.New(key[:])
	return sealChallenge(dst, t, aead, sequence, new(scratch))
}

func sealChallenge(dst []byte, t *ChallengeToken, aead cipher.AEAD, seq uint64, sc *scratch) []byte {
	plain := sc.plain[:challengePlainSize]
	clear(plain)
	binary.LittleEndian.PutUint64(plain, t.ClientID)
	copy(plain[8:], t.UserData[:])
	nonce := appendNonce(sc.nonce[:0], seq)
	return aead.Seal(dst, nonce, plain, nil)
}

// OpenChallengeToken authenticates and decrypts a 300-byte sealed challenge
// token into t.
func OpenChallengeToken(t *ChallengeToken, sealed []byte, key *Key, sequence uint64) error {
	aead, _ := chacha20poly1305.New(key[:])
	return openChallenge(t, sealed, aead, sequence, new(scratch))
}

func openChallenge(t *ChallengeToken, sealed []byte, aead cipher.AEAD, seq uint64, sc *scratch) error {
	if len(sealed) != ChallengeTokenSize {
		return ErrMalformed
	}
	nonce := appendNonce(sc.nonce[:0], seq)
	plain, err := aead.Open(sc.plain[:0], nonce, sealed, nil)
	if err != nil {
		return ErrAuth
	}
	t.ClientID = binary.LittleEndian.Uint64(plain)
	copy(t.UserData[:], plain[8:])
	return nil
}
