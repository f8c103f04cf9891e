package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// newKey writes a key with tether keygen into a new directory.
func newKey(t *testing.T) (dir, key string) {
	t.Helper()
	dir = t.TempDir()
	key = filepath.Join(dir, "tether.key")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"keygen", "-o", key}, &stdout, &stderr); code != 0 {
		t.Fatalf("keygen: %s", stderr.String())
	}
	return dir, key
}

// TestServeAdminDrain runs tether serve -admin as a real process with a bot
// process connected: /healthz and /readyz answer, /metrics parses with the
// Prometheus text parser and counts the one client; SIGTERM fails /readyz
// and denies a new client while the match goes on; a second SIGTERM
// disconnects the bot (it is told) and the server exits 0.
func TestServeAdminDrain(t *testing.T) {
	dir, key := newKey(t)
	var stdout, stderr bytes.Buffer
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-max-clients", "2", "-used-tokens", "none")
	m := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(127\.0\.0\.1:\d+) .* admin=(127\.0\.0\.1:\d+)`), 10*time.Second)
	addr, admin := m[1], "http://"+m[2]
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(admin + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	if c, b := get("/readyz"); c != 200 || b != "ready" {
		t.Fatalf("/readyz before players: %d %q", c, b)
	}

	bot := asProcess("bot", "-token", token(t, dir, key, addr, "1"), "-duration", "0")
	var botOut, botErr bytes.Buffer
	bot.Stdout, bot.Stderr = &botOut, &botErr
	if err := bot.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if bot.ProcessState == nil {
			bot.Process.Kill()
			bot.Wait()
		}
	}()
	waitLine(t, out, regexp.MustCompile(`msg="client connected" client_id=1 `), 10*time.Second)

	if c, b := get("/healthz"); c != 200 || b != "ok" {
		t.Fatalf("/healthz: %d %q", c, b)
	}
	if c, b := get("/readyz"); c != 200 || b != "allocated" {
		t.Fatalf("/readyz with a player: %d %q", c, b)
	}
	c, body := get("/metrics")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body + "\n")) // get trims
	if c != 200 || err != nil {
		t.Fatalf("/metrics: %d %v", c, err)
	}
	one := func(name string) *dto.Metric {
		f := fams[name]
		if f == nil || len(f.Metric) == 0 {
			t.Fatalf("/metrics has no %s", name)
		}
		return f.Metric[0]
	}
	if v := one("tether_server_clients").Gauge.GetValue(); v != 1 {
		t.Errorf("tether_server_clients %v, want 1", v)
	}
	if v := one("tether_netcode_connects_total").Counter.GetValue(); v != 1 {
		t.Errorf("tether_netcode_connects_total %v, want 1", v)
	}
	if v := one("tether_server_tick_seconds").Histogram.GetSampleCount(); v == 0 {
		t.Error("no tick times")
	}

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine(t, out, regexp.MustCompile(`msg="draining: admitting nobody" grace=30s clients=1`), 10*time.Second)
	if c, b := get("/readyz"); c != 503 || b != "draining" {
		t.Fatalf("/readyz while draining: %d %q", c, b)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"bot", "-token", token(t, dir, key, addr, "2"), "-duration", "1s"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "connection denied") {
		t.Fatalf("a bot joining a draining server: exit %d, %s", code, stderr.String())
	}
	if bot.ProcessState != nil {
		t.Fatal("the bot left during the grace period")
	}

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine(t, out, regexp.MustCompile(`msg="stopping at once"`), 10*time.Second)
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve after a second signal: %v; stderr: %s", err, srvErr.String())
	}
	if err := bot.Wait(); err == nil || !strings.Contains(botErr.String(), "connection ended: disconnected") {
		t.Fatalf("bot: %v; stderr: %s", err, botErr.String())
	}
}

// TestLoad runs tether load against a tether serve process: its bots stay
// connected, and it reports the server's ticks, CPU and memory, from
// -admin's /metrics.
func TestLoad(t *testing.T) {
	_, key := newKey(t)
	var stdout, stderr bytes.Buffer
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-max-clients", "3", "-used-tokens", "none")
	m := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(127\.0\.0\.1:\d+) .* admin=(127\.0\.0\.1:\d+)`), 10*time.Second)
	stdout.Reset()
	args := []string{"load", "-server", m[1], "-key", key, "-bots", "3", "-duration", "1.2s", "-churn", "500ms", "-admin", m[2], "-sample", "250ms", "-json"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr.String())
	}
	var rep loadReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	t.Logf("load: %s", stdout.String())
	if rep.Connected != 3 || rep.Server == nil || rep.Server.Ticks < 30 || rep.Server.P99Ms == 0 || len(rep.Samples) < 2 || rep.Samples[0].RSSMiB <= 0 || rep.ServerCPUPercent <= 0 || rep.ClockBoundP99Ms.Max <= 0 {
		t.Errorf("load report %+v", rep)
	}
	// Bots left and were replaced in a full server (3 of 3 slots; the third
	// bot stayed for the clock figures); when they had all left, no slot was
	// stuck and no goroutine was left over. The counts include the scrape's
	// own HTTP connection, whose goroutines (connection, background read)
	// come and go: a goroutine left per client would add at least 4 (3 bots
	// and a replacement).
	if c := rep.Churn; c == nil || c.Cycles < 1 || c.Failed != 0 {
		t.Errorf("churn %+v", c)
	}
	if rep.ClientsAfter != 0 || rep.Goroutines.Before == 0 || rep.Goroutines.After > rep.Goroutines.Before+2 {
		t.Errorf("server after the bots left: %d clients, goroutines %+v", rep.ClientsAfter, rep.Goroutines)
	}
	stopProcess(t, srv, srvErr, 10*time.Second)
}

