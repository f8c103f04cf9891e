package replicate

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// packed is one body's state as the history keeps it, in 56 bytes: the
// position exactly (float64: a kinematic player moved by rounded positions
// tick after tick would drift from the server's by a micrometre a tick, and
// a touch of the ball depends on where the player is to the micrometre),
// velocity and angular velocity as float32 (a step of 4 µm/s at 40 m/s),
// and the rotation as its three smallest components on 20 bits each plus the
// index of the largest (a step of about 1.4e-6 rad).
type packed struct {
	pos         geom.Vec3
	vel, angVel [3]float32
	rot         [2]uint32
}

// rotBits is the bits per smallest-three component of a rotation.
const rotBits = 20

func pack3(v geom.Vec3) [3]float32 { return [3]float32{float32(v.X), float32(v.Y), float32(v.Z)} }

func unpack3(p [3]float32) geom.Vec3 { return geom.V(float64(p[0]), float64(p[1]), float64(p[2])) }

func packRot(q geom.Quat) [2]uint32 {
	v := geom.PackSmallestThree(q, rotBits)
	return [2]uint32{uint32(v >> 32), uint32(v)}
}

func unpackRot(p [2]uint32) geom.Quat {
	return geom.UnpackSmallestThree(uint64(p[0])<<32|uint64(p[1]), rotBits)
}

func packBody(b kinematic.State) packed {
	r := b.Rot
	if d := r.Dot(r); d < 1-1e-9 || d > 1+1e-9 {
		r = r.Norm()
	}
	return packed{pos: b.Pos, vel: pack3(b.Vel), angVel: pack3(b.AngVel), rot: packRot(r)}
}

func (p *packed) body() kinematic.State {
	return kinematic.State{Pos: p.pos, Vel: unpack3(p.vel), AngVel: unpack3(p.angVel), Rot: unpackRot(p.rot)}
}

// Cell is the state of every body of the world at one tick, as the history
// of a Resim keeps it (quantised: see Set). A game performing a SaveState
// request calls Set for every body; performing a LoadState request, it sets
// its world from Get for every body.
type Cell struct {
	tick  int64
	time  time.Duration
	used  bool
	state []packed
	fixed []uint64 // bit i: body i holds the server's state for this tick
}

// Tick returns the tick the cell holds.
func (c *Cell) Tick() int64 { return c.tick }

// Len returns the number of bodies in the cell.
func (c *Cell) Len() int { return len(c.state) }

// Set stores body i's state (Pos, Vel, Rot and AngVel), quantised. A body for
// which the cell already holds the server's state for this tick keeps it:
// that is how a correction enters the world. Set panics if i is out of
// range.
func (c *Cell) Set(i int, b kinematic.State) {
	if c.fixed[i/64]&(1<<(i%64)) != 0 {
		return
	}
	c.state[i] = packBody(b)
}

// Get returns body i's state; its Time is the cell's tick time. Get panics if
// i is out of range.
func (c *Cell) Get(i int) kinematic.State {
	b := c.state[i].body()
	b.Time = c.time
	return b
}

// fix stores the server's state of body i, which Set will then keep.
func (c *Cell) fix(i int, b kinematic.State) {
	c.state[i] = packBody(b)
	c.fixed[i/64] |= 1 << (i % 64)
}

// assign makes the cell hold tick k; a cell reused for another tick forgets
// its server states.
func (c *Cell) assign(k int64, tick time.Duration) {
	if c.used && c.tick == k {
		return
	}
	c.tick, c.time, c.used = k, time.Duration(k)*tick, true
	clear(c.fixed)
}

// Checksum returns a 64-bit FNV-1a hash of the cell's quantised state.
func (c *Cell) Checksum() uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint32) {
		for range 4 {
			h ^= uint64(x & 0xff)
			h *= 1099511628211
			x >>= 8
		}
	}
	for i := range c.state {
		p := &c.state[i]
		for _, x := range [3]float64{p.pos.X, p.pos.Y, p.pos.Z} {
			b := math.Float64bits(x)
			mix(uint32(b))
			mix(uint32(b >> 32))
		}
		for _, a := range [2]*[3]float32{&p.vel, &p.angVel} {
			for _, f := range a {
				mix(math.Float32bits(f))
			}
		}
		mix(p.rot[0])
		mix(p.rot[1])
	}
	return h
}
