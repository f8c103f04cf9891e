package movement

import (
	"errors"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

// TestPredicting: before Start it sends no moves and refuses replies; Start
// makes the Client once; then its packets reach a Server and the Server's
// reply comes back through Reply.
func TestPredicting(t *testing.T) {
	var p Predicting[wstate, winput]
	if b, send, predicting := p.AppendInput([]byte{7}, 0); len(b) != 1 || send || predicting {
		t.Fatalf("before Start: AppendInput = %v, %v, %v; want dst, false, false", b, send, predicting)
	}
	if err := p.Reply(nil, 0); !errors.Is(err, ErrNotPredicting) || p.Own() != nil {
		t.Fatalf("before Start: Reply = %v, Own %v; want ErrNotPredicting, nil", err, p.Own())
	}
	if _, err := p.Start(ClientConfig{MaxMoveDelta: -1}, &walker{}, wstate{}); !errors.Is(err, ErrConfig) || p.Own() != nil {
		t.Fatalf("Start with a bad config = %v, Own %v; want ErrConfig, nil", err, p.Own())
	}
	c, err := p.Start(ClientConfig{}, &walker{}, wstate{Pos: geom.V(1, 0, 0)})
	if err != nil || c != p.Own() {
		t.Fatalf("Start = %v, %v", c, err)
	}
	if again, _ := p.Start(ClientConfig{}, &walker{}, wstate{}); again != c || c.State().Pos.X != 1 {
		t.Fatal("a second Start made another Client")
	}
	srv, err := NewServer(ServerConfig{}, &walker{}, wstate{Pos: geom.V(1, 0, 0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var now time.Duration
	for range 2 { // the first frame starts the clock of moves
		now += time.Second / 60
		c.Move(now, now, winput{Dir: geom.V(1, 0, 0)})
	}
	b, send, predicting := p.AppendInput(nil, now)
	if !send || !predicting {
		t.Fatalf("after a move: send %v, predicting %v", send, predicting)
	}
	if err := srv.Receive(now, b); err != nil {
		t.Fatal(err)
	}
	if err := p.Reply(srv.AppendReply(nil, now), now); err != nil || !c.Synced() {
		t.Fatalf("Reply = %v, synced %v: want the server's reset taken", err, c.Synced())
	}
}
