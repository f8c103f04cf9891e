package harness_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/drill"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/netsim"
)

// Run the ball drill for ten seconds of virtual time with one client on an
// emulated broadband link, and see where it draws the ball at its last frame.
func Example() {
	game, err := drill.NewGame(1, 60)
	if err != nil {
		panic(err)
	}
	rig, err := harness.New(harness.Config{}, game)
	if err != nil {
		panic(err)
	}
	link, _ := netsim.Preset("broadband")
	view, _ := drill.NewClientGame(drill.ClientConfig{})
	var last client.Entity
	_, err = rig.Join(0, harness.ClientConfig{Link: link, Seed: 1, Game: view, OnFrame: func(_ *harness.Client, f *client.Frame) {
		if e := f.Find(drill.BallID); e != nil {
			last = *e
		}
	}})
	if err != nil {
		panic(err)
	}
	rig.RunUntil(10 * time.Second)
	truth := game.Last().Ball.Pos
	fmt.Printf("drawn %.0f ms behind the server\n", last.Delay.Seconds()*1000)
	fmt.Println("within 3 m of the server's ball now:", last.Pos.Dist(truth) < 3)
	// Output:
	// drawn 54 ms behind the server
	// within 3 m of the server's ball now: true
}
