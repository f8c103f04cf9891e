package physics

import (
	"errors"
	"fmt"
	"math"

	"github.com/tether-net/tether/geom"
)

// ErrInvalid is wrapped by every error about a parameter out of its range; the
// message names the field and the range allowed.
var ErrInvalid = errors.New("tether/physics: invalid parameter")

// Config sets up a World. The zero value is a 60 Hz world with one sub-step and
// Earth's gravity.
type Config struct {
	// StepHz is the number of steps per simulated second, in [1, 10000];
	// 0 means 60.
	StepHz int
	// SubSteps splits each step into this many equal sub-steps, in [1, 64];
	// 0 means 1.
	SubSteps int
	// Gravity is the acceleration of free bodies in m/s²; the zero vector means
	// (0, -9.81, 0). It acts on spheres only.
	Gravity geom.Vec3
}

// World holds the bodies and shapes and steps them. It is not safe for concurrent
// use.
type World struct {
	h       float64 // sub-step, s
	sub     int
	hz      int // steps per second
	gravity geom.Vec3

	state    []BodyState // by BodyID: all that Step changes
	bodies   []body      // by BodyID: fixed properties
	shapes   []shape     // by ShapeID
	spheres  []int32     // BodyIDs of the spheres, in order
	capsules []int32     // BodyIDs of the capsules, in order
	contacts []Contact

	// Scratch reused by every step.
	capFrom  []geom.Vec3 // capsule base at the start of the sub-step
	capVel   []geom.Vec3 // capsule displacement over the sub-step, per second
	capLo    []geom.Vec3 // bounds swept by the capsule over the sub-step
	capHi    []geom.Vec3
	capPush  []geom.Vec3
	capPairs [][2]int32  // pairs of capsules near one another, by index in capsules
	sphFrom  []geom.Vec3 // sphere centre at the start of the sub-step
	grid     grid
}

type bodyKind uint8

const (
	kindSphere bodyKind = iota
	kindCapsule
)

type body struct {
	kind   bodyKind
	r      float64 // radius, m
	height float64 // capsule height, m
	invM   float64 // 1/kg
	invI   float64 // 1/(kg·m²)
	drag   float64
	lift   float64
	mat    Material
}

type shape struct {
	box     bool
	rotated bool      // box with an orientation other than the identity
	n       geom.Vec3 // plane: unit normal
	off     float64   // plane: offset along n
	c, e    geom.Vec3 // box: centre, half extents
	q       geom.Quat // box: orientation
	lo, hi  geom.Vec3 // box: world bounds
	mat     Material
}

const defaultGravity = 9.81

