package gaffer

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// The article's precision, kept: every parameter below is the one "Snapshot
// Compression" found sufficient for its cubes, and the crowd's spheres ask for
// no more (they are half a metre across, the cubes a metre).
const (
	// PerMetre is the position's resolution: 512 steps a metre (about 2 mm),
	// as the article's.
	PerMetre = 512
	// RotBits is the width of each of the smallest three components of a
	// rotation, in [-1/√2, 1/√2]: the article's 9 bits.
	RotBits = 9
)

// rotSteps bounds each of the smallest three in steps: geom.PackSmallestThree
// maps [-1/√2, 1/√2] onto [-rotSteps, rotSteps], so that zero, and the
// identity, are exact.
const rotSteps = 1<<(RotBits-1) - 1

// The article's small/large codes of a component's difference from the
// baseline, kept as published (it fitted them to its cubes' data by a greedy
// search): a small flag, then a difference in [-16, 15] on 5 bits, or a large
// one on 9 bits (position) or 8 bits (rotation), its range stretched past the
// small range.
const (
	smallBits  = 5
	posLarge   = 9
	rotLarge   = 8
	smallRange = 1 << (smallBits - 1) // a small difference is in [-16, 16)
)

// The article's code of the offset from one changed body's index to the
// next: [1, 8] on 1+3 bits, [9, 40] on 1+1+5, larger on 1+1 and the width of
// an index.
const (
	offsetNear = 8  // offsets [1, 8]: 3 bits
	offsetMid  = 40 // offsets [9, 40]: 5 bits
)

// The article's bounds of a position, the defaults of Config: ±256 m across
// the horizontal plane and 32 m up from the floor.
const (
	DefaultHalfWidth = 256.0 // metres
	DefaultHeight    = 32.0  // metres
)

// DefaultBodies is Config.Bodies' default: the crowd's thousand spheres.
const DefaultBodies = 1000

// MaxBodies bounds Config.Bodies.
const MaxBodies = replica.MaxEntities

// Ring is how many snapshots the encoder keeps per client, and the decoder
// keeps, as baselines: as many as package replica keeps, so that both coders
// fall back to a whole snapshot after the same loss.
const Ring = replica.Ring

// maxSteps bounds a position's range in steps, so that a coordinate takes at
// most 26 bits: 65 km across at 512 steps a metre.
const maxSteps = 1 << 25

// ErrConfig is wrapped by Config.Check's errors.
var ErrConfig = errors.New("tether/gaffer: invalid config")

// Config is the format's parameters, which the encoder and the decoder must
// share. The zero value is the article's bounds and a thousand bodies, each
// starting at the origin unrotated.
//
// The article's bounds fit its cube scene: x and y (across its floor) in
// [-256, 256) m and z (up) in [0, 32) m, at 512 steps a metre, so 18, 18 and
// 14 bits. Tether's worlds are Y-up, so here the article's z is Y and its y is
// Z. For the crowd, HalfWidth should be adapted to the arena's walls,
// crowd.HalfSize (20.2 m for 1,000 spheres: 15 bits per horizontal
// coordinate), as the article bounded its own scene: the spheres cannot leave
// the walls. Height is best kept at the article's 32 m: nothing in the crowd
// bounds how high a sphere may bounce, and the floor is at y = 0 as the
// article's is at z = 0.
type Config struct {
	// Bodies is the number of bodies of every world, known to both sides as
	// the article's 901 cubes are; 0 means DefaultBodies. Range [1,
	// MaxBodies].
	Bodies int
	// Kind is the replica kind the decoder gives every body.
	Kind uint8
	// HalfWidth bounds X and Z: a coordinate is clamped into [-HalfWidth,
	// HalfWidth), metres; 0 means DefaultHalfWidth. Range (0, 32768].
	HalfWidth float64
	// Height bounds Y: it is clamped into [0, Height), metres; 0 means
	// DefaultHeight. Range (0, 65536].
	Height float64
	// Initial is the state both sides know before any snapshot, the article's
	// "initial state of the simulation": a snapshot sent before the client
	// acknowledged one is coded against it. Entity i gives body i's
	// State.Pos and State.Rot; nil means every body at the origin, unrotated,
	// which makes such a snapshot a whole one (every body's absolute
	// position, and its rotation unless it is unrotated). If set, it holds
	// Bodies entities.
	Initial []replica.Entity
}

