package harness_test

import (
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/drill"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
)

// run plays the drill for d with one client per link and returns the rig and
// the number of frames each client drew the ball in.
func run(t *testing.T, d time.Duration, links ...netsim.LinkConfig) (*harness.Rig, []int) {
	t.Helper()
	game, err := drill.NewGame(3, 60)
	if err != nil {
		t.Fatal(err)
	}
	rig, err := harness.New(harness.Config{}, game)
	if err != nil {
		t.Fatal(err)
	}
	drawn := make([]int, len(links))
	for i, l := range links {
		cg, err := drill.NewClientGame(drill.ClientConfig{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = rig.Join(0, harness.ClientConfig{Link: l, Seed: 9, Game: cg, OnFrame: func(_ *harness.Client, f *client.Frame) {
			if f.Find(drill.BallID) != nil {
				drawn[i]++
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	rig.RunUntil(d)
	return rig, drawn
}

// Clients connect through their links, draw the server's ball, and their
// traffic counts every header.
func TestClientsConnectAndDraw(t *testing.T) {
	wan, _ := netsim.Preset("wan")
	rig, drawn := run(t, 5*time.Second, netsim.LinkConfig{}, wan)
	for i, c := range rig.Clients() {
		if !c.Connected() || c.Slot() != i {
			t.Fatalf("client %d: connected %v, slot %d", i, c.Connected(), c.Slot())
		}
		// At 60 Hz over 5 s, less the handshake and the clock's start.
		if drawn[i] < 200 {
			t.Fatalf("client %d drew the ball in %d frames", i, drawn[i])
		}
		tr := c.Traffic()
		if tr.PacketsDown < 100 || tr.WireDown-tr.PayloadDown < tr.PacketsDown*(netsim.HeaderBytes+18) {
			t.Fatalf("client %d traffic %+v: headers not counted", i, tr)
		}
	}
	if st := rig.Server().Stats(); st.Clients != 2 || st.Ticks != 300 {
		t.Fatalf("server stats %+v", st)
	}
}

// The same configuration gives the same run.
func TestDeterministic(t *testing.T) {
	lossy, _ := netsim.Preset("lossy")
	a, da := run(t, 3*time.Second, lossy, lossy)
	b, db := run(t, 3*time.Second, lossy, lossy)
	for i := range da {
		if da[i] != db[i] || a.Clients()[i].Traffic() != b.Clients()[i].Traffic() {
			t.Fatalf("client %d: %d/%d frames, traffic %+v / %+v", i, da[i], db[i], a.Clients()[i].Traffic(), b.Clients()[i].Traffic())
		}
	}
}

// A client that leaves frees its slot for the next one.
func TestLeaveFreesSlot(t *testing.T) {
	game, err := drill.NewGame(1, 60)
	if err != nil {
		t.Fatal(err)
	}
	rig, err := harness.New(harness.Config{Server: server.Config{MaxClients: 1}}, game)
	if err != nil {
		t.Fatal(err)
	}
	join := func(at time.Duration) *harness.Client {
		cg, _ := drill.NewClientGame(drill.ClientConfig{})
		c, err := rig.Join(at, harness.ClientConfig{Game: cg})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := join(0)
	second := join(100 * time.Millisecond)
	rig.RunUntil(time.Second)
	if !first.Connected() || second.Connected() {
		t.Fatalf("one slot: first %v, second %v", first.Connected(), second.Connected())
	}
	rig.Leave(first, time.Second)
	rig.RunUntil(2 * time.Second)
	if first.Connected() || !second.Connected() || second.Slot() != 0 {
		t.Fatalf("after the leave: first %v, second %v slot %d", first.Connected(), second.Connected(), second.Slot())
	}
}

func TestConfigErrors(t *testing.T) {
	game, _ := drill.NewGame(1, 60)
	if _, err := harness.New(harness.Config{FrameHz: -1}, game); err == nil {
		t.Fatal("FrameHz -1 accepted")
	}
	rig, _ := harness.New(harness.Config{}, game)
	if _, err := rig.Join(0, harness.ClientConfig{}); err == nil {
		t.Fatal("a client without a game accepted")
	}
}
