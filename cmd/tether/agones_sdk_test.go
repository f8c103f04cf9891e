package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// sdkServer is Agones' own SDK server (the sidecar of every game server
// pod) in local mode, run as a process: it keeps one GameServer record,
// moved through its states by the REST calls tether serve makes, and logs
// every call it serves.
type sdkServer struct {
	t    *testing.T
	bin  string
	file string // the GameServer record it starts from
	port int    // its REST port (AGONES_SDK_HTTP_PORT)
	args []string

	cmd *exec.Cmd
	mu  sync.Mutex
	log bytes.Buffer
}

// freePort returns a TCP port free on loopback now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newSDKServer prepares an SDK server whose record is a GameServer named
// name, Scheduled on a node whose status.address is a DNS name (as on nodes
// with ExternalDNS) and whose InternalIP is 127.0.0.1, with its port game
// at gamePorts[0] or, given several, its ports game-0, game-1... at them and
// a Counter rooms (of the default capacity, 1000). It skips the test where
// the binary is absent.
func newSDKServer(t *testing.T, name string, gamePorts ...int) *sdkServer {
	t.Helper()
	s := &sdkServer{t: t, bin: fleetTool(t, "../shared/tools/agones/sdk-server"), port: freePort(t)}
	s.file = filepath.Join(t.TempDir(), "gameserver.yaml")
	var spec, status strings.Builder
	for i, p := range gamePorts {
		port := "game"
		if len(gamePorts) > 1 {
			port = fmt.Sprintf("game-%d", i)
		}
		fmt.Fprintf(&spec, "  - {name: %s, portPolicy: Passthrough, protocol: UDP}\n", port)
		fmt.Fprintf(&status, "  - {name: %s, port: %d}\n", port, p)
	}
	counters := ""
	if len(gamePorts) > 1 {
		counters = "  counters:\n    rooms: {count: 0, capacity: 1000}\n"
	}
	record := fmt.Sprintf(`apiVersion: agones.dev/v1
kind: GameServer
metadata:
  name: %s
spec:
  ports:
%s  health: {initialDelaySeconds: 5, periodSeconds: 5, failureThreshold: 3}
%sstatus:
  state: Scheduled
  address: node-1.example.com
  addresses:
  - {type: Hostname, address: node-1}
  - {type: InternalIP, address: 127.0.0.1}
  ports:
%s%s`, name, spec.String(), counters, status.String(), counters)
	if err := os.WriteFile(s.file, []byte(record), 0o644); err != nil {
		t.Fatal(err)
	}
	s.args = []string{"--local", "-f", s.file, "--http-port", strconv.Itoa(s.port),
		"--grpc-port", strconv.Itoa(freePort(t)), "--health-port", strconv.Itoa(freePort(t))}
	t.Cleanup(func() {
		if s.cmd != nil && s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	return s
}

// start starts the SDK server and waits until it answers.
func (s *sdkServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, s.args...)
	w := writerFunc(func(p []byte) (int, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.log.Write(p)
	})
	s.cmd.Stdout, s.cmd.Stderr = w, w
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.waitState(func(string) bool { return true }, "any", 10*time.Second)
}

// kill ends the SDK server at once, as a sidecar that crashed.
func (s *sdkServer) kill() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// state reads the record's status.state (GET /gameserver), "" if the SDK
// server does not answer.
func (s *sdkServer) state() string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/gameserver", s.port))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var gs struct {
		Status struct{ State string } `json:"status"`
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &gs) != nil {
		return ""
	}
	return gs.Status.State
}

