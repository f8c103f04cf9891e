package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

func TestKeygenWritesKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k")
	var out, errb bytes.Buffer
	if err := runKeygen([]string{"-o", path}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode())
	}
	k, err := readKeyFile(path, false)
	if err != nil || k == (netcode.Key{}) {
		t.Fatalf("key %v", err)
	}
	// Refuses to overwrite without -force.
	if err := runKeygen([]string{"-o", path}, &out, &errb); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("overwrite: %v", err)
	}
	if err := runKeygen([]string{"-o", path, "-force"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	k2, _ := readKeyFile(path, false)
	if k2 == k {
		t.Fatal("key not replaced")
	}
	out.Reset()
	if err := runKeygen([]string{"-o", "-"}, &out, &errb); err != nil || len(strings.TrimSpace(out.String())) != 64 {
		t.Fatalf("stdout key %q %v", out.String(), err)
	}
	if err := runKeygen([]string{"-h"}, &out, &errb); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("help: %v", err)
	}
}

func TestTokenMintsOpenableToken(t *testing.T) {
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "k")
	var out, errb bytes.Buffer
	if err := runKeygen([]string{"-o", keyPath}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	key, _ := readKeyFile(keyPath, false)
	out.Reset()
	args := []string{"-key", keyPath, "-client-id", "42", "-protocol-id", "0x1122", "-server", "127.0.0.1:40000,[::1]:40001", "-server", "127.0.0.2:5", "-expiry", "45s", "-timeout", "7s", "-user-data", "cafe"}
	if err := runToken(args, &out, &errb); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	var tok netcode.ConnectToken
	if err := tok.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	if tok.ProtocolID != 0x1122 || tok.TimeoutSeconds != 7 || tok.ExpireTimestamp-tok.CreateTimestamp != 45 || len(tok.ServerAddresses) != 3 || tok.ServerAddresses[1] != netip.MustParseAddrPort("[::1]:40001") {
		t.Fatalf("token %+v", tok)
	}
	var priv netcode.PrivateToken
	if err := netcode.OpenPrivateToken(&priv, tok.PrivateData[:], &key, tok.ProtocolID, tok.ExpireTimestamp, &tok.Nonce); err != nil {
		t.Fatal(err)
	}
	if priv.ClientID != 42 || priv.UserData[0] != 0xca || priv.UserData[1] != 0xfe || priv.ClientToServerKey != tok.ClientToServerKey {
		t.Fatalf("private %+v", priv.ClientID)
	}
	// Raw output to a file.
	file := filepath.Join(dir, "tok")
	out.Reset()
	if err := runToken(append(args, "-o", file), &out, &errb); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); len(b) != netcode.ConnectTokenSize {
		t.Fatalf("file holds %d bytes", len(b))
	}
}

func TestTokenFlagErrors(t *testing.T) {
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "k")
	var out, errb bytes.Buffer
	runKeygen([]string{"-o", keyPath}, &out, &errb)
	base := []string{"-key", keyPath, "-client-id", "1"}
	cases := map[string][]string{
		"-protocol-id is required": append(base, "-server", "127.0.0.1:1"),
		"want a 64-bit":            append(base, "-protocol-id", "x", "-server", "127.0.0.1:1"),
		"-server is required":      append(base, "-protocol-id", "1"),
		"IP:PORT":                  append(base, "-protocol-id", "1", "-server", "localhost:1"),
		"-user-data":               append(base, "-protocol-id", "1", "-server", "127.0.0.1:1", "-user-data", "zz"),
		"no such file":             {"-key", filepath.Join(dir, "missing"), "-protocol-id", "1", "-server", "127.0.0.1:1"},
		"1 to 32":                  append(base, "-protocol-id", "1", "-server", strings.Repeat("127.0.0.1:1,", 32)+"127.0.0.1:2"),
	}
	for want, args := range cases {
		errb.Reset()
		err := runToken(args, &out, &errb)
		if err == nil || !strings.Contains(err.Error()+errb.String(), want) {
			t.Errorf("%v: error %v (stderr %q), want %q", args, err, errb.String(), want)
		}
	}
}

// TestTokenServe runs tether token -serve as a process, as a matchmaker's
// token service: requests with the bearer secret get tokens a bot then
// connects to tether serve with; without it, or with another, 401 and
// nothing minted; a flood beyond -rate gets 429; the audit log says so.
func TestTokenServe(t *testing.T) {
	dir, key := newKey(t)
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("s3cret-for-the-backend-only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, srvOut, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-used-tokens", "none", "-drain-grace", "0s")
	addr := waitLine(t, srvOut, regexp.MustCompile(`msg=listening udp=(\S+)`), 10*time.Second)[1]
	svc, out, svcErr := startProcess(t, "token", "-serve", "127.0.0.1:0", "-secret-file", secret, "-key", key, "-protocol-id", "0x7465746865720001", "-rate", "20", "-expiry", "30s")
	url := waitLine(t, out, regexp.MustCompile(`msg="serving tokens" url=(\S+)`), 10*time.Second)[1]
	post := func(auth string, id int) (int, []byte) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(fmt.Sprintf(`{"client_id": %d, "servers": [%q]}`, id, addr)))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, b := post("Bearer s3cret-for-the-backend-only", 1)
	if code != http.StatusOK {
		t.Fatalf("with the secret: %d %s", code, b)
	}
	var a struct{ Token []byte }
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, a.Token, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if c := run([]string{"bot", "-token", tok, "-duration", "500ms"}, &stdout, &stderr); c != 0 {
		t.Fatalf("a bot with the service's token: exit %d: %s", c, stderr.String())
	}
	waitLine(t, srvOut, regexp.MustCompile(`msg="client connected" client_id=1 `), 10*time.Second)

	for _, auth := range []string{"", "Bearer wrong-secret-wrong-secret", "Bearer s3cret-for-the-backend-onl", "s3cret-for-the-backend-only"} {
		if code, b := post(auth, 2); code != http.StatusUnauthorized {
			t.Errorf("authorization %q: %d %s, want 401", auth, code, b)
		}
	}
	counts := map[int]int{}
	for i := range 200 {
		code, _ := post("Bearer s3cret-for-the-backend-only", 3+i)
		counts[code]++
	}
	// A burst of 40 (2 × -rate) less the one minted, and what the bucket
	// refilled while the flood lasted.
	if counts[200] < 39 || counts[429] < 100 || counts[200]+counts[429] != 200 {
		t.Errorf("a flood of 200 at -rate 20: %v", counts)
	}
	t.Logf("flood of 200 at -rate 20: %v", counts)
	if err := svc.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	m := waitLine(t, out, regexp.MustCompile(`msg=stopped minted=(\d+) unauthorized=(\d+) limited=(\d+)`), 10*time.Second)
	if m[1] != strconv.Itoa(1+counts[200]) || m[2] != "4" || m[3] != strconv.Itoa(counts[429]) {
		t.Errorf("stopped: minted %s, unauthorized %s, limited %s; want %d, 4, %d", m[1], m[2], m[3], 1+counts[200], counts[429])
	}
	stopWait(t, svc, svcErr, 10*time.Second)
	stopProcess(t, srv, srvErr, 10*time.Second)
}
