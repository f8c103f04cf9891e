package match_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/netsim"
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
