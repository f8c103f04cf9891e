package mint

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/tether-net/tether/netcode"
)

// Config configures a Handler. Zero fields take the defaults shown; Key,
// ProtocolID and Secret are required.
type Config struct {
	Key        netcode.Key
	ProtocolID uint64
	// Secret is the bearer secret callers send; at least MinSecret bytes.
	Secret []byte
	// Rate is how many tokens a second the handler mints, on average
	// (default 200); Burst how many at once (default 2 × Rate).
	Rate  float64
	Burst int
	// Expiry is how long a token may be used to start connecting (default
	// 30 s: the client connects right after the matchmaker answers);
	// Timeout the connection timeout written into it (default 10 s).
	// Whole seconds, as tokens carry them.
	Expiry, Timeout time.Duration
	// Log gets the audit records (default slog.Default()).
	Log *slog.Logger
	// Now reads the wall clock (default time.Now).
	Now func() time.Time
}

// MinSecret is the shortest bearer secret a Handler takes, in bytes.
const MinSecret = 16

// maxBody bounds a request's body: a client id, 32 addresses and 256
// bytes of user data fit in well under it.
const maxBody = 8 << 10

// ErrConfig is returned by New for a Config it cannot run with.
var ErrConfig = errors.New("tether/ops/mint: bad config")

// Stats counts a Handler's answers.
type Stats struct {
	Minted       uint64 // 200: tokens minted
	Unauthorized uint64 // 401: no secret, or another
	Limited      uint64 // 429: beyond the rate limit
	BadRequests  uint64 // 400, 405: not a token request
}

// Handler mints connect tokens for authenticated callers (see the package
// documentation). It is safe for concurrent use.
type Handler struct {
	cfg    Config
	secret [sha256.Size]byte

	mu     sync.Mutex
	tokens float64   // the bucket's tokens
	filled time.Time // when tokens was last topped up
	stats  Stats
	quiet  map[string]*quietLog // refusal records, by kind
}

// quietLog holds back refusal records to one a second.
type quietLog struct {
	last   time.Time
	missed int // refusals since the last record
}

// New returns a Handler.
func New(cfg Config) (*Handler, error) {
	if cfg.ProtocolID == 0 || cfg.Key == (netcode.Key{}) {
		return nil, fmt.Errorf("%w: Key and ProtocolID are required", ErrConfig)
	}
	if len(cfg.Secret) < MinSecret {
		return nil, fmt.Errorf("%w: Secret of %d bytes, want at least %d", ErrConfig, len(cfg.Secret), MinSecret)
	}
	if cfg.Rate == 0 {
		cfg.Rate = 200
	}
	if cfg.Burst == 0 {
		cfg.Burst = int(2 * cfg.Rate)
	}
	if cfg.Rate < 0 || cfg.Burst < 1 {
		return nil, fmt.Errorf("%w: Rate %v, Burst %d: want more than 0", ErrConfig, cfg.Rate, cfg.Burst)
	}
	if cfg.Expiry == 0 {
		cfg.Expiry = netcode.DefaultTokenExpiry
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = netcode.DefaultTokenTimeout
	}
	for _, d := range []struct {
		name     string
		v, limit time.Duration
	}{{"Expiry", cfg.Expiry, netcode.DefaultMaxTokenLife}, {"Timeout", cfg.Timeout, netcode.DefaultMaxTimeout}} {
		if d.v < time.Second || d.v > d.limit || d.v%time.Second != 0 {
			return nil, fmt.Errorf("%w: %s %v: want whole seconds, 1s to %v", ErrConfig, d.name, d.v, d.limit)
		}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Handler{cfg: cfg, secret: sha256.Sum256(cfg.Secret), tokens: float64(cfg.Burst), quiet: map[string]*quietLog{}}
	h.filled = cfg.Now()
	return h, nil
}

// Stats returns the counts of the answers so far.
func (h *Handler) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stats
}

// request is the body of POST /v1/token.
type request struct {
	ClientID *uint64  `json:"client_id"`
	Servers  []string `json:"servers"`
	UserData []byte   `json:"user_data"` // base64
}

