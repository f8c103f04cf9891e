package measure

import (
	"time"

	"github.com/tether-net/tether/geom"
)

// Characters is the server's true motion of a game's characters, by slot.
type Characters interface {
	// Position returns where character slot truly was at server time t,
	// and whether it was in play then.
	Position(slot int, t time.Duration) (geom.Vec3, bool)
	// Teleported reports whether character slot was teleported after
	// server time t0 and up to t1, or at most span before t1.
	Teleported(slot int, t0, t1, span time.Duration) bool
}

// OtherDrawn is another character as one client frame drew it.
type OtherDrawn struct {
	Frame int           // the client's frame number
	T     time.Duration // true server time of the frame
	Slot  int           // the character
	Pos   geom.Vec3     // where it was drawn
	// RenderTime is the server time the client claims to show it at; Cut
	// marks the first frame after a teleport, drawn as a jump.
	RenderTime time.Duration
	Cut        bool
}

// OthersMeter measures how a client draws the other characters
// (OthersMetrics), one sample per character per frame. A sample waits until
// the truth reaches its frame's time (Measure). Set its fields before the
// first sample.
type OthersMeter struct {
	WarmUp    time.Duration // frames before it are not measured
	Blackouts Spans         // the link's blackouts

	pending []OtherDrawn
	last    []otherLast // by slot
	present Series
	fid     Series
	pops    int
	samples int
}

// otherLast is a character as the frame before drew it.
type otherLast struct {
	frame    int
	pos, at  geom.Vec3 // drawn, and true at the render time
	rt       time.Duration
	measured bool
}

// Add queues a sample.
func (o *OthersMeter) Add(d OtherDrawn) { o.pending = append(o.pending, d) }

// Measure measures the samples queued of frames up to true time upTo
// against the characters' truth c. The present error and the fidelity are
// on the ground (X and Z); a sample in the TeleportSpan after its character was teleported
// is left out; a pop needs the frame before to have drawn the character, and
// is not counted across a teleport (drawn as one, or in the truth) nor in a
// blackout.
func (o *OthersMeter) Measure(c Characters, upTo time.Duration) {
	n := 0
	for ; n < len(o.pending) && o.pending[n].T <= upTo; n++ {
		s := &o.pending[n]
		now, okNow := c.Position(s.Slot, s.T)
		at, okAt := c.Position(s.Slot, s.RenderTime)
		for s.Slot >= len(o.last) {
			o.last = append(o.last, otherLast{})
		}
		l := &o.last[s.Slot]
		if s.T >= o.WarmUp && okNow && !c.Teleported(s.Slot, s.T, s.T, TeleportSpan) {
			o.samples++
			o.present.Add(geom.V(s.Pos.X-now.X, 0, s.Pos.Z-now.Z).Len())
			if okAt {
				o.fid.Add(geom.V(s.Pos.X-at.X, 0, s.Pos.Z-at.Z).Len())
			}
			if l.measured && l.frame == s.Frame-1 && okAt && !s.Cut && !o.Blackouts.In(s.T) && !o.Blackouts.In(s.RenderTime) &&
				!c.Teleported(s.Slot, l.rt, s.RenderTime, 0) && Pop(l.pos, s.Pos, l.at, at) {
				o.pops++
			}
		}
		*l = otherLast{frame: s.Frame, pos: s.Pos, at: at, rt: s.RenderTime, measured: okAt}
	}
	o.pending = o.pending[:copy(o.pending, o.pending[n:])]
}

// Metrics returns the figures of the samples measured so far.
func (o *OthersMeter) Metrics() OthersMetrics {
	return OthersMetrics{PresentM: o.present.Stat(), FidelityM: o.fid.Stat(), Pops: o.pops, Samples: o.samples}
}