// TestServeAgones runs tether serve -agones as a real process against an
// in-test SDK sidecar (found through AGONES_SDK_HTTP_PORT, as in a pod): it
// reports Ready once listening, pings health, and reports Shutdown when it
// stops.
func TestServeAgones(t *testing.T) {
	calls := make(chan string, 1024)
	sidecar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/gameserver" {
			io.WriteString(w, `{"object_meta":{"name":"tether-soccer-x7k2p"},"status":{"state":"Scheduled","address":"127.0.0.1"}}`)
			return
		}
		io.WriteString(w, "{}")
		calls <- r.Method + " " + r.URL.Path
	}))
	defer sidecar.Close()
	_, key := newKey(t)
	cmd := asProcess("serve", "-key", key, "-addr", "127.0.0.1:0", "-agones", "-used-tokens", "none")
	cmd.Env = append(cmd.Env, "AGONES_SDK_HTTP_PORT="+sidecar.URL[strings.LastIndexByte(sidecar.URL, ':')+1:])
	var srvErr bytes.Buffer
	cmd.Stderr = &srvErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	if c := <-calls; c != "POST /ready" {
		t.Fatalf("first call %q, want POST /ready", c)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v: %s", err, srvErr.String())
	}
	close(calls)
	last := ""
	for c := range calls {
		if c != "POST /health" {
			last = c
		}
	}
	if last != "POST /shutdown" {
		t.Fatalf("last call %q, want POST /shutdown", last)
	}
}

