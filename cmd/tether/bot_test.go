package main

import (
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/lab"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
)

// The bot's pops, counted in hindsight against the ball states it received,
// estimate the pops the server's truth gives for the same frames (a
// measure.BallMeter against match.BallTruth), in virtual matches of 4 bots:
// measured 9 for 9 (broadband), 55 for 51 (wan), 6 for 1 (mobile), 19 for 16
// (lossy). The test holds them within 30 % and 5 pops of the truth's.
func TestBotHindsightAgainstTruth(t *testing.T) {
	const bots, played = 4, 60 * time.Second
	for _, name := range []string{"broadband", "wan", "mobile", "lossy"} {
		link, err := netsim.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		var spans measure.Spans
		for _, b := range link.Blackouts {
			at := time.Duration(b.AtS * float64(time.Second))
			spans = append(spans, measure.Span{From: at, To: at + time.Duration(b.LenS*float64(time.Second))})
		}
		meters := make([]*botMeter, bots)
		truths := make([]measure.BallMeter, bots)
		for i := range meters {
			meters[i] = newBotMeter(soccer.DefaultRules())
			truths[i] = measure.BallMeter{WarmUp: botWarmUp, Blackouts: spans}
		}
		var ball *match.BallTruth
		var v *match.Virtual
		v, err = match.NewVirtual(match.Config{Seed: 1, Bots: bots, Link: link,
			OnTick: func(t *soccer.Truth) {
				if ball == nil {
					if ball, err = match.NewBallTruth(soccer.Rules{}, lab.DefaultTickHz, t); err != nil {
						panic(err)
					}
					return
				}
				ball.Tick(t)
			},
			OnSnapshot: func(b *match.Bot, local time.Duration, s *client.Snapshot) { meters[b.Index].snapshot(local, s) },
			OnFrame: func(b *match.Bot, f *client.Frame, _ *soccer.View) {
				meters[b.Index].frame(f)
				d := measure.Drawn{T: v.Sched.Now()}
				if e := f.Find(soccer.BallID); f.Ready && e != nil {
					d.OK, d.Pos, d.RenderTime, d.Cut = true, e.Pos, e.RenderTime, e.Cut
				}
				if ball != nil {
					truths[b.Index].Add(&ball.Truth, d)
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		v.RunUntil(played)
		est, truth := 0, 0
		for i, m := range meters {
			est += m.report(i, played, netcode.ClientStats{}, clockSummary{}).Ball.Pops
			truth += truths[i].Metrics(&ball.Truth).Pops
		}
		t.Logf("%s: the bots count %d pops in hindsight, the truth %d", name, est, truth)
		if d := float64(est - truth); d > 0.3*float64(truth)+5 || -d > 0.3*float64(truth)+5 {
			t.Errorf("%s: %d pops in hindsight, the truth's %d", name, est, truth)
		}
	}
}
