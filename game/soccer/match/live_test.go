package match

import (
	"crypto/rand"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/transport/udp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestLive runs the server and four bots over real loopback UDP, each through
// a netsim link, for about two seconds, and shuts everything down cleanly. A
// bot's TrueTime of a frame's local time, on a clock 5 s off and drifting,
// is the server's clock at that frame: never later than the server's clock
// read after it, and at least once within 50 µs of it (off by the
// bot's start, it is 130 µs or more).
func TestLive(t *testing.T) {
	link, err := netsim.Preset("broadband")
	if err != nil {
		t.Fatal(err)
	}
	link.Clock = netsim.Clock{OffsetS: 5, DriftPPM: 300}
	var mu sync.Mutex
	ready := map[int]int{} // frames with the whole match drawn, per bot
	ticks := 0
	var live atomic.Pointer[Live]
	lead := map[int]time.Duration{} // least server time after a frame minus its TrueTime, per bot
	l, err := StartLive(Config{Seed: 3, Link: link,
		OnTick: func(tr *soccer.Truth) {
			mu.Lock()
			ticks++
			mu.Unlock()
		},
		OnFrame: func(b *Bot, f *client.Frame, v *soccer.View) {
			mu.Lock()
			defer mu.Unlock()
			if f.Ready && v.Ready && len(v.Players) == 4 {
				ready[b.Index]++
			}
			if l := live.Load(); l != nil {
				d := l.Server().Now() - b.TrueTime(f.Local)
				if was, ok := lead[b.Index]; !ok || d < was {
					lead[b.Index] = d
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	live.Store(l)
	time.Sleep(2 * time.Second)
	var tr soccer.Truth
	l.Truth(&tr)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("ticks %d, frames with the match drawn %v, truth at %v: %d players; least lead of the server clock %v", ticks, ready, tr.Time, len(tr.Players), lead)
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
		if d, ok := lead[i]; !ok || d < -10*time.Microsecond || d > 50*time.Microsecond {
			t.Errorf("bot %d: the server's clock after a frame minus the frame's TrueTime is at least %v, want 0 to 50 µs", i, d)
		}
	}
}

// TestDial connects one more bot to a Live match's server with a connect
// token, as tether bot does: it connects, draws the match with itself in it,
// and its client predicts nothing when told not to.
func TestDial(t *testing.T) {
	l, err := StartLive(Config{Seed: 5, Bots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tok, err := netcode.NewConnectToken(rand.Reader, &l.key, netcode.TokenParams{
		ProtocolID: ProtocolID, ClientID: 99, ServerAddresses: []netip.AddrPort{l.addr}, Now: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	drawn := make(chan bool, 1)
	b, err := Dial(conn, tok, Config{Seed: 7, NoPrediction: true, OnFrame: func(b *Bot, f *client.Frame, v *soccer.View) {
		if f.Ready && f.HasSelf && len(v.Players) == 2 {
			select {
			case drawn <- b.Game().Own() == nil:
			default:
			}
		}
	}}, udp.ClientConfig{Netcode: netcode.ClientConfig{ProtocolID: ProtocolID}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Driver().Close()
	select {
	case unpredicted := <-drawn:
		if !unpredicted {
			t.Error("the client predicts its own player with NoPrediction")
		}
	case <-b.Driver().Done():
		t.Fatalf("connection ended: %v", b.Driver().Transport().State())
	case <-time.After(10 * time.Second):
		t.Fatal("no frame with both players drawn within 10 s")
	}
}
