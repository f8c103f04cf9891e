package page

import (
	"context"
	"encoding/json"
	"math"
	"net"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/web"
)

// A Page fed from a match's hooks fills the page's frame: the server's
// players and ball, and each bot's newest view with its figures over the
// last second (the clock within a few milliseconds, the ball drawn behind by
// a render delay); with nobody steering, no player is the person's.
func TestPage(t *testing.T) {
	link, err := netsim.Preset("broadband")
	if err != nil {
		t.Fatal(err)
	}
	meter, err := match.NewMeter(match.MeterConfig{WarmUp: time.Second, Bots: []match.MeteredBot{{}, {}}, KeepBall: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	page := New(meter, []Client{{Name: "a", Link: link}, {Name: "b", Link: link}})
	var v *match.Virtual
	v, err = match.NewVirtual(match.Config{Seed: 1, Bots: 2, Link: link,
		OnTick:  func(tr *soccer.Truth) { meter.Tick(tr, v.Game().Stats().Kicks); page.Tick(tr) },
		OnFrame: func(b *match.Bot, f *client.Frame, view *soccer.View) { page.Frame(b, f, view) }})
	if err != nil {
		t.Fatal(err)
	}
	var f web.Frame
	for _, at := range []time.Duration{3 * time.Second, 4 * time.Second} {
		v.RunUntil(at)
		page.Fill(&f, v.Bots(), at)
	}
	if len(f.Truth.Players) != 2 || len(f.Clients) != 2 || math.Abs(f.ServerTime-4) > 0.02 {
		t.Fatalf("frame at %.3f s: %d players, %d clients", f.ServerTime, len(f.Truth.Players), len(f.Clients))
	}
	for _, c := range f.Clients {
		s := c.Stats
		if len(c.World.Players) != 2 || math.IsNaN(c.World.Ball.Pos[0]) || !(s.ClockErrMs < 5) || !(s.DelayMs > 10 && s.DelayMs < 200) || !(s.BallFidelityM < 1) {
			t.Errorf("%s: %d players, ball %v, figures %+v", c.Name, len(c.World.Players), c.World.Ball.Pos, s)
		}
	}
	if f.Truth.Players[0].Human || f.Truth.Players[1].Human {
		t.Error("a player marked as the person's with nobody steering")
	}
}

// Publish shows a served match's truth on the page with no bots' views:
// a page connected to the hub gets frames with the server's players and
// its time.
func TestPublish(t *testing.T) {
	live, err := match.StartLive(match.Config{Seed: 2, Bots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	hub := web.NewHub()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Serve(ln, func(err error) { t.Errorf("serve: %v", err) })()
	defer Publish(hub, live.Server(), live.Game(), 20*time.Millisecond)()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for frames := 0; frames < 5; {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Type string `json:"type"`
			web.Frame
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != "frame" {
			continue
		}
		frames++
		now := live.Server().Now().Seconds()
		if len(m.Truth.Players) != 2 || len(m.Clients) != 0 || m.ServerTime > now || m.ServerTime < now-1 {
			t.Fatalf("frame at %.3f s (server at %.3f s): %d players, %d clients' views; want the 2 bots' players and no views",
				m.ServerTime, now, len(m.Truth.Players), len(m.Clients))
		}
	}
}
