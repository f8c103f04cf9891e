package client

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/protocol"
)

// predictGame is testGame predicting entity 1: drawn at x = 100 + the number
// of frames predicted, its packets the frame count, its replies counted.
type predictGame struct {
	testGame
	frames  int
	inputs  []string
	replies []string
	now     time.Duration
}

func (g *predictGame) Predict(now time.Duration, input []byte, f *Frame) (Entity, bool) {
	g.frames++
	g.now = now
	g.inputs = append(g.inputs, string(input))
	return Entity{Pos: geom.V(100+float64(g.frames), 0, 0), Cut: g.frames == 1}, true
}

func (g *predictGame) AppendInput(dst []byte, now time.Duration) ([]byte, bool, bool) {
	return append(dst, byte(g.frames)), g.frames%2 == 0, true
}

func (g *predictGame) Reply(b []byte, now time.Duration) error {
	g.replies = append(g.replies, string(b))
	return nil
}

// TestPredictor: a game that predicts draws its own entity at the present
// with the input set before the frame, attached entities stay with the
// entity's timeline, Update sends the game's bytes when it says so, as a
// Moves message, and Reply messages go to the game.
func TestPredictor(t *testing.T) {
	g := &predictGame{}
	c, err := New(Config{}, g)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	r.c = c
	c.Connected(0)
	var last *Frame
	r.run(time.Second, func(t time.Duration) ([]ent, bool) {
		c.SetInput([]byte("in"))
		return []ent{{id: 1, kind: 1, x: 3}, {id: 2, kind: 0, parent: 2, x: 5}}, every30Hz(t)
	}, func(f *Frame) { last = f })
	self, ball := last.Find(1), last.Find(2)
	if self == nil || ball == nil || !self.Predicted || self.Delay != 0 || self.RenderTime != last.Server || self.Pos.X != 100+float64(g.frames) {
		t.Fatalf("own entity %+v", self)
	}
	if ball.Parent != 1 || ball.Pos.X < 3 || ball.Pos.X > 4 {
		t.Fatalf("attached entity drawn at %+v, want by the timeline's own entity", ball)
	}
	if g.frames == 0 || g.inputs[len(g.inputs)-1] != "in" {
		t.Fatalf("%d frames predicted, inputs %q", g.frames, g.inputs)
	}
	// Before the clock was ready the raw input went every frame; since, the
	// game's bytes every other frame, as it says.
	if st, before := c.Stats(), 60-g.frames; st.Inputs == 0 || st.Inputs > uint64(before+g.frames/2+1) {
		t.Fatalf("%d inputs sent for %d frames predicted of 60", st.Inputs, g.frames)
	}
	if len(r.inputs) == 0 || len(r.moves) == 0 || uint64(len(r.inputs)+len(r.moves)) != c.Stats().Inputs {
		t.Fatalf("%d plain inputs and %d moves received, %d sent", len(r.inputs), len(r.moves), c.Stats().Inputs)
	}
	for _, in := range r.inputs {
		if in != "in" {
			t.Fatalf("plain input %q, want SetInput's", in)
		}
	}
	for _, m := range r.moves {
		if len(m) != 1 || m[0]%2 != 0 {
			t.Fatalf("moves %q, want the game's bytes (an even frame count)", m)
		}
	}
	r.srv.SendUnreliable(append(protocol.AppendReply(nil), "ack"...))
	r.flush()
	if len(g.replies) != 1 || g.replies[0] != "ack" || c.Stats().Replies != 1 {
		t.Fatalf("replies %q", g.replies)
	}
}
