package main

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/wire"
)

// The own player's movement, written once and run on both sides: the client
// moves its player with it at once (prediction), the server applies the same
// moves when they arrive and corrects the client only when the two disagree.
// Package movement does the rest: saving, sending and acknowledging moves,
// checking them on the server, replaying them after a correction.

// input is what a player asks for in one frame: a direction to walk, each
// axis in 1/127ths. A direction longer than 1 walks at full speed.
type input struct{ X, Z int8 }

// state is a player as the move function moves it.
type state struct {
	Pos geom.Vec3 // metres, on the ground (y = 0)
	Vel geom.Vec3 // metres per second
}

// move is the move function: the player walks along in at playerSpeed for
// dt, kept inside the walls. It must be deterministic: the client and the
// server run it on the same state and input and must get the same result.
func move(s state, in input, dt time.Duration) state {
	dir := geom.V(float64(in.X), 0, float64(in.Z)).Scale(1.0 / 127)
	if l := dir.Len(); l > 1 {
		dir = dir.Scale(1 / l)
	}
	s.Vel = dir.Scale(playerSpeed)
	s.Pos = s.Pos.AddScaled(s.Vel, dt.Seconds())
	s.Pos.X = max(-half, min(half, s.Pos.X))
	s.Pos.Z = max(-half, min(half, s.Pos.Z))
	return s
}

// moves is the movement.Game of both sides: the move function, and how an
// input and a state travel.
type moves struct{}

var _ movement.Game[state, input] = moves{}

func (moves) Move(s state, m *movement.Move[input]) state { return move(s, m.Input, m.Dt) }

func (moves) Pos(s state) geom.Vec3 { return s.Pos }

// Clamp: every input is usable; move caps its length.
func (moves) Clamp(in input) (input, bool) { return in, true }

// Combine: two frames with the same input may travel as one move.
func (moves) Combine(a, b input) bool { return a == b }

// An input travels as two bytes.
func (moves) AppendInput(dst []byte, in input) []byte { return append(dst, byte(in.X), byte(in.Z)) }

func (moves) DecodeInput(in *input, b []byte) (int, error) {
	if len(b) < 2 {
		return 0, movement.ErrTruncated
	}
	in.X, in.Z = int8(b[0]), int8(b[1])
	return 2, nil
}

// A state travels exactly (a correction restores it bit for bit).
func (moves) AppendState(dst []byte, s state) []byte {
	for _, x := range [...]float64{s.Pos.X, s.Pos.Z, s.Vel.X, s.Vel.Z} {
		dst = wire.AppendFloat64(dst, x)
	}
	return dst
}

func (moves) DecodeState(s *state, b []byte) (int, error) {
	r := wire.NewReader(b)
	x, z, vx, vz := r.Float64(), r.Float64(), r.Float64(), r.Float64()
	if err := r.Err(); err != nil {
		return 0, err
	}
	*s = state{Pos: geom.V(x, 0, z), Vel: geom.V(vx, 0, vz)}
	return r.Offset(), nil
}
