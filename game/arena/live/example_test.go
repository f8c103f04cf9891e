package live_test

import (
	"fmt"

	"github.com/tether-net/tether/game/arena/live"
	"github.com/tether-net/tether/web"
)

// Start runs an arena of two bots over loopback UDP (no emulated delay
// here); Frame is what a web.Hub publishes to the page, and Steer would
// hand bot 0 to the hub's inputs.
func ExampleStart() {
	m, err := live.Start(live.Config{Bots: 2, LinkName: "none"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	p := live.Pitch()
	fmt.Printf("an arena of %g × %g m with %d pillars\n", p.Length, p.Width, len(p.Pillars))
	var f web.Frame
	m.Frame(&f)
	fmt.Println(len(f.Clients), "clients:", f.Clients[0].Name, f.Clients[1].Name)
	// Output:
	// an arena of 40 × 24 m with 5 pillars
	// 2 clients: bot-1 bot-2
}
