// Package physics is a small deterministic rigid-body world for server-authoritative
// games: dynamic spheres (a ball), kinematic vertical capsules (players), and static
// planes and boxes (the ground, walls, goal posts and nets).
//
// # Units and axes
//
// The world is Y-up. Lengths are metres, velocities metres per second, angular
// velocities radians per second (world frame, right-handed), masses kilograms,
// moments of inertia kg·m². A step lasts 1/Config.StepHz seconds.
//
// # Stepping
//
// Step advances the world by one fixed step, split into Config.SubSteps equal
// sub-steps. In each sub-step the capsules move first by their velocity and are
// pushed apart where they overlap (horizontally, symmetrically, all pairs at once
// from the same positions, so the order of the pairs does not matter beyond
// rounding); then each sphere moves along its path under gravity, air drag and
// lift, stopping at the exact time it first touches a plane, a box or a capsule (a
// swept test, so a 40 m/s ball does not pass through a 2 cm net or a 12 cm post),
// resolving that contact and moving on with the rest of the sub-step; last,
// spheres that overlap one another at the end of the sub-step (found through a
// uniform grid, not by testing all pairs) are pushed apart and exchange an impulse
// along the normal of the moment they first touched. Sphere–sphere contacts are therefore found after
// the fact: two small spheres closing faster than their diameters per sub-step
// can pass through each other. Statics and capsules are always swept.
//
// Between contacts a sphere follows the exact parabola of constant gravity. At a
// contact the relative normal velocity is reversed and scaled by the restitution
// (the product of both materials' Restitution), unless the approach is slower than
// a small threshold (0.2 m/s), in which case the sphere comes to rest against the
// surface and the part of gravity pushing into it is cancelled: a ball lies still
// on the ground and rolls without jitter. Friction is Coulomb friction on the
// contact point's velocity, so spin and motion exchange (a ball with backspin
// skids, slows and then rolls; a ball with side spin curls when it lands), limited
// by Friction times the normal impulse and never reversing the slip. A ball that
// rolls is slowed by rolling resistance: its speed falls by RollingResistance·g
// per second (g being the gravity pressing it on the surface) until it stops, and
// its spin about the contact normal decays likewise. Bounces, friction and rolling
// resistance never add energy; a moving capsule, of course, can.
//
// Capsules are kinematic: the game sets their velocity (SetVelocity) before each
// step; they push spheres as if infinitely heavy and are never pushed by them. They
// do not collide with static shapes: keeping players on the pitch is the game's job.
//
// # Determinism and snapshots
//
// Step allocates nothing once the world is built, uses no goroutines, maps or random
// numbers, and visits bodies and shapes in the order they were added: the same
// world given the same calls produces bit-identical states on the same platform
// (GOARCH: an architecture that fuses multiply-adds may round differently from one
// that does not). Everything Step changes is in the bodies' BodyState values, so
// Save and Restore are plain copies: restore a saved slice and the following steps
// repeat exactly, which is what a rollback re-simulation needs.
//
// # Contacts
//
// Each Step records the contacts it resolved, in the order they happened, in a slice
// returned by Contacts and reused by the next Step. A sphere resting on or rolling
// along a surface touches it in every sub-step; such contacts have a Speed near
// zero, so a bounce, a shot hitting a post or a player touching the ball is told
// apart by its Speed.
package physics
