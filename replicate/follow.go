package replicate

import (
	"math"
	"time"

	"github.com/tether-net/tether/kinematic"
)

// FollowStats are the counters of Velocity and Predictive.
type FollowStats struct {
	Received   uint64 // states taken as the newest
	Stale      uint64 // states dropped because a newer one had been received
	Waited     uint64 // states ignored because they predate a local interaction
	Invalid    uint64 // states dropped for a non-finite field
	Cuts       uint64 // Cut states applied as a jump
	Snaps      uint64 // corrections applied as a jump (too far, or not converging)
	Ticks      uint64 // ticks the simulation was stepped
	Correcting uint64 // of which with a correction under way
	Skipped    uint64 // ticks skipped because Render was not called for too long

	Latency  time.Duration // smoothed age of a state on arrival (arrival minus state time)
	Interval time.Duration // smoothed server-time gap between successive newest states
}

// law is the control law that steers the body toward the target.
type law interface {
	// correct returns b steered toward target t at one tick, and whether
	// the correction is over.
	correct(f *follower, b, t kinematic.State) (kinematic.State, bool)
	// limit is how many ticks a target is advanced after its state was
	// received before the correction stops; 0 means no limit.
	limit(f *follower) int
}

// follower runs a Sim on the server's tick grid up to the present and,
// through a law, steers the body toward the newest server state advanced to
// the current tick.
type follower struct {
	sim  Sim
	tick time.Duration
	law  law

	started bool
	cur     int64           // the tick the sim is at
	prev    kinematic.State // the body at cur-1, after any correction then
	at      kinematic.State // the body at cur

	pending  bool // a state received and not yet taken
	pend     kinematic.State
	pendTick int64
	have     bool  // a state has been received
	newest   int64 // tick of the newest state received
	newestT  time.Duration
	wait     int64 // states before this tick predate a local interaction

	active  bool            // a correction is under way
	target  kinematic.State // the newest state advanced to cur
	since   int             // ticks the target has been advanced
	lastErr float64
	accum   time.Duration // time the error has not shrunk
	cut     bool          // show the next frame as a cut

	stats FollowStats
}

// maxCatchUp is the most ticks Render steps at once; beyond, the simulation
// skips ahead (the client was paused).
const maxCatchUp = 120

func (f *follower) receive(s kinematic.State, arrival time.Duration) {
	if !valid(s) {
		f.stats.Invalid++
		return
	}
	k := tickOf(s.Time, f.tick)
	if f.have && k <= f.newest {
		f.stats.Stale++
		return
	}
	age := arrival - s.Time
	if f.have {
		gap := time.Duration(k-f.newest) * f.tick
		f.stats.Interval += (gap - f.stats.Interval) / 8
		f.stats.Latency += (age - f.stats.Latency) / 8
	} else {
		f.stats.Interval = 2 * f.tick
		f.stats.Latency = max(age, 0)
	}
	f.have, f.newest, f.newestT = true, k, s.Time
	f.stats.Received++
	if k < f.wait && !s.Cut {
		f.stats.Waited++
		return
	}
	f.pending, f.pend, f.pendTick = true, norm(s), k
}

// interact ends any correction and ignores the server's states for ticks
// before the one at or after at.
func (f *follower) interact(at time.Duration) {
	f.wait = max(f.wait, ceilTick(at, f.tick))
	f.active = false
	if f.pending && f.pendTick < f.wait && !f.pend.Cut {
		f.pending = false
	}
}

// take makes the pending state the target, advanced to the current tick.
func (f *follower) take() {
	f.pending = false
	t := f.pend
	if n := f.cur - f.pendTick; n > 0 {
		t = f.sim.Predict(t, int(n))
	}
	if f.pend.Cut {
		f.sim.SetBody(t)
		f.active, f.cut = false, true
		f.stats.Cuts++
		return
	}
	// The error accumulated so far carries over: a body stuck against
	// something the server's is not stays stuck whatever the new state.
	f.target, f.active, f.since = t, true, 0
}

// snap sets the body to the target and ends the correction.
func (f *follower) snap(t kinematic.State) (kinematic.State, bool) {
	f.stats.Snaps++
	f.lastErr, f.accum = math.Inf(1), 0
	return t, true
}

// restored ends the correction with the error gone.
func (f *follower) restored(b kinematic.State) (kinematic.State, bool) {
	f.lastErr, f.accum = math.Inf(1), 0
	return b, true
}

// accumulate tracks how long the error d has not shrunk and reports whether
// that exceeds limit.
func (f *follower) accumulate(d float64, limit time.Duration) bool {
	if d >= f.lastErr-1e-6 {
		f.accum += f.tick
	} else {
		f.accum = max(f.accum-f.tick, 0)
	}
	f.lastErr = d
	return f.accum > limit
}

func (f *follower) step() {
	if f.pending && f.pendTick <= f.cur {
		f.take()
	}
	if f.active {
		f.stats.Correcting++
		b := f.sim.Body()
		nb, done := f.law.correct(f, b, f.target)
		if nb != b {
			f.sim.SetBody(nb)
		}
		if done {
			f.active = false
		}
	}
	f.prev = f.sim.Body()
	f.sim.Step()
	f.cur++
	f.stats.Ticks++
	f.at = f.sim.Body()
	if f.active {
		f.since++
		if l := f.law.limit(f); l > 0 && f.since > l {
			f.active = false
		} else {
			f.target = f.sim.Predict(f.target, 1)
		}
	}
}

func (f *follower) render(now time.Duration) Frame {
	m := ceilTick(now, f.tick)
	if !f.started {
		if !f.pending {
			return Frame{}
		}
		// Start a tick early, so that the first frame is drawn between two
		// simulated ticks.
		f.started = true
		f.cur = max(m-1, f.pendTick)
		f.take()
		if !f.pend.Cut {
			f.sim.SetBody(f.target)
			f.active = false
		}
		f.prev = f.sim.Body()
		f.at = f.prev
		f.cut = true
		f.lastErr = math.Inf(1)
	}
	if m-f.cur > maxCatchUp {
		f.stats.Skipped += uint64(m - 1 - f.cur)
		f.cur = m - 1
	}
	for f.cur < m {
		f.step()
	}
	u := 1 - float64(time.Duration(f.cur)*f.tick-now)/float64(f.tick)
	pos, vel, rot, angVel := curve(f.prev, f.at, f.tick, u)
	fr := Frame{
		Pos: pos, Vel: vel, Rot: rot, AngVel: angVel, Time: now,
		Valid: true, Extrapolated: now > f.newestT, Cut: f.cut,
	}
	f.cut = false
	return fr
}
