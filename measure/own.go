package measure

import (
	"slices"
	"time"

	"github.com/tether-net/tether/geom"
)

// OwnMeter measures how a client shows its own predicted character
// (OwnMetrics) against the server's path of it: the state after each move
// the server applied, at the move's end by the client's clock, joined
// linearly. A frame is measured as soon as the path reaches past it. Set its
// fields before the first frame.
type OwnMeter struct {
	WarmUp    time.Duration // frames, moves and corrections before it are not measured
	Asym      time.Duration // the link's (up - down base latency)/2, as for ClockMeter
	Up        time.Duration // the link's base latency up
	Blackouts Spans         // the link's blackouts
	Predicted bool          // the client predicts the character

	path      []ownPoint      // the server's moves, less those no frame can still need
	teleports []time.Duration // the ends of the moves teleports followed, less those frames passed
	corr      Series
	applied   []bool          // by move number
	madeAt    []time.Duration // by move number: true time of the frame it was made by

	pending []OwnDrawn // frames waiting for the server's path
	last    OwnDrawn   // the newest frame
	n       int        // frames so far
	wants   []ownWant  // inputs not yet shown

	m       OwnMetrics
	present Series
	delays  Series
	prev    OwnDrawn // the frame before, measured; OK false: none
	prevX   geom.Vec3
}

type ownPoint struct {
	t   time.Duration
	pos geom.Vec3
}

// ownWant is an input waiting to be shown: decided at the frame before
// frame, it shows when the character's render time reaches rt.
type ownWant struct {
	frame int
	rt    time.Duration
}

// OwnDrawn is the own character as one client frame drew it.
type OwnDrawn struct {
	T          time.Duration // true server time of the frame
	Est        time.Duration // the frame's estimate of server time
	OK         bool          // the frame drew the character
	Pos        geom.Vec3
	RenderTime time.Duration
	Predicted  bool // drawn from the client's own moves
	Cut        bool // the first frame after a teleport, drawn as a jump
}

// OwnKeep is how far behind the newest frame the server's path is kept:
// further than any frame's render time of the predicted character lags.
const OwnKeep = 10 * time.Second

// Moved takes the server's state of the character after it applied a move
// ending at t (the client's clock): the path. Moves no later than the
// newest are ignored.
func (o *OwnMeter) Moved(t time.Duration, pos geom.Vec3) {
	if n := len(o.path); n == 0 || o.path[n-1].t < t {
		o.path = append(o.path, ownPoint{t, pos})
		o.measure(false)
	}
}

// Teleported takes a teleport of the character to pos after its newest
// move: frames up to the one that shows it are not measured.
func (o *OwnMeter) Teleported(pos geom.Vec3) {
	if len(o.path) == 0 {
		return
	}
	last := o.path[len(o.path)-1].t
	o.teleports = append(o.teleports, last)
	o.path = append(o.path, ownPoint{last + time.Microsecond, pos})
}

// Applied notes that the server applied the client's move seq.
func (o *OwnMeter) Applied(seq int) {
	for seq >= len(o.applied) {
		o.applied = append(o.applied, false)
	}
	o.applied[seq] = true
}

// Made notes that the client had made its moves up to seq by the frame at
// true time t.
func (o *OwnMeter) Made(seq int, t time.Duration) {
	for len(o.madeAt) <= seq {
		o.madeAt = append(o.madeAt, t)
	}
}

// Corrected takes an adjustment the client applied at true time t: how far
// its prediction after the corrected move was from the server's state,
// metres. (Resets, which a teleport causes, are not corrections.)
func (o *OwnMeter) Corrected(t time.Duration, size float64) {
	if t >= o.WarmUp {
		o.corr.Add(size)
	}
}

// Frame takes the next frame.
func (o *OwnMeter) Frame(d OwnDrawn) {
	o.inputDelay(d)
	o.last = d
	o.n++
	o.pending = append(o.pending, d)
	o.measure(false)
}

