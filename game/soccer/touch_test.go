package soccer

import (
	"math"
	"testing"

	"github.com/tether-net/tether/geom"
)

// TestTouchAtTheBoards: a ball at rest against a board, nearer it than any
// player may stand, is within touching distance of a player standing as near
// as allowed; on the open pitch the distance is the plain one.
func TestTouchAtTheBoards(t *testing.T) {
	r := DefaultRules()
	lz := r.Pitch.Width/2 + r.Pitch.Margin
	ball := geom.V(10, r.Ball.Radius, lz-r.Ball.Radius)
	p := r.clampPlayer(PlayerState{Pos: geom.V(10, 0, lz)}).Pos
	reach := r.Player.Radius + r.Ball.Radius + r.TouchMargin
	if d := math.Hypot(ball.X-p.X, ball.Z-p.Z); d <= reach {
		t.Fatalf("the test's ball is within plain reach (%.2f m ≤ %.2f m)", d, reach)
	}
	if d := r.TouchDistance(p, ball); d > reach {
		t.Fatalf("a ball against the board is %.2f m from the nearest player, beyond the reach %.2f m", d, reach)
	}
	if d := r.TouchDistance(geom.V(0, 0, 0), geom.V(3, r.Ball.Radius, 4)); math.Abs(d-5) > 1e-12 {
		t.Fatalf("open pitch: %v, want 5", d)
	}
}
