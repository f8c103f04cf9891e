package match

import (
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
)

// TestSixtyFourPlayers: a full server of 64 players on broadband, whose
// whole shared snapshot is larger than a packet: no snapshot is dropped, and
// every client hears of every player at least every 200 ms.
func TestSixtyFourPlayers(t *testing.T) {
	if testing.Short() {
		t.Skip("64 bots")
	}
	link, _ := netsim.Preset("broadband")
	rules := soccer.DefaultRules()
	rules.MaxPlayers = 64
	const warm, end = 2 * time.Second, 8 * time.Second
	last := map[[2]uint32]time.Duration{} // bot slot, entity → newest snapshot time it was in
	worst := time.Duration(0)
	v, err := NewVirtual(Config{Seed: 3, Bots: 64, Link: link, Rules: rules, Server: server.Config{MaxClients: 64},
		OnSnapshot: func(b *Bot, _ time.Duration, s *client.Snapshot) {
			if !s.Regular {
				return
			}
			for _, e := range s.Entities {
				k := [2]uint32{uint32(b.Slot()), e.ID}
				if p, ok := last[k]; ok && p >= warm && s.Time > p {
					worst = max(worst, s.Time-p)
				}
				last[k] = max(last[k], s.Time)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(end)
	st := v.Server().Stats()
	deltas := uint64(0)
	for _, b := range v.Bots() {
		deltas += b.Client().Stats().Deltas
	}
	t.Logf("64 players: %d snapshots, %d oversize, %d decoded as deltas; longest wait for an entity %v", st.Snapshots, st.Oversize, deltas, worst)
	if st.Oversize != 0 || st.Snapshots < 64*30*uint64(end/time.Second)*9/10 || worst > 200*time.Millisecond || deltas < st.Snapshots/2 {
		t.Fatal("want every snapshot sent, most as deltas, and every entity within 200 ms")
	}
}

// TestBackToDeltas: after the lossy link's 2 s blackout every client decodes
// a delta snapshot again within a second.
func TestBackToDeltas(t *testing.T) {
	link, _ := netsim.Preset("lossy")
	const until = 23 * time.Second
	back := map[int]time.Duration{} // bot slot → first delta after the blackout, true server time
	v, err := NewVirtual(Config{Seed: 1, Link: link,
		OnSnapshot: func(b *Bot, local time.Duration, s *client.Snapshot) {
			if _, ok := back[b.Slot()]; !ok && s.Base != 0 && s.Time > 22*time.Second {
				back[b.Slot()] = s.Time
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(until)
	for _, b := range v.Bots() {
		at, ok := back[b.Slot()]
		t.Logf("bot %d: delta again at %v", b.Slot(), at)
		if !ok || at > 23*time.Second {
			t.Errorf("bot %d: no delta within 1 s of the blackout's end", b.Slot())
		}
	}
}
