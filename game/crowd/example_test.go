package crowd_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/game/crowd"
	"github.com/tether-net/tether/netsim"
)

// A thousand spheres stirred by kicks, watched for ten seconds of virtual
// time by one client over an emulated broadband link, its snapshots held
// to 460 bytes: what it cost and how faithfully the client drew them.
func Example() {
	link, _ := netsim.Preset("broadband")
	v, err := crowd.NewVirtual(crowd.VirtualConfig{Links: []netsim.LinkConfig{link}, Seed: 1, Budget: 460})
	if err != nil {
		panic(err)
	}
	v.RunUntil(10 * time.Second)
	f := v.Figures(0)
	fmt.Printf("%d spheres kicked; at most %.0f kbps on the wire: %v\n", v.Game().Stats().Kicks, 256.0, f.Net.DownKbps <= 256)
	fmt.Printf("a sphere at rest costs %.2f bits\n", f.RestBits)
	fmt.Printf("every sphere drawn within %.0f cm of the truth at the 99th percentile: %v\n", 5.0, f.FidelityM.P99 <= 0.05)
	// Output:
	// 76 spheres kicked; at most 256 kbps on the wire: true
	// a sphere at rest costs 0.02 bits
	// every sphere drawn within 5 cm of the truth at the 99th percentile: true
}

// The server side of a crowd, as a server.Game: it steps the spheres and
// encodes each client's snapshot against that client's baseline.
func ExampleNewGame() {
	g, err := crowd.NewGame(crowd.Config{Bodies: 100, Seed: 7})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d spheres in an arena %.1f m square\n", g.Config().Bodies, 2*crowd.HalfSize(g.Config().Bodies))
	// Output:
	// 100 spheres in an arena 14.0 m square
}
