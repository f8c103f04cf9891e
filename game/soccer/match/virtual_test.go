package match

import (
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/netsim"
)

func TestQuickLook(t *testing.T) {
	link, _ := netsim.Preset("broadband")
	var ballPath []float64
	var last soccer.Truth
	cfg := Config{Seed: 1, Link: link,
		OnTick: func(tr *soccer.Truth) {
			if tr.Tick%60 == 0 {
				ballPath = append(ballPath, tr.Ball.Pos.X)
				t.Logf("t=%v ball=%.1f,%.1f,%.1f v=%.1f poss=%d score=%v", tr.Time, tr.Ball.Pos.X, tr.Ball.Pos.Y, tr.Ball.Pos.Z, tr.Ball.Vel.Len(), int32(tr.Possessor), tr.Score)
			}
			last = *tr
		},
		OnFrame: func(b *Bot, f *client.Frame, v *soccer.View) {
			if b.Index == 0 && b.frames%120 == 0 {
				t.Logf("bot0 frame ready=%v ents=%d delay=%v bound=%v", f.Ready, len(f.Entities), f.Delay, f.Bound)
			}
		},
	}
	v, err := NewVirtual(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(30 * time.Second)
	t.Logf("stats %+v", v.Game().Stats())
	t.Logf("server %+v", v.Server().Stats())
	for _, b := range v.Bots() {
		t.Logf("client %d %+v", b.Index, b.Client().Stats())
	}
	_ = last
}
