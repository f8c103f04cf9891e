package crowd

import (
	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/timeline"
)

// ClientGame is the client side of the crowd (client.Game and
// client.Replicated): the layer decodes every snapshot into the spheres it
// refreshes (not those the server's budget left out), which the client
// draws by snapshot interpolation on their timelines (package timeline) at
// the one render clock. The zero value is ready to use.
type ClientGame struct {
	// Timelines configures every sphere's timeline; its zero value is
	// timeline's defaults, but Capacity, 0 meaning 32 states (half a second
	// at 60 Hz).
	Timelines timeline.Config
	// Render configures the render clock (the render delay fields of a
	// timeline.Config); the zero value is timeline's defaults.
	Render timeline.Config
}

// Schema implements client.Replicated.
func (g *ClientGame) Schema() *replica.Schema { return Schema }

// Timeline implements client.Game.
func (g *ClientGame) Timeline(uint8) timeline.Config {
	c := g.Timelines
	if c.Capacity == 0 {
		c.Capacity = 32
	}
	return c
}

// RenderClock implements client.Game.
func (g *ClientGame) RenderClock() timeline.Config { return g.Render }

var (
	_ client.Game       = (*ClientGame)(nil)
	_ client.Replicated = (*ClientGame)(nil)
)
