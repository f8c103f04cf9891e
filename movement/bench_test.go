package movement

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

// BenchmarkReplay20 measures an adjustment that replays 20 saved moves.
func BenchmarkReplay20(b *testing.B) {
	g := testGame()
	c, _ := NewClient(ClientConfig{}, g, wstate{})
	for i := range 22 {
		now := time.Duration(i) * time.Second / 60
		c.Move(now, now, winput{Dir: geom.V(1, 0, float64(i%2))})
	}
	var adj []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		adj = AppendReply(adj[:0], g, &Reply[wstate]{Kind: Adjust, Seq: 1, ID: uint32(i + 1), State: wstate{Pos: geom.V(0.1, 0, 0)}})
		c.fix = uint32(i) // keep the numbering fresh without forgetting moves
		if err := c.HandleReply(adj, time.Second); err != nil {
			b.Fatal(err)
		}
		c.n = 21
		c.head = (c.head - 1 + len(c.ring)) % len(c.ring)
	}
}
