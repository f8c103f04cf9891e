package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeBotEndToEnd: keygen, serve (a real process), token, then two bots
// for two seconds each, one with a token file and one reading base64 on
// standard input (a real process), and an interrupt that stops the server
// with status 0.
func TestServeBotEndToEnd(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "tether.key")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"keygen", "-o", key}, &stdout, &stderr); code != 0 {
		t.Fatalf("keygen: %s", stderr.String())
	}
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-max-clients", "4")
	m := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(127\.0\.0\.1:\d+) `), 10*time.Second)
	addr := m[1]

	token := func(id string, args ...string) []byte {
		var stdout, stderr bytes.Buffer
		args = append([]string{"token", "-key", key, "-protocol-id", "0x7465746865720001", "-client-id", id, "-server", addr}, args...)
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("token: %s", stderr.String())
		}
		return stdout.Bytes()
	}
	tokFile := filepath.Join(dir, "t1")
	token("1", "-o", tokFile)

	// The second bot, a process fed the base64 token on standard input.
	piped := asProcess("bot", "-duration", "2s")
	piped.Stdin = bytes.NewReader(token("2"))
	var pipedOut, pipedErr bytes.Buffer
	piped.Stdout, piped.Stderr = &pipedOut, &pipedErr
	if err := piped.Start(); err != nil {
		t.Fatal(err)
	}

	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"bot", "-token", tokFile, "-duration", "2s", "-json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("bot: exit %d: %s", code, stderr.String())
	}
	var rep botReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	t.Logf("bot: %+v", rep)
	if rep.Slot < 0 || rep.Frames < 60 || rep.Ball.Frames < 30 || rep.Ball.PopFrames < 30 || rep.Clock.Replies == 0 || rep.Net.DownKbps <= 0 || rep.Net.UpKbps <= 0 {
		t.Errorf("bot report %+v", rep)
	}
	if b := rep.Clock.BoundMs; !(b.P99 > 0 && b.P99 < 50) {
		t.Errorf("clock bound %+v ms on loopback", b)
	}

	if err := piped.Wait(); err != nil {
		t.Fatalf("piped bot: %v: %s", err, pipedErr.String())
	}
	for _, want := range []string{"connected to " + addr, "render delay", "pops", "down"} {
		if !strings.Contains(pipedOut.String(), want) {
			t.Errorf("piped bot printed no %q:\n%s", want, pipedOut.String())
		}
	}

	stopProcess(t, srv, srvErr, 10*time.Second)
	var rest strings.Builder
	for l := range out {
		rest.WriteString(l + "\n")
	}
	for _, want := range []string{`msg="client connected" client_id=1`, `msg="client connected" client_id=2`, `msg="client left" client_id=1`, "msg=stopped ticks="} {
		if !strings.Contains(rest.String(), want) {
			t.Errorf("serve printed no %q:\n%s", want, rest.String())
		}
	}
}

// TestServeBotFlagErrors: bad flags and files are refused with a message
// naming them.
func TestServeBotFlagErrors(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"keygen", "-o", key}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("not a token\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("aGVsbG8=\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "-key", key, "-addr", "nowhere"}, `-addr "nowhere": want IP:PORT`},
		{[]string{"serve", "-key", key, "-addr", "0.0.0.0:0"}, "give -public"},
		{[]string{"serve", "-key", key, "-public", "0.0.0.0:5"}, `-public "0.0.0.0:5"`},
		{[]string{"serve", "-key", key, "-max-clients", "0"}, "-max-clients 0: want 1 to 64"},
		{[]string{"serve", "-key", key, "-protocol-id", "x"}, `invalid value "x" for flag -protocol-id: want a non-zero`},
		{[]string{"serve", "-key", filepath.Join(dir, "missing")}, "-key: open"},
		{[]string{"serve", "-key", garbage}, "-key: " + garbage},
		{[]string{"serve", "-key", key, "-matches", "0"}, "-matches 0: want 1 to 64"},
		{[]string{"serve", "-key", key, "-matches", "2", "-after-match", "shutdown"}, "-after-match shutdown does not go with it"},
		{[]string{"serve", "-key", key, "-matches", "2", "-http", "127.0.0.1:0"}, "-matches 2 does not go with -http"},
		{[]string{"serve", "-key", key, "-matches", "3", "-addr", "127.0.0.1:65534"}, "match 2's port 65536 is above 65535"},
		{[]string{"serve", "-key", key, "-admin-hosts", "a.example"}, "-pprof and -admin-hosts need -admin"},
		{[]string{"serve", "-key", key, "-admin", ":0", "-admin-hosts", "a.example:9090"}, `-admin-hosts "a.example:9090": want host names without ports`},
		{[]string{"bot", "-token", filepath.Join(dir, "missing")}, "token: open"},
		{[]string{"bot", "-token", garbage}, "neither a 2048-byte token nor base64"},
		{[]string{"bot", "-token", empty}, "is empty"},
		{[]string{"bot", "-token", short}, "token from " + short},
		{[]string{"bot", "-duration", "-1s"}, "-duration -1s"},
		{[]string{"bot", "extra"}, "unexpected arguments"},
	} {
		stdout.Reset()
		stderr.Reset()
		code := run(c.args, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
}
