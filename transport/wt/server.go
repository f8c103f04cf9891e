//go:build !js

package wt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"github.com/tether-net/tether/transport/ws"
)

// MaxValidity is the longest validity of a certificate a browser accepts
// by its hash (serverCertificateHashes): 14 days.
const MaxValidity = 14 * 24 * time.Hour

// Config configures a Server. Zero fields take the defaults shown.
type Config struct {
	// Path is the URL path sessions are opened on (default "/play/wt").
	Path string
	// Certificate is the server's certificate, for a server with a name
	// browsers trust (see the package doc). If nil, the Server makes a
	// self-signed ECDSA P-256 certificate of its own, valid for Validity,
	// and browsers accept it by its hash (CertificateHash).
	Certificate *tls.Certificate
	// Validity is how long a self-signed certificate is valid (default and
	// at most MaxValidity; at least 1 hour). The Server makes a new one
	// when half of it has passed: pages take the hash anew for each session.
	Validity time.Duration
	// Hosts are the names and IP addresses a self-signed certificate names
	// (default "localhost", 127.0.0.1 and ::1; browsers check only its
	// hash).
	Hosts []string
	// CheckOrigin says whether a session's request may be served. The
	// default takes requests without an Origin header and those whose
	// Origin's host name is the request's (the page is served over TCP,
	// perhaps on another port).
	CheckOrigin func(r *http.Request) bool
}

// ConfigError reports a Config field out of range.
type ConfigError struct {
	Field   string
	Value   any
	Allowed string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("tether/transport/wt: %s = %v, want %s", e.Field, e.Value, e.Allowed)
}

// Stats are a Server's counters; the sessions' datagrams are counted by
// the ws.Listener they are served on.
type Stats struct {
	Sessions uint64 // sessions opened and handed to the Listener
	Refused  uint64 // requests refused: not a WebTransport CONNECT, a foreign origin, no datagrams
	TooLarge uint64 // datagrams to a peer dropped as larger than its QUIC path takes
}

// Server serves WebTransport sessions over HTTP/3 on a UDP socket and hands
// each to a ws.Listener as a peer (ws.Listener.ServeDatagrams): one HTTP/3
// datagram is one datagram of the Listener. Its ServeHTTP tells a page
// where and how to connect.
type Server struct {
	cfg    Config
	conn   net.PacketConn
	h3     *http3.Server
	wt     *webtransport.Server
	into   *ws.Listener
	served chan error

	mu      sync.Mutex
	cert    *tls.Certificate
	renewAt time.Time // zero for a given certificate

	sessions, refused, tooLarge atomic.Uint64
}

