package physics

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// BodyID names a sphere or a capsule of a World: its index in the slice Save
// returns, in the order the bodies were added.
type BodyID int32

// ShapeID names a static plane or box of a World, in the order they were added.
type ShapeID int32

// NoBody and NoShape fill the Other and Shape fields of a Contact that has none.
const (
	NoBody  BodyID  = -1
	NoShape ShapeID = -1
)

// Material describes how a surface bounces and grips. The coefficient used for a
// contact is the product of both sides' values, so a value of 1 on one side leaves
// the other side's value as it is.
type Material struct {
	// Restitution is the share of the normal approach speed a bounce gives back,
	// in [0, 1].
	Restitution float64
	// Friction is the Coulomb coefficient: the tangential impulse is at most
	// Friction times the normal impulse. At least 0.
	Friction float64
	// RollingResistance slows a rolling sphere by RollingResistance·g metres per
	// second each second, g being the gravity pressing it on the surface. At
	// least 0.
	RollingResistance float64
}

// Sphere describes a dynamic sphere for AddSphere.
type Sphere struct {
	Pos    geom.Vec3 // centre, m
	Vel    geom.Vec3 // m/s
	AngVel geom.Vec3 // rad/s, world frame
	Rot    geom.Quat // orientation; the zero value means geom.Identity

	Radius float64 // m, > 0
	Mass   float64 // kg, > 0
	// Inertia is the moment of inertia in kg·m²; 0 means a solid sphere's
	// 2/5·Mass·Radius². A hollow ball has 2/3·Mass·Radius².
	Inertia float64

	Material Material
	// Drag is the quadratic air drag: the sphere decelerates by Drag·|v|² m/s²
	// (Drag = ρ·Cd·A / 2m, in 1/m). 0 means none.
	Drag float64
	// Lift is the Magnus effect: the sphere accelerates by Lift·(ω × v) m/s², which
	// turns its path without changing its speed. 0 means none.
	Lift float64
}

// Capsule describes a kinematic vertical capsule (a player) for AddCapsule: a
// cylinder of the given radius capped by two half-spheres, standing on Pos.
type Capsule struct {
	Pos geom.Vec3 // centre of its base (where it stands), m
	Vel geom.Vec3 // m/s, set by the game; the capsule is never pushed by spheres

	Radius float64 // m, > 0
	Height float64 // m, from base to top, at least 2·Radius

	Material Material
}

// Plane describes a static plane for AddPlane: everything on the side Normal points
// away from is solid.
type Plane struct {
	Normal geom.Vec3 // need not be unit length, must not be zero
	// Offset places the plane at the points p with p·n = Offset, n being Normal
	// made unit length (m).
	Offset   float64
	Material Material
}

// Box describes a static box for AddBox.
type Box struct {
	Center geom.Vec3 // m
	Half   geom.Vec3 // half extents along the box's own axes, m, each > 0
	Rot    geom.Quat // orientation; the zero value means geom.Identity

	Material Material
}

// BodyState is everything about a body that a step changes: the world's whole
// dynamic state is one BodyState per body. For a capsule Rot stays geom.Identity
// and AngVel zero.
type BodyState struct {
	Pos    geom.Vec3 // m; a sphere's centre, a capsule's base
	Vel    geom.Vec3 // m/s
	AngVel geom.Vec3 // rad/s, world frame
	Rot    geom.Quat // unit quaternion
}

// State returns s as the kinematic state at server time t, with no Input and
// neither mark (Knot, Cut) set.
func (s BodyState) State(t time.Duration) kinematic.State {
	return kinematic.State{Time: t, Pos: s.Pos, Vel: s.Vel, Rot: s.Rot, AngVel: s.AngVel}
}

// BodyStateOf returns the part of k a World steps (its Time, Input and marks
// dropped), its zero rotation read as geom.Identity.
func BodyStateOf(k kinematic.State) BodyState {
	rot := k.Rot
	if rot == (geom.Quat{}) {
		rot = geom.Identity
	}
	return BodyState{Pos: k.Pos, Vel: k.Vel, AngVel: k.AngVel, Rot: rot}
}

// Contact is one collision resolved during a step.
type Contact struct {
	// Body is the sphere that touched something or, for two capsules pushed
	// apart, the one added first. Other is the other body, or NoBody; Shape the
	// static shape touched, or NoShape.
	Body  BodyID
	Other BodyID
	Shape ShapeID
	// At is the time of the contact since the start of the step.
	At time.Duration
	// Point is where the bodies touched (m) and Normal the unit normal there,
	// pointing from Other or Shape towards Body.
	Point  geom.Vec3
	Normal geom.Vec3
	// Speed is how fast the two were approaching along Normal just before the
	// contact (m/s, at least 0): a bounce's impact speed. A body resting or
	// rolling on a surface touches it in every sub-step with a Speed near 0.
	Speed float64
}