// TestServeAgonesPort runs tether serve -agones -agones-port game with -addr
// port 0, as for a Passthrough port: it takes its public address from the
// GameServer record the in-test sidecar serves and listens on that port.
func TestServeAgonesPort(t *testing.T) {
	free, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	want := free.LocalAddr().String() // the port Agones allocated
	free.Close()
	_, port, _ := net.SplitHostPort(want)
	sidecar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/gameserver" {
			fmt.Fprintf(w, `{"object_meta":{"name":"tether-soccer-x7k2p"},"status":{"state":"Scheduled","address":"127.0.0.1","ports":[{"name":"game","port":%s}]}}`, port)
			return
		}
		io.WriteString(w, "{}")
	}))
	defer sidecar.Close()
	t.Setenv("AGONES_SDK_HTTP_PORT", sidecar.URL[strings.LastIndexByte(sidecar.URL, ':')+1:])
	_, key := newKey(t)
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-agones", "-agones-port", "game", "-used-tokens", "none")
	m := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(\S+) public=(\S+)`), 10*time.Second)
	if m[1] != want || m[2] != want {
		t.Errorf("listening on %s, public %s; want both %s", m[1], m[2], want)
	}
	stopProcess(t, srv, srvErr, 10*time.Second)
}

// TestServeJSONLogs: under -log-format json every record is a JSON object
// naming the version, durations are strings, and a fatal error is a record
// too, with nothing on stderr.
func TestServeJSONLogs(t *testing.T) {
	_, key := newKey(t)
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-log-format", "json", "-used-tokens", "none", "-idle-timeout", "45s")
	var recs []map[string]any
	read := func(msg string) map[string]any {
		t.Helper()
		for {
			l := waitLine(t, out, regexp.MustCompile(`^.+$`), 10*time.Second)[0]
			var r map[string]any
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("not a JSON record: %q", l)
			}
			recs = append(recs, r)
			if r["msg"] == msg {
				return r
			}
		}
	}
	if r := read("listening"); r["idle_timeout"] != "45s" || r["match_length"] != "0s" {
		t.Errorf("listening record %v: want durations as strings", r)
	}
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if r := read("draining: admitting nobody"); r["grace"] != "30s" {
		t.Errorf("draining record %v: want grace 30s", r)
	}
	read("stopped")
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve: %v: %s", err, srvErr.String())
	}
	for _, r := range recs {
		if v, _ := r["version"].(string); v == "" {
			t.Errorf("record without a version: %v", r)
		}
	}

	cmd := asProcess("serve", "-key", key+".missing", "-addr", "127.0.0.1:0", "-log-format", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var r map[string]any
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("serve with a missing key: %v, want exit status 1", err)
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &r); jerr != nil || r["level"] != "ERROR" || !strings.Contains(fmt.Sprint(r["err"]), "-key") || r["version"] == nil || stderr.Len() != 0 {
		t.Errorf("a fatal error: stdout %q (%v), stderr %q; want one JSON record and nothing on stderr", stdout.String(), jerr, stderr.String())
	}
}

// TestServeFullTime: a match with -match-length ends at full time with its
// player on; with -after-match ready the player is told (netcode's
// disconnect), the server is ready again and the next player starts a new
// match, which ends in turn.
func TestServeFullTime(t *testing.T) {
	dir, key := newKey(t)
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-used-tokens", "none",
		"-match-length", "1s", "-after-match", "ready")
	m := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(\S+) .* admin=(\S+)`), 10*time.Second)
	readyz := func() string {
		resp, err := http.Get("http://" + m[2] + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(b))
	}
	for i, id := range []string{"1", "2"} {
		bot, _, botErr := startProcess(t, "bot", "-token", token(t, dir, key, m[1], id), "-duration", "0")
		waitLine(t, out, regexp.MustCompile(`msg="client connected" client_id=`+id+` `), 10*time.Second)
		if s := readyz(); s != "allocated" {
			t.Errorf("match %d under way: /readyz %q, want allocated", i+1, s)
		}
		waitLine(t, out, regexp.MustCompile(`msg="match over: ready for the next" reason="tether/ops: match over: full time" clients=1`), 10*time.Second)
		if err := bot.Wait(); err == nil || !strings.Contains(botErr.String(), "connection ended: disconnected") {
			t.Fatalf("bot %s at full time: %v; stderr %s", id, err, botErr.String())
		}
		if s := readyz(); s != "ready" {
			t.Errorf("after match %d: /readyz %q, want ready", i+1, s)
		}
	}
	stopProcess(t, srv, srvErr, 10*time.Second)
}

