package main

import (
	"strings"
	"testing"
	"time"
)

// The program's core, for two seconds with four bots over UDP on loopback:
// every client connects, draws the coins, predicts its own player and
// moves bytes both ways.
func TestPlay(t *testing.T) {
	r, err := play(options{bots: 4, duration: 2 * time.Second, addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.write(&out)
	t.Log("\n" + out.String())
	for i, c := range r.clients {
		switch {
		case !c.connected:
			t.Errorf("client %d did not connect", i+1)
		case c.coins == 0:
			t.Errorf("client %d drew no coin", i+1)
		case c.predicted == 0:
			t.Errorf("client %d never drew its own player predicted (%d frames drew it)", i+1, c.frames)
		case c.wire.BytesIn == 0 || c.wire.BytesOut == 0:
			t.Errorf("client %d: %d bytes in, %d out", i+1, c.wire.BytesIn, c.wire.BytesOut)
		}
	}
	if r.replica.Snapshots == 0 || r.replica.KindBits[kindCoin] == 0 {
		t.Errorf("the server's layer encoded %d snapshots, %.0f bits of coins", r.replica.Snapshots, r.replica.KindBits[kindCoin])
	}
}

// A bad flag is a clear error.
func TestPlayBots(t *testing.T) {
	for _, n := range []int{0, maxPlayers + 1} {
		if _, err := play(options{bots: n, duration: time.Millisecond, addr: "127.0.0.1:0"}); err == nil {
			t.Errorf("%d bots: no error", n)
		}
	}
}
