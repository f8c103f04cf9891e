//go:build !js

package wt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"

	"github.com/quic-go/webtransport-go"

	"github.com/tether-net/tether/transport/ws"
)

// ErrCertificateHash is returned by Dial when the server's certificate does
// not have the hash asked for.
var ErrCertificateHash = errors.New("tether/transport/wt: certificate hash mismatch")

// Dial opens a WebTransport session to url (https://host:port/path) and
// returns it as a net.PacketConn, ready for tether/transport/udp.Dial.
// With a certificateHash (SHA-256 of the DER certificate, as a page's
// serverCertificateHashes) the server's certificate is accepted by that
// hash alone; without one it is verified by name against the system's
// roots. ctx bounds the opening only.
func Dial(ctx context.Context, url string, certificateHash []byte) (*ws.Conn, error) {
	tc := &tls.Config{}
	if certificateHash != nil {
		tc = HashPinned(certificateHash)
	}
	d := &webtransport.Transport{TLSClientConfig: tc}
	_, sess, err := d.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	return ws.NewConn(session{s: sess}), nil
}

// HashPinned returns a client TLS configuration that accepts a server's
// certificate by the SHA-256 hash of its DER encoding alone, as a browser
// does with serverCertificateHashes (which also wants it valid now, for at
// most 14 days, and ECDSA: the Server's self-signed certificates are).
func HashPinned(certificateHash []byte) *tls.Config {
	return &tls.Config{
		InsecureSkipVerify: true, // checked by hash below
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return ErrCertificateHash
			}
			if h := sha256.Sum256(raw[0]); !bytes.Equal(h[:], certificateHash) {
				return ErrCertificateHash
			}
			return nil
		},
	}
}
