package measure

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/tether-net/tether/geom"
)

// Received is a state of a body that a client received: the server time it
// is of, its position and velocity, its teleport generation, and whether it
// came as a cut (a teleport or a jump) or a knot (the state leaving a
// contact). Sent is the server time of the snapshot that brought it, when
// that is later than T (a knot sent again in later snapshots, a state made
// as of an earlier tick); zero means T. Held marks a state of a body carried
// by another (a ball in possession), which a client draws in its carrier's
// frame: Carrier names the carrier (any number, the same for one carrier)
// and Holder is the carrier's pose at T and the body's place in its frame.
type Received struct {
	T         time.Duration
	Pos, Vel  geom.Vec3
	Gen       uint8
	Cut, Knot bool
	Sent      time.Duration
	Held      bool
	Carrier   uint32
	Holder    Attachment
}

// HindsightGap is how far apart two received states may be for the
// hindsight curve to join them; further apart (lost snapshots), the curve
// between them is unknown.
const HindsightGap = 250 * time.Millisecond

// Hindsight is a client's truth in hindsight, for a client that cannot know
// the server's (tether bot): every state of a body it received, in any
// order, joined as a Truth joins the server's ticks, with gravity g: what the
// client would have drawn had every state that arrived come in time. Between
// two states held by the same carrier the body moves in the carrier's frame
// (Sample.Attached, from the first state's Holder to the second's: the
// caller gives held states as densely as the carrier's motion needs);
// between others it moves on the cubic through both positions and
// velocities; into a knot it flies from the first state up to where the two
// states' flights pass closest and on the second state's flight after it.
// Of two states of the same time it keeps a knot over a regular one, else
// the later received. Where the curve is unknown (before the first state,
// after the last, and across gaps over HindsightGap) is returned as spans,
// which a BallMeter takes as the link's blackouts; a gap's span lasts until
// the first state after it was sent (Received.Sent), since no client could
// have drawn that state earlier: a knot made during a blackout and sent once
// it is over does not make the frames before look like jumps.
func Hindsight(g geom.Vec3, states []Received) (*Truth, Spans) {
	out := OneByTime(slices.Clone(states), func(r *Received) (time.Duration, bool) { return r.T, r.Knot })
	tr := &Truth{G: g}
	unknown := Spans{{From: math.MinInt64, To: math.MaxInt64}}
	for i, p := range out {
		smp := Sample{T: p.T, Pos: p.Pos, Vel: p.Vel, VelIn: p.Vel}
		if i == 0 {
			unknown[0].To = p.T
		} else {
			a := &out[i-1]
			smp.Cut = p.Gen != a.Gen || p.Cut
			switch {
			case smp.Cut:
			case p.Held && a.Held && p.Carrier == a.Carrier:
				smp.Attached, smp.Frame = true, [2]Attachment{a.Holder, p.Holder}
			case p.Knot:
				tc := ClosestApproach(a.Pos, a.Vel, p.Pos, p.Vel, (p.T - a.T).Seconds())
				smp.Contact, smp.ContactAt = true, a.T+time.Duration(tc*float64(time.Second))
			}
			if p.T-a.T > HindsightGap {
				unknown = append(unknown, Span{From: a.T, To: max(p.T, p.Sent)})
			}
		}
		tr.Add(smp)
	}
	if n := len(out); n > 0 {
		unknown = append(unknown, Span{From: out[n-1].T, To: math.MaxInt64})
	}
	return tr, unknown
}

// OneByTime sorts states by the time key gives, stably, and keeps one state
// of each time, as a client keeps the states it received: of those of one
// time the last knot (key's second result), else the last one. It works in
// place and returns the states kept.
func OneByTime[S any](states []S, key func(*S) (t time.Duration, knot bool)) []S {
	slices.SortStableFunc(states, func(a, b S) int {
		ta, _ := key(&a)
		tb, _ := key(&b)
		return cmp.Compare(ta, tb)
	})
	out := states[:0]
	for _, s := range states {
		t, knot := key(&s)
		if n := len(out); n > 0 {
			if last, lastKnot := key(&out[n-1]); last == t {
				if !lastKnot || knot {
					out[n-1] = s
				}
				continue
			}
		}
		out = append(out, s)
	}
	return out
}
