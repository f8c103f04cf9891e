package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
	"github.com/tether-net/tether/transport/udp"
)

// TestFloodFigure measures an authenticated flood next to honest bots, on
// loopback: a tether serve process, 8 bot processes playing 14 s, and (in
// the flood run) one client of its own token sending 2,000 datagrams a
// second of 237 bytes, each packed with clock pings, for 10 s from 2 s in.
// It runs a quiet run and a flood run back to back and prints the honest
// bots' clock bound and pops, the server's CPU time over the flood's 10 s
// window, and the flooder's bytes each way. It is a measurement, not a
// check of the code: set TETHER_FLOOD_FIGURE=1 to run it, alone on the
// machine.
func TestFloodFigure(t *testing.T) {
	if os.Getenv("TETHER_FLOOD_FIGURE") != "1" {
		t.Skip("set TETHER_FLOOD_FIGURE=1 to measure")
	}
	for _, flood := range []bool{false, true} {
		r := floodRun(t, flood)
		t.Logf("flood %v: bots clock bound p99 %.2f ms (worst bot %.2f ms), pops %d over %d judged frames; server CPU %.1f %% of a core over the 10 s window; flooder sent %d datagrams (%d B), server sent it %d datagrams (%d B), %d over-budget drops reported by serve",
			flood, r.boundP99, r.boundWorst, r.pops, r.popFrames, r.cpu*100, r.sentN, r.sentB, r.gotN, r.gotB, r.overBudget)
		if flood && r.gotB > r.sentB {
			t.Errorf("the server sent the flooder %d bytes for %d", r.gotB, r.sentB)
		}
	}
}

type floodResult struct {
	boundP99, boundWorst float64
	pops, popFrames      int
	cpu                  float64
	sentN, sentB         uint64
	gotN, gotB           uint64
	overBudget           int
}

// cpuTime returns the user and system CPU time of process pid so far.
func cpuTime(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

func floodRun(t *testing.T, flood bool) floodResult {
	fs := startFloodServe(t, 9)
	over := regexp.MustCompile(`over_budget=(\d+)`)
	overBudget := make(chan int, 1)
	go func() { // read serve's output as it comes, for its summary
		n := -1
		for l := range fs.out {
			if m := over.FindStringSubmatch(l); m != nil {
				n, _ = strconv.Atoi(m[1])
			}
		}
		overBudget <- n
	}()
	bots := fs.startBots(t, 8, "14s")
	var r floodResult
	time.Sleep(2 * time.Second) // the bots connect and warm up
	cpu0 := cpuTime(t, fs.srv.Process.Pid)
	if flood {
		r.sentN, r.sentB, r.gotN, r.gotB = floodFor(t, fs.mint(t, 100), 10*time.Second)
	} else {
		time.Sleep(10 * time.Second)
	}
	r.cpu = float64(cpuTime(t, fs.srv.Process.Pid)-cpu0) / float64(10*time.Second)
	var bounds []float64
	for _, rep := range bots.reports(t) {
		bounds = append(bounds, rep.Clock.BoundMs.P99)
		r.pops += rep.Ball.Pops
		r.popFrames += rep.Ball.PopFrames
	}
	sort.Float64s(bounds)
	r.boundWorst = bounds[len(bounds)-1]
	r.boundP99 = bounds[len(bounds)/2]
	stopProcess(t, fs.srv, fs.stderr, 10*time.Second)
	r.overBudget = <-overBudget
	return r
}

// floodServe is a tether serve process on loopback for the flood probes,
// with its key in dir.
type floodServe struct {
	dir, key, addr string
	srv            *exec.Cmd
	out            <-chan string // its output after the listening line
	stderr         *bytes.Buffer
}

// startFloodServe starts tether serve with maxClients slots, a 1 s drain
// and no used-token file.
func startFloodServe(t *testing.T, maxClients int) *floodServe {
	fs := &floodServe{dir: t.TempDir()}
	fs.key = filepath.Join(fs.dir, "tether.key")
	runOK(t, "keygen", "-o", fs.key)
	fs.srv, fs.out, fs.stderr = startProcess(t, "serve", "-key", fs.key, "-addr", "127.0.0.1:0", "-max-clients", strconv.Itoa(maxClients),
		"-drain-grace", "1s", "-used-tokens", "none")
	fs.addr = waitLine(t, fs.out, regexp.MustCompile(`msg=listening udp=(127\.0\.0\.1:\d+) `), 10*time.Second)[1]
	return fs
}

// mint writes a token for client id to a file and returns its name.
func (fs *floodServe) mint(t *testing.T, id int) string {
	f := filepath.Join(fs.dir, fmt.Sprintf("token%d", id))
	runOK(t, "token", "-key", fs.key, "-protocol-id", "0x7465746865720001", "-client-id", strconv.Itoa(id), "-server", fs.addr, "-o", f)
	return f
}

// floodBots are bot processes printing JSON reports.
type floodBots struct {
	cmds []*exec.Cmd
	outs []*bytes.Buffer
}

// startBots starts n bots (client ids and seeds 1 to n) playing for d.
func (fs *floodServe) startBots(t *testing.T, n int, d string) *floodBots {
	b := &floodBots{}
	for i := range n {
		cmd := asProcess("bot", "-token", fs.mint(t, i+1), "-duration", d, "-json", "-seed", strconv.Itoa(i+1))
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		b.cmds, b.outs = append(b.cmds, cmd), append(b.outs, &o)
	}
	return b
}

// reports waits for the bots and returns their reports.
func (b *floodBots) reports(t *testing.T) []botReport {
	var reps []botReport
	for i, cmd := range b.cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("bot %d: %v", i, err)
		}
		var rep botReport
		if err := json.Unmarshal(b.outs[i].Bytes(), &rep); err != nil {
			t.Fatalf("bot %d: %v: %s", i, err, b.outs[i].String())
		}
		reps = append(reps, rep)
	}
	return reps
}

