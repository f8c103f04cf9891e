package movement

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
)

// Replayed is a predicted character's server side whole: the Server that
// applies its client's moves at once and answers them, and a Shown that
// replays the states they leave it in for everyone else (At). The game
// hands it the client's packets (Receive) and takes its replies
// (AppendReply) as a Server's; the state its moves leave it in is
// the Server's (State), and Teleport moves both. Not safe for concurrent
// use.
type Replayed[S, I any] struct {
	*Server[S, I]
	shown *Shown
	state func(prev, s S, dt time.Duration) kinematic.State
	prev  S             // the state the newest move left, or the latest Teleport's
	now   time.Duration // the server time of the call in progress: a packet's arrival, or a reply's
	end   time.Duration // the newest applied move's end (Move.Time), or the time made
}

// NewReplayed returns the server side of one client's character, starting
// from state s at server time now: its Server configured by cfg, and its
// Shown by shown; or an error wrapping ErrConfig (or a
// *timeline.ConfigError). state returns what a move of dt that left the
// character in s, from prev, shows the others: position, velocity, rotation
// and angular velocity (its Time is the move's end, set here). onMove, if
// not nil, is called after every move applied, as the Server's is, once the
// Shown has it.
func NewReplayed[S, I any](cfg ServerConfig, shown ShownConfig, g Game[S, I], s S, now time.Duration,
	state func(prev, s S, dt time.Duration) kinematic.State, onMove func(m *Move[I], s S)) (*Replayed[S, I], error) {
	sh, err := NewShown(shown)
	if err != nil {
		return nil, err
	}
	r := &Replayed[S, I]{shown: sh, state: state, prev: s, now: now, end: now}
	r.Server, err = NewServer(cfg, g, s, func(m *Move[I], s S) {
		st := r.state(r.prev, s, m.Dt)
		st.Time = m.Time
		r.shown.Applied(st, r.now)
		r.prev, r.end = s, m.Time
		if onMove != nil {
			onMove(m, s)
		}
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Receive is Server.Receive: the moves it applies are shown as arrived at
// now.
func (r *Replayed[S, I]) Receive(now time.Duration, b []byte) error {
	r.now = now
	return r.Server.Receive(now, b)
}

// AppendReply is Server.AppendReply: the moves of a held packet it releases
// are shown as arrived at now.
func (r *Replayed[S, I]) AppendReply(dst []byte, now time.Duration) []byte {
	r.now = now
	return r.Server.AppendReply(dst, now)
}

// Teleport sets the character's state at server time now (the game moved
// it: a respawn, a kickoff): the Server sends its client a reset, and the
// Shown shows it there at rest from the newest move's end, not blended into.
func (r *Replayed[S, I]) Teleport(s S, now time.Duration) {
	r.Server.Teleport(s)
	st := r.state(s, s, 0)
	st.Time, st.Vel, st.AngVel = r.end, geom.Vec3{}, geom.Vec3{}
	r.shown.Teleport(st, now)
	r.prev = s
}

// At returns the character to show the others at server time now
// (Shown.At): Frame.Valid is false before the first move applied.
func (r *Replayed[S, I]) At(now time.Duration) timeline.Frame { return r.shown.At(now) }

// End returns the end of the newest move applied (Move.Time), or the time
// the Replayed was made before any.
func (r *Replayed[S, I]) End() time.Duration { return r.end }
