package replica

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// Entity is one entity of a World: what a game fills in each tick on the
// server, and what a Decoder gives back on the client, quantised as its
// kind's fields say. Only the declared fields travel; the others decode as
// their zero value (Rot as geom.Identity).
type Entity struct {
	ID   uint32
	Kind uint8 // an index into the Schema's kinds
	Tag  uint8 // game-defined (a team, a health bar)
	Gen  uint8 // teleport generation: a change is a jump the client must not smooth
	// State is the entity's motion. Its Time is the snapshot's server time
	// (the layer sets it if the game leaves it zero); the layer reads the
	// game's only for an attachment's blend (Attach).
	State kinematic.State
	// Ints are game integers (health, ammunition, a score), each declared
	// with its range by an Int field.
	Ints [MaxInts]int32
	// Earlier are extra samples of this tick's snapshot, before State in time
	// and oldest first (the state at a kick's knot, or the tick before a
	// jump), for a kind that declares them (Kind.Earlier). Each holds its
	// own Time.
	Earlier []kinematic.State
	// Attach is the entity's attachment to another (a ball at its carrier's
	// feet), for a kind with an Attach field; EarlierAttach, if set, is
	// that of each of its Earlier samples, in the same order (missing ones
	// are not attached).
	Attach        Attachment
	EarlierAttach []Attachment
	// Hold, set, leaves the entity out of this tick's snapshots for a
	// client that holds it already, changed or not: the client keeps it as
	// it had it and gets no state of it at this tick (soccer holds its
	// players in the extra snapshots it asks for at a kick). A client that
	// does not hold it gets it whole.
	Hold bool
}

// Attachment is an entity drawn relative to another while it holds: its
// place in the parent's frame and, while it is still on its way there, a
// blend from where it was.
type Attachment struct {
	On     bool   // attached; the other fields are zero when not
	Parent uint32 // the parent's id, below 2^31-1
	Offset geom.Vec3
	// From is where the blend to Offset started, in the parent's frame, at
	// server time Since; it ends at Since+Span. Span 0: no blend.
	From        geom.Vec3
	Since, Span time.Duration
}

// MaxInts is how many game integers an Entity carries.
const MaxInts = 4

// Axes selects the components of a vector a field sends; the others are
// always zero.
type Axes uint8

// The axes of a vector field.
const (
	X   Axes = 1 << 0
	Y   Axes = 1 << 1
	Z   Axes = 1 << 2
	XZ       = X | Z // the ground plane of a Y-up world
	XYZ      = X | Y | Z
)

type role uint8

const (
	// The roles' numbers are part of the schema's fingerprint (doc/wire.md):
	// never renumber them.
	rolePos role = iota
	roleVel
	roleAngVel
	roleRot
	roleYaw
	roleTag
	roleGen
	roleInt
	roleKnot
	roleInput
	roleCut
	roleAttach
)

// Field is one replicated field of a kind: which part of an Entity it sends
// and at what precision. Make one with Position, Velocity, AngularVelocity,
// Rotation, Yaw, Tag, Gen, Int or Knot.
type Field struct {
	role  role
	scale int64 // steps per metre, metre per second, radian per second, or per turn (Yaw)
	axes  Axes
	bits  int // Rotation: bits per smallest-three component
	lo    int64
	hi    int64
	slot  int // Int: index into Entity.Ints
	tol   int64
}

// Within returns f allowing a delta to leave a component unsent while its
// prediction is within steps of the truth: the client then holds the
// prediction, at most steps off (and never further, however long it holds
// it), for a fraction of a bit, where a prediction from a quantised baseline
// is often a step off the truth and would cost a few bits. For a position,
// a velocity, an angular velocity, an input or an integer; other fields are
// exact.
func (f Field) Within(steps int) Field {
	f.tol = int64(max(0, steps))
	return f
}

// maxSteps bounds every quantised vector component: ±2^30 steps (a thousand
// kilometres at a millimetre), so that every value and every difference of
// two fits 32 bits.
const maxSteps = 1 << 30

// Position sends State.Pos on the given axes in steps of 1/perMetre metres
// (1000: millimetres).
func Position(perMetre int, axes Axes) Field {
	return Field{role: rolePos, scale: int64(perMetre), axes: axes, lo: -maxSteps, hi: maxSteps}
}

