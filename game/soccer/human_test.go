package soccer

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

func TestHuman(t *testing.T) {
	var h Human
	v := &View{Ready: true, Now: time.Second, Self: 2, Possessor: NoPlayer, Players: []PlayerView{{ID: 2, Team: Away, Pos: geom.V(-20, 0, 5)}}}
	in := h.Input(Keys{Dir: geom.V(3, 0, 4), Kicks: 5}, v)
	if in.Dir.Dist(geom.V(0.6, 0, 0.8)) > 1e-9 || in.ActionSeq != 0 {
		t.Fatalf("first input %+v", in)
	}
	in = h.Input(Keys{Kicks: 6}, v)
	if in.Action != ActionTackle || in.ActionSeq != 1 {
		t.Fatalf("kick without the ball: %+v", in)
	}
	v.Now += 17 * time.Millisecond
	in = h.Input(Keys{Kicks: 6}, v)
	if in.ActionSeq != 1 || in.ActionAge != 17*time.Millisecond {
		t.Fatalf("a frame later: %+v (a held key acts once; the action is dated to its frame)", in)
	}
	v.Possessor = 2
	in = h.Input(Keys{Kicks: 7}, v)
	if in.Action != ActionShot || in.ActionSeq != 2 || in.Aim.X >= 0 {
		t.Fatalf("kick with the ball: %+v", in)
	}
	in = h.Input(Keys{Kicks: 8, Pass: true, Dir: geom.V(0, 0, 1)}, v)
	if in.Action != ActionPass || in.Aim != geom.V(0, 0, 1) {
		t.Fatalf("pass: %+v", in)
	}
}