// floodSocket reads the token in file tok and opens a loopback socket for
// a flooder.
func floodSocket(t *testing.T, tok string) (*netcode.ConnectToken, *net.UDPConn) {
	token, err := readToken(tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	return token, conn
}

// floodFor connects with the token in file tok and sends 2,000 datagrams a
// second of 237 bytes, each a packet of the channel packed with clock pings,
// for d. It returns the datagrams and bytes it sent and received.
func floodFor(t *testing.T, tok string, d time.Duration) (sentN, sentB, gotN, gotB uint64) {
	token, conn := floodSocket(t, tok)
	connected := make(chan struct{}, 1)
	cl, err := udp.Dial(conn, token, udp.ClientConfig{OnState: func(s netcode.ClientState) {
		if s == netcode.StateConnected {
			connected <- struct{}{}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	select {
	case <-connected:
	case <-time.After(5 * time.Second):
		t.Fatalf("flooder not connected: %v", cl.State())
	}
	ep, _ := reliable.New(reliable.Config{})
	const payload = 237 - 1 - 2 - netcode.MACSize // a 237-byte datagram with a 2-byte sequence
	ping := protocol.AppendPing(nil, clock.Ping{ID: 1 << 20})
	var buf []byte
	packet := func(now time.Duration, pings int) []byte {
		for range pings {
			_ = ep.SendUnreliable(ping)
		}
		buf, _ = ep.AppendPacket(buf[:0], now)
		return buf
	}
	pings := 1
	for len(packet(0, pings+1)) <= payload {
		pings++
	}
	t.Logf("flooder: %d pings in a %d-byte payload", pings, len(packet(0, pings)))
	start := time.Now()
	before := cl.Stats()
	for sent := 0; time.Since(start) < d; {
		due := int(time.Since(start) * 2000 / time.Second)
		for ; sent < due; sent++ {
			_ = cl.Send(packet(time.Since(start), pings))
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the last replies arrive
	st := cl.Stats()
	return st.PacketsOut - before.PacketsOut, st.BytesOut - before.BytesOut, st.PacketsIn - before.PacketsIn, st.BytesIn - before.BytesIn
}

// TestFloodTable measures one authenticated client flooding a tether serve
// process beside two honest bots (processes playing 10 s), on loopback, at
// 0, 20,000, 40,000 and 60,000 datagrams a second and unpaced, for 6 s
// from 2 s in. The flooder speaks netcode itself, so it goes on sending
// valid packets after the server disconnects it. Each row: datagrams sent
// (and the rate reached), the server socket's drops (/proc/net/udp), the
// server's CPU over the flood, the bots' clock replies of pings and pops,
// and when serve logged the flooder's disconnect, and the line. It is a
// measurement: set TETHER_FLOOD_TABLE=1 to run it, alone on the machine.
func TestFloodTable(t *testing.T) {
	if os.Getenv("TETHER_FLOOD_TABLE") != "1" {
		t.Skip("set TETHER_FLOOD_TABLE=1 to measure")
	}
	for _, rate := range []int{0, 20000, 40000, 60000, -1} {
		r := floodTableRun(t, rate)
		name := strconv.Itoa(rate)
		if rate < 0 {
			name = "unpaced"
		}
		t.Logf("rate %s: sent %d (%.0f/s); socket drops %d; server CPU %.0f %% of a core; bots replies %s of pings %s, pops %s; flooder disconnect %s",
			name, r.sent, r.sentRate, r.drops, r.cpu*100, r.replies, r.pings, r.pops, r.disconnect)
	}
}

type floodRow struct {
	sent                 uint64
	sentRate, cpu        float64
	drops                uint64
	replies, pings, pops string
	disconnect           string
}

func floodTableRun(t *testing.T, rate int) floodRow {
	fs := startFloodServe(t, 3)
	server := netip.MustParseAddrPort(fs.addr)
	var start time.Time
	disconnected := make(chan string, 1)
	go func() {
		for l := range fs.out {
			if strings.Contains(l, "disconnected for flooding") {
				disconnected <- fmt.Sprintf("%.2f s after the flood began: %s", time.Since(start).Seconds(), l)
			}
		}
	}()
	bots := fs.startBots(t, 2, "10s")
	tok := fs.mint(t, 100)
	time.Sleep(2 * time.Second) // the bots connect and warm up
	var r floodRow
	drops0, cpu0 := socketDrops(t, server.Port()), cpuTime(t, fs.srv.Process.Pid)
	start = time.Now()
	if rate == 0 {
		time.Sleep(6 * time.Second)
	} else {
		r.sent = floodAt(t, tok, rate, 6*time.Second)
	}
	r.sentRate = float64(r.sent) / time.Since(start).Seconds()
	r.cpu = float64(cpuTime(t, fs.srv.Process.Pid)-cpu0) / float64(time.Since(start))
	r.drops = socketDrops(t, server.Port()) - drops0
	var replies, pings, pops []string
	for _, rep := range bots.reports(t) {
		replies = append(replies, strconv.FormatUint(rep.Clock.Replies, 10))
		pings = append(pings, strconv.FormatUint(rep.Clock.Pings, 10))
		pops = append(pops, strconv.Itoa(rep.Ball.Pops))
	}
	r.replies, r.pings, r.pops = strings.Join(replies, "+"), strings.Join(pings, "+"), strings.Join(pops, "+")
	stopProcess(t, fs.srv, fs.stderr, 10*time.Second)
	select {
	case r.disconnect = <-disconnected:
	default:
		r.disconnect = "none"
	}
	return r
}

// socketDrops returns the drops counted on the UDP socket bound to
// 127.0.0.1:port (/proc/net/udp).
func socketDrops(t *testing.T, port uint16) uint64 {
	b, err := os.ReadFile("/proc/net/udp")
	if err != nil {
		t.Fatal(err)
	}
	local := fmt.Sprintf("0100007F:%04X", port)
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 12 && f[1] == local {
			n, _ := strconv.ParseUint(f[len(f)-1], 10, 64)
			return n
		}
	}
	t.Fatalf("no socket on %s in /proc/net/udp", local)
	return 0
}

// floodAt connects with the token in file tok, speaking netcode itself,
// and sends rate datagrams a second (unpaced if negative) for d, each a
// payload of clock pings as floodFor's: after the server disconnects it,
// it goes on sending packets of its session. It returns how many it sent.
func floodAt(t *testing.T, tok string, rate int, d time.Duration) uint64 {
	token, conn := floodSocket(t, tok)
	defer conn.Close()
	c, err := netcode.NewClient(netcode.ClientConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Connect(time.Now(), token); err != nil {
		t.Fatal(err)
	}
	send := func() {
		for p, to, ok := c.Transmit(); ok; p, to, ok = c.Transmit() {
			conn.WriteToUDPAddrPort(p, to)
		}
	}
	buf := make([]byte, 2048)
	for deadline := time.Now().Add(5 * time.Second); c.State() != netcode.StateConnected; {
		if time.Now().After(deadline) {
			t.Fatalf("flooder not connected: %v", c.State())
		}
		c.Update(time.Now())
		send()
		conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if n, from, err := conn.ReadFromUDPAddrPort(buf); err == nil {
			c.Receive(time.Now(), from, buf[:n])
		}
	}
	ep, _ := reliable.New(reliable.Config{})
	ping := protocol.AppendPing(nil, clock.Ping{ID: 1 << 20})
	for range 12 {
		_ = ep.SendUnreliable(ping)
	}
	payload, _ := ep.AppendPacket(nil, 0)
	var sent uint64
	start := time.Now()
	for time.Since(start) < d {
		due := uint64(1 << 62)
		if rate > 0 {
			due = uint64(time.Since(start) * time.Duration(rate) / time.Second)
		}
		for i := 0; sent < due && i < 1024; i++ {
			c.SendPayload(time.Now(), payload)
			send()
			sent++
		}
		if rate > 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return sent
}