// Velocity sends State.Vel on the given axes in steps of 1/perMetrePerSecond
// metres per second (100: centimetres per second).
func Velocity(perMetrePerSecond int, axes Axes) Field {
	return Field{role: roleVel, scale: int64(perMetrePerSecond), axes: axes, lo: -maxSteps, hi: maxSteps}
}

// AngularVelocity sends State.AngVel on the given axes in steps of
// 1/perRadianPerSecond radians per second.
func AngularVelocity(perRadianPerSecond int, axes Axes) Field {
	return Field{role: roleAngVel, scale: int64(perRadianPerSecond), axes: axes, lo: -maxSteps, hi: maxSteps}
}

// Rotation sends State.Rot whole, as smallest-three with bits bits (2 to
// 20) per component: about 1/(2^bits) of a radian of precision.
func Rotation(bits int) Field {
	s := int64(1)<<(bits-1) - 1
	return Field{role: roleRot, bits: bits, lo: -s, hi: s}
}

// Yaw sends State.Rot as a turn about +Y (the heading of a character) in
// steps of 1/perTurn of a full turn; other rotations are lost.
func Yaw(perTurn int) Field {
	return Field{role: roleYaw, scale: int64(perTurn), lo: 0, hi: int64(perTurn) - 1}
}

// Input sends State.Input (the velocity a character was asked for) on the
// given axes in steps of 1/perMetrePerSecond metres per second.
func Input(perMetrePerSecond int, axes Axes) Field {
	return Field{role: roleInput, scale: int64(perMetrePerSecond), axes: axes, lo: -maxSteps, hi: maxSteps}
}

// Attach sends Entity.Attach, its offsets in steps of 1/perMetre metres and
// its blend's times in microseconds: nine components, the parent's id plus
// one (0: not attached), the offset's X, Y and Z, the blend's start's X, Y
// and Z, how long before the sample's time (State.Time) the blend started
// (0 at the latest), and its span, both in whole microseconds (rounded
// down).
func Attach(perMetre int) Field {
	return Field{role: roleAttach, scale: int64(perMetre), lo: -maxSteps, hi: maxSteps}
}

// Tag sends Entity.Tag; Gen sends Entity.Gen; Knot sends State.Knot; Cut
// sends State.Cut.
func Tag() Field  { return Field{role: roleTag, lo: 0, hi: 255} }
func Gen() Field  { return Field{role: roleGen, lo: 0, hi: 255} }
func Knot() Field { return Field{role: roleKnot, lo: 0, hi: 1} }
func Cut() Field  { return Field{role: roleCut, lo: 0, hi: 1} }

// Int sends Entity.Ints[slot], a game integer within [lo, hi]; values
// outside are clamped.
func Int(slot int, lo, hi int32) Field {
	return Field{role: roleInt, slot: slot, lo: int64(lo), hi: int64(hi)}
}

// Kind declares one kind of entity: its fields, and the predictor a delta
// codes each of them against.
type Kind struct {
	Name   string
	Fields []Field
	// Predictor predicts the kind's values at a snapshot's time from the
	// ones the client acknowledged; nil means Linear.
	Predictor Predictor
	// Earlier is how many extra earlier samples an entity of the kind may
	// carry in one snapshot (Entity.Earlier), 0 to 3.
	Earlier int
	// Priority weighs the kind's entities when a snapshot does not hold
	// every change (the byte budget); 0 means 1.
	Priority float64
}

// Schema is a game's declared entity kinds. Both sides must use the same:
// whole snapshots carry a fingerprint of it (its fields, precisions and
// predictors' depths, not the predictors' code), and a decoder refuses a
// snapshot of another schema (ErrFingerprint). Kinds are numbered by their
// order.
type Schema struct {
	kinds []layout
	print uint16
}

// Layout is where a kind's values sit in its vector of quantised components,
// which a Predictor reads and writes. An index is -1 when the kind does not
// send that part.
type Layout struct {
	Pos, Vel, AngVel, Input [3]int // one per axis
	// Rot is the first of four: the largest component's index (0 to 3, for
	// W, X, Y, Z), then the other three in order.
	Rot int
	Yaw int
	// Attach is the first of an Attach field's nine components.
	Attach int
	// PosScale, VelScale, AngVelScale, InputScale and AttachScale are the
	// steps per unit; YawSteps the steps of a turn; RotBits the bits of a
	// rotation component.
	PosScale, VelScale, AngVelScale, InputScale, AttachScale, YawSteps int64
	RotBits                                                            int
	// N is the number of components.
	N int
}