// token mints a token for client id naming addr, with tether token.
func token(t *testing.T, dir, key, addr, id string) string {
	t.Helper()
	f := filepath.Join(dir, "token"+id)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"token", "-key", key, "-protocol-id", "0x7465746865720001", "-client-id", id, "-server", addr, "-o", f}, &stdout, &stderr); code != 0 {
		t.Fatalf("token: %s", stderr.String())
	}
	return f
}

// TestServeMatches runs tether serve -matches 3 as a real process: each
// match on its own port, a player's token naming match 1's address puts it
// in match 1 alone (its metrics, labelled match="1", count it; the others'
// none), and when it leaves match 1 ends on its idle timeout and returns to
// the pool while the process goes on. The admin listener answers a Host
// given in -admin-hosts, and 421 to another name.
func TestServeMatches(t *testing.T) {
	dir, key := newKey(t)
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-matches", "3", "-idle-timeout", "500ms",
		"-admin", "127.0.0.1:0", "-admin-hosts", "gs-1.tether.svc,gs-1", "-used-tokens", "none")
	var addrs []string
	var admin string
	for i := range 3 {
		m := waitLine(t, out, regexp.MustCompile(`msg=listening match=(\d) udp=(127\.0\.0\.1:\d+) .* admin=(\S+) `), 10*time.Second)
		if m[1] != strconv.Itoa(i) || slices.Contains(addrs, m[2]) {
			t.Fatalf("match %s on %s after %v", m[1], m[2], addrs)
		}
		addrs, admin = append(addrs, m[2]), m[3]
	}
	get := func(host, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+admin+path, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for host, want := range map[string]int{"gs-1.tether.svc:9090": 200, "gs-1": 200, admin: 200, "other.example:9090": http.StatusMisdirectedRequest} {
		if c, _ := get(host, "/metrics"); c != want {
			t.Errorf("Host %s: %d, want %d", host, c, want)
		}
	}

	bot := playFor(t, dir, key, addrs[1], "7", 2*time.Second)
	waitLine(t, out, regexp.MustCompile(`msg="client connected" match=1 client_id=7 `), 10*time.Second)
	if c, b := get(admin, "/readyz"); c != 200 || strings.TrimSpace(b) != "allocated" {
		t.Errorf("/readyz with a match in use: %d %q", c, b)
	}
	_, body := get(admin, "/metrics")
	for _, l := range []string{`tether_server_clients{match="0"} 0`, `tether_server_clients{match="1"} 1`, `tether_server_clients{match="2"} 0`,
		`tether_match_in_use{match="1"} 1`, `tether_match_in_use{match="2"} 0`, `tether_netcode_connects_total{match="1"} 1`} {
		if !strings.Contains(body, l+"\n") {
			t.Errorf("/metrics has no %s", l)
		}
	}
	if err := bot.Wait(); err != nil {
		t.Fatalf("bot: %v", err)
	}
	waitLine(t, out, regexp.MustCompile(`msg="match over: ready for the next" match=1 reason="tether/ops: match over: every player left" clients=0`), 10*time.Second)
	waitLine(t, out, regexp.MustCompile(`msg="every match free: ready"`), 10*time.Second)
	if c, b := get(admin, "/readyz"); c != 200 || strings.TrimSpace(b) != "ready" {
		t.Errorf("/readyz with every match free: %d %q", c, b)
	}
	// The next player of match 1 starts a new match there.
	bot = playFor(t, dir, key, addrs[1], "8", time.Second)
	waitLine(t, out, regexp.MustCompile(`msg="client connected" match=1 client_id=8 `), 10*time.Second)
	if err := bot.Wait(); err != nil {
		t.Fatalf("bot: %v", err)
	}
	stopProcess(t, srv, srvErr, 10*time.Second)
	var rest strings.Builder
	for l := range out {
		rest.WriteString(l + "\n")
	}
	for i := range 3 {
		if want := fmt.Sprintf("msg=stopped match=%d ticks=", i); !strings.Contains(rest.String(), want) {
			t.Errorf("no %q in:\n%s", want, rest.String())
		}
	}
}
