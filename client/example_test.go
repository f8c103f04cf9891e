package client_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/server"
)

// A server core and a client core joined by a perfect, instant link: after
// a second the client draws the ball and the two players.
func Example() {
	rules := soccer.DefaultRules()
	game, _ := soccer.NewGame(rules, 60)
	srv, _ := server.New(server.Config{}, game)
	c, _ := client.New(client.Config{}, soccer.NewClientGame(rules))
	_ = srv.Connect(0, 0)
	_ = srv.Connect(0, 1) // a second client, whose packets are dropped here
	c.Connected(0)
	deliver := func(now time.Duration) {
		for {
			slot, p, ok := srv.Transmit()
			if !ok {
				return
			}
			if slot == 0 {
				_ = c.Receive(now, p)
			}
		}
	}
	deliver(0)
	var f *client.Frame
	for now := time.Duration(0); now <= time.Second; now += time.Second / 60 {
		srv.Tick(now)
		deliver(now)
		f = c.Frame(now) // the client's clock reads server time here
		c.SetInput(soccer.AppendInput(nil, soccer.Input{}))
		c.Update(now)
		for {
			p, ok := c.Transmit()
			if !ok {
				break
			}
			_ = srv.Receive(now, 0, p)
			deliver(now)
		}
	}
	fmt.Printf("ready %v, self %d, %d entities\n", f.Ready, f.Self, len(f.Entities))
	// Output: ready true, self 1, 3 entities
}
