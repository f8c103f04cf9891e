package measure

import (
	"time"

	"github.com/tether-net/tether/netsim"
)

// Link is what the meters need to know of a client's link.
type Link struct {
	Up, Down time.Duration // the base one-way latency each way
	// Spikes: the link has latency spikes (the mobile preset), so a clock
	// has converged once within 5 ms, not 2 (NewClockMeter).
	Spikes bool
	// Blackouts are the link's blackouts in true time (what they leave
	// out of the figures: BallMeter, OthersMeter, OwnMeter).
	Blackouts Spans
}

// LinkOf returns what the meters need to know of the emulated link l.
func LinkOf(l netsim.LinkConfig) Link {
	up, down := l.Latency()
	ml := Link{Up: up, Down: down, Spikes: l.Spiky()}
	for _, b := range l.Blackouts {
		at := time.Duration(b.AtS * float64(time.Second))
		ml.Blackouts = append(ml.Blackouts, Span{From: at, To: at + time.Duration(b.LenS*float64(time.Second))})
	}
	return ml
}
