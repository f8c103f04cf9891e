package timeline

import (
	"fmt"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// Frame is what Sample renders.
type Frame struct {
	// State is the rendered state. Time is the render time; Pos includes the
	// correction Offset; Vel and AngVel are those of the curve. Cut is set on
	// the first frame at or after a Cut state.
	kinematic.State
	Delay        time.Duration // now minus the render time
	Offset       geom.Vec3     // correction still being blended out, metres (included in Pos)
	Valid        bool          // false until a state has been inserted
	Extrapolated bool          // the render time is past the newest state
	Frozen       bool          // held still for lack of data (past MaxExtrapolation, or before the first state)
	Snapped      bool          // jumped: new data moved the curve by more than Config.SnapDistance
}

// Extrapolator predicts an entity's state dt after s as if nothing acted on
// it but its own physics. The timeline calls it past the newest state, and
// between two states too: the curve between them is the earlier one's
// prediction plus a correction that brings it to the later one, so the better
// the prediction the closer the curve follows the true motion. It is also
// called with a negative dt (no further back than the gap between two states,
// nor than Config.MaxExtrapolation) to run a state's motion backward, to place
// a contact whose knot state is missing and to rejoin the path after a gap.
// Extrapolator(s, 0) must be s. It should not allocate: it is called several
// times on every frame, mostly with the same few states, so an expensive one
// should cache what it computed from a state.
type Extrapolator func(s kinematic.State, dt time.Duration) kinematic.State

// The render clock's rate relative to now stays within [MinScale, MaxScale].
const (
	MinScale = 0.9
	MaxScale = 1.1
)

// DefaultLateShare is Config.LateShare's default: the share of frames that
// may be drawn past the newest state received.
const DefaultLateShare = 0.05

// Config configures a Timeline. The zero value gives the defaults noted.
type Config struct {
	// Capacity is the number of states held; 0 means 64. Range [4, 4096].
	// It must cover the render delay plus any jitter at the send rate.
	Capacity int
	// SendInterval is the server's interval between regular states; 0 means
	// measured (the median of recent gaps). Range [0, 10 s].
	SendInterval time.Duration
	// MinDelay and MaxDelay bound the render delay; 0 means 0 and 1 s.
	// Range 0 ≤ MinDelay ≤ MaxDelay ≤ 10 s.
	MinDelay, MaxDelay time.Duration
	// LateShare is the render delay's one knob: the share of frames, over
	// time, that may be drawn late, past the newest state received, for
	// want of the state after it (extrapolated, if the entity's motion can
	// be foreseen; a correction to come, if not). The delay is the least
	// that gives that share on the link as measured over the window: the
	// lateness of each arrival, the send interval and the loss rate (a lost
	// state leaves the frames waiting for the next). A smaller share means
	// a longer delay and a picture further in the past, with fewer frames
	// drawn beyond what is known. 0 means DefaultLateShare. Range [0, 1).
	LateShare float64
	// Window is the number of recent arrivals the lateness is measured
	// over; 0 means 90 (3 s at 30 Hz). Range [8, 4096].
	Window int
	// MaxExtrapolation is how far past the newest state the timeline
	// extrapolates before it holds; 0 means 500 ms, negative means never.
	// Two states further apart than this are not joined by a curve (see the
	// package documentation on gaps). Range up to 10 s.
	MaxExtrapolation time.Duration
	// Extrapolate predicts motion past the newest state; nil means Linear.
	Extrapolate Extrapolator
	// ContactAccel is the acceleration, metres per second squared, above
	// which the velocity change between two states is taken as a contact
	// (kick, bounce) whose knot state is missing, rather than smooth motion;
	// 0 means 50 (five times gravity). Range up to 1e6.
	ContactAccel float64
	// MaxCorrectionSpeed caps how fast a correction offset is blended out,
	// metres per second; 0 means 2. Range up to 1000.
	MaxCorrectionSpeed float64
	// CorrectionTime is the time constant of the blend; 0 means 100 ms.
	// Range up to 10 s.
	CorrectionTime time.Duration
	// SnapDistance is the correction, metres, beyond which the rendered
	// position jumps instead of blending; 0 means 1. Range up to 1e6.
	SnapDistance float64
	// Clock is a render clock shared with other timelines, fed by its
	// owner; nil means a clock of the timeline's own, fed by Insert. With a
	// shared clock the render delay fields above are the clock's business
	// and ignored here.
	Clock *Clock
}

// ConfigError reports a Config field out of its allowed range.
type ConfigError struct {
	Field string // the field's name
	Value any    // the value given
	Range string // the allowed range
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("tether/timeline: Config.%s = %v out of range %s", e.Field, e.Value, e.Range)
}

func (c Config) withDefaults() (Config, error) {
	const maxT = 10 * time.Second
	switch {
	case c.Capacity != 0 && (c.Capacity < 4 || c.Capacity > 4096):
		return c, &ConfigError{"Capacity", c.Capacity, "[4, 4096]"}
	case c.SendInterval < 0 || c.SendInterval > maxT:
		return c, &ConfigError{"SendInterval", c.SendInterval, "[0, 10s]"}
	case c.MinDelay < 0 || c.MinDelay > maxT:
		return c, &ConfigError{"MinDelay", c.MinDelay, "[0, 10s]"}
	case c.MaxDelay < 0 || c.MaxDelay > maxT || (c.MaxDelay != 0 && c.MaxDelay < c.MinDelay):
		return c, &ConfigError{"MaxDelay", c.MaxDelay, "[MinDelay, 10s]"}
	case !(c.LateShare >= 0 && c.LateShare < 1):
		return c, &ConfigError{"LateShare", c.LateShare, "[0, 1)"}
	case c.Window != 0 && (c.Window < 8 || c.Window > 4096):
		return c, &ConfigError{"Window", c.Window, "[8, 4096]"}
	case c.MaxExtrapolation > maxT:
		return c, &ConfigError{"MaxExtrapolation", c.MaxExtrapolation, "≤ 10s"}
	case !(c.ContactAccel >= 0 && c.ContactAccel <= 1e6):
		return c, &ConfigError{"ContactAccel", c.ContactAccel, "[0, 1e6]"}
	case !(c.MaxCorrectionSpeed >= 0 && c.MaxCorrectionSpeed <= 1000):
		return c, &ConfigError{"MaxCorrectionSpeed", c.MaxCorrectionSpeed, "[0, 1000]"}
	case c.CorrectionTime < 0 || c.CorrectionTime > maxT:
		return c, &ConfigError{"CorrectionTime", c.CorrectionTime, "[0, 10s]"}
	case !(c.SnapDistance >= 0 && c.SnapDistance <= 1e6):
		return c, &ConfigError{"SnapDistance", c.SnapDistance, "[0, 1e6]"}
	}
	if c.Capacity == 0 {
		c.Capacity = 64
	}
	if c.MaxDelay == 0 {
		c.MaxDelay = max(time.Second, c.MinDelay)
	}
	if c.LateShare == 0 {
		c.LateShare = DefaultLateShare
	}
	if c.Window == 0 {
		c.Window = 90
	}
	switch {
	case c.MaxExtrapolation == 0:
		c.MaxExtrapolation = 500 * time.Millisecond
	case c.MaxExtrapolation < 0:
		c.MaxExtrapolation = 0
	}
	if c.Extrapolate == nil {
		c.Extrapolate = Linear
	}
	if c.ContactAccel == 0 {
		c.ContactAccel = 50
	}
	if c.MaxCorrectionSpeed == 0 {
		c.MaxCorrectionSpeed = 2
	}
	if c.CorrectionTime == 0 {
		c.CorrectionTime = 100 * time.Millisecond
	}
	if c.SnapDistance == 0 {
		c.SnapDistance = 1
	}
	return c, nil
}

// Stats are a timeline's counters and current estimates.
type Stats struct {
	Inserted   uint64 // states accepted into the buffer
	Duplicates uint64 // states ignored because one with the same time was held
	Late       uint64 // states dropped because the render time had passed them
	LateCuts   uint64 // Cut states that arrived after their time and were applied late
	Invalid    uint64 // states dropped for a non-finite field
	Evicted    uint64 // states lost to a full buffer
	Snaps      uint64 // corrections too large to blend, shown as a jump

	Frames       uint64 // Sample calls that rendered a state
	Extrapolated uint64 // of which past the newest state
	Frozen       uint64 // of which held still

	Lateness     time.Duration // the median lateness over the window
	SendInterval time.Duration // the send interval in use (configured or measured)
	Loss         float64       // estimated share of regular states lost, [0, 1]
	Target       time.Duration // the render delay aimed for
	Delay        time.Duration // the render delay of the last frame
	Scale        float64       // the render clock rate of the last frame
	Held         int           // states in the buffer
}

// Timeline is the state buffer and render clock of one remote entity. Create
// it with New.
type Timeline struct {
	cfg Config

	ring []kinematic.State // fixed capacity, ordered by Time from head
	head int
	n    int

	clock *Clock // cfg.Clock if shared, else the timeline's own

	started bool
	now     time.Duration // latest now given to Sample
	rt      time.Duration // render time of the last frame

	haveLast bool      // last is the raw curve at rt
	last     geom.Vec3 // raw curve position at rt
	lastRot  geom.Quat // raw curve rotation at rt
	off      geom.Vec3 // position correction blended out
	offRot   geom.Quat // rotation correction blended out
	dirty    bool      // a state was inserted since the last frame
	held     bool      // the last frame was held still for lack of data

	cross   [2]crossing // recently solved contact segments
	crossAt int

	haveCut bool          // a cut has been shown
	lastCut time.Duration // time of the last cut shown

	stats Stats
}

// New returns an empty Timeline, or a *ConfigError naming the field of c that
// is out of range.
func New(c Config) (*Timeline, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	t := &Timeline{cfg: c, ring: make([]kinematic.State, c.Capacity), offRot: geom.Identity, clock: c.Clock}
	if !t.shared() {
		t.clock = newClock(c)
	}
	return t, nil
}

// shared reports whether the timeline's clock is shared, fed by its owner
// rather than by Insert.
func (t *Timeline) shared() bool { return t.cfg.Clock != nil }

// Reset empties the timeline and restarts its render clock (a shared one is
// left to its owner), keeping its configuration and counters; use it when the
// clock's epoch changes.
func (t *Timeline) Reset() {
	stats := t.stats
	ring := t.ring
	clear(ring)
	if !t.shared() {
		t.clock.Reset()
	}
	*t = Timeline{cfg: t.cfg, ring: ring, offRot: geom.Identity, clock: t.clock}
	t.stats = stats
}

func (t *Timeline) at(i int) *kinematic.State {
	j := t.head + i
	if j >= len(t.ring) {
		j -= len(t.ring)
	}
	return &t.ring[j]
}

// Insert adds a state received at arrival (the client's estimate of server
// time when it arrived). States may come in any order; see the package
// documentation for how late and duplicate ones are treated.
func (t *Timeline) Insert(s kinematic.State, arrival time.Duration) {
	if !s.Pos.IsFinite() || !s.Vel.IsFinite() || !s.AngVel.IsFinite() ||
		math.IsNaN(s.Rot.W+s.Rot.X+s.Rot.Y+s.Rot.Z) || math.IsInf(s.Rot.W+s.Rot.X+s.Rot.Y+s.Rot.Z, 0) {
		t.stats.Invalid++
		return
	}
	s.Rot = s.Rot.Norm()
	// Position of s: after the last held state older than it.
	j := t.n - 1
	for j >= 0 && t.at(j).Time > s.Time {
		j--
	}
	if j >= 0 && t.at(j).Time == s.Time {
		// A copy adds nothing but its Cut: the copy held (an event's, say)
		// may have come without one.
		if held := t.at(j); s.Cut && !held.Cut {
			held.Cut = true
		}
		t.stats.Duplicates++
		return
	}
	est := &t.clock.est
	if !t.shared() {
		est.lateness(arrival - s.Time)
	}
	if t.started && !s.Cut && s.Time <= t.rt && j+1 < t.n && t.at(j+1).Time <= t.rt {
		// The render time has passed it and a newer state that it has passed
		// too: nothing drawn from now on would use it.
		t.stats.Late++
		return
	}
	if s.Cut && t.started && s.Time <= t.rt {
		t.stats.LateCuts++
	}
	pos := j + 1
	if t.n == len(t.ring) {
		t.stats.Evicted++
		if pos == 0 {
			return // older than a full buffer
		}
		t.head++
		if t.head == len(t.ring) {
			t.head = 0
		}
		t.n--
		pos--
	}
	// Shift the newer states up by one to open slot pos.
	for i := t.n; i > pos; i-- {
		*t.at(i) = *t.at(i - 1)
	}
	*t.at(pos) = s
	t.n++
	t.stats.Inserted++
	t.dirty = true
	switch {
	case t.shared():
	case pos == t.n-1:
		if pos > 0 {
			est.appended(s.Time - t.at(pos-1).Time)
		}
	default:
		est.filled()
	}
}

// Sample renders the frame for now, the estimated server time of the frame,
// and advances the render clock. now should not decrease; if it does, the
// render time stays where it was.
func (t *Timeline) Sample(now time.Duration) Frame {
	if t.n == 0 && !t.started {
		return Frame{}
	}
	var dnow time.Duration
	prevRT := t.rt
	rt := t.clock.Advance(now)
	if !t.started {
		t.started = true
		t.now = now
	} else if now > t.now {
		dnow = now - t.now
		t.now = now
	}
	t.rt = rt

	var f Frame
	f.Valid = true
	base, kind := t.eval(rt, &f.State)
	f.Time = rt
	f.Delay = t.now - rt
	f.Extrapolated = kind == kindExtrapolated
	f.Frozen = kind == kindFrozen || kind == kindBefore

	// The latest cut at or before rt, if any.
	cut, haveCut := time.Duration(0), false
	for i := base; i >= 0; i-- {
		if s := t.at(i); s.Cut {
			cut, haveCut = s.Time, true
			break
		}
	}
	if haveCut && (!t.haveCut || cut != t.lastCut) {
		f.Cut = true
		t.haveCut, t.lastCut = true, cut
		t.off, t.offRot = geom.Vec3{}, geom.Identity
	}
	// Held still for lack of data before and after this frame: new data too
	// old to draw from (the backlog of an outage, coming back a few states
	// at a time) leaves it where it is held; it jumps, or blends, once the
	// data reaches it.
	hold := t.held && f.Frozen
	if !f.Cut && t.haveLast && t.dirty {
		// New data may have changed the curve at the previous render time:
		// keep the picture continuous there and blend the difference out.
		var prev kinematic.State
		t.eval(prevRT, &prev)
		jump := t.last.Sub(prev.Pos)
		t.off = t.off.Add(jump)
		t.offRot = t.offRot.Mul(t.lastRot).Mul(prev.Rot.Conj()).Norm()
		if !hold && t.off.Len() > t.cfg.SnapDistance {
			t.stats.Snaps++
			f.Snapped = true
			t.off, t.offRot = geom.Vec3{}, geom.Identity
		}
	}
	if !hold {
		t.decay(dnow)
	}
	t.last, t.lastRot, t.haveLast, t.dirty, t.held = f.Pos, f.Rot, true, false, f.Frozen
	f.Pos = f.Pos.Add(t.off)
	f.Rot = t.offRot.Mul(f.Rot).Norm()
	f.Offset = t.off

	t.stats.Frames++
	if f.Extrapolated {
		t.stats.Extrapolated++
	}
	if f.Frozen {
		t.stats.Frozen++
	}
	t.stats.Delay = f.Delay
	t.stats.Scale = t.clock.scale
	t.prune(base)
	return f
}

// Settle drops the correction still being blended out (Frame.Offset, and its
// rotation): the next frames are drawn on the curve itself. Call it while the
// entity is drawn elsewhere, as a ball carried by a player is drawn at the
// player's place: the corrections its own curve made meanwhile were never
// seen, and blending them out once it is drawn from its curve again would
// show an error that no frame made.
func (t *Timeline) Settle() { t.off, t.offRot = geom.Vec3{}, geom.Identity }

// controlScale returns the render clock rate for a current delay d and a
// target: a deficit is closed at up to 10 % within about a quarter of a
// second, an excess over about two seconds.
func controlScale(d, target time.Duration) float64 {
	e := (d - target).Seconds()
	var s float64
	if e < 0 {
		s = 1 + 4*e
	} else {
		s = 1 + 0.5*e
	}
	return min(max(s, MinScale), MaxScale)
}

// decay blends the correction offset out over dnow.
func (t *Timeline) decay(dnow time.Duration) {
	if dnow <= 0 {
		return
	}
	k := 1 - math.Exp(-float64(dnow)/float64(t.cfg.CorrectionTime))
	if l := t.off.Len(); l > 0 {
		step := min(l*k, t.cfg.MaxCorrectionSpeed*dnow.Seconds())
		if l-step < 1e-5 {
			t.off = geom.Vec3{}
		} else {
			t.off = t.off.Scale((l - step) / l)
		}
	}
	if t.offRot != geom.Identity {
		if t.offRot.Angle(geom.Identity) < 1e-6 {
			t.offRot = geom.Identity
		} else {
			t.offRot = geom.Slerp(t.offRot, geom.Identity, k)
		}
	}
}

// prune drops the states before base, the one the render time is drawn from:
// the render time never goes back to them.
func (t *Timeline) prune(base int) {
	if base <= 0 {
		return
	}
	for i := 0; i < base; i++ {
		*t.at(i) = kinematic.State{}
	}
	t.head = (t.head + base) % len(t.ring)
	t.n -= base
}

// Stats returns the counters and current estimates.
func (t *Timeline) Stats() Stats {
	s := t.stats
	est := &t.clock.est
	s.Lateness = est.medianLateness()
	s.SendInterval = est.interval()
	s.Loss = est.loss()
	s.Target = est.target()
	s.Held = t.n
	if !t.started {
		s.Scale = 1
	}
	return s
}
