package lab

import (
	"sort"
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
)

// ownRecord is what the lab records of a client's own player. Its frames
// are measured as soon as the server's path reaches them.
type ownRecord struct {
	sc        *soccerClient
	predicted bool
	path      []ownPoint      // the server's moves of the player, less those no frame can still need
	teleports []time.Duration // the ends of the moves teleports followed, less those frames passed
	gen       uint8
	hasGen    bool
	corr      []ownCorrection
	applied   []bool // by move number
	madeAt    []time.Duration

	pending []ownFrame // frames waiting for the server's path
	last    ownFrame   // the newest frame
	n       int        // frames so far
	wants   []ownWant  // inputs not yet shown

	frames          int
	pops            int
	present, delays measure.Series
	prev            ownFrame // the frame before, measured; ok false: none
	prevX           geom.Vec3
}

type ownPoint struct {
	t   time.Duration
	pos geom.Vec3
}

type ownFrame struct {
	t    time.Duration // true time of the frame
	rt   time.Duration // render time of the own player
	est  time.Duration // the frame's estimate of server time
	pos  geom.Vec3
	ok   bool // the own player was drawn
	pred bool
	cut  bool
}

// ownWant is an input waiting to be shown: decided at the frame before
// frame, it shows when the player's render time reaches rt.
type ownWant struct {
	frame int
	rt    time.Duration
}

type ownCorrection struct {
	t time.Duration
	c movement.Correction
}

// ownKeep is how far behind the newest frame the server's path is kept:
// further than any frame's render time of the predicted player lags.
const ownKeep = 10 * time.Second

// ownMoves is the hook the soccer match calls with every move of a
// predicted player the server applies.
func (sm *soccerMatch) ownMove(b *match.Bot, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	o := &sm.clients[b.Index].own
	if n := len(o.path); n == 0 || o.path[n-1].t < m.Time {
		o.path = append(o.path, ownPoint{m.Time, s.Pos})
		o.measure(false)
	}
	for int(m.Seq) >= len(o.applied) {
		o.applied = append(o.applied, false)
	}
	o.applied[m.Seq] = true
}

// ownCorrection is the hook the soccer match calls with every adjustment or
// reset a client applies.
func (sm *soccerMatch) ownCorrection(b *match.Bot, c movement.Correction) {
	o := &sm.clients[b.Index].own
	o.corr = append(o.corr, ownCorrection{sm.now(), c})
}

// ownTick notes the teleports of the client's player in the server's truth.
func (o *ownRecord) tick(tr *soccer.Truth) {
	for _, p := range tr.Players {
		if p.Client != o.sc.bot.Slot() || !p.Predicted {
			continue
		}
		if o.hasGen && p.MovedGen != o.gen && len(o.path) > 0 {
			last := o.path[len(o.path)-1].t
			o.teleports = append(o.teleports, last)
			o.path = append(o.path, ownPoint{last + time.Microsecond, p.Moved.Pos})
		}
		o.gen, o.hasGen = p.MovedGen, true
	}
}

// frame records the own player as frame f at true time now drew it.
func (o *ownRecord) frame(now time.Duration, f *tclient.Frame) {
	fr := ownFrame{t: now, est: f.Server}
	if f.Ready && f.HasSelf {
		if e := f.Find(f.Self); e != nil {
			fr.ok, fr.pos, fr.rt, fr.pred, fr.cut = true, e.Pos, e.RenderTime, e.Predicted, e.Cut
		}
	}
	o.inputDelay(fr)
	o.last = fr
	o.n++
	o.pending = append(o.pending, fr)
	o.measure(false)
	if g := o.sc.bot.Game(); g != nil && g.Own() != nil {
		seq := int(g.Own().Seq())
		for len(o.madeAt) <= seq {
			o.madeAt = append(o.madeAt, now) // the moves made by this frame
		}
	}
}

