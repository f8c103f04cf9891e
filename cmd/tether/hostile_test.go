package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

// runOK runs a command in-process and fails the test unless it succeeds.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}

// runFails runs a command in-process, expects it to fail, and returns
// what it printed on stderr.
func runFails(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code == 0 {
		t.Fatalf("%v succeeded: %s", args, stdout.String())
	}
	return stderr.String()
}

// An endless file given as a key, token or scenario is an error naming the
// file and the limit, not an out-of-memory death.
func TestBoundedReads(t *testing.T) {
	const endless = "/dev/zero"
	if _, err := os.Stat(endless); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, args := range [][]string{
		{"serve", "-key", endless, "-allow-readable-key"},
		{"token", "-key", endless, "-allow-readable-key", "-protocol-id", "1", "-server", "127.0.0.1:1"},
		{"bot", "-token", endless},
		{"lab", "-scenario-file", endless},
	} {
		msg := runFails(t, args...)
		if !strings.Contains(msg, endless+": larger than") {
			t.Errorf("%v: %q, want the file and its limit named", args, msg)
		}
	}
}

// Keys and tokens are written 0600 whatever was there; a key others can
// read is refused unless -allow-readable-key.
func TestPrivateFiles(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k")
	os.WriteFile(key, []byte("old\n"), 0o644)
	runOK(t, "keygen", "-o", key, "-force")
	if info, _ := os.Stat(key); info.Mode().Perm() != 0o600 {
		t.Fatalf("keygen -force over a 0644 file left mode %#o", info.Mode().Perm())
	}
	tok := filepath.Join(dir, "t")
	os.WriteFile(tok, nil, 0o644)
	runOK(t, "token", "-key", key, "-protocol-id", "1", "-server", "127.0.0.1:1", "-o", tok)
	if info, _ := os.Stat(tok); info.Mode().Perm() != 0o600 {
		t.Fatalf("token -o over a 0644 file left mode %#o", info.Mode().Perm())
	}
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"token", "-key", key, "-protocol-id", "1", "-server", "127.0.0.1:1"},
		{"serve", "-key", key, "-addr", "127.0.0.1:0"},
	} {
		if msg := runFails(t, args...); !strings.Contains(msg, "readable by other users (mode 0644)") || !strings.Contains(msg, "-allow-readable-key") {
			t.Errorf("%v with a 0644 key: %q", args, msg)
		}
	}
	runOK(t, "token", "-key", key, "-allow-readable-key", "-protocol-id", "1", "-server", "127.0.0.1:1")
}

// tether token: 5 minutes by default; durations a token cannot carry, or
// that tether serve refuses, are errors.
func TestTokenDurations(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k")
	runOK(t, "keygen", "-o", key)
	out := runOK(t, "token", "-key", key, "-protocol-id", "1", "-server", "127.0.0.1:1")
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out))
	if err != nil {
		t.Fatal(err)
	}
	var tok netcode.ConnectToken
	if err := tok.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if life := tok.ExpireTimestamp - tok.CreateTimestamp; life != 300 {
		t.Fatalf("default expiry %d s, want 300", life)
	}
	for _, c := range []struct{ flag, value, want string }{
		{"-expiry", "1.5s", "tokens carry whole seconds; give 1s or 2s"},
		{"-timeout", "2500ms", "tokens carry whole seconds; give 2s or 3s"},
		{"-expiry", "2h", "want 1s to 1h0m0s"},
		{"-timeout", "-1s", "want 1s to 1m0s"},
		{"-timeout", "0s", "want 1s to 1m0s"},
	} {
		msg := runFails(t, "token", "-key", key, "-protocol-id", "1", "-server", "127.0.0.1:1", c.flag, c.value)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s %s: %q, want %q", c.flag, c.value, msg, c.want)
		}
	}
}

