// Package kinematic holds State, the kinematic state of one entity (a ball, a
// player) at one instant of server time: where it is, how it moves and turns,
// and whether its motion is continuous there.
//
// It is the one state every layer of Tether passes around: the server fills
// it from its simulation (a physics.BodyState converts to and from it), wire
// encodes it into snapshots, event carries it in contact events, timeline and
// replicate draw from it on the client. It sits at the bottom of the layering
// beside geom and imports nothing else of Tether.
package kinematic
