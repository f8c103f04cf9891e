package measure

import (
	"slices"
	"time"

	"github.com/tether-net/tether/geom"
)

// Cast is the server's true motion of a game's characters (Characters),
// recorded after every tick: between two ticks a character moves on the
// straight line joining them, except across a teleport (a change of its
// generation), before which it stands where it was. Ticks may come at any
// spacing (a live server that skipped some). The zero value is ready; ticks
// must come in order of time.
type Cast struct {
	times []time.Duration   // of the ticks held, in order
	poses [][]Pose          // by tick held, by slot
	cuts  [][]time.Duration // by slot: the ticks it was teleported at
}

// Pose is a character at one tick: where it was, its teleport generation,
// and whether it was in play.
type Pose struct {
	Pos geom.Vec3
	Gen uint8
	In  bool
}

// Tick records the characters after the server's tick at time t, by slot
// (a slot past the end of poses is out of play). It keeps no reference to
// poses.
func (c *Cast) Tick(t time.Duration, poses []Pose) {
	if n := len(c.poses); n > 0 {
		for slot, p := range poses {
			if was := c.pose(n-1, slot); p.In && was.In && was.Gen != p.Gen {
				for slot >= len(c.cuts) {
					c.cuts = append(c.cuts, nil)
				}
				c.cuts[slot] = append(c.cuts[slot], t)
			}
		}
	}
	c.times = append(c.times, t)
	c.poses = append(c.poses, slices.Clone(poses))
}

// Forget drops the ticks before the newest one at or before t, which no
// frame may ask for any more.
func (c *Cast) Forget(t time.Duration) {
	if k := c.index(t); k > 1 {
		c.times = c.times[:copy(c.times, c.times[k-1:])]
		n := copy(c.poses, c.poses[k-1:])
		clear(c.poses[n:])
		c.poses = c.poses[:n]
	}
}

// pose returns slot at held tick k.
func (c *Cast) pose(k, slot int) Pose {
	if slot < len(c.poses[k]) {
		return c.poses[k][slot]
	}
	return Pose{}
}

// index returns the index of the first tick held at or after t.
func (c *Cast) index(t time.Duration) int {
	k, _ := slices.BinarySearch(c.times, t)
	return k
}

// Position implements Characters: where slot was at server time t, between
// the ticks held (before the oldest, at it; after the newest, at it).
func (c *Cast) Position(slot int, t time.Duration) (geom.Vec3, bool) {
	k := c.index(t)
	switch {
	case len(c.times) == 0:
		return geom.Vec3{}, false
	case k == len(c.times):
		p := c.pose(k-1, slot)
		return p.Pos, p.In
	case k == 0 || c.times[k] == t:
		p := c.pose(k, slot)
		return p.Pos, p.In
	}
	a, b := c.pose(k-1, slot), c.pose(k, slot)
	switch {
	case !a.In:
		return b.Pos, b.In
	case !b.In || b.Gen != a.Gen:
		return a.Pos, true
	}
	u := float64(t-c.times[k-1]) / float64(c.times[k]-c.times[k-1])
	return a.Pos.Lerp(b.Pos, u), true
}

// Teleported implements Characters: whether slot was teleported after t0
// and up to t1, or at most span before t1.
func (c *Cast) Teleported(slot int, t0, t1, span time.Duration) bool {
	if slot >= len(c.cuts) {
		return false
	}
	for _, at := range c.cuts[slot] {
		if at > t0 && at <= t1 || at <= t1 && t1-at < span {
			return true
		}
	}
	return false
}
