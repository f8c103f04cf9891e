package movement

import (
	"time"

	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
)

// ShownConfig configures a Shown. The zero value gives the defaults noted.
type ShownConfig struct {
	// LateShare is the share of At calls, over time, that may find no
	// applied move after their time and run the character on past its
	// newest move (package timeline's Config.LateShare); 0 means 0.001: a
	// server ticks on its own clock, not the client's frames, and a tick
	// that runs a character on past a turn shows the others a wrong path.
	// Range [0, 1).
	LateShare float64
	// MaxDelay bounds how far behind its newest move the character is
	// shown; 0 means 300 ms: the moves of an outage, sent again when it
	// ends, are not replayed seconds late, the character jumps to its
	// present moves instead. Range (0, 10 s].
	MaxDelay time.Duration
}

// Shown is a predicted character as the server shows it to everyone but
// its own client: its applied moves replayed through a timeline a little
// behind the newest, so that the bursts its moves arrive in (a late
// packet, then two at once) do not jerk it. Others are sent it, and judged
// against it, from At; its own client is answered from the Server, which
// applies each move at once.
//
// A game feeds it every applied move's resulting state (Server's onMove
// hook), and samples it at its tick. Without it, a character copied from
// the Server's state moves in steps of each packet's moves, and clients
// draw it wobbling by the link's jitter: arena's bots, drawn by the others
// on the wan preset, had a median drawn acceleration of 30 m/s² (90th
// percentile 265) against 10 (27) on a perfect link; shown, 9 (25)
// against 8 (23).
//
// Times are server time; positions metres, velocities metres per second.
// A Shown is not safe for concurrent use; Applied, At and Teleport do not
// allocate.
type Shown struct {
	tl *timeline.Timeline
}

// NewShown returns an empty Shown, or an error wrapping ErrConfig (or a
// *timeline.ConfigError) naming the field of cfg out of range.
func NewShown(cfg ShownConfig) (*Shown, error) {
	if cfg.LateShare == 0 {
		cfg.LateShare = 0.001
	}
	if cfg.MaxDelay == 0 {
		cfg.MaxDelay = 300 * time.Millisecond
	}
	if cfg.MaxDelay < 0 || cfg.MaxDelay > 10*time.Second {
		return nil, configErr("ShownConfig.MaxDelay", cfg.MaxDelay, "(0, 10s]")
	}
	if !(cfg.LateShare > 0 && cfg.LateShare < 1) {
		return nil, configErr("ShownConfig.LateShare", cfg.LateShare, "[0, 1)")
	}
	tl, err := timeline.New(timeline.Config{LateShare: cfg.LateShare, MaxDelay: cfg.MaxDelay})
	if err != nil {
		return nil, err
	}
	return &Shown{tl: tl}, nil
}

// Applied records the state a move left the character in: s.Time is the
// move's end (Move.Time), s its position, velocity, rotation and angular
// velocity then; arrival is the server time the packet that carried the
// move arrived. Moves are applied in order; one applied late (resent after
// an outage) only moves the timeline's delay.
func (s *Shown) Applied(st kinematic.State, arrival time.Duration) { s.tl.Insert(st, arrival) }

// At returns the character to show at server time now: the curve through
// its applied moves at now less the timeline's delay (Frame.Delay, kept
// just long enough that almost every call finds a move after its time, at
// most MaxDelay). Frame.Valid is false before the first Applied;
// Frame.Extrapolated or Frame.Frozen say it ran on past the newest move
// (its moves are late), Frame.Snapped that it jumped (its moves came back
// after an outage too long to blend). now should not decrease.
func (s *Shown) At(now time.Duration) timeline.Frame { return s.tl.Sample(now) }

// Teleport forgets the moves shown so far and shows st from now on, not
// blended into: st.Time should be the end of the newest move applied (the
// moves after the teleport come after it), now the server's time.
func (s *Shown) Teleport(st kinematic.State, now time.Duration) {
	s.tl.Reset()
	st.Cut = true
	s.tl.Insert(st, now)
}
