package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
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
	dir := t.TempDir()
	key := filepath.Join(dir, "tether.key")
	runOK(t, "keygen", "-o", key)
	srv, out, srvErr := startProcess(t, "serve", "-key", key, "-addr", "127.0.0.1:0", "-max-clients", "9")
	addr := waitLine(t, out, regexp.MustCompile(`listening on udp (127\.0\.0\.1:\d+) `), 10*time.Second)[1]
	over := regexp.MustCompile(`over_budget=(\d+)`)
	overBudget := make(chan int, 1)
	go func() { // read serve's output as it comes, for its summary
		n := -1
		for l := range out {
			if m := over.FindStringSubmatch(l); m != nil {
				n, _ = strconv.Atoi(m[1])
			}
		}
		overBudget <- n
	}()
	mint := func(id int) string {
		f := filepath.Join(dir, fmt.Sprintf("token%d", id))
		runOK(t, "token", "-key", key, "-protocol-id", "0x7465746865720001", "-client-id", strconv.Itoa(id), "-server", addr, "-o", f)
		return f
	}
	var bots []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 8 {
		cmd := asProcess("bot", "-token", mint(i+1), "-duration", "14s", "-json", "-seed", strconv.Itoa(i+1))
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		bots, outs = append(bots, cmd), append(outs, &o)
	}
	var r floodResult
	time.Sleep(2 * time.Second) // the bots connect and warm up
	cpu0 := cpuTime(t, srv.Process.Pid)
	if flood {
		r.sentN, r.sentB, r.gotN, r.gotB = floodFor(t, mint(100), 10*time.Second)
	} else {
		time.Sleep(10 * time.Second)
	}
	r.cpu = float64(cpuTime(t, srv.Process.Pid)-cpu0) / float64(10*time.Second)
	var bounds []float64
	for i, b := range bots {
		if err := b.Wait(); err != nil {
			t.Fatalf("bot %d: %v", i, err)
		}
		var rep botReport
		if err := json.Unmarshal(outs[i].Bytes(), &rep); err != nil {
			t.Fatalf("bot %d: %v: %s", i, err, outs[i].String())
		}
		bounds = append(bounds, rep.Clock.BoundMs.P99)
		r.pops += rep.Ball.Pops
		r.popFrames += rep.Ball.PopFrames
	}
	sort.Float64s(bounds)
	r.boundWorst = bounds[len(bounds)-1]
	r.boundP99 = bounds[len(bounds)/2]
	stopProcess(t, srv, srvErr, 10*time.Second)
	r.overBudget = <-overBudget
	return r
}

// floodFor connects with the token in file tok and sends 2,000 datagrams a
// second of 237 bytes, each a packet of the channel packed with clock pings,
// for d. It returns the datagrams and bytes it sent and received.
func floodFor(t *testing.T, tok string, d time.Duration) (sentN, sentB, gotN, gotB uint64) {
	token, err := readToken(tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
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
