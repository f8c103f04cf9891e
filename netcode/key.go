package netcode

import (
	"encoding/hex"
	"fmt"
	"io"
)

// KeySize is the size of every symmetric key in the protocol, in bytes.
const KeySize = 32

// Key is a 256-bit symmetric key: the private key shared by the backend and
// the servers, or a per-connection client-to-server / server-to-client key.
//
// Key's String method never prints the key; use MarshalText (lower-case hex)
// to serialise it.
type Key [KeySize]byte

// GenerateKey reads a fresh key from rand (crypto/rand.Reader in production).
func GenerateKey(rand io.Reader) (Key, error) {
	var k Key
	if _, err := io.ReadFull(rand, k[:]); err != nil {
		return Key{}, fmt.Errorf("tether/netcode: generate key: %w", err)
	}
	return k, nil
}

// String returns a redacted placeholder so keys do not leak into logs.
func (k Key) String() string { return "netcode.Key(redacted)" }

// MarshalText encodes the key as 64 lower-case hex digits.
func (k Key) MarshalText() ([]byte, error) {
	out := make([]byte, hex.EncodedLen(KeySize))
	hex.Encode(out, k[:])
	return out, nil
}

// UnmarshalText decodes 64 hex digits (surrounding white space is not allowed).
func (k *Key) UnmarshalText(text []byte) error {
	if len(text) != hex.EncodedLen(KeySize) {
		return fmt.Errorf("tether/netcode: key must be %d hex digits, got %d characters", hex.EncodedLen(KeySize), len(text))
	}
	var tmp Key
	if _, err := hex.Decode(tmp[:], text); err != nil {
		return fmt.Errorf("tether/netcode: key: %w", err)
	}
	*k = tmp
	return nil
}