// A component of a kind's vector.
type comp struct {
	role   role
	axis   int
	lo, hi int64
	wrap   int64 // the modulus of a component that wraps around (a yaw); 0: none
	slot   int
	tol    int64 // Field.Within
}

type layout struct {
	Kind
	Layout
	comps []comp
	pred  Predictor
	depth int
	gen   int // the generation's component, or -1
	// order is the order components are coded in: the velocity's first,
	// then the others as declared; nvel counts the velocity's.
	order  []int
	nvel   int
	refine Refiner // pred's, if it refines
	// By component, for the hot loops: its range, and whether its residual
	// is other than a plain difference (a wrap, a rotation, a tolerance).
	lo, hi  []int64
	special []bool
	weight  float64 // Priority, 0 read as 1
}

// Errors from NewSchema and decoding; test with errors.Is.
var (
	ErrSchema = errors.New("tether/replica: invalid schema")
	// ErrNoBaseline is a delta against a snapshot the decoder does not
	// hold (it joined since, or lost its baselines).
	ErrNoBaseline = errors.New("tether/replica: snapshot against a baseline not kept")
)

// MaxKinds is the most kinds a Schema declares.
const MaxKinds = 64

// NewSchema checks and returns the schema of kinds, numbered in order.
func NewSchema(kinds ...Kind) (*Schema, error) {
	if len(kinds) == 0 || len(kinds) > MaxKinds {
		return nil, fmt.Errorf("%w: %d kinds (1 to %d)", ErrSchema, len(kinds), MaxKinds)
	}
	s := &Schema{}
	h := fnv.New32a()
	for i, k := range kinds {
		l := layout{Kind: k}
		l.Pos, l.Vel, l.AngVel, l.Input = [3]int{-1, -1, -1}, [3]int{-1, -1, -1}, [3]int{-1, -1, -1}, [3]int{-1, -1, -1}
		l.Rot, l.Yaw, l.Attach = -1, -1, -1
		seen := map[role]bool{}
		for _, f := range k.Fields {
			if err := l.add(f, seen); err != nil {
				return nil, fmt.Errorf("%w: kind %d (%q): %w", ErrSchema, i, k.Name, err)
			}
			fmt.Fprintf(h, "%d/%d/%d/%d/%d/%d/%d/%d;", f.role, f.scale, f.axes, f.bits, f.lo, f.hi, f.slot, f.tol)
		}
		l.N = len(l.comps)
		l.gen = -1
		for j, c := range l.comps {
			if c.role == roleGen {
				l.gen = j
			}
			if c.role == roleVel {
				l.order = append(l.order, j)
			}
		}
		l.nvel = len(l.order)
		for j, c := range l.comps {
			if c.role != roleVel {
				l.order = append(l.order, j)
			}
			l.lo, l.hi = append(l.lo, c.lo), append(l.hi, c.hi)
			l.special = append(l.special, c.wrap > 0 || c.role == roleRot || c.tol > 0)
		}
		l.weight = k.Priority
		if l.weight == 0 {
			l.weight = 1
		}
		if k.Earlier < 0 || k.Earlier > 3 {
			return nil, fmt.Errorf("%w: kind %d (%q): Earlier %d (0 to 3)", ErrSchema, i, k.Name, k.Earlier)
		}
		if k.Priority < 0 || math.IsNaN(k.Priority) || math.IsInf(k.Priority, 0) {
			return nil, fmt.Errorf("%w: kind %d (%q): Priority %v", ErrSchema, i, k.Name, k.Priority)
		}
		l.pred = k.Predictor
		if l.pred == nil {
			l.pred = Linear{}
		}
		l.depth = max(1, min(maxDepth, l.pred.Depth()))
		l.refine, _ = l.pred.(Refiner)
		fmt.Fprintf(h, "|%d|%d|%d#", k.Earlier, l.depth, b2i(l.refine != nil))
		s.kinds = append(s.kinds, l)
	}
	s.print = uint16(h.Sum32())
	return s, nil
}

// Kinds returns the number of kinds.
func (s *Schema) Kinds() int { return len(s.kinds) }