// inputDelay measures, from frame f (number o.n), how many frames after the
// one an input was decided at the drawn player first shows it: none when
// the player is predicted and drawn at once (the frame's move is made with
// it); otherwise the frames until the player's render time reaches the
// input's time plus the latency up.
func (o *ownRecord) inputDelay(f ownFrame) {
	if !f.ok {
		return
	}
	if f.t >= warmUp && o.n > 0 && o.last.ok {
		if f.pred && f.rt == f.est {
			o.delays.Add(0)
		} else {
			up := time.Duration(o.sc.c.spec.Link.Up.LatencyMs * float64(time.Millisecond))
			o.wants = append(o.wants, ownWant{o.n, o.last.est + up})
		}
	}
	kept := o.wants[:0]
	for _, w := range o.wants {
		if f.rt >= w.rt {
			o.delays.Add(float64(o.n - w.frame))
		} else {
			kept = append(kept, w)
		}
	}
	o.wants = kept
}

// at returns the server's path at time t.
func (o *ownRecord) at(t time.Duration) (geom.Vec3, bool) {
	i := sort.Search(len(o.path), func(i int) bool { return o.path[i].t >= t })
	if i == 0 || i == len(o.path) {
		return geom.Vec3{}, false
	}
	a, b := o.path[i-1], o.path[i]
	return a.pos.Lerp(b.pos, float64(t-a.t)/float64(b.t-a.t)), true
}

// measure measures the frames waiting, in order, as far as the server's
// path reaches past them (all of them once the run is over), and drops the
// path no frame can still need.
func (o *ownRecord) measure(over bool) {
	n := 0
	for ; n < len(o.pending); n++ {
		f := &o.pending[n]
		need := f.ok && f.t >= warmUp && f.pred
		if need && !over && (len(o.path) == 0 || o.path[len(o.path)-1].t <= max(f.t+o.sc.c.asym, f.rt, f.est)) {
			break
		}
		o.measureFrame(f)
	}
	if n == 0 {
		return
	}
	o.pending = o.pending[:copy(o.pending, o.pending[n:])]
	keep := sort.Search(len(o.path), func(i int) bool { return o.path[i].t >= o.last.t-ownKeep })
	if keep > 1 {
		o.path = o.path[:copy(o.path, o.path[keep-1:])]
	}
}

// measureFrame measures the own player as frame f drew it.
func (o *ownRecord) measureFrame(f *ownFrame) {
	c := o.sc.c
	if !f.ok || f.t < warmUp || !f.pred {
		o.prev.ok = false
		return
	}
	for len(o.teleports) > 0 && f.est >= o.teleports[0] && f.cut {
		o.teleports = o.teleports[1:]
	}
	x, ok := o.at(f.t + c.asym)
	xr, okR := o.at(f.rt)
	if tp := o.teleports; !ok || !okR || o.blackout(f.t) || (len(tp) > 0 && (f.t+c.asym >= tp[0] || f.rt >= tp[0])) {
		o.prev.ok = false
		return
	}
	o.frames++
	o.present.Add(f.pos.Dist(x))
	if o.prev.ok && !f.cut && measure.Pop(o.prev.pos, f.pos, o.prevX, xr) {
		o.pops++
	}
	o.prev, o.prevX = *f, xr
}

// blackout reports whether true time t is in a blackout of the link or the
// second after it: the client played a world it could not see.
func (o *ownRecord) blackout(t time.Duration) bool {
	return o.sc.c.blackouts.In(t) || o.sc.c.blackouts.In(t-time.Second)
}

// metrics computes the own figures of a run that ended at end.
func (o *ownRecord) metrics(end time.Duration) OwnMetrics {
	o.measure(true)
	om := OwnMetrics{Predicted: o.predicted, Frames: o.frames, Pops: o.pops}
	var sizes []float64
	for _, k := range o.corr {
		if k.t >= warmUp && k.c.Kind == movement.Adjust {
			sizes = append(sizes, k.c.Error)
		}
	}
	om.Corrections = len(sizes)
	if span := end - warmUp; span > 0 {
		om.CorrectionsPerMin = measure.Round(float64(len(sizes)) / span.Minutes())
	}
	om.CorrectionM = measure.Summarise(sizes)
	om.PresentM = o.present.Stat()
	om.InputDelayFrames = o.delays.Stat()
	for seq := 1; seq < len(o.madeAt); seq++ {
		t := o.madeAt[seq]
		if t < warmUp || t > end-time.Second || o.blackout(t) {
			continue
		}
		if seq >= len(o.applied) || !o.applied[seq] {
			om.InputsLost++
		}
	}
	return om
}
