package mint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

var (
	testKey    = netcode.Key{1, 2, 3, 4, 5, 6, 7, 8}
	testSecret = []byte("0123456789abcdef-backend")
)

const testProtocol = 0x7465746865720001

// clock is a wall clock the test moves.
type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// rig serves a Handler over real HTTP on loopback, with its audit log in a
// buffer.
type rig struct {
	h     *Handler
	srv   *httptest.Server
	clock *clock
	mu    sync.Mutex
	log   bytes.Buffer
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	r := &rig{clock: &clock{}}
	r.clock.ns.Store(time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC).UnixNano())
	cfg.Key, cfg.ProtocolID, cfg.Secret, cfg.Now = testKey, testProtocol, testSecret, r.clock.now
	cfg.Log = slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.log.Write(p)
	}), nil))
	var err error
	if r.h, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	r.srv = httptest.NewServer(r.h)
	t.Cleanup(r.srv.Close)
	return r
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// post asks for a token with the bearer secret (none if empty).
func (r *rig) post(t *testing.T, secret, body string) (int, []byte, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/v1/token", strings.NewReader(body))
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

func (r *rig) records(msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Count(r.log.String(), `"msg":"`+msg+`"`)
}

// TestMintLoad: 1,000 requests with the right secret, at 100 a second
// (within the default 200), each get a token that opens with the key and
// names the client, the servers and the user data asked for; each is in
// the audit log.
func TestMintLoad(t *testing.T) {
	r := newRig(t, Config{})
	for i := range 1000 {
		body := fmt.Sprintf(`{"client_id": %d, "servers": ["203.0.113.7:7311", "[2001:db8::1]:7000"], "user_data": "cGxheWVyLTQy"}`, i+1)
		code, b, _ := r.post(t, string(testSecret), body)
		if code != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, code, b)
		}
		var a answer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		var tok netcode.ConnectToken
		if err := tok.UnmarshalBinary(a.Token); err != nil {
			t.Fatal(err)
		}
		var p netcode.PrivateToken
		if err := netcode.OpenPrivateToken(&p, tok.PrivateData[:], &testKey, testProtocol, tok.ExpireTimestamp, &tok.Nonce); err != nil {
			t.Fatalf("request %d: the token does not open with the key: %v", i, err)
		}
		if p.ClientID != uint64(i+1) || a.ClientID != p.ClientID || len(p.ServerAddresses) != 2 || p.ServerAddresses[0].String() != "203.0.113.7:7311" ||
			string(p.UserData[:9]) != "player-42" || !a.ExpiresAt.Equal(r.clock.now().Add(netcode.DefaultTokenExpiry).Truncate(time.Second)) {
			t.Fatalf("request %d: client %d (answer %d), servers %v, user data %q, expires %v", i, p.ClientID, a.ClientID, p.ServerAddresses, p.UserData[:9], a.ExpiresAt)
		}
		r.clock.advance(10 * time.Millisecond)
	}
	if st := r.h.Stats(); st != (Stats{Minted: 1000}) {
		t.Errorf("stats %+v, want 1000 minted", st)
	}
	if n := r.records("token minted"); n != 1000 {
		t.Errorf("%d audit records, want 1000", n)
	}
	t.Logf("1000 requests with the right secret: %+v", r.h.Stats())
}

// TestMintRefused: without the secret, with another (even one sharing its
// prefix), or with another scheme, 401 and nothing minted; refusals are
// logged at most once a second, with the count held back.
func TestMintRefused(t *testing.T) {
	r := newRig(t, Config{})
	body := `{"client_id": 1, "servers": ["203.0.113.7:7311"]}`
	for i, secret := range []string{"", "wrong-secret-wrong-secret", string(testSecret[:16]), string(testSecret) + "x"} {
		for range 50 {
			code, b, h := r.post(t, secret, body)
			if code != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" || bytes.Contains(b, []byte("token\"")) {
				t.Fatalf("secret %d: %d %s", i, code, b)
			}
		}
		r.clock.advance(time.Second)
	}
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/v1/token", strings.NewReader(body))
	req.SetBasicAuth("backend", string(testSecret))
	if resp, err := r.srv.Client().Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("basic auth: %v %v", resp, err)
	}
	if st := r.h.Stats(); st.Minted != 0 || st.Unauthorized != 201 {
		t.Errorf("stats %+v, want 201 unauthorized, none minted", st)
	}
	if n := r.records("token request refused"); n != 5 {
		t.Errorf("%d refusal records for 5 seconds of refusals, want 5", n)
	}
	if !strings.Contains(r.log.String(), `"refused_before_unlogged":49`) {
		t.Errorf("the records do not count the refusals held back:\n%s", r.log.String())
	}
}