// Names returns the kinds' names (Kind.Name), in order.
func (s *Schema) Names() []string {
	names := make([]string, len(s.kinds))
	for i := range s.kinds {
		names[i] = s.kinds[i].Name
	}
	return names
}

// Layout returns where kind's values sit.
func (s *Schema) Layout(kind uint8) Layout { return s.kinds[kind].Layout }

func (l *layout) add(f Field, seen map[role]bool) error {
	if seen[f.role] && f.role != roleInt {
		return fmt.Errorf("field of role %d twice", f.role)
	}
	seen[f.role] = true
	vec := func(dst *[3]int, scale *int64) error {
		if f.scale < 1 || f.scale > 1<<24 {
			return fmt.Errorf("steps per unit %d (1 to 2^24)", f.scale)
		}
		if f.axes == 0 || f.axes&^XYZ != 0 {
			return fmt.Errorf("axes %b", f.axes)
		}
		*scale = f.scale
		for a := range 3 {
			if f.axes&(1<<a) != 0 {
				dst[a] = len(l.comps)
				l.comps = append(l.comps, comp{role: f.role, axis: a, lo: f.lo, hi: f.hi, tol: f.tol})
			}
		}
		return nil
	}
	switch f.role {
	case rolePos:
		return vec(&l.Pos, &l.PosScale)
	case roleVel:
		return vec(&l.Vel, &l.VelScale)
	case roleAngVel:
		return vec(&l.AngVel, &l.AngVelScale)
	case roleInput:
		return vec(&l.Input, &l.InputScale)
	case roleAttach:
		if f.scale < 1 || f.scale > 1<<24 {
			return fmt.Errorf("steps per metre %d (1 to 2^24)", f.scale)
		}
		l.Attach, l.AttachScale = len(l.comps), f.scale
		l.comps = append(l.comps, comp{role: roleAttach, axis: 0, lo: 0, hi: 1<<31 - 1})
		for a := 1; a < 9; a++ {
			lo := f.lo
			if a >= 7 {
				lo = 0
			}
			l.comps = append(l.comps, comp{role: roleAttach, axis: a, lo: lo, hi: f.hi})
		}
	case roleRot:
		if f.bits < 2 || f.bits > 20 {
			return fmt.Errorf("rotation bits %d (2 to 20)", f.bits)
		}
		l.Rot, l.RotBits = len(l.comps), f.bits
		l.comps = append(l.comps, comp{role: roleRot, lo: 0, hi: 3})
		for range 3 {
			l.comps = append(l.comps, comp{role: roleRot, lo: f.lo, hi: f.hi})
		}
	case roleYaw:
		if f.scale < 4 || f.scale > 1<<24 {
			return fmt.Errorf("yaw steps %d (4 to 2^24)", f.scale)
		}
		l.Yaw, l.YawSteps = len(l.comps), f.scale
		l.comps = append(l.comps, comp{role: roleYaw, lo: f.lo, hi: f.hi, wrap: f.scale})
	case roleInt:
		if f.slot < 0 || f.slot >= MaxInts {
			return fmt.Errorf("int slot %d (0 to %d)", f.slot, MaxInts-1)
		}
		if f.lo > f.hi {
			return fmt.Errorf("int range [%d, %d]", f.lo, f.hi)
		}
		for _, c := range l.comps {
			if c.role == roleInt && c.slot == f.slot {
				return fmt.Errorf("int slot %d twice", f.slot)
			}
		}
		l.comps = append(l.comps, comp{role: roleInt, slot: f.slot, lo: f.lo, hi: f.hi, tol: f.tol})
	default: // tag, gen, knot
		l.comps = append(l.comps, comp{role: f.role, lo: f.lo, hi: f.hi})
	}
	return nil
}

