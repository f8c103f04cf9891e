package movement

import (
	"errors"
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/wire"
)

// Move is one saved move: an input held over a span of the client's time.
type Move[I any] struct {
	// Seq numbers the client's moves: 1 for its first, one more for each
	// next. A combined move keeps one number.
	Seq uint32
	// Time is when the move ends, in the client's estimate of server time,
	// in whole wire.TimeUnits. Dt is its length: it starts where the
	// previous move ended.
	Time time.Duration
	Dt   time.Duration
	// View is the server time the client was showing when it made the move:
	// the world the move met (the other characters where they were drawn)
	// is the world at View, which the server can look up.
	View  time.Duration
	Input I
}

// Game is a game's side of character movement: the shared deterministic move
// function, and how a state and an input travel. The client and the server
// each hold one; their Move must give bit-identical results for the same
// state and move.
type Game[S, I any] interface {
	// Move advances s over m (m.Dt ≥ 0) and returns the new state. It must be
	// a pure function of s, m and the world at m.View as the game knows it:
	// the client from what it drew, the server from its record of what it
	// sent.
	Move(s S, m *Move[I]) S
	// Pos returns the character's position in s, metres: what the server
	// compares and the client smooths.
	Pos(s S) geom.Vec3
	// Clamp brings every magnitude of in within range (a direction longer
	// than 1, a power above 1) and reports false if in cannot be used at
	// all (NaN, Inf).
	Clamp(in I) (I, bool)
	// Combine reports whether a move with input b may extend the move just
	// before it, with input a, into one move with a's input without changing
	// what either would do.
	Combine(a, b I) bool
	// AppendInput and DecodeInput carry an input, in 1 to 255 bytes;
	// DecodeInput returns the bytes it took, or an error for bad bytes. The
	// client simulates the input as it decodes, so that both sides simulate
	// the same thing: it decodes into a copy of the input it made, so
	// DecodeInput must set the fields the encoding carries and leave the
	// others (what only the client knows of the move) as they are; the
	// server decodes into a zero input.
	AppendInput(dst []byte, in I) []byte
	DecodeInput(in *I, b []byte) (int, error)
	// AppendState and DecodeState carry a state exactly (an adjustment
	// restores it bit for bit).
	AppendState(dst []byte, s S) []byte
	DecodeState(s *S, b []byte) (int, error)
}

// Decoding errors, the wire package's; test with errors.Is.
var (
	ErrTruncated = wire.ErrTruncated
	ErrMalformed = wire.ErrMalformed
)

// ErrConfig is wrapped by the error NewClient and NewServer return for a
// Config field out of range; the message names it.
var ErrConfig = errors.New("tether/movement: invalid config")

func configErr(field string, v any, want string) error {
	return fmt.Errorf("%w: %s = %v, want %s", ErrConfig, field, v, want)
}

// DefaultMaxMoveDelta is the longest a move may be unless configured.
const DefaultMaxMoveDelta = 125 * time.Millisecond

// MaxPacketMoves is the most moves one packet carries.
const MaxPacketMoves = 64

// fillDelta applies the default of MaxMoveDelta and checks its range.
func fillDelta(d *time.Duration) error {
	if *d == 0 {
		*d = DefaultMaxMoveDelta
	}
	if *d < time.Millisecond || *d > time.Second {
		return configErr("MaxMoveDelta", *d, "1ms to 1s")
	}
	return nil
}