// answer is the body of a 200.
type answer struct {
	Token     []byte    `json:"token"` // base64
	ClientID  uint64    `json:"client_id"`
	ExpiresAt time.Time `json:"expires_at"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/token" {
		h.refuse(w, r, http.StatusNotFound, "no such endpoint: POST /v1/token")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.refuse(w, r, http.StatusMethodNotAllowed, "POST /v1/token")
		return
	}
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if sum := sha256.Sum256([]byte(bearer)); !ok || subtle.ConstantTimeCompare(sum[:], h.secret[:]) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="tether"`)
		h.refuse(w, r, http.StatusUnauthorized, "a bearer secret is required")
		return
	}
	if !h.take() {
		w.Header().Set("Retry-After", "1")
		h.refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf("more than %v tokens a second", h.cfg.Rate))
		return
	}
	p, userData, err := h.params(r)
	if err != nil {
		h.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	tok, err := netcode.NewConnectToken(rand.Reader, &h.cfg.Key, p)
	var b []byte
	if err == nil {
		b, err = tok.MarshalBinary()
	}
	if err != nil {
		http.Error(w, "tether/ops/mint: "+err.Error(), http.StatusInternalServerError)
		h.cfg.Log.Error("token not minted", "client_id", p.ClientID, "err", err.Error())
		return
	}
	expires := time.Unix(int64(tok.ExpireTimestamp), 0).UTC()
	h.mu.Lock()
	h.stats.Minted++
	h.mu.Unlock()
	servers := make([]string, len(p.ServerAddresses))
	for i, a := range p.ServerAddresses {
		servers[i] = a.String()
	}
	h.cfg.Log.Info("token minted", "client_id", p.ClientID, "servers", strings.Join(servers, ","), "user_data_bytes", userData,
		"from", r.RemoteAddr, "expires_at", expires.Format(time.RFC3339))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(answer{Token: b, ClientID: p.ClientID, ExpiresAt: expires})
}

// params reads and checks a request's body; userData is the length of
// the user data it gave.
func (h *Handler) params(r *http.Request) (p netcode.TokenParams, userData int, err error) {
	var req request
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return p, 0, fmt.Errorf("want a JSON object {client_id, servers, user_data} of at most %d bytes: %v", maxBody, err)
	}
	if req.ClientID == nil {
		return p, 0, errors.New("client_id is required")
	}
	if len(req.Servers) == 0 || len(req.Servers) > netcode.MaxServers {
		return p, 0, fmt.Errorf("servers: %d addresses, want 1 to %d", len(req.Servers), netcode.MaxServers)
	}
	for _, s := range req.Servers {
		a, err := netip.ParseAddrPort(s)
		if err != nil || a.Port() == 0 || a.Addr().IsUnspecified() {
			return p, 0, fmt.Errorf("servers: %q: want IP:PORT, as the GameServer's status.address and port", s)
		}
		p.ServerAddresses = append(p.ServerAddresses, a)
	}
	if len(req.UserData) > netcode.UserDataSize {
		return p, 0, fmt.Errorf("user_data: %d bytes, at most %d", len(req.UserData), netcode.UserDataSize)
	}
	copy(p.UserData[:], req.UserData)
	p.ProtocolID, p.ClientID, p.Now, p.Expiry, p.Timeout = h.cfg.ProtocolID, *req.ClientID, h.cfg.Now(), h.cfg.Expiry, h.cfg.Timeout
	return p, len(req.UserData), nil
}

// take takes a token from the rate limiter's bucket, reporting whether
// there was one.
func (h *Handler) take() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.cfg.Now()
	if d := now.Sub(h.filled); d > 0 {
		h.tokens = min(float64(h.cfg.Burst), h.tokens+d.Seconds()*h.cfg.Rate)
		h.filled = now
	}
	if h.tokens < 1 {
		return false
	}
	h.tokens--
	return true
}

// refuse answers a request it will not mint for, counts it and logs it,
// at most once a second for each status.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	http.Error(w, "tether/ops/mint: "+why, status)
	now := h.cfg.Now()
	h.mu.Lock()
	switch status {
	case http.StatusUnauthorized:
		h.stats.Unauthorized++
	case http.StatusTooManyRequests:
		h.stats.Limited++
	default:
		h.stats.BadRequests++
	}
	kind := http.StatusText(status)
	q := h.quiet[kind]
	if q == nil {
		q = &quietLog{}
		h.quiet[kind] = q
	}
	if now.Sub(q.last) < time.Second {
		q.missed++
		h.mu.Unlock()
		return
	}
	missed := q.missed
	q.last, q.missed = now, 0
	h.mu.Unlock()
	h.cfg.Log.Warn("token request refused", "status", status, "why", why, "from", r.RemoteAddr, "refused_before_unlogged", missed)
}
