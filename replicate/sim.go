package replicate

import (
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
)

// Sim is the client's own simulation of a replicated body, which Velocity
// and Predictive drive: usually the game's client world (the pitch, the
// ball, the players as last known), stepped at the server's fixed tick.
// Anything the game does to the body between frames (a local push) is part
// of it.
type Sim interface {
	// Body returns the body's current state; its Time, Knot and Cut are
	// ignored.
	Body() kinematic.State
	// SetBody replaces the body's state (only Pos, Vel, Rot and AngVel).
	SetBody(b kinematic.State)
	// Step advances the simulation by one tick.
	Step()
	// Predict returns b advanced by ticks steps of the simulation, with the
	// rest of the world as it is now, and leaves the simulation unchanged.
	// The result's Time, Knot and Cut are ignored.
	// It should not allocate: it is called on every tick while a correction
	// is under way.
	Predict(b kinematic.State, ticks int) kinematic.State
}

// WorldSim is a Sim for one body of a physics.World. Predict saves the whole
// world, steps it and restores it, so it costs ticks steps of the world: keep
// the client world small (a one-ball world with the pitch for the ball).
type WorldSim struct {
	w    *physics.World
	id   physics.BodyID
	save []physics.BodyState
}

// NewWorldSim returns a Sim for body id of w. The world's step must equal
// the tick configured in the mode that drives it.
func NewWorldSim(w *physics.World, id physics.BodyID) *WorldSim {
	return &WorldSim{w: w, id: id, save: w.Save(nil)}
}

// World returns the world the Sim steps.
func (s *WorldSim) World() *physics.World { return s.w }

// Body returns the body's state.
func (s *WorldSim) Body() kinematic.State { return s.w.Body(s.id).State(0) }

// SetBody sets the body's state.
func (s *WorldSim) SetBody(b kinematic.State) { s.w.SetBody(s.id, physics.BodyStateOf(b)) }

// Step steps the world.
func (s *WorldSim) Step() { s.w.Step() }

// Predict returns b advanced by ticks steps of the world, which it restores.
func (s *WorldSim) Predict(b kinematic.State, ticks int) kinematic.State {
	if ticks <= 0 {
		return b
	}
	s.save = s.w.Save(s.save)
	s.w.SetBody(s.id, physics.BodyStateOf(b))
	for range ticks {
		s.w.Step()
	}
	out := s.w.Body(s.id).State(0)
	_ = s.w.Restore(s.save) // same world: cannot fail
	return out
}