// TestMintRateLimit: a flood of authenticated requests in one instant gets
// Burst tokens and 429 for the rest; a second later Rate more are minted.
func TestMintRateLimit(t *testing.T) {
	r := newRig(t, Config{Rate: 50, Burst: 100})
	body := `{"client_id": 7, "servers": ["203.0.113.7:7311"]}`
	counts := map[int]int{}
	for range 300 {
		code, _, h := r.post(t, string(testSecret), body)
		counts[code]++
		if code == http.StatusTooManyRequests && h.Get("Retry-After") != "1" {
			t.Fatal("429 without Retry-After")
		}
	}
	if counts[200] != 100 || counts[429] != 200 {
		t.Fatalf("a flood of 300: %v, want 100 minted, 200 refused", counts)
	}
	r.clock.advance(time.Second)
	clear(counts)
	for range 100 {
		code, _, _ := r.post(t, string(testSecret), body)
		counts[code]++
	}
	if counts[200] != 50 || counts[429] != 50 {
		t.Fatalf("a second later: %v, want 50 minted, 50 refused", counts)
	}
	if st := r.h.Stats(); st.Minted != 150 || st.Limited != 250 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("flood: %+v", r.h.Stats())
}

// TestMintBadRequests: a body that is not a token request gets 400 naming
// what is wrong, and mints nothing (it takes its share of the rate, as the
// body is read after the limiter: refilled here between requests).
func TestMintBadRequests(t *testing.T) {
	r := newRig(t, Config{Rate: 1, Burst: 1})
	for _, tc := range []struct{ body, want string }{
		{`{"servers": ["203.0.113.7:7311"]}`, "client_id is required"},
		{`{"client_id": 1}`, "servers: 0 addresses"},
		{`{"client_id": 1, "servers": ["node-1.example:7311"]}`, "want IP:PORT"},
		{`{"client_id": 1, "servers": ["0.0.0.0:7311"]}`, "want IP:PORT"},
		{`{"client_id": 1, "servers": ["203.0.113.7:7311"], "user_data": "` + strings.Repeat("QUFB", 86) + `"}`, "user_data: 258 bytes"},
		{`{"client_id": 1, "servers": ["203.0.113.7:7311"], "room": 3}`, "unknown field"},
		{`not json`, "want a JSON object"},
		{`{"client_id": 1, "servers": ["203.0.113.7:7311"], "user_data": "` + strings.Repeat("A", 9000) + `"}`, "at most 8192 bytes"},
	} {
		code, b, _ := r.post(t, string(testSecret), tc.body)
		if code != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("%.60s: %d %s, want 400 %q", tc.body, code, b, tc.want)
		}
		r.h.mu.Lock()
		r.h.tokens = 1 // a bad request takes a token like any: refill for the next
		r.h.mu.Unlock()
	}
	resp, err := r.srv.Client().Get(r.srv.URL + "/v1/token")
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v", resp, err)
	}
	if st := r.h.Stats(); st.Minted != 0 || st.BadRequests != 9 {
		t.Errorf("stats %+v", st)
	}
}

func TestNewConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Key: testKey, ProtocolID: 1, Secret: []byte("short")},
		{ProtocolID: 1, Secret: testSecret},
		{Key: testKey, Secret: testSecret},
		{Key: testKey, ProtocolID: 1, Secret: testSecret, Expiry: 1500 * time.Millisecond},
		{Key: testKey, ProtocolID: 1, Secret: testSecret, Timeout: 2 * time.Minute},
		{Key: testKey, ProtocolID: 1, Secret: testSecret, Rate: -1},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}
