package measure

import (
	"time"

	"github.com/tether-net/tether/geom"
)

// PopM is the mismatch between drawn and true motion over one frame that
// counts as a visible jump, a pop, metres.
const PopM = 0.05

// TeleportSpan is how long after a teleport of a body the frames are left
// out of its error statistics: longer than any render delay plus the time for
// the teleport's state to arrive, outside blackouts.
const TeleportSpan = 500 * time.Millisecond

// AfterBlackout is how long after a blackout ends the pops are counted in
// BallMetrics.PopsAfterBlackout.
const AfterBlackout = 3 * time.Second

// Recovery is how long after a blackout ends a client is taken to be still
// catching up with what the blackout hid: until states sent after it arrive, a
// client can only hold the ball still (on the lossy preset, 10 % loss, the
// frozen frames after its blackout end within 150 ms in 40 seeds) and plays its
// own player on a world it could not see. Frozen ball frames and the own
// player's figures leave it out.
const Recovery = time.Second

// Pop reports whether a frame that drew a body at drawn, after the frame
// before drew it at drawnPrev, is a pop, the true body having moved from
// truePrev to truth over the frames' advance of render time.
func Pop(drawnPrev, drawn, truePrev, truth geom.Vec3) bool {
	return drawn.Sub(drawnPrev).Sub(truth.Sub(truePrev)).Len() > PopM
}

// BallMetrics measure how a client shows the server's ball, over the frames
// after the warm-up that drew it. L is a frame, T(L) the true server time then,
// R(L) the drawn position, X the server's true trajectory and d(L) the client's
// render delay: T(L) minus the server time the client renders at L. d is the
// delay as it really is, so it includes the error of the client's clock; X(T(L)
// - d(L)) is the moment the client claims to show.
type BallMetrics struct {
	// FidelityM is |R(L) - X(T(L) - d(L))|: how faithfully the client shows
	// the moment it claims to show, metres, over the frames outside blackouts.
	FidelityM Stat `json:"fidelity_m"`
	// PresentM is |R(L) - X(T(L))|: how far what the player sees is from where
	// the ball is now, metres.
	PresentM Stat `json:"present_m"`
	// DelayMs is d(L), milliseconds.
	DelayMs Stat `json:"delay_ms"`
	// Pops counts frames outside blackouts where |ΔR - ΔX| > 5 cm, ΔX being
	// the true motion over that frame's advance of render time: visible jumps.
	// A teleport (the soccer game's kickoff), drawn as one or in the truth
	// over the frame, is not a pop.
	Pops int `json:"pops"`
	// PopsAfterBlackout counts the pops in the 3 s after each blackout ends.
	PopsAfterBlackout int `json:"pops_after_blackout"`
	// ExtrapFrames counts frames rendered past the newest state received;
	// FrozenFrames those held still for lack of data, outside blackouts and
	// their Recovery.
	ExtrapFrames int `json:"extrap_frames"`
	FrozenFrames int `json:"frozen_frames"`
	// BlackoutFrames counts frames whose true time or render time falls in a
	// blackout of the link; they are left out of FidelityM, Pops and
	// FrozenFrames.
	BlackoutFrames int `json:"blackout_frames"`
	// TeleportFrames counts frames in the half second after the ball was
	// teleported (the soccer game's kickoff, or a ball put back on the
	// pitch), which every method shows a delay later: a jump of tens of
	// metres that would swamp the statistics. They are left out of
	// FidelityM, PresentM, Pops and FrozenFrames.
	TeleportFrames int `json:"teleport_frames,omitempty"`
	// Frames is how many frames drew the ball.
	Frames int `json:"frames"`
	// ResimTicks is how many ticks the resim method re-simulated, per second
	// of the run; absent for other methods.
	ResimTicks *float64 `json:"resim_ticks,omitempty"`

	// The own player's kicks, in the soccer game (absent in the ball drill).
	// Kicks counts the inputs after the warm-up that asked the client's
	// player to kick and that the server applied (it kicked for that player
	// within 1 s). KickVisibleFrames is, over those that changed the true
	// ball's velocity, and the client's predicted ball's if it predicted the
	// kick, enough to be seen (by twice what shows: 2.4 m/s at 60 Hz; a kick
	// along a carried ball's path may change it less), the
	// frames drawn after the one the input was decided at before the drawn
	// ball shows the kick (its motion over a frame differs by more than 2 cm
	// from its motion into that frame): 0 when the very next frame shows it.
	Kicks             *int  `json:"kicks,omitempty"`
	KickVisibleFrames *Stat `json:"kick_visible_frames,omitempty"`
	// For a method that predicts the own kicks (resim): KicksPredicted counts
	// the kicks it predicted after the warm-up; over those the server
	// applied (a kick by that player before the method stops waiting for it:
	// a round trip and 100 ms), KickCorrectionM is how far the ball in the
	// present (the world's newest tick) moved when the first server state
	// showing the kick was applied, metres, and KickLagMs how much later the
	// server applied the kick than the prediction, milliseconds (it kicks as
	// of the moment the client made it, so the lag itself moves nothing).
	// KickOriginM is how far from the server's ball at the same tick the
	// world kicked it, metres (the server kicks from there if it is within
	// soccer.Rules.KickTolerance). What moves the ball then is where the
	// world had the other players: those that touch the ball or that it
	// bounces off soon after the kick. KicksRefuted counts the predicted
	// kicks the server did not make (the player had lost the ball in the
	// round trip), and KickRefutedM how far the ball in the present moved
	// when the server's states showed that.
	KicksPredicted  *int  `json:"kicks_predicted,omitempty"`
	KickCorrectionM *Stat `json:"kick_correction_m,omitempty"`
	KickLagMs       *Stat `json:"kick_lag_ms,omitempty"`
	KickOriginM     *Stat `json:"kick_origin_m,omitempty"`
	KicksRefuted    *int  `json:"kicks_refuted,omitempty"`
	KickRefutedM    *Stat `json:"kick_refuted_m,omitempty"`
}