// waitState polls the record until its state satisfies ok, failing after d.
func (s *sdkServer) waitState(ok func(string) bool, want string, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		st := s.state()
		if st != "" && ok(st) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the SDK server's record is %q after %v, want %s; its log:\n%s", st, d, want, s.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wantState waits for the record to reach state.
func (s *sdkServer) wantState(state string, d time.Duration) {
	s.t.Helper()
	s.waitState(func(st string) bool { return st == state }, state, d)
}

func (s *sdkServer) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// logged counts the SDK server's log records with message msg.
func (s *sdkServer) logged(msg string) int {
	return strings.Count(s.logText(), `"message":"`+msg+`"`)
}

// waitLogged waits until the SDK server logged msg at least n times.
func (s *sdkServer) waitLogged(msg string, n int, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for s.logged(msg) < n {
		if time.Now().After(deadline) {
			s.t.Fatalf("the SDK server logged %q %d times in %v, want %d; its log:\n%s", msg, s.logged(msg), d, n, s.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// post makes a call of the SDK's REST API, as the game server or (for
// allocate) the allocator would.
func (s *sdkServer) post(path string) {
	s.t.Helper()
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d%s", s.port, path), "application/json", strings.NewReader("{}"))
	if err != nil {
		s.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("POST %s: %s", path, resp.Status)
	}
}

// freeUDPPort returns a UDP port free on loopback now: the port Agones
// allocated the game server.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// startAgonesServe runs tether serve -agones beside s with args added.
func startAgonesServe(t *testing.T, s *sdkServer, key string, args ...string) (*exec.Cmd, <-chan string, *bytes.Buffer) {
	t.Helper()
	t.Setenv("AGONES_SDK_HTTP_PORT", strconv.Itoa(s.port))
	return startProcess(t, append([]string{"serve", "-key", key, "-agones", "-agones-port", "game", "-addr", "127.0.0.1:0",
		"-used-tokens", "none"}, args...)...)
}

// playFor runs a bot against the server at addr for d, minting its token.
func playFor(t *testing.T, dir, key, addr, id string, d time.Duration) *exec.Cmd {
	t.Helper()
	bot, _, _ := startProcess(t, "bot", "-token", token(t, dir, key, addr, id), "-duration", d.String())
	return bot
}

// TestAgonesSDKMatch drives tether serve -agones against Agones' real SDK
// server through a whole match: the address from status.addresses (the
// record's address is a DNS name), Ready on listen, health pings, Allocated
// when the first player joins, and, once every player has left, the idle
// timeout ending the match with Shutdown and exit status 0. Each step is
// asserted in the SDK server's record and its log.
func TestAgonesSDKMatch(t *testing.T) {
	gamePort := freeUDPPort(t)
	s := newSDKServer(t, "tether-soccer-m4tch", gamePort)
	s.start()
	dir, key := newKey(t)
	srv, out, srvErr := startAgonesServe(t, s, key, "-idle-timeout", "1s", "-admin", "127.0.0.1:0")
	m := waitLine(t, out, regexp.MustCompile(`msg=listening udp=(\S+) public=(\S+) .* admin=(\S+) .* gameserver=tether-soccer-m4tch`), 10*time.Second)
	want := fmt.Sprintf("127.0.0.1:%d", gamePort)
	if m[1] != want || m[2] != want {
		t.Fatalf("listening on %s, public %s; want both %s (status.addresses' InternalIP, the allocated port)", m[1], m[2], want)
	}
	s.wantState("Ready", 10*time.Second)
	s.waitLogged("Ready request has been received!", 1, time.Second)
	s.waitLogged("Health Ping Received!", 2, 10*time.Second)

	bot := playFor(t, dir, key, want, "1", 2*time.Second)
	waitLine(t, out, regexp.MustCompile(`msg="client connected" client_id=1 `), 10*time.Second)
	s.wantState("Allocated", 10*time.Second)
	s.waitLogged("Allocate request has been received!", 1, time.Second)
	resp, err := http.Get("http://" + m[3] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, l := range []string{`tether_agones_calls_total{call="ready",outcome="ok"} 1`, `tether_agones_calls_total{call="allocate",outcome="ok"} 1`, `tether_lifecycle_state{state="allocated"} 1`} {
		if !strings.Contains(string(body), l+"\n") {
			t.Errorf("/metrics has no %s", l)
		}
	}

	if err := bot.Wait(); err != nil {
		t.Fatalf("bot: %v", err)
	}
	waitLine(t, out, regexp.MustCompile(`msg="match over: shutting down" reason="tether/ops: match over: every player left"`), 10*time.Second)
	s.wantState("Shutdown", 10*time.Second)
	s.waitLogged("Shutdown request has been received!", 1, time.Second)
	stopWait(t, srv, srvErr, 10*time.Second)
	if n := s.logged("Ready request has been received!"); n != 1 {
		t.Errorf("%d Ready requests, want 1", n)
	}
}

// TestAgonesSDKReuse: Agones allocates the server (the SDK server's
// allocate, as a GameServerAllocation does) and no player comes: the
// unused timeout ends the match and, with -after-match ready, the server
// reports Ready again; a SIGTERM then drains it to Shutdown.
func TestAgonesSDKReuse(t *testing.T) {
	s := newSDKServer(t, "tether-soccer-r3use", freeUDPPort(t))
	s.start()
	_, key := newKey(t)
	srv, out, srvErr := startAgonesServe(t, s, key, "-unused-timeout", "1s", "-after-match", "ready")
	waitLine(t, out, regexp.MustCompile(`msg=listening `), 10*time.Second)
	s.wantState("Ready", 10*time.Second)
	s.post("/allocate")
	s.wantState("Allocated", time.Second)
	waitLine(t, out, regexp.MustCompile(`msg="match over: ready for the next" reason="tether/ops: match over: allocated, but no player came"`), 15*time.Second)
	s.wantState("Ready", 10*time.Second)
	s.waitLogged("Ready request has been received!", 2, time.Second)

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.wantState("Shutdown", 10*time.Second)
	stopWait(t, srv, srvErr, 10*time.Second)
}

// TestAgonesSDKLateAndDead: the SDK server starts after tether serve (a
// sidecar late to come up): serve waits for its record, then reports
// Ready. When the SDK server dies, serve goes on serving, logs each failed
// call and counts it in /metrics.
func TestAgonesSDKLateAndDead(t *testing.T) {
	s := newSDKServer(t, "tether-soccer-l4te", freeUDPPort(t))
	_, key := newKey(t)
	srv, out, srvErr := startAgonesServe(t, s, key, "-admin", "127.0.0.1:0", "-drain-grace", "0s")
	waitLine(t, out, regexp.MustCompile(`level=WARN msg="agones call failed" call="GET /gameserver" err=".*connection refused`), 10*time.Second)
	s.start()
	m := waitLine(t, out, regexp.MustCompile(`msg=listening .* admin=(\S+)`), 15*time.Second)
	s.wantState("Ready", 10*time.Second)

	s.kill()
	waitLine(t, out, regexp.MustCompile(`level=WARN msg="agones call failed" call="POST /health" err=".*connection refused.*" gameserver=tether-soccer-l4te`), 10*time.Second)
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	failed := regexp.MustCompile(`tether_agones_calls_total\{call="health",outcome="failed"\} (\d+)`).FindSubmatch(body)
	if failed == nil || string(failed[1]) == "0" {
		t.Errorf("/metrics counts no failed health call: %s", failed)
	}
	if resp, err := http.Get("http://" + m[1] + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz with the sidecar gone: %v %v; the game goes on", resp, err)
	}
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine(t, out, regexp.MustCompile(`level=ERROR msg="agones: shutdown not reported"`), 15*time.Second)
	stopWait(t, srv, srvErr, 10*time.Second)
}

// counter reads the record's Counter name (GET /v1beta1/counters/NAME) as
// "count/capacity", "" if the SDK server does not answer.
func (s *sdkServer) counter(name string) string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/v1beta1/counters/%s", s.port, name))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var c struct{ Count, Capacity json.Number }
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || json.Unmarshal(b, &c) != nil {
		return ""
	}
	return fmt.Sprintf("%s/%s", c.Count, c.Capacity)
}

// wantCounter waits for the Counter name to read want (count/capacity).
func (s *sdkServer) wantCounter(name, want string, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for got := s.counter(name); got != want; got = s.counter(name) {
		if time.Now().After(deadline) {
			s.t.Fatalf("Counter %s is %q after %v, want %s; the SDK server's log:\n%s", name, got, d, want, s.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAgonesSDKRooms drives tether serve -matches 2 -agones against Agones'
// real SDK server, as the high-density pattern runs it: each match on its
// own port of the record (game-0, game-1), the Counter rooms at 0 of 2 on
// listen; a player in each match makes the server Allocated and the count
// 1, then 2; when they have left, each match ends on its own idle timeout
// and returns to the pool, and once both are free the server is Ready
// again, its count 0. An allocation by Agones that nobody uses ends after
// the unused timeout, back to Ready; a drain ends in Shutdown.
func TestAgonesSDKRooms(t *testing.T) {
	ports := []int{freeUDPPort(t), freeUDPPort(t)}
	s := newSDKServer(t, "tether-soccer-r00ms", ports...)
	s.start()
	dir, key := newKey(t)
	srv, out, srvErr := startAgonesServe(t, s, key, "-matches", "2", "-idle-timeout", "1s", "-unused-timeout", "1s", "-admin", "127.0.0.1:0")
	var admin string
	for i, p := range ports {
		m := waitLine(t, out, regexp.MustCompile(`msg=listening match=(\d) udp=(\S+) public=(\S+) .* admin=(\S+) `), 10*time.Second)
		if want := fmt.Sprintf("127.0.0.1:%d", p); m[1] != strconv.Itoa(i) || m[2] != want || m[3] != want {
			t.Fatalf("match %s listening on %s, public %s; want match %d on %s (port game-%d)", m[1], m[2], m[3], i, want, i)
		}
		admin = m[4]
	}
	s.wantState("Ready", 10*time.Second)
	s.wantCounter("rooms", "0/2", 10*time.Second)

	bots := make([]*exec.Cmd, 2)
	for i := range bots {
		id := strconv.Itoa(i + 1)
		bots[i] = playFor(t, dir, key, fmt.Sprintf("127.0.0.1:%d", ports[1-i]), id, 2*time.Second)
		waitLine(t, out, regexp.MustCompile(fmt.Sprintf(`msg="client connected" match=%d client_id=%s `, 1-i, id)), 10*time.Second)
		s.wantCounter("rooms", fmt.Sprintf("%d/2", i+1), 10*time.Second)
		s.wantState("Allocated", time.Second)
	}
	resp, err := http.Get("http://" + admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, l := range []string{`tether_match_in_use{match="0"} 1`, `tether_match_in_use{match="1"} 1`, `tether_server_clients{match="1"} 1`,
		`tether_agones_calls_total{call="counter",outcome="ok"}`, `tether_lifecycle_state{state="allocated"} 1`} {
		if !strings.Contains(string(body), l) {
			t.Errorf("/metrics has no %s", l)
		}
	}
	for _, b := range bots {
		if err := b.Wait(); err != nil {
			t.Fatalf("bot: %v", err)
		}
	}
	for range 2 {
		waitLine(t, out, regexp.MustCompile(`msg="match over: ready for the next" match=\d reason="tether/ops: match over: every player left"`), 10*time.Second)
	}
	waitLine(t, out, regexp.MustCompile(`msg="every match free: ready" reason="tether/ops: match over: every player left"`), 10*time.Second)
	s.wantCounter("rooms", "0/2", 10*time.Second)
	s.wantState("Ready", 10*time.Second)
	if n := s.logged("Shutdown request has been received!"); n != 0 {
		t.Errorf("%d Shutdown requests while matches ended, want 0", n)
	}

	s.post("/allocate") // a GameServerAllocation nobody uses
	s.wantState("Allocated", time.Second)
	waitLine(t, out, regexp.MustCompile(`msg="every match free: ready" reason="tether/ops: match over: allocated, but no player came"`), 15*time.Second)
	s.wantState("Ready", 10*time.Second)

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.wantState("Shutdown", 10*time.Second)
	stopWait(t, srv, srvErr, 10*time.Second)
}

// TestAgonesSDKNoRooms: a GameServer that declares no Counter rooms cannot
// report its matches: tether serve -matches 2 says so and exits 1.
func TestAgonesSDKNoRooms(t *testing.T) {
	s := newSDKServer(t, "tether-soccer-n0rooms", freeUDPPort(t))
	s.start()
	_, key := newKey(t)
	srv, _, srvErr := startAgonesServe(t, s, key, "-matches", "2")
	if err := srv.Wait(); err == nil || !strings.Contains(srvErr.String(), `the GameServer has no Counter "rooms"`) {
		t.Fatalf("serve -matches 2 without the Counter: %v; stderr: %s", err, srvErr.String())
	}
}