// inputDelay measures, from frame f (number o.n), how many frames after the
// one an input was decided at the drawn character first shows it: none when
// it is predicted and drawn at once (the frame's move is made with it);
// otherwise the frames until its render time reaches the input's time plus
// the latency up.
// A predicting client's frames count from its first predicted one.
func (o *OwnMeter) inputDelay(f OwnDrawn) {
	if !f.OK {
		return
	}
	if f.Predicted && o.m.FirstPredictedS == 0 {
		o.m.FirstPredictedS = f.T.Seconds()
	}
	// A predicting client starts up (its clock gets ready, its first moves
	// make the round trip) until its first predicted frame.
	if f.T >= o.WarmUp && o.n > 0 && o.last.OK && (!o.Predicted || o.m.FirstPredictedS > 0) {
		if f.Predicted && f.RenderTime == f.Est {
			o.delays.Add(0)
		} else {
			o.wants = append(o.wants, ownWant{o.n, o.last.Est + o.Up})
		}
	}
	kept := o.wants[:0]
	for _, w := range o.wants {
		if f.RenderTime >= w.rt {
			o.delays.Add(float64(o.n - w.frame))
		} else {
			kept = append(kept, w)
		}
	}
	o.wants = kept
}

// at returns the server's path at time t.
func (o *OwnMeter) at(t time.Duration) (geom.Vec3, bool) {
	i := o.index(t)
	if i == 0 || i == len(o.path) {
		return geom.Vec3{}, false
	}
	a, b := o.path[i-1], o.path[i]
	return a.pos.Lerp(b.pos, float64(t-a.t)/float64(b.t-a.t)), true
}

// index returns the index of the first point of the path at or after t.
func (o *OwnMeter) index(t time.Duration) int {
	i, _ := slices.BinarySearchFunc(o.path, t, func(p ownPoint, t time.Duration) int { return cmpDur(p.t, t) })
	return i
}

// measure measures the frames waiting, in order, as far as the server's
// path reaches past them (all of them once the run is over), and drops the
// path no frame can still need.
func (o *OwnMeter) measure(over bool) {
	n := 0
	for ; n < len(o.pending); n++ {
		f := &o.pending[n]
		need := f.OK && f.T >= o.WarmUp && f.Predicted
		if need && !over && (len(o.path) == 0 || o.path[len(o.path)-1].t <= max(f.T+o.Asym, f.RenderTime, f.Est)) {
			break
		}
		o.measureFrame(f)
	}
	if n == 0 {
		return
	}
	o.pending = o.pending[:copy(o.pending, o.pending[n:])]
	if keep := o.index(o.last.T - OwnKeep); keep > 1 {
		o.path = o.path[:copy(o.path, o.path[keep-1:])]
	}
}

// measureFrame measures the own character as frame f drew it.
func (o *OwnMeter) measureFrame(f *OwnDrawn) {
	if !f.OK || f.T < o.WarmUp || !f.Predicted {
		o.prev.OK = false
		return
	}
	for len(o.teleports) > 0 && f.Est >= o.teleports[0] && f.Cut {
		o.teleports = o.teleports[1:]
	}
	x, ok := o.at(f.T + o.Asym)
	xr, okR := o.at(f.RenderTime)
	if tp := o.teleports; !ok || !okR || o.blackout(f.T) || (len(tp) > 0 && (f.T+o.Asym >= tp[0] || f.RenderTime >= tp[0])) {
		o.prev.OK = false
		return
	}
	o.m.Frames++
	o.present.Add(f.Pos.Dist(x))
	if o.prev.OK && !f.Cut && Pop(o.prev.Pos, f.Pos, o.prevX, xr) {
		o.m.Pops++
	}
	o.prev, o.prevX = *f, xr
}

// blackout reports whether true time t is in a blackout of the link or the
// Recovery after it: the client played a world it could not see.
func (o *OwnMeter) blackout(t time.Duration) bool {
	return o.Blackouts.In(t) || o.Blackouts.After(t, Recovery)
}

// Metrics measures the frames still waiting and returns the figures of a
// run that ended at end.
func (o *OwnMeter) Metrics(end time.Duration) OwnMetrics {
	o.measure(true)
	om := o.m
	om.Predicted = o.Predicted
	om.Corrections = o.corr.Len()
	if span := end - o.WarmUp; span > 0 {
		om.CorrectionsPerMin = Round(float64(om.Corrections) / span.Minutes())
	}
	om.CorrectionM = o.corr.Stat()
	om.PresentM = o.present.Stat()
	om.InputDelayFrames = o.delays.Stat()
	for seq := 1; seq < len(o.madeAt); seq++ {
		t := o.madeAt[seq]
		if t < o.WarmUp || t > end-time.Second || o.blackout(t) {
			continue
		}
		if seq >= len(o.applied) || !o.applied[seq] {
			om.InputsLost++
		}
	}
	return om
}
