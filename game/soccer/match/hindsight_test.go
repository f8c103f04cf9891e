package match

import (
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
)

// A bot's pops, counted in hindsight against the ball states it received
// (HindsightMeter), estimate the pops the server's truth gives for the same
// frames (a measure.BallMeter against BallTruth), in virtual matches of 4
// bots, seeds 1-3 pooled: measured 2 for 0 (broadband), 54 for 54 (wan), 33
// for 30 (mobile), 47 for 36 (lossy). The test holds them within 30 % and 5
// pops of the truth's.
func TestHindsightAgainstTruth(t *testing.T) {
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
		est, truth := 0, 0
		for seed := uint64(1); seed <= 3; seed++ {
			meters := make([]*HindsightMeter, bots)
			truths := make([]measure.BallMeter, bots)
			for i := range meters {
				meters[i] = NewHindsightMeter(soccer.Rules{}, time.Second)
				truths[i] = measure.BallMeter{WarmUp: time.Second, Blackouts: spans}
			}
			var ball *BallTruth
			var v *Virtual
			v, err = NewVirtual(Config{Seed: seed, Bots: bots, Link: link,
				OnTick: func(t *soccer.Truth) {
					if ball == nil {
						if ball, err = NewBallTruth(soccer.Rules{}, 60, t); err != nil {
							panic(err)
						}
						return
					}
					ball.Tick(t)
				},
				OnSnapshot: func(b *Bot, _ time.Duration, s *client.Snapshot) { meters[b.Index].Snapshot(s) },
				OnFrame: func(b *Bot, f *client.Frame, _ *soccer.View) {
					meters[b.Index].Frame(f)
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
			for i, m := range meters {
				est += m.Figures().Ball.Pops
				truth += truths[i].Metrics(&ball.Truth).Pops
			}
		}
		t.Logf("%s: the bots count %d pops in hindsight, the truth %d", name, est, truth)
		if d := float64(est - truth); d > 0.3*float64(truth)+5 || -d > 0.3*float64(truth)+5 {
			t.Errorf("%s: %d pops in hindsight, the truth's %d", name, est, truth)
		}
	}
}
