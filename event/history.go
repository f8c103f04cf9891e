package event

import (
	"errors"
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
)

// Pose is where an entity was at one tick.
type Pose struct {
	Pos geom.Vec3 // metres
	Rot geom.Quat // unit quaternion; the zero value is read as geom.Identity
	// Cut marks a jump to this pose since the tick before (a teleport, a
	// respawn): At holds the pose before it until its tick, never
	// interpolating into it, as a client's timeline never interpolates
	// into a cut state.
	Cut bool
}

// pose is a Pose as a History stores it: its cut apart, in a byte of its
// own, so an entity's tick takes 61 bytes (with its id), not 68.
type pose struct {
	Pos geom.Vec3
	Rot geom.Quat
}

// ErrConfig is wrapped by the error NewHistory returns for a parameter out of
// range; the message names it.
var ErrConfig = errors.New("tether/event: invalid history config")

// History is the server's rewind buffer: for each of the last Depth ticks, the
// pose of up to MaxEntities entities. At answers where an entity was at any
// server time inside that span, so a hit check can be made against what a
// client saw when it acted.
//
// Record a tick with Begin followed by one Add per entity. Memory is allocated
// once by NewHistory; Begin, Add and At do not allocate.
type History struct {
	depth, maxEnt int
	times         []time.Duration // per slot
	counts        []int           // entities recorded per slot
	ids           []uint32        // depth × maxEnt
	poses         []pose          // depth × maxEnt
	cuts          []bool          // depth × maxEnt
	head          int             // slot of the newest tick
	ticks         int             // ticks held

	Dropped uint64 // Add calls refused because the tick already held MaxEntities
}

// NewHistory returns a History holding depth ticks (2 to 65536) of up to
// maxEntities entities each (1 to 65536). At 60 Hz, a depth of 30 covers the
// last half second.
func NewHistory(depth, maxEntities int) (*History, error) {
	if depth < 2 || depth > 1<<16 {
		return nil, fmt.Errorf("%w: depth %d, want 2 to 65536", ErrConfig, depth)
	}
	if maxEntities < 1 || maxEntities > 1<<16 {
		return nil, fmt.Errorf("%w: maxEntities %d, want 1 to 65536", ErrConfig, maxEntities)
	}
	return &History{
		depth: depth, maxEnt: maxEntities,
		times: make([]time.Duration, depth), counts: make([]int, depth),
		ids: make([]uint32, depth*maxEntities), poses: make([]pose, depth*maxEntities), cuts: make([]bool, depth*maxEntities),
		head: depth - 1,
	}, nil
}

// Begin starts recording the tick at server time t, forgetting the oldest tick
// once Depth are held. Times should increase from tick to tick; a t not after
// the newest tick's replaces that tick.
func (h *History) Begin(t time.Duration) {
	if h.ticks > 0 && t <= h.times[h.head] {
		h.counts[h.head] = 0
		h.times[h.head] = t
		return
	}
	h.head = (h.head + 1) % h.depth
	h.times[h.head], h.counts[h.head] = t, 0
	h.ticks = min(h.ticks+1, h.depth)
}

// Add records the pose of entity id in the tick begun last. It reports false,
// and counts the call in Dropped, if the tick already holds MaxEntities.
func (h *History) Add(id uint32, p Pose) bool {
	if h.ticks == 0 || h.counts[h.head] == h.maxEnt {
		h.Dropped++
		return false
	}
	i := h.head*h.maxEnt + h.counts[h.head]
	h.ids[i], h.poses[i], h.cuts[i] = id, pose{p.Pos, p.Rot}, p.Cut
	h.counts[h.head]++
	return true
}

// Span returns the server times of the oldest and newest ticks held; ok is false
// when nothing is.
func (h *History) Span() (oldest, newest time.Duration, ok bool) {
	if h.ticks == 0 {
		return 0, 0, false
	}
	return h.times[h.slot(h.ticks-1)], h.times[h.head], true
}

// slot returns the slot of the tick age ticks before the newest.
func (h *History) slot(age int) int { return (h.head - age + h.depth) % h.depth }

func (h *History) find(slot int, id uint32) (Pose, bool) {
	base := slot * h.maxEnt
	for i := range h.counts[slot] {
		if h.ids[base+i] == id {
			p := &h.poses[base+i]
			return Pose{Pos: p.Pos, Rot: p.Rot, Cut: h.cuts[base+i]}, true
		}
	}
	return Pose{}, false
}

// At returns where entity id was at server time t: between two recorded ticks,
// position interpolated linearly and rotation slerped (but the earlier pose
// held if the later is a Cut). A t after
// the newest tick gives the newest pose. ok is false if t is before the oldest
// tick held (the client asks too far back: the caller should refuse or clamp)
// or the entity is in neither tick around t; if it is in only one, that pose
// is returned.
func (h *History) At(id uint32, t time.Duration) (Pose, bool) {
	if h.ticks == 0 {
		return Pose{}, false
	}
	if t >= h.times[h.head] {
		return h.find(h.head, id)
	}
	for age := 1; age < h.ticks; age++ {
		s := h.slot(age)
		if h.times[s] > t {
			continue
		}
		a, okA := h.find(s, id)
		next := h.slot(age - 1)
		b, okB := h.find(next, id)
		switch {
		case okA && okB && b.Cut:
			a.Cut = false
			return a, true
		case okA && okB:
			u := float64(t-h.times[s]) / float64(h.times[next]-h.times[s])
			ra, rb := unit(a.Rot), unit(b.Rot)
			return Pose{Pos: a.Pos.Lerp(b.Pos, u), Rot: geom.Slerp(ra, rb, u)}, true
		case okA:
			return a, true
		case okB:
			return b, true
		}
		return Pose{}, false
	}
	return Pose{}, false
}

func unit(q geom.Quat) geom.Quat {
	if q == (geom.Quat{}) {
		return geom.Identity
	}
	return q
}

// RewindTo returns the server time a check made at server time now, for a
// client that was showing server time view, is judged at: view, but never
// further back than maxRewind before now and never after now. clamped
// reports that view was further back than maxRewind.
//
// maxRewind is the anti-abuse bound of lag compensation: however far in the
// past a client claims to be showing the world, by lag or by lying, it is
// judged no further back than that. A game keeps a History of at least
// maxRewind (plus two ticks, to interpolate at its edge).
func RewindTo(now, view, maxRewind time.Duration) (at time.Duration, clamped bool) {
	if view < now-maxRewind {
		return now - maxRewind, true
	}
	return min(view, now), false
}
