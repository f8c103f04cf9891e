package event

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
	"github.com/tether-net/tether/wire"
)

// Event is something that happened at one instant of server time. Kind, Entity,
// Actor and Arg are the game's to define; for a kick, say, Entity is the ball,
// Actor the kicker and Arg the kind of kick.
type Event struct {
	ID     uint32        // assigned by the server in increasing order; tells duplicates apart
	Kind   uint8         // game-defined
	Time   time.Duration // server time the event happened
	Entity uint32        // the entity it concerns
	Actor  uint32        // the entity that caused it
	Arg    uint32        // game-defined
	// HasState says State is set: the state of Entity leaving the event (a
	// kicked ball's position and velocity just after the kick). State.Time is
	// Time and State.Knot is set. State.Cut is set when the event moved the
	// entity as well (a kick made as of an earlier time and brought to the
	// present): clients draw a jump there, not a curve.
	HasState bool
	State    kinematic.State
}

// MaxSize is the largest encoding of an Event.
const MaxSize = 2 + 5*binary.MaxVarintLen32 + binary.MaxVarintLen64 + wire.MaxStateSize

// Decoding errors; test with errors.Is.
var (
	ErrTruncated = errors.New("tether/event: truncated event")
	ErrMalformed = errors.New("tether/event: malformed event")
)

const (
	flagState = 1 << 0
	flagMask  = flagState
)

// Append appends the encoding of e to b and returns the extended buffer. It does
// not allocate when b has MaxSize bytes of room. The state is quantised as
// wire.AppendState quantises it (millimetres, millimetres per second; no
// Input); its time is the event's.
func Append(b []byte, e Event) []byte {
	flags := byte(0)
	if e.HasState {
		flags |= flagState
	}
	b = append(b, flags, e.Kind)
	b = binary.AppendUvarint(b, uint64(e.ID))
	b = binary.AppendVarint(b, int64(e.Time/wire.TimeUnit))
	b = binary.AppendUvarint(b, uint64(e.Entity))
	b = binary.AppendUvarint(b, uint64(e.Actor))
	b = binary.AppendUvarint(b, uint64(e.Arg))
	if e.HasState {
		s := e.State
		s.Time, s.Knot = e.Time, true
		b = wire.AppendState(b, s)
	}
	return b
}

// Decode decodes an Event from the start of b and returns it with the number of
// bytes it took.
func Decode(b []byte) (Event, int, error) {
	var e Event
	if len(b) < 2 {
		return Event{}, 0, ErrTruncated
	}
	flags := b[0]
	if flags&^flagMask != 0 {
		return Event{}, 0, ErrMalformed
	}
	e.Kind = b[1]
	n := 2
	var err error
	var v uint64
	if v, n, err = uvarint(b, n, math.MaxUint32); err != nil {
		return Event{}, 0, err
	}
	e.ID = uint32(v)
	t, m := binary.Varint(b[n:])
	switch {
	case m == 0:
		return Event{}, 0, ErrTruncated
	case m < 0 || t > math.MaxInt64/int64(wire.TimeUnit) || t < -math.MaxInt64/int64(wire.TimeUnit):
		return Event{}, 0, ErrMalformed
	}
	n += m
	e.Time = time.Duration(t) * wire.TimeUnit
	var f [3]uint64
	for i := range f {
		if f[i], n, err = uvarint(b, n, math.MaxUint32); err != nil {
			return Event{}, 0, err
		}
	}
	e.Entity, e.Actor, e.Arg = uint32(f[0]), uint32(f[1]), uint32(f[2])
	if flags&flagState != 0 {
		s, m, err := wire.DecodeState(b[n:])
		if err != nil {
			if errors.Is(err, wire.ErrTruncated) {
				return Event{}, 0, ErrTruncated
			}
			return Event{}, 0, ErrMalformed
		}
		if s.Time != e.Time {
			return Event{}, 0, ErrMalformed
		}
		n += m
		e.HasState = true
		s.Knot = true
		e.State = s
	}
	return e, n, nil
}

// uvarint reads an unsigned varint at b[n:] no larger than limit.
func uvarint(b []byte, n int, limit uint64) (uint64, int, error) {
	v, m := binary.Uvarint(b[n:])
	switch {
	case m == 0:
		return 0, 0, ErrTruncated
	case m < 0 || v > limit:
		return 0, 0, ErrMalformed
	}
	return v, n + m, nil
}

// Age returns how long ago, at server time now, the event happened: now minus
// its Time, or 0 if that is negative (an event not yet due).
func (e Event) Age(now time.Duration) time.Duration {
	return max(0, now-e.Time)
}

// At returns the event's state fast-forwarded to server time now: the state it
// left its entity in, advanced by its age with motion (a ballistic model for a
// kicked ball, linear for a projectile; nil means timeline.Linear). This is
// "spawn at the message's timestamp and advance by the lag". A now before the
// event gives the state at the event itself. Without a state it returns the
// zero State.
func (e Event) At(now time.Duration, motion timeline.Extrapolator) kinematic.State {
	if !e.HasState {
		return kinematic.State{}
	}
	if motion == nil {
		motion = timeline.Linear
	}
	age := e.Age(now)
	if age == 0 {
		return e.State
	}
	s := motion(e.State, age)
	s.Time = e.Time + age
	s.Knot, s.Cut = false, false
	return s
}
