package replicate

import (
	"math"
	"time"
	"unsafe"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// RequestKind says what a Request asks the game to do with its world.
type RequestKind uint8

// The requests of a Resim, performed in the order given.
const (
	// SaveState: store the world's state at Request.Tick into Request.Cell,
	// calling Cell.Set for every body.
	SaveState RequestKind = iota + 1
	// LoadState: set the world's state from Request.Cell, from Cell.Get for
	// every body. Every SaveState is followed by the LoadState of the same
	// cell, so the world always runs from the quantised state the history
	// holds and a re-simulation repeats the first run bit for bit.
	LoadState
	// AdvanceTick: apply Request.Input and step the world once, from tick
	// Request.Tick to Request.Tick+1.
	AdvanceTick
)

func (k RequestKind) String() string {
	switch k {
	case SaveState:
		return "save"
	case LoadState:
		return "load"
	case AdvanceTick:
		return "advance"
	}
	return "unknown"
}

// Request is one thing a Resim asks the game to do with its world.
type Request[In any] struct {
	Kind  RequestKind
	Tick  int64
	Cell  *Cell // SaveState, LoadState: the history's cell for Tick
	Input In    // AdvanceTick: the local input for the step from Tick
}

// NoInput is the input type of a Resim whose world takes no local input.
type NoInput struct{}

// ResimConfig configures a Resim. The zero value gives the defaults noted,
// Unreal Engine's where it has them.
type ResimConfig struct {
	// Tick is the world's fixed step and the server's tick: server states
	// are expected at whole ticks. 0 means 1/60 s. Range [100µs, 1s].
	Tick time.Duration
	// Bodies is the number of bodies a Cell holds (all the bodies of the
	// world that a step changes); 0 means 1. Range [1, 65536].
	Bodies int
	// Body is the index, in a Cell, of the body Receive refers to (the
	// ball); ReceiveBody takes any. Range [0, Bodies).
	Body int
	// History is how far back a rollback can go; 0 means 1 s. A server
	// state older than that is dropped. Range [100ms, 10s].
	History time.Duration

	// A server state triggers a rollback when it differs from the history
	// at its tick by more than PosThreshold (metres; 0 means 0.1), or
	// AngleThreshold (radians; 0 means 4°), or VelThreshold (metres per
	// second; 0 means 0.5, negative disables it), or AngVelThreshold
	// (radians per second; 0 means 2, negative disables it). The velocity
	// thresholds catch a kick at the very tick of its knot state, before the
	// position has had time to differ. Ranges up to 1e6.
	PosThreshold, AngleThreshold  float64
	VelThreshold, AngVelThreshold float64

	// CorrectionTime is the time constant with which the render jump a
	// rollback causes is blended out (exponentially: 95 % is gone after
	// three times it); 0 means 100 ms, negative means none (the jump is
	// shown). Range up to 10 s.
	CorrectionTime time.Duration
	// SnapDistance is the render jump, metres, beyond which it is shown at
	// once instead of blended; 0 means BlendSpeed × CorrectionTime (0.3 m
	// by default). Unreal blends jumps up to 2.5 m over 0.3 s, which keeps
	// an unforeseen kick's error on screen for a third of a second. Range
	// [0.01, 1e6].
	SnapDistance float64

	// CheckDistance turns on the sync test: on every Update the Resim also
	// rolls back CheckDistance ticks, re-simulates them and, at the next
	// Update, compares the checksums of the re-saved cells with the first
	// run's (Stats.Desyncs). 0 means off. Range [0, History in ticks].
	CheckDistance int
}

func (c ResimConfig) withDefaults() (ResimConfig, error) {
	const n = "ResimConfig"
	for _, err := range []error{
		checkDur(n, "Tick", c.Tick, 100*time.Microsecond, time.Second),
		checkDur(n, "History", c.History, 100*time.Millisecond, 10*time.Second),
		checkFloat(n, "PosThreshold", c.PosThreshold, 1e-6, 1e6),
		checkFloat(n, "AngleThreshold", c.AngleThreshold, 1e-6, math.Pi),
		checkFloat(n, "VelThreshold", c.VelThreshold, -1e6, 1e6),
		checkFloat(n, "AngVelThreshold", c.AngVelThreshold, -1e6, 1e6),
		checkDur(n, "CorrectionTime", c.CorrectionTime, -10*time.Second, 10*time.Second),
		checkFloat(n, "SnapDistance", c.SnapDistance, 0.01, 1e6),
	} {
		if err != nil {
			return c, err
		}
	}
	if c.Bodies < 0 || c.Bodies > 65536 {
		return c, &ConfigError{n, "Bodies", c.Bodies, "0 (default 1) or [1, 65536]"}
	}
	c.Bodies = max(c.Bodies, 1)
	if c.Body < 0 || c.Body >= c.Bodies {
		return c, &ConfigError{n, "Body", c.Body, "[0, Bodies)"}
	}
	c.Tick = orDur(c.Tick, time.Second/60)
	c.History = orDur(c.History, time.Second)
	c.PosThreshold = orFloat(c.PosThreshold, 0.1)
	c.AngleThreshold = orFloat(c.AngleThreshold, 4*math.Pi/180)
	c.VelThreshold = orFloat(c.VelThreshold, 0.5)
	c.AngVelThreshold = orFloat(c.AngVelThreshold, 2)
	c.CorrectionTime = orDur(c.CorrectionTime, 100*time.Millisecond)
	c.SnapDistance = orFloat(c.SnapDistance, BlendSpeed*max(c.CorrectionTime, time.Millisecond).Seconds())
	if ticks := int(c.History / c.Tick); c.CheckDistance < 0 || c.CheckDistance > ticks {
		return c, &ConfigError{n, "CheckDistance", c.CheckDistance, "[0, History/Tick]"}
	}
	return c, nil
}

// ResimStats are the counters of a Resim.
type ResimStats struct {
	Received  uint64 // server states taken as the newest of their body
	Stale     uint64 // states dropped because a newer one of the body had been received
	Invalid   uint64 // states dropped for a non-finite field or a body out of range
	TooOld    uint64 // states dropped because their tick had left the history
	Confirmed uint64 // states within the thresholds of the history: no rollback
	Cuts      uint64 // Cut states applied

	Rollbacks  uint64 // rollbacks requested
	ResimTicks uint64 // ticks re-simulated by them
	MaxDepth   int    // the deepest rollback, in ticks
	Ticks      uint64 // new ticks advanced
	Skipped    uint64 // ticks skipped because Update was not called for longer than the history

	Snaps uint64 // render jumps too large to blend (SnapDistance)

	SyncChecks uint64 // cells compared by the sync test
	Desyncs    uint64 // of which with a different checksum
	DesyncTick int64  // the tick of the first desync

	Latency time.Duration // smoothed age of a state on arrival
}

type correction struct {
	tick  int64
	state kinematic.State
	have  bool
	fresh bool // not yet compared or applied
}

type checked struct {
	tick int64
	sum  uint64
}

// Resim is rollback re-simulation, Unreal Engine's "Resimulation": the
// client runs its world ahead of the server, at the estimated server time
// now, keeping a history of every body's state and the local input at each
// tick. When a server state for an earlier tick differs from the history
// beyond a threshold, it rolls back to that tick, puts the server's state
// in and re-simulates to now. The jump this makes in the picture is blended
// out over CorrectionTime, or shown if larger than SnapDistance.
//
// Like GGRS, Resim does not own the world: Update returns the requests
// (SaveState, LoadState, AdvanceTick) that the game performs on its world,
// in order, before calling Render. WorldResim performs them on a
// physics.World. The world must be deterministic: the same state and input
// must give the same next state, bit for bit (the sync test checks it).
//
// Use it for bodies the local player interacts with (its own kick moves the
// ball in the same frame) and wherever showing the present matters most; it
// costs a re-simulation of the whole world over the round trip at every
// correction.
type Resim[In any] struct {
	cfg   ResimConfig
	cells []Cell
	ins   []In
	input In

	started bool
	cur     int64 // the tick the world is at once the requests are performed
	oldest  int64 // the oldest tick the history holds

	corr    []correction
	newestT time.Duration
	reqs    []Request[In]

	rolled   bool // a rollback since the last Render
	cut      bool
	haveLast bool
	lastNow  time.Duration
	lastPos  geom.Vec3
	lastRot  geom.Quat
	sm       smoother

	checks []checked // sync test: recorded sums awaiting comparison

	stats ResimStats
}

// NewResim returns a Resim, or a *ConfigError naming the field of cfg out
// of range.
func NewResim[In any](cfg ResimConfig) (*Resim[In], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	n := int(cfg.History/cfg.Tick) + 2
	r := &Resim[In]{cfg: cfg, cells: make([]Cell, n), ins: make([]In, n), corr: make([]correction, cfg.Bodies)}
	words := (cfg.Bodies + 63) / 64
	state := make([]packed, n*cfg.Bodies)
	fixed := make([]uint64, n*words)
	for i := range r.cells {
		r.cells[i].state = state[i*cfg.Bodies : (i+1)*cfg.Bodies : (i+1)*cfg.Bodies]
		r.cells[i].fixed = fixed[i*words : (i+1)*words : (i+1)*words]
	}
	r.sm = smoother{tau: max(cfg.CorrectionTime, 1), snap: cfg.SnapDistance, rot: geom.Identity}
	return r, nil
}

// Config returns the configuration in use, defaults filled in.
func (r *Resim[In]) Config() ResimConfig { return r.cfg }

// Stats returns the counters.
func (r *Resim[In]) Stats() ResimStats { return r.stats }

// HistoryBytes returns the memory the history of body states takes, in
// bytes: about 56 per body per tick held.
func (r *Resim[In]) HistoryBytes() int {
	words := (r.cfg.Bodies + 63) / 64
	return len(r.cells) * (r.cfg.Bodies*int(unsafe.Sizeof(packed{})) + words*8)
}

// HistoryTicks returns the number of ticks the history holds.
func (r *Resim[In]) HistoryTicks() int { return len(r.cells) }

// Tick returns the tick the world is at once the requests of the last
// Update are performed, and whether the Resim has started (it starts with
// the first server state).
func (r *Resim[In]) Tick() (int64, bool) { return r.cur, r.started }

// SetInput sets the local input applied to the ticks that the coming Updates
// advance, until changed. Re-simulated ticks keep the input they had.
func (r *Resim[In]) SetInput(in In) { r.input = in }

// Receive takes a server state of the configured body; arrival is the
// client's estimate of server time when it arrived.
func (r *Resim[In]) Receive(s kinematic.State, arrival time.Duration) {
	r.ReceiveBody(r.cfg.Body, s, arrival)
}

// ReceiveBody takes a server state of body i. Only the newest state of each
// body counts: an older one is dropped.
func (r *Resim[In]) ReceiveBody(i int, s kinematic.State, arrival time.Duration) {
	if i < 0 || i >= len(r.corr) || !valid(s) {
		r.stats.Invalid++
		return
	}
	k := tickOf(s.Time, r.cfg.Tick)
	c := &r.corr[i]
	if c.have && k <= c.tick {
		r.stats.Stale++
		return
	}
	age := arrival - s.Time
	if r.stats.Received == 0 {
		r.stats.Latency = age
	} else {
		r.stats.Latency += (age - r.stats.Latency) / 8
	}
	r.stats.Received++
	*c = correction{tick: k, state: norm(s), have: true, fresh: true}
	r.newestT = max(r.newestT, s.Time)
}

func (r *Resim[In]) cell(k int64) *Cell {
	n := int64(len(r.cells))
	return &r.cells[((k%n)+n)%n]
}

func (r *Resim[In]) push(kind RequestKind, k int64, c *Cell) {
	r.reqs = append(r.reqs, Request[In]{Kind: kind, Tick: k, Cell: c})
}

// saveLoad requests the save of tick k into its cell and its load back.
// For a tick simulated for the first time (fresh), the server states
// received for it are put in first; a re-simulated tick keeps those its cell
// already holds.
func (r *Resim[In]) saveLoad(k int64, fresh bool) {
	c := r.cell(k)
	c.assign(k, r.cfg.Tick)
	for i := range r.corr {
		if !fresh {
			break
		}
		if cr := &r.corr[i]; cr.fresh && cr.tick == k {
			cr.fresh = false
			c.fix(i, cr.state)
			if cr.state.Cut {
				r.cut = true
				r.stats.Cuts++
			}
		}
	}
	r.push(SaveState, k, c)
	r.push(LoadState, k, c)
}

// advance requests the step from tick k with its recorded input.
func (r *Resim[In]) advance(k int64) {
	r.reqs = append(r.reqs, Request[In]{Kind: AdvanceTick, Tick: k, Input: r.ins[r.index(k)]})
}

func (r *Resim[In]) index(k int64) int {
	n := int64(len(r.cells))
	return int(((k % n) + n) % n)
}

// differs reports whether the server's state s differs from the history's
// h beyond the thresholds.
func (r *Resim[In]) differs(h, s kinematic.State) bool {
	c := &r.cfg
	return h.Pos.Dist(s.Pos) > c.PosThreshold ||
		h.Rot.Angle(s.Rot) > c.AngleThreshold ||
		c.VelThreshold > 0 && h.Vel.Dist(s.Vel) > c.VelThreshold ||
		c.AngVelThreshold > 0 && h.AngVel.Dist(s.AngVel) > c.AngVelThreshold
}

// Update returns the requests that bring the world to the first tick at or
// after now (the estimated server time of the frame about to be drawn):
// first a rollback and re-simulation if a server state received since the
// last Update differs from the history, then the new ticks. The game must
// perform them all, in order, before calling Render or Update again. The
// slice is reused by the next Update. Before the first server state there
// is nothing to do and Update returns nil; the world's state when the first
// requests are performed is taken as the state at that server state's tick,
// for the bodies the server has not sent.
func (r *Resim[In]) Update(now time.Duration) []Request[In] {
	r.reqs = r.reqs[:0]
	r.verify()
	m := ceilTick(now, r.cfg.Tick)
	if !r.started {
		k, ok := int64(0), false
		for i := range r.corr {
			if c := &r.corr[i]; c.fresh && (!ok || c.tick < k) {
				k, ok = c.tick, true
			}
		}
		if !ok {
			return nil
		}
		r.started, r.cur, r.oldest, r.cut = true, k, k, true
		r.ins[r.index(k)] = r.input
		r.saveLoad(k, true)
	} else {
		r.syncTest()
		r.rollback()
	}
	hist := int64(len(r.cells) - 2)
	if m-r.cur > hist {
		// Not called for longer than the history: take the world as it is
		// as the state at m - 1 rather than stepping through it all.
		r.stats.Skipped += uint64(m - 1 - r.cur)
		r.cur = m - 1
		r.oldest = r.cur
		r.ins[r.index(r.cur)] = r.input
		r.saveLoad(r.cur, true)
		r.haveLast = false
	}
	for r.cur < m {
		r.ins[r.index(r.cur)] = r.input
		r.advance(r.cur)
		r.cur++
		r.stats.Ticks++
		r.saveLoad(r.cur, true)
		r.oldest = max(r.oldest, r.cur-hist)
	}
	return r.reqs
}

// rollback compares the fresh server states with the history and requests
// a re-simulation from the earliest that differs.
func (r *Resim[In]) rollback() {
	from := r.cur + 1
	for i := range r.corr {
		c := &r.corr[i]
		if !c.fresh || c.tick > r.cur {
			continue // nothing new, or due at a tick not yet simulated
		}
		c.fresh = false
		k := c.tick
		if k < r.oldest {
			if !c.state.Cut {
				r.stats.TooOld++
				continue
			}
			k = r.cur // a teleport is applied late rather than never
		}
		cell := r.cell(k)
		if !c.state.Cut && !r.differs(cell.Get(i), c.state) {
			r.stats.Confirmed++
			continue
		}
		if c.state.Cut {
			r.cut = true
			r.stats.Cuts++
		}
		cell.fix(i, c.state)
		from = min(from, k)
	}
	if from > r.cur {
		return
	}
	depth := int(r.cur - from)
	r.stats.Rollbacks++
	r.stats.ResimTicks += uint64(depth)
	r.stats.MaxDepth = max(r.stats.MaxDepth, depth)
	r.rolled = true
	r.push(LoadState, from, r.cell(from))
	for k := from; k < r.cur; k++ {
		r.advance(k)
		r.saveLoad(k+1, false)
	}
	// The sync test's recorded cells from `from` on are being rewritten.
	n := 0
	for _, c := range r.checks {
		if c.tick < from {
			r.checks[n] = c
			n++
		}
	}
	r.checks = r.checks[:n]
}

// syncTest records the checksums of the last CheckDistance cells and
// requests their re-simulation; verify compares them at the next Update.
func (r *Resim[In]) syncTest() {
	d := int64(r.cfg.CheckDistance)
	if d == 0 || r.cur-d < r.oldest {
		return
	}
	for k := r.cur - d + 1; k <= r.cur; k++ {
		r.checks = append(r.checks, checked{k, r.cell(k).Checksum()})
	}
	r.push(LoadState, r.cur-d, r.cell(r.cur-d))
	for k := r.cur - d; k < r.cur; k++ {
		r.advance(k)
		r.saveLoad(k+1, false)
	}
}

func (r *Resim[In]) verify() {
	for _, c := range r.checks {
		if c.tick < r.oldest {
			continue
		}
		r.stats.SyncChecks++
		if r.cell(c.tick).Checksum() != c.sum {
			if r.stats.Desyncs == 0 {
				r.stats.DesyncTick = c.tick
			}
			r.stats.Desyncs++
		}
	}
	r.checks = r.checks[:0]
}

// at returns the body's motion at server time t from the history, whose
// ticks around t must be held.
func (r *Resim[In]) at(t time.Duration) (pos, vel geom.Vec3, rot geom.Quat, angVel geom.Vec3) {
	i := r.cfg.Body
	m := ceilTick(t, r.cfg.Tick)
	m = min(max(m, r.oldest+1), r.cur)
	if m <= r.oldest {
		b := r.cell(r.cur).Get(i)
		return b.Pos, b.Vel, b.Rot, b.AngVel
	}
	a, b := r.cell(m-1).Get(i), r.cell(m).Get(i)
	u := float64(t-a.Time) / float64(r.cfg.Tick)
	return curve(a, b, r.cfg.Tick, u)
}

// Render returns the body at now, from the history the performed requests
// of the last Update(now) filled, with the render correction of any
// rollback blended in.
func (r *Resim[In]) Render(now time.Duration) Frame {
	if !r.started {
		return Frame{}
	}
	pos, vel, rot, angVel := r.at(now)
	var dt time.Duration
	if r.haveLast {
		dt = now - r.lastNow
	}
	switch {
	case r.cut:
		r.sm.clear()
	case r.rolled && r.haveLast && r.lastNow >= time.Duration(r.oldest)*r.cfg.Tick:
		// Keep the picture where it was at the last frame and blend the
		// difference out.
		p, _, q, _ := r.at(r.lastNow)
		if r.sm.add(r.lastPos.Sub(p), r.lastRot.Mul(q.Conj())) {
			r.stats.Snaps++
		}
	}
	if r.cfg.CorrectionTime < 0 {
		r.sm.clear()
	}
	r.sm.decay(dt)
	f := Frame{Vel: vel, AngVel: angVel, Time: now, Valid: true, Extrapolated: now > r.newestT, Cut: r.cut}
	f.Pos, f.Rot = r.sm.apply(pos, rot)
	f.Offset = r.sm.off
	r.lastNow, r.lastPos, r.lastRot, r.haveLast = now, pos, rot, true
	r.rolled, r.cut = false, false
	return f
}