// NewServer serves WebTransport sessions on conn (a UDP socket, which the
// Server owns from then on) into the Listener into; Close stops it.
func NewServer(conn net.PacketConn, into *ws.Listener, cfg Config) (*Server, error) {
	if cfg.Path == "" {
		cfg.Path = "/play/wt"
	}
	if cfg.Validity == 0 {
		cfg.Validity = MaxValidity
	}
	if cfg.Validity < time.Hour || cfg.Validity > MaxValidity {
		return nil, &ConfigError{Field: "Validity", Value: cfg.Validity, Allowed: "range 1h..336h"}
	}
	if len(cfg.Hosts) == 0 {
		cfg.Hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	if cfg.CheckOrigin == nil {
		cfg.CheckOrigin = sameHost
	}
	if _, ok := conn.(*net.UDPConn); !ok {
		return nil, &ConfigError{Field: "conn", Value: fmt.Sprintf("%T", conn), Allowed: "a *net.UDPConn"}
	}
	s := &Server{cfg: cfg, conn: conn, into: into, served: make(chan error, 1), cert: cfg.Certificate}
	if s.cert == nil {
		if err := s.renew(time.Now()); err != nil {
			return nil, err
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc(cfg.Path, s.session)
	s.h3 = &http3.Server{
		Handler:    mux,
		TLSConfig:  http3.ConfigureTLSConfig(&tls.Config{GetCertificate: s.certificate}),
		QUICConfig: &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
	}
	s.wt = &webtransport.Server{H3: s.h3, CheckOrigin: cfg.CheckOrigin}
	go func() { s.served <- s.wt.Serve(conn) }()
	return s, nil
}

// session upgrades a request to a session and serves it until it ends.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	sess, err := s.wt.Upgrade(w, r)
	if err != nil {
		s.refused.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.sessions.Add(1)
	s.into.ServeDatagrams(session{sess, &s.tooLarge})
}

// session is a WebTransport session as ws.Datagrams.
type session struct {
	s        *webtransport.Session
	tooLarge *atomic.Uint64 // if not nil, counts datagrams dropped as too large
}

func (s session) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	return s.s.ReceiveDatagram(ctx)
}

// SendDatagram drops, and counts, a datagram larger than the path takes:
// the session goes on, as after a lost datagram.
func (s session) SendDatagram(b []byte) error {
	err := s.s.SendDatagram(b)
	if _, ok := errors.AsType[*quic.DatagramTooLargeError](err); ok {
		if s.tooLarge != nil {
			s.tooLarge.Add(1)
		}
		return nil
	}
	return err
}

func (s session) Close(reason string) error { return s.s.CloseWithError(0, reason) }

// RemoteAddr is the browser's UDP address, by which the ws.Listener counts
// its sessions per address (ListenerConfig.MaxConnsPerAddr).
func (s session) RemoteAddr() net.Addr { return s.s.RemoteAddr() }

// sameHost takes a request with no Origin, or whose Origin has the
// request's host name.
func sameHost(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		host = h
	}
	return u.Hostname() != "" && u.Hostname() == host
}

// renew makes a new self-signed certificate valid from now.
func (s *Server) renew(now time.Time) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return err
	}
	start := now.Add(-time.Minute) // a little clock skew
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "tether"},
		NotBefore:    start,
		NotAfter:     start.Add(s.cfg.Validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range s.cfg.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return err
	}
	s.cert = &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
	s.renewAt = start.Add(s.cfg.Validity / 2)
	return nil
}

// current returns the certificate, renewing a self-signed one past half
// its validity.
func (s *Server) current() (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := time.Now(); !s.renewAt.IsZero() && now.After(s.renewAt) {
		if err := s.renew(now); err != nil {
			return nil, err
		}
	}
	return s.cert, nil
}

func (s *Server) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) { return s.current() }

// CertificateHash returns the SHA-256 hash of the certificate's DER
// encoding, for a page's serverCertificateHashes; nil with a given
// certificate (browsers check it by name).
func (s *Server) CertificateHash() []byte {
	c, err := s.current()
	if err != nil || s.cfg.Certificate != nil {
		return nil
	}
	h := sha256.Sum256(c.Certificate[0])
	return h[:]
}

// Info is what a page needs to open a session: the UDP port and path on
// its own host, and the certificate's hash when self-signed.
type Info struct {
	Port            int    `json:"port"`
	Path            string `json:"path"`
	CertificateHash []byte `json:"certificateHash,omitempty"` // SHA-256; base64 in JSON
}

// Info returns where and how to connect.
func (s *Server) Info() Info {
	return Info{Port: s.conn.LocalAddr().(*net.UDPAddr).Port, Path: s.cfg.Path, CertificateHash: s.CertificateHash()}
}

// ServeHTTP answers a GET with Info in JSON; mount it beside the page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(s.Info())
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	return Stats{Sessions: s.sessions.Load(), Refused: s.refused.Load(), TooLarge: s.tooLarge.Load()}
}

// Close stops serving and closes the socket and every session's QUIC
// connection; the sessions' peers leave the Listener.
func (s *Server) Close() error {
	err := s.wt.Close()
	s.conn.Close()
	<-s.served
	return err
}