// NewWorld returns an empty world, or an error wrapping ErrInvalid that names the
// Config field out of range.
func NewWorld(cfg Config) (*World, error) {
	hz, sub := cfg.StepHz, cfg.SubSteps
	if hz == 0 {
		hz = 60
	}
	if sub == 0 {
		sub = 1
	}
	if hz < 1 || hz > 10000 {
		return nil, invalid("Config.StepHz = %d, want 1..10000", cfg.StepHz)
	}
	if sub < 1 || sub > 64 {
		return nil, invalid("Config.SubSteps = %d, want 1..64", cfg.SubSteps)
	}
	g := cfg.Gravity
	if g == (geom.Vec3{}) {
		g = geom.V(0, -defaultGravity, 0)
	}
	if !g.IsFinite() {
		return nil, invalid("Config.Gravity = %v, want finite", g)
	}
	return &World{h: 1 / float64(hz) / float64(sub), sub: sub, hz: hz, gravity: g}, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (m Material) check(what string) error {
	switch {
	case !(m.Restitution >= 0 && m.Restitution <= 1):
		return invalid("%s.Material.Restitution = %v, want 0..1", what, m.Restitution)
	case !(m.Friction >= 0) || !finite(m.Friction):
		return invalid("%s.Material.Friction = %v, want finite and >= 0", what, m.Friction)
	case !(m.RollingResistance >= 0) || !finite(m.RollingResistance):
		return invalid("%s.Material.RollingResistance = %v, want finite and >= 0", what, m.RollingResistance)
	}
	return nil
}

func checkVecs(what string, names []string, vs ...geom.Vec3) error {
	for i, v := range vs {
		if !v.IsFinite() {
			return invalid("%s.%s = %v, want finite", what, names[i], v)
		}
	}
	return nil
}

func positive(x float64) bool { return x > 0 && finite(x) }

// AddSphere adds a dynamic sphere and returns its ID.
func (w *World) AddSphere(s Sphere) (BodyID, error) {
	if err := checkVecs("Sphere", []string{"Pos", "Vel", "AngVel"}, s.Pos, s.Vel, s.AngVel); err != nil {
		return NoBody, err
	}
	switch {
	case !positive(s.Radius):
		return NoBody, invalid("Sphere.Radius = %v, want > 0", s.Radius)
	case !positive(s.Mass):
		return NoBody, invalid("Sphere.Mass = %v, want > 0", s.Mass)
	case !(s.Inertia >= 0) || !finite(s.Inertia):
		return NoBody, invalid("Sphere.Inertia = %v, want >= 0 (0: solid sphere)", s.Inertia)
	case !(s.Drag >= 0) || !finite(s.Drag):
		return NoBody, invalid("Sphere.Drag = %v, want finite and >= 0", s.Drag)
	case !finite(s.Lift):
		return NoBody, invalid("Sphere.Lift = %v, want finite", s.Lift)
	}
	if err := s.Material.check("Sphere"); err != nil {
		return NoBody, err
	}
	inertia := s.Inertia
	if inertia == 0 {
		inertia = 0.4 * s.Mass * s.Radius * s.Radius
	}
	rot := s.Rot
	if rot == (geom.Quat{}) {
		rot = geom.Identity
	}
	id := w.add(body{
		kind: kindSphere, r: s.Radius, invM: 1 / s.Mass, invI: 1 / inertia,
		drag: s.Drag, lift: s.Lift, mat: s.Material,
	}, BodyState{Pos: s.Pos, Vel: s.Vel, AngVel: s.AngVel, Rot: rot.Norm()})
	w.spheres = append(w.spheres, int32(id))
	w.sphFrom = append(w.sphFrom, geom.Vec3{})
	w.grid.reserve(len(w.spheres))
	return id, nil
}

// AddCapsule adds a kinematic vertical capsule and returns its ID.
func (w *World) AddCapsule(c Capsule) (BodyID, error) {
	if err := checkVecs("Capsule", []string{"Pos", "Vel"}, c.Pos, c.Vel); err != nil {
		return NoBody, err
	}
	switch {
	case !positive(c.Radius):
		return NoBody, invalid("Capsule.Radius = %v, want > 0", c.Radius)
	case !(c.Height >= 2*c.Radius) || !finite(c.Height):
		return NoBody, invalid("Capsule.Height = %v, want >= 2·Radius = %v", c.Height, 2*c.Radius)
	}
	if err := c.Material.check("Capsule"); err != nil {
		return NoBody, err
	}
	id := w.add(body{kind: kindCapsule, r: c.Radius, height: c.Height, mat: c.Material},
		BodyState{Pos: c.Pos, Vel: c.Vel, Rot: geom.Identity})
	w.capsules = append(w.capsules, int32(id))
	w.capFrom = append(w.capFrom, geom.Vec3{})
	w.capVel = append(w.capVel, geom.Vec3{})
	w.capLo = append(w.capLo, geom.Vec3{})
	w.capHi = append(w.capHi, geom.Vec3{})
	w.capPush = append(w.capPush, geom.Vec3{})
	if n := len(w.capsules); cap(w.capPairs) < n*(n-1)/2 {
		w.capPairs = make([][2]int32, 0, n*(n-1)/2)
	}
	return id, nil
}

func (w *World) add(b body, s BodyState) BodyID {
	w.bodies = append(w.bodies, b)
	w.state = append(w.state, s)
	// Room for the contacts of a busy step, so that Step rarely has to grow it.
	if need := 8*len(w.state) + 16; cap(w.contacts) < need {
		w.contacts = make([]Contact, 0, need)
	}
	return BodyID(len(w.state) - 1)
}

// AddPlane adds a static plane and returns its ID.
func (w *World) AddPlane(p Plane) (ShapeID, error) {
	if err := checkVecs("Plane", []string{"Normal"}, p.Normal); err != nil {
		return NoShape, err
	}
	if p.Normal == (geom.Vec3{}) {
		return NoShape, invalid("Plane.Normal is zero, want a direction")
	}
	if !finite(p.Offset) {
		return NoShape, invalid("Plane.Offset = %v, want finite", p.Offset)
	}
	if err := p.Material.check("Plane"); err != nil {
		return NoShape, err
	}
	w.shapes = append(w.shapes, shape{n: p.Normal.Norm(), off: p.Offset, mat: p.Material})
	return ShapeID(len(w.shapes) - 1), nil
}

// AddBox adds a static box and returns its ID.
func (w *World) AddBox(b Box) (ShapeID, error) {
	if err := checkVecs("Box", []string{"Center", "Half"}, b.Center, b.Half); err != nil {
		return NoShape, err
	}
	if !(b.Half.X > 0 && b.Half.Y > 0 && b.Half.Z > 0) {
		return NoShape, invalid("Box.Half = %v, want every extent > 0", b.Half)
	}
	if err := b.Material.check("Box"); err != nil {
		return NoShape, err
	}
	q := b.Rot
	if q == (geom.Quat{}) {
		q = geom.Identity
	}
	q = q.Norm()
	s := shape{box: true, c: b.Center, e: b.Half, q: q, mat: b.Material}
	s.rotated = q != geom.Identity
	// World bounds: the extents of the rotated box along each world axis.
	var ext geom.Vec3
	for _, a := range [3]geom.Vec3{{X: b.Half.X}, {Y: b.Half.Y}, {Z: b.Half.Z}} {
		r := q.Rotate(a)
		ext = ext.Add(geom.V(math.Abs(r.X), math.Abs(r.Y), math.Abs(r.Z)))
	}
	s.lo, s.hi = b.Center.Sub(ext), b.Center.Add(ext)
	w.shapes = append(w.shapes, s)
	return ShapeID(len(w.shapes) - 1), nil
}

// Body returns the state of body id. It panics if id is not a body of w.
func (w *World) Body(id BodyID) BodyState { return w.state[id] }

// StepHz returns the number of steps per simulated second.
func (w *World) StepHz() int { return w.hz }

// Gravity returns the acceleration of free bodies, m/s².
func (w *World) Gravity() geom.Vec3 { return w.gravity }

// SetBody replaces the state of body id, for a kick or a teleport. A zero Rot means
// geom.Identity; a capsule keeps its identity rotation and no spin. It panics if id
// is not a body of w.
func (w *World) SetBody(id BodyID, s BodyState) {
	if w.bodies[id].kind == kindCapsule {
		s.Rot, s.AngVel = geom.Identity, geom.Vec3{}
	} else if s.Rot == (geom.Quat{}) {
		s.Rot = geom.Identity
	}
	w.state[id] = s
}

// Separate moves sphere id out of every capsule it overlaps, where the
// capsules stand now, and out of every static shape, as the next Step would
// start by doing, but until it overlaps nothing (a push out of a player's
// rounded foot can go into the ground, and the ground's back into the foot);
// its velocity is kept. A game that places a sphere (SetBody) where players
// may stand, as a kick from a dribble does, calls it so that the state it
// reads back, and sends, is where the world steps it from. It panics if id is
// not a sphere of w.
func (w *World) Separate(id BodyID) {
	if w.bodies[id].kind != kindSphere {
		panic("physics: Separate on a capsule")
	}
	for i, c := range w.capsules {
		w.capFrom[i] = w.state[c].Pos
	}
	p := w.state[id].Pos
	for range separateRounds {
		q := w.depenetrate(p, w.bodies[id].r)
		if q == p {
			break
		}
		p = q
	}
	w.state[id].Pos = p
}

// separateRounds bounds Separate's rounds; each takes the sphere out of the
// overlaps the last one left, which shrink geometrically in a corner.
const separateRounds = 16

// SetVelocity sets the velocity of body id (m/s): a capsule's for the coming steps,
// a sphere's as a kick. It panics if id is not a body of w.
func (w *World) SetVelocity(id BodyID, v geom.Vec3) { w.state[id].Vel = v }

// Save appends the state of every body, in BodyID order, to dst[:0] and returns
// it. With a dst of enough capacity it allocates nothing.
func (w *World) Save(dst []BodyState) []BodyState { return append(dst[:0], w.state...) }

// Restore sets the state of every body from src, as returned by Save on this world,
// and forgets the last step's contacts. Steps after a Restore repeat bit for bit
// those that followed the Save. It returns an error wrapping ErrInvalid if src does
// not hold one state per body.
func (w *World) Restore(src []BodyState) error {
	if len(src) != len(w.state) {
		return invalid("Restore: %d states, want one per body (%d)", len(src), len(w.state))
	}
	copy(w.state, src)
	w.contacts = w.contacts[:0]
	return nil
}

// Contacts returns the contacts resolved by the last Step, in the order they
// happened. The slice is reused by the next Step.
func (w *World) Contacts() []Contact { return w.contacts }
