package arena

import (
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/measure"
)

// A Meter judges each hitscan shot the server judged against what its own
// client claimed, by shooter and move: with the rewind it agrees, without
// it (Present) it does not; shots by players no client plays, and claims
// the server never judged, are left out.
func TestMeterShots(t *testing.T) {
	m := NewMeter(MeterConfig{WarmUp: time.Second, Clients: []MeteredClient{{Link: measure.Link{Up: 40 * time.Millisecond, Down: 20 * time.Millisecond}}}})
	g, err := NewClientGame(ClientConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Client(0)
	c.Frame(2*time.Second, &client.Frame{Self: 7, HasSelf: true}, g, false)
	c.Claim(ClientShot{Move: 1, Target: 5}, 3*time.Second)
	c.Claim(ClientShot{Move: 2, Target: 6}, 3*time.Second) // never judged
	c.Claim(ClientShot{Move: 9, Target: 5}, 500*time.Millisecond)
	m.Shot(Shot{Shooter: 7, Move: 1, Target: 5, Present: NoTarget, At: 2900 * time.Millisecond, Arrival: 3050 * time.Millisecond})
	m.Shot(Shot{Shooter: 7, Move: 9, Target: 5, Present: 5}) // fired in the warm-up
	m.Shot(Shot{Shooter: 8, Move: 1, Target: 5, Present: 5}) // a bot no client plays
	h := m.Figures(0).Hits
	if h.Shots != 1 || h.Agree != 1 || h.AgreeNoRewind != 0 || h.RewindMs.Max != 150 {
		t.Errorf("hits %+v, want the one shot after the warm-up, agreeing only with a 150 ms rewind", h)
	}
}
