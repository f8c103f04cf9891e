package arena

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/wire"
)

// Decoding errors, the wire package's; test with errors.Is.
var (
	ErrTruncated = wire.ErrTruncated
	ErrMalformed = wire.ErrMalformed
)

// Weapon is what a trigger pull fires.
type Weapon uint8

// The weapons.
const (
	NoWeapon Weapon = iota
	// Projectile fires a projectile at ProjectileSpeed: the server spawns it
	// as a timestamped event, which every client draws as far along as its
	// age.
	Projectile
	// Hitscan hits at once along the aim, as the server judges after
	// rewinding the other players to what the shooter saw.
	Hitscan
	numWeapons
)

// Input is what a player asks for in one frame: a direction to run (x and z
// of Dir, length at most 1), an aim angle (see AimDir), and a weapon to fire
// at this frame, or NoWeapon. Fire is set in one frame per trigger pull.
type Input struct {
	Dir  geom.Vec3
	Aim  float64
	Fire Weapon
}

// PlayerState is a player's character as the shared move function moves it:
// package movement predicts it on the player's client and the server applies
// the same moves.
type PlayerState struct {
	Pos geom.Vec3 // metres, y = 0
	Vel geom.Vec3 // metres per second
	Aim float64   // radians, see AimDir
	// ProjReady and HitscanReady are the server times each weapon can fire
	// again.
	ProjReady, HitscanReady time.Duration
	// Fired is the weapon the move that led to this state fired, if any:
	// from Pos, along Aim, at the move's end.
	Fired Weapon
}

// Step is the shared move function: the player runs at RunSpeed along
// in.Dir for dt, kept inside the walls and out of the pillars (players pass
// through each other), turns to in.Aim, and fires in.Fire at the move's end,
// time end, if that weapon is ready then.
func Step(s PlayerState, in Input, end, dt time.Duration) PlayerState {
	s.Vel = geom.V(in.Dir.X, 0, in.Dir.Z).Scale(RunSpeed)
	s.Pos = clampToArena(s.Pos.AddScaled(s.Vel, dt.Seconds()), PlayerRadius)
	s.Aim = in.Aim
	s.Fired = NoWeapon
	switch {
	case in.Fire == Projectile && end >= s.ProjReady:
		s.Fired, s.ProjReady = Projectile, end+ProjectileCooldown
	case in.Fire == Hitscan && end >= s.HitscanReady:
		s.Fired, s.HitscanReady = Hitscan, end+HitscanCooldown
	}
	return s
}

// moves is the movement.Game of both sides.
type moves struct{}

var _ movement.Game[PlayerState, Input] = moves{}

func (moves) Move(s PlayerState, m *movement.Move[Input]) PlayerState {
	return Step(s, m.Input, m.Time, m.Dt)
}

func (moves) Pos(s PlayerState) geom.Vec3 { return s.Pos }

// Clamp shortens a direction longer than 1, wraps the aim, and refuses NaN,
// Inf and unknown weapons.
func (moves) Clamp(in Input) (Input, bool) {
	if !in.Dir.IsFinite() || math.IsNaN(in.Aim) || math.IsInf(in.Aim, 0) || in.Fire >= numWeapons {
		return Input{}, false
	}
	in.Dir.Y = 0
	if l := in.Dir.Len(); l > 1 {
		in.Dir = in.Dir.Scale(1 / l)
	}
	return in, true
}

// Combine: the same input, and no shot in either (a shot ends its move, so
// that server and client fire at the same instant).
func (moves) Combine(a, b Input) bool { return a == b && a.Fire == NoWeapon }

// inputSize is an Input's encoding: dir x and z in 1/127ths (int8 each),
// the aim in 1/65536ths of a turn (uint16), the weapon (a byte).
const inputSize = 5

// AppendInput appends the encoding of in (quantised: see inputSize).
func AppendInput(dst []byte, in Input) []byte {
	q := func(x float64) byte { return byte(int8(math.Round(max(-1, min(1, x)) * 127))) }
	dst = append(dst, q(in.Dir.X), q(in.Dir.Z))
	dst = binary.LittleEndian.AppendUint16(dst, aimTurns(in.Aim))
	return append(dst, byte(in.Fire))
}

// aimTurns returns an aim angle in 1/65536ths of a turn; aimOf reads it.
func aimTurns(aim float64) uint16 {
	turn := math.Mod(aim/(2*math.Pi), 1)
	if turn < 0 {
		turn++
	}
	if math.IsNaN(turn) {
		return 0
	}
	return uint16(int(math.Round(turn*65536)) & 0xffff)
}

func aimOf(t uint16) float64 { return float64(t) / 65536 * 2 * math.Pi }

// DecodeInput decodes an Input from the start of b and returns the bytes it
// took.
func DecodeInput(in *Input, b []byte) (int, error) {
	if len(b) < inputSize {
		return 0, ErrTruncated
	}
	if Weapon(b[4]) >= numWeapons || b[0] == 0x80 || b[1] == 0x80 { // -128 is not a quantised direction
		return 0, ErrMalformed
	}
	in.Dir = geom.V(float64(int8(b[0]))/127, 0, float64(int8(b[1]))/127)
	in.Aim = aimOf(binary.LittleEndian.Uint16(b[2:]))
	in.Fire = Weapon(b[4])
	return inputSize, nil
}

func (moves) AppendInput(dst []byte, in Input) []byte { return AppendInput(dst, in) }

func (moves) DecodeInput(in *Input, b []byte) (int, error) { return DecodeInput(in, b) }

// AppendState appends s exactly: x, z, vx, vz and aim as float64s, the two
// ready times in wire.TimeUnits, the weapon fired.
func (moves) AppendState(dst []byte, s PlayerState) []byte {
	for _, x := range [...]float64{s.Pos.X, s.Pos.Z, s.Vel.X, s.Vel.Z, s.Aim} {
		dst = wire.AppendFloat64(dst, x)
	}
	dst = wire.AppendTime(dst, s.ProjReady)
	dst = wire.AppendTime(dst, s.HitscanReady)
	return append(dst, byte(s.Fired))
}

func (moves) DecodeState(s *PlayerState, b []byte) (int, error) {
	r := wire.NewReader(b)
	x, z, vx, vz, aim := r.Float64(), r.Float64(), r.Float64(), r.Float64(), r.Float64()
	proj, hit := r.Time(), r.Time()
	fired := Weapon(r.Byte())
	if err := r.Err(); err != nil {
		return 0, err
	}
	if fired >= numWeapons {
		return 0, ErrMalformed
	}
	*s = PlayerState{Pos: geom.V(x, 0, z), Vel: geom.V(vx, 0, vz), Aim: aim, ProjReady: proj, HitscanReady: hit, Fired: fired}
	return r.Offset(), nil
}