// Check returns an error wrapping ErrConfig that names the field out of
// range, or nil.
func (c Config) Check() error {
	c = c.withDefaults()
	switch {
	case c.Bodies < 1 || c.Bodies > MaxBodies:
		return fmt.Errorf("%w: Bodies = %d, want 1 to %d", ErrConfig, c.Bodies, MaxBodies)
	case !(c.HalfWidth > 0 && c.HalfWidth <= maxSteps/PerMetre):
		return fmt.Errorf("%w: HalfWidth = %g m, want above 0 to %d", ErrConfig, c.HalfWidth, maxSteps/PerMetre)
	case !(c.Height > 0 && c.Height <= 2*maxSteps/PerMetre):
		return fmt.Errorf("%w: Height = %g m, want above 0 to %d", ErrConfig, c.Height, 2*maxSteps/PerMetre)
	case c.Initial != nil && len(c.Initial) != c.Bodies:
		return fmt.Errorf("%w: Initial holds %d bodies, want Bodies = %d", ErrConfig, len(c.Initial), c.Bodies)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.Bodies == 0 {
		c.Bodies = DefaultBodies
	}
	if c.HalfWidth == 0 {
		c.HalfWidth = DefaultHalfWidth
	}
	if c.Height == 0 {
		c.Height = DefaultHeight
	}
	return c
}

// Quantise returns pos and rot as the decoder gives them back: the position
// clamped into its bounds and rounded to 1/512 m, the rotation in the smallest
// three of 9 bits. A zero or non-finite rotation is read as geom.Identity.
func (c Config) Quantise(pos geom.Vec3, rot geom.Quat) (geom.Vec3, geom.Quat) {
	f := newBounds(c.withDefaults())
	b := f.quantise(pos, rot)
	return f.position(&b), b.rotation()
}

// format is a checked Config's figures.
type format struct {
	n       int   // bodies
	half    int32 // X and Z are in [-half, half) steps
	height  int32 // Y is in [0, height) steps
	hBits   int   // bits of an absolute X or Z
	vBits   int   // bits of an absolute Y
	idxBits int   // bits of a body's index, [0, n)
	cntBits int   // bits of a count of bodies, [0, n]
	kind    uint8
	initial []body
}

func newFormat(c Config) format {
	f := newBounds(c)
	f.initial = make([]body, f.n)
	for i := range f.initial {
		var pos geom.Vec3
		rot := geom.Identity
		if c.Initial != nil {
			pos, rot = c.Initial[i].State.Pos, c.Initial[i].State.Rot
		}
		f.initial[i] = f.quantise(pos, rot)
	}
	return f
}

// newBounds returns the format of c but its initial state.
func newBounds(c Config) format {
	f := format{
		n:       c.Bodies,
		half:    int32(math.Ceil(c.HalfWidth * PerMetre)),
		height:  int32(math.Ceil(c.Height * PerMetre)),
		idxBits: bits.Len(uint(c.Bodies - 1)),
		cntBits: bits.Len(uint(c.Bodies)),
		kind:    c.Kind,
	}
	f.hBits = bits.Len32(uint32(2*f.half - 1))
	f.vBits = bits.Len32(uint32(f.height - 1))
	return f
}

// body is a body's state quantised: its position in steps of 1/PerMetre m,
// and its rotation's smallest three, the index of the largest component (in
// geom.Quat's order W, X, Y, Z) and the other three in [-rotSteps, rotSteps].
type body struct {
	pos   [3]int32
	big   uint8
	small [3]int16
}

func (f *format) quantise(pos geom.Vec3, rot geom.Quat) body {
	var b body
	lo := [3]int32{-f.half, 0, -f.half}
	hi := [3]int32{f.half - 1, f.height - 1, f.half - 1}
	for i, x := range [3]float64{pos.X, pos.Y, pos.Z} {
		b.pos[i] = int32(max(int64(lo[i]), min(int64(hi[i]), wire.Quantise(x, 1.0/PerMetre))))
	}
	l := rot.Len()
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		rot = geom.Identity
	} else {
		rot = rot.Norm()
	}
	v := geom.PackSmallestThree(rot, RotBits)
	b.big = uint8(v >> (3 * RotBits))
	for i := range 3 {
		b.small[i] = int16(int32(v>>(RotBits*(2-i))&(1<<RotBits-1)) - rotSteps)
	}
	return b
}

func (f *format) position(b *body) geom.Vec3 {
	return geom.V(float64(b.pos[0])/PerMetre, float64(b.pos[1])/PerMetre, float64(b.pos[2])/PerMetre)
}

// rotation returns b's rotation.
func (b *body) rotation() geom.Quat {
	v := uint64(b.big)
	for i := range 3 {
		v = v<<RotBits | uint64(int64(b.small[i])+rotSteps)
	}
	return geom.UnpackSmallestThree(v, RotBits)
}
