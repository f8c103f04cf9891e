package match

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/netsim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestLive runs the server and four bots over real loopback UDP, each through
// a netsim link, for about two seconds, and shuts everything down cleanly.
func TestLive(t *testing.T) {
	link, err := netsim.Preset("broadband")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	ready := map[int]int{} // frames with the whole match drawn, per bot
	ticks := 0
	l, err := StartLive(Config{Seed: 3, Link: link,
		OnTick: func(tr *soccer.Truth) {
			mu.Lock()
			ticks++
			mu.Unlock()
		},
		OnFrame: func(b *Bot, f *client.Frame, v *soccer.View) {
			if f.Ready && v.Ready && len(v.Players) == 4 {
				mu.Lock()
				ready[b.Index]++
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	var tr soccer.Truth
	l.Truth(&tr)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("ticks %d, frames with the match drawn %v, truth at %v: %d players", ticks, ready, tr.Time, len(tr.Players))
	if ticks < 60 {
		t.Errorf("only %d ticks in 2 s", ticks)
	}
	if len(tr.Players) != 4 {
		t.Errorf("%d players on the server, want 4", len(tr.Players))
	}
	for i := range 4 {
		if ready[i] == 0 {
			t.Errorf("bot %d never drew the match", i)
		}
	}
}