// quantise writes e's values into q (len N).
func (l *layout) quantise(q []int32, e *Entity) {
	rot := e.State.Rot
	if rot == (geom.Quat{}) {
		rot = geom.Identity
	}
	var packed [4]int64
	if l.Rot >= 0 {
		v := geom.PackSmallestThree(rot.Norm(), uint(l.RotBits))
		steps := int64(1)<<(l.RotBits-1) - 1
		mask := uint64(1)<<l.RotBits - 1
		packed[0] = int64(v >> (3 * l.RotBits) & 3)
		for j := range 3 {
			packed[1+j] = int64(v>>(uint(2-j)*uint(l.RotBits))&mask) - steps
		}
	}
	rotAt := 0
	for i := range l.comps {
		c := &l.comps[i]
		var x int64
		switch c.role {
		case rolePos:
			x = steps(e.State.Pos.Axis(c.axis), l.PosScale)
		case roleVel:
			x = steps(e.State.Vel.Axis(c.axis), l.VelScale)
		case roleAngVel:
			x = steps(e.State.AngVel.Axis(c.axis), l.AngVelScale)
		case roleInput:
			x = steps(e.State.Input.Axis(c.axis), l.InputScale)
		case roleAttach:
			x = l.attachComp(&e.Attach, c.axis, e.State.Time)
		case roleCut:
			if e.State.Cut {
				x = 1
			}
		case roleRot:
			x = packed[rotAt]
			rotAt++
		case roleYaw:
			a := 2 * math.Atan2(rot.Y, rot.W) / (2 * math.Pi)
			x = int64(math.Round(a*float64(l.YawSteps))) % l.YawSteps
			if x < 0 {
				x += l.YawSteps
			}
		case roleTag:
			x = int64(e.Tag)
		case roleGen:
			x = int64(e.Gen)
		case roleInt:
			x = int64(e.Ints[c.slot])
		case roleKnot:
			if e.State.Knot {
				x = 1
			}
		}
		q[i] = int32(max(c.lo, min(c.hi, x)))
	}
}

// entity sets e's declared fields from q, at time t.
func (l *layout) entity(e *Entity, q []int32, t time.Duration) {
	s := kinematic.State{Time: t, Rot: geom.Identity}
	var packed uint64
	for i, c := range l.comps {
		x := int64(q[i])
		switch c.role {
		case rolePos:
			s.Pos.SetAxis(c.axis, float64(x)/float64(l.PosScale))
		case roleVel:
			s.Vel.SetAxis(c.axis, float64(x)/float64(l.VelScale))
		case roleAngVel:
			s.AngVel.SetAxis(c.axis, float64(x)/float64(l.AngVelScale))
		case roleInput:
			s.Input.SetAxis(c.axis, float64(x)/float64(l.InputScale))
		case roleCut:
			s.Cut = x != 0
		case roleRot:
			if i == l.Rot {
				packed = uint64(x)
			} else {
				packed = packed<<uint(l.RotBits) | uint64(x+int64(1)<<(l.RotBits-1)-1)
			}
		case roleYaw:
			s.Rot = geom.AxisAngle(geom.V(0, 1, 0), float64(x)/float64(l.YawSteps)*2*math.Pi)
		case roleTag:
			e.Tag = uint8(x)
		case roleGen:
			e.Gen = uint8(x)
		case roleInt:
			e.Ints[c.slot] = int32(x)
		case roleKnot:
			s.Knot = x != 0
		}
	}
	if l.Rot >= 0 {
		s.Rot = geom.UnpackSmallestThree(packed, uint(l.RotBits))
	}
	e.State = s
	e.Attach = Attachment{}
	if a := l.Attach; a >= 0 && q[a] > 0 {
		m := float64(l.AttachScale)
		v := func(i int) geom.Vec3 {
			return geom.V(float64(q[a+i])/m, float64(q[a+i+1])/m, float64(q[a+i+2])/m)
		}
		e.Attach = Attachment{On: true, Parent: uint32(q[a] - 1), Offset: v(1), From: v(4),
			Since: t - time.Duration(q[a+7])*time.Microsecond, Span: time.Duration(q[a+8]) * time.Microsecond}
	}
}

// attachComp returns component i of an Attach field for a, in a sample at
// time t.
func (l *layout) attachComp(a *Attachment, i int, t time.Duration) int64 {
	if !a.On {
		return 0
	}
	switch i {
	case 0:
		return int64(a.Parent) + 1
	case 1, 2, 3:
		return steps(a.Offset.Axis(i-1), l.AttachScale)
	case 4, 5, 6:
		return steps(a.From.Axis(i-4), l.AttachScale)
	case 7:
		return int64(max(0, t-a.Since) / time.Microsecond)
	}
	return int64(max(0, a.Span) / time.Microsecond)
}

func steps(x float64, scale int64) int64 {
	y := x * float64(scale)
	switch {
	case y < -maxSteps:
		y = -maxSteps
	case y > maxSteps:
		y = maxSteps
	case math.IsNaN(y):
		return 0
	}
	return int64(math.Round(y))
}