// A client refuses what it can check itself at once; the server says why
// it refused the rest (one line per address per second), and remembers
// used tokens across a restart.
func TestConnectFailuresSayWhy(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "tether.key")
	other := filepath.Join(dir, "other.key")
	runOK(t, "keygen", "-o", key)
	runOK(t, "keygen", "-o", other)
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-max-clients", "2")
	addr := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(127\.0\.0\.1:\d+) `), 10*time.Second)[1]
	minted := 0
	mint := func(k string, args ...string) string {
		minted++
		f := filepath.Join(dir, fmt.Sprintf("token%d", minted))
		runOK(t, append([]string{"token", "-key", k, "-client-id", "1", "-server", addr, "-timeout", "2s", "-o", f}, args...)...)
		return f
	}
	pid := []string{"-protocol-id", "0x7465746865720001"}

	// Checked by the client: at once, before sending.
	if msg := runFails(t, "bot", "-token", mint(key, "-protocol-id", "0x7e7e")); !strings.Contains(msg, "the token is for 0x7e7e, this client speaks 0x7465746865720001") {
		t.Errorf("wrong protocol id: %q", msg)
	}
	k, _ := readKeyFile(key, false)
	expired, _ := netcode.NewConnectToken(rand.Reader, &k, netcode.TokenParams{ProtocolID: 0x7465746865720001, ServerAddresses: []netip.AddrPort{netip.MustParseAddrPort(addr)}, Now: time.Now().Add(-time.Hour), Timeout: 2 * time.Second})
	raw, _ := expired.MarshalBinary()
	expiredFile := filepath.Join(dir, "expired")
	os.WriteFile(expiredFile, raw, 0o600)
	if msg := runFails(t, "bot", "-token", expiredFile); !strings.Contains(msg, "token expired") || !strings.Contains(msg, "mint a new one") {
		t.Errorf("expired token: %q", msg)
	}

	// Checked by the server: the bot times out listing the causes, the
	// server logs the reason.
	msg := runFails(t, "bot", "-token", mint(other, pid...))
	if !strings.Contains(msg, "another key than the server's") {
		t.Errorf("wrong key, bot: %q", msg)
	}
	waitLine(t, out, regexp.MustCompile(`refused a connection request" from=127\.0\.0\.1:\d+ reason="failed decryption: the token was minted with another key`), 5*time.Second)

	used := mint(key, pid...)
	runOK(t, "bot", "-token", used, "-duration", "500ms")
	if msg := runFails(t, "bot", "-token", used); !strings.Contains(msg, "already used") {
		t.Errorf("used token, bot: %q", msg)
	}
	waitLine(t, out, regexp.MustCompile(`refused a connection request.*reason="token already used`), 5*time.Second)
	stopProcess(t, srv, srvErr, 10*time.Second)
	for range out {
	}

	// A restarted server still refuses the used token.
	srv, out, srvErr = startProcess(t, "serve", "-key", key, "-addr", addr, "-max-clients", "2")
	waitLine(t, out, regexp.MustCompile(`msg=listening udp=`), 10*time.Second)
	runFails(t, "bot", "-token", used)
	waitLine(t, out, regexp.MustCompile(`refused a connection request.*reason="token already used`), 5*time.Second)
	stopProcess(t, srv, srvErr, 10*time.Second)
}

func TestDemoWebExposure(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:8080", false}, {"[::1]:8080", false}, {"0.0.0.0:8080", true}, {"192.0.2.1:8080", true}} {
		ap := netip.MustParseAddrPort(c.addr)
		if got := exposedWarning(net.TCPAddrFromAddrPort(ap)); (got != "") != c.warn {
			t.Errorf("%s: warning %q", c.addr, got)
		}
	}
	if h := webConfig("pitch.example:8080").Hosts; len(h) != 1 || h[0] != "pitch.example" {
		t.Errorf("hosts %v", h)
	}
	if h := webConfig(":8080").Hosts; len(h) != 0 {
		t.Errorf("hosts %v", h)
	}
}