// Drawn is a body as one client frame drew it.
type Drawn struct {
	T  time.Duration // true server time of the frame
	OK bool          // the frame drew the body
	// Pos is where, RenderTime the server time the client claims to show.
	Pos        geom.Vec3
	RenderTime time.Duration
	// Extrapolated: drawn past the newest state received; Frozen: held
	// still for lack of data; Cut: the first frame after a teleport, drawn
	// as a jump.
	Extrapolated, Frozen, Cut bool
}

// Span is an interval of true time, [From, To).
type Span struct{ From, To time.Duration }

// Spans is a set of intervals of true time: a link's blackouts.
type Spans []Span

// In reports whether t falls in one of the spans.
func (ss Spans) In(t time.Duration) bool {
	for _, s := range ss {
		if t >= s.From && t < s.To {
			return true
		}
	}
	return false
}

// After reports whether t falls within d after the end of one of the spans.
func (ss Spans) After(t, d time.Duration) bool {
	for _, s := range ss {
		if t >= s.To && t < s.To+d {
			return true
		}
	}
	return false
}

// BallMeter measures how a client draws a body against its Truth, frame by
// frame (BallMetrics). A frame waits until the truth covers both its true
// time and its render time; Metrics measures the rest against the truth as it
// ends. Set its fields before the first frame.
type BallMeter struct {
	WarmUp    time.Duration // frames before it are not measured
	Blackouts Spans         // the link's blackouts
	// OnPop, if set, is called with the true time of every frame counted
	// as a pop, in order (for a plot of pops over time).
	OnPop func(t time.Duration)

	m                BallMetrics
	fid, pres, delay Series
	pending          []Drawn
	prev             Drawn // the frame before, measured
	prevTrue         geom.Vec3
}

// Add takes the next frame and measures the frames truth tr now covers.
func (b *BallMeter) Add(tr *Truth, d Drawn) {
	b.pending = append(b.pending, d)
	n := 0
	for ; n < len(b.pending); n++ {
		p := &b.pending[n]
		if p.OK && !(tr.Len() > 0 && tr.Newest().T >= max(p.T, p.RenderTime)) {
			break
		}
		b.measure(tr, p)
	}
	b.pending = b.pending[:copy(b.pending, b.pending[n:])]
}

// Metrics measures the frames still waiting against tr as it is (none if
// it is empty), and returns the figures of every frame so far.
func (b *BallMeter) Metrics(tr *Truth) BallMetrics {
	for i := range b.pending {
		if tr.Len() > 0 {
			b.measure(tr, &b.pending[i])
		}
	}
	b.pending = b.pending[:0]
	bm := b.m
	bm.FidelityM = b.fid.Stat()
	bm.PresentM = b.pres.Stat()
	bm.DelayMs = b.delay.Stat()
	return bm
}

// Merge adds the frames o measured to b's, whose Metrics then pool both
// (runs over several seeds, say); o's frames still pending are left out, so
// call o.Metrics first. o is left as it is. With no frame pending, b's
// Metrics needs no truth (tr may be nil).
func (b *BallMeter) Merge(o *BallMeter) {
	m, om := &b.m, &o.m
	m.Frames += om.Frames
	m.Pops += om.Pops
	m.PopsAfterBlackout += om.PopsAfterBlackout
	m.ExtrapFrames += om.ExtrapFrames
	m.FrozenFrames += om.FrozenFrames
	m.BlackoutFrames += om.BlackoutFrames
	m.TeleportFrames += om.TeleportFrames
	b.fid.Merge(&o.fid)
	b.pres.Merge(&o.pres)
	b.delay.Merge(&o.delay)
}

// Pending returns how many frames wait for the truth.
func (b *BallMeter) Pending() int { return len(b.pending) }

func (b *BallMeter) measure(tr *Truth, f *Drawn) {
	if !f.OK {
		b.prev.OK = false
		return
	}
	shown := tr.At(f.RenderTime)
	defer func() { b.prev, b.prevTrue = *f, shown }()
	if f.T < b.WarmUp {
		return
	}
	bm := &b.m
	bm.Frames++
	b.delay.Add(ms(f.T - f.RenderTime))
	if f.Extrapolated {
		bm.ExtrapFrames++
	}
	if tr.CutWithin(f.T, TeleportSpan) {
		bm.TeleportFrames++
		return
	}
	b.pres.Add(f.Pos.Dist(tr.At(f.T)))
	if b.Blackouts.In(f.T) || b.Blackouts.In(f.RenderTime) {
		bm.BlackoutFrames++
		return
	}
	b.fid.Add(f.Pos.Dist(shown))
	if f.Frozen && !b.Blackouts.After(f.T, Recovery) {
		bm.FrozenFrames++
	}
	// Across a teleport or a jump the server made, no motion is true: a
	// jump there is not a pop, whatever the method draws.
	p := &b.prev
	if p.OK && !f.Cut && !tr.CutBetween(p.RenderTime, f.RenderTime) && !tr.JumpBetween(p.RenderTime, f.RenderTime) &&
		Pop(p.Pos, f.Pos, b.prevTrue, shown) {
		bm.Pops++
		if b.OnPop != nil {
			b.OnPop(f.T)
		}
		if b.Blackouts.After(f.T, AfterBlackout) {
			bm.PopsAfterBlackout++
		}
	}
}
