package arena_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/netsim"
)

// Four bots play for ten seconds of virtual time over emulated broadband
// links (package harness): the server judges their hitscan shots where
// each shooter saw its target, and their projectiles fly as events that
// every client draws fast-forwarded by their age.
func Example() {
	agree, shots := 0, 0
	seen := map[[2]uint32]uint32{} // (shooter, move) → the client's judgement
	game, err := arena.NewGame(arena.Config{OnShot: func(s arena.Shot) {
		if target, ok := seen[[2]uint32{s.Shooter, s.Move}]; ok {
			shots++
			if target == s.Target {
				agree++
			}
		}
	}})
	if err != nil {
		panic(err)
	}
	rig, err := harness.New(harness.Config{}, game)
	if err != nil {
		panic(err)
	}
	link, _ := netsim.Preset("broadband")
	for i := range 4 {
		bot := arena.NewBot(uint64(i))
		var view *arena.ClientGame
		view, err = arena.NewClientGame(arena.ClientConfig{OnShot: func(s arena.ClientShot) {
			self, _ := rig.Clients()[i].Core().Self()
			seen[[2]uint32{self, s.Move}] = s.Target
		}})
		if err != nil {
			panic(err)
		}
		_, err = rig.Join(0, harness.ClientConfig{Link: link, Seed: uint64(i), Game: view,
			OnFrame: func(c *harness.Client, f *client.Frame) {
				c.Core().SetInput(arena.AppendInput(nil, bot.Input(f)))
			}})
		if err != nil {
			panic(err)
		}
	}
	rig.RunUntil(10 * time.Second)
	st := game.Stats()
	fmt.Printf("%d projectiles fired, %d hit; %d hitscan shots judged in the past, %d hit\n", st.Projectiles, st.ProjectileHits, st.Rewinds, st.ShotHits)
	fmt.Printf("the server agreed with the shooter on %d of %d shots\n", agree, shots)
	// Output:
	// 31 projectiles fired, 7 hit; 30 hitscan shots judged in the past, 13 hit
	// the server agreed with the shooter on 30 of 30 shots
}
