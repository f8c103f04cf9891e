package match_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replicate"
)

// Ten seconds of a match between four bots on a broadband link, in virtual
// time: the server's truth after every tick, every client's frames.
func ExampleNewVirtual() {
	link, _ := netsim.Preset("broadband")
	ticks, frames := 0, 0
	v, err := match.NewVirtual(match.Config{
		Seed: 1, Bots: 4, Link: link,
		OnTick: func(t *soccer.Truth) { ticks++ },
		OnFrame: func(b *match.Bot, f *client.Frame, view *soccer.View) {
			if view.Ready && len(view.Players) == 4 {
				frames++ // a frame drawing the ball and all four players
			}
		},
	})
	if err != nil {
		panic(err)
	}
	v.RunUntil(10 * time.Second)
	var truth soccer.Truth
	v.Truth(&truth)
	fmt.Printf("%d ticks, %d players, frames drawn by the 4 clients: more than 2000: %v\n", ticks, len(truth.Players), frames > 2000)
	// Output: 600 ticks, 4 players, frames drawn by the 4 clients: more than 2000: true
}

// Each bot's client may show the ball its own way (soccer.ClientGame's
// BallMethod): here two re-simulate the match and predict their own kicks,
// drawing the ball at the present, and two interpolate it a little in the
// past (the default).
func ExampleConfig_balls() {
	link, _ := netsim.Preset("broadband")
	balls := []replicate.Method{replicate.MethodResim, replicate.MethodResim, replicate.MethodTether, replicate.MethodTether}
	delay := make([]time.Duration, len(balls)) // of the ball in each bot's newest frame
	v, err := match.NewVirtual(match.Config{
		Seed: 1, Bots: len(balls), Link: link, NoPrediction: true, Balls: balls,
		OnFrame: func(b *match.Bot, f *client.Frame, _ *soccer.View) {
			if e := f.Find(soccer.BallID); e != nil {
				delay[b.Index] = e.Delay
			}
		},
	})
	if err != nil {
		panic(err)
	}
	v.RunUntil(30 * time.Second)
	for _, b := range v.Bots() {
		_, resim := b.Game().ResimStats()
		fmt.Printf("bot %d (%s): re-simulates %v, draws the ball in the past %v\n", b.Index, balls[b.Index], resim, delay[b.Index] > 0)
	}
	// Output:
	// bot 0 (resim): re-simulates true, draws the ball in the past false
	// bot 1 (resim): re-simulates true, draws the ball in the past false
	// bot 2 (tether): re-simulates false, draws the ball in the past true
	// bot 3 (tether): re-simulates false, draws the ball in the past true
}

// A Meter fed from a virtual match's hooks measures every bot as the lab
// does: here two bots on a broadband link, the ball against its truth
// (BallTruth), for 20 s.
func ExampleMeter() {
	link, _ := netsim.Preset("broadband")
	bot := match.MeteredBot{Link: measure.Link{Up: 25 * time.Millisecond, Down: 25 * time.Millisecond}, Predicts: true} // the link's base latencies
	meter, err := match.NewMeter(match.MeterConfig{WarmUp: 2 * time.Second, Bots: []match.MeteredBot{bot, bot}})
	if err != nil {
		panic(err)
	}
	var v *match.Virtual
	v, err = match.NewVirtual(match.Config{Seed: 1, Bots: 2, Link: link,
		OnTick:       func(t *soccer.Truth) { meter.Tick(t, v.Game().Stats().Kicks) },
		OnFrame:      func(b *match.Bot, f *client.Frame, _ *soccer.View) { meter.Frame(b, f) },
		OnMove:       meter.Moved,
		OnCorrection: func(b *match.Bot, c movement.Correction) { meter.Corrected(b, v.Sched.Now(), c) },
	})
	if err != nil {
		panic(err)
	}
	v.RunUntil(20 * time.Second)
	meter.Stop(v.Bots())
	fig := meter.Figures(0, 20*time.Second)
	fmt.Printf("bot 1: %d frames of the ball measured, fidelity p99 under 1 cm: %v, %d other players' samples\n",
		fig.Ball.Frames, fig.Ball.FidelityM.P99 < 0.01, fig.Others.Samples)
	// Output: bot 1: 1081 frames of the ball measured, fidelity p99 under 1 cm: true, 1081 other players' samples
}
