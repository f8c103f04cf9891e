package movement

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// TestReplayed: the moves a Replayed applies reach its Shown, each with the
// state before it and its length, before the game's hook sees them; At
// replays them behind the newest; End follows the newest move; Teleport
// resets the client and shows the new state at rest at once.
func TestReplayed(t *testing.T) {
	const made = 5 * time.Millisecond
	var calls, hooked int
	var prevOK bool
	var last wstate
	state := func(prev, s wstate, dt time.Duration) kinematic.State {
		if dt > 0 {
			calls++
			prevOK = prev == last
			last = s
		}
		return kinematic.State{Pos: s.Pos, Vel: s.Vel, AngVel: geom.V(0, 1, 0)}
	}
	var r *Replayed[wstate, winput]
	r, err := NewReplayed(ServerConfig{}, ShownConfig{}, &walker{}, wstate{}, made, state, func(m *Move[winput], s wstate) {
		hooked++
		if r.End() != m.Time || r.State() != s {
			t.Errorf("the hook saw End %v and state %v, want %v and %v", r.End(), r.State(), m.Time, s)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.At(made).Valid || r.End() != made {
		t.Fatalf("before any move: At valid %v, End %v; want invalid, %v", r.At(made).Valid, r.End(), made)
	}
	c, err := NewClient(ClientConfig{}, &walker{}, wstate{})
	if err != nil {
		t.Fatal(err)
	}
	const frame = time.Second / 60
	var now time.Duration
	for range 60 {
		now += frame
		c.Move(now, now, winput{Dir: geom.V(1, 0, 0)})
		if b, ok := c.AppendPacket(nil, now); ok {
			if err := r.Receive(now+20*time.Millisecond, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	at := now + 20*time.Millisecond
	fr := r.At(at)
	switch {
	case calls == 0 || calls != hooked || !prevOK:
		t.Errorf("%d moves shown, %d hooked, prev the state before: %v", calls, hooked, prevOK)
	case r.End() != r.Time():
		t.Errorf("End %v, want the newest move's %v", r.End(), r.Time())
	case !fr.Valid || fr.Pos.X <= 0 || fr.Pos.X >= r.State().Pos.X || fr.AngVel.Y != 1:
		t.Errorf("shown at %v, want between the start and the newest state %v, turning", fr.Pos, r.State().Pos)
	}
	to := wstate{Pos: geom.V(-3, 0, 2), Vel: geom.V(5, 0, 0)}
	r.Teleport(to, at)
	if fr := r.At(at + frame); r.State() != to || !r.Resetting() || fr.Pos != to.Pos || fr.Vel != (geom.Vec3{}) || fr.AngVel != (geom.Vec3{}) {
		t.Errorf("after Teleport: state %v, resetting %v, shown %v moving %v %v; want %v at rest", r.State(), r.Resetting(), fr.Pos, fr.Vel, fr.AngVel, to)
	}
}

// TestReplayedConfig: a bad Server or Shown configuration is refused.
func TestReplayedConfig(t *testing.T) {
	state := func(_, s wstate, _ time.Duration) kinematic.State { return kinematic.State{Pos: s.Pos} }
	if _, err := NewReplayed(ServerConfig{MaxError: -1}, ShownConfig{}, &walker{}, wstate{}, 0, state, nil); err == nil {
		t.Error("a negative MaxError was accepted")
	}
	if _, err := NewReplayed(ServerConfig{}, ShownConfig{MaxDelay: -1}, &walker{}, wstate{}, 0, state, nil); err == nil {
		t.Error("a negative MaxDelay was accepted")
	}
}
