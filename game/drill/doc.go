// Package drill is the ball drill: a small game on the public API (package
// server's Game, package client's Game) in which the server simulates a ball
// on the soccer pitch (package soccer's pitch and ball), kicked by scripted
// kicks at seeded random times — ground passes, lofted shots, hard shots off
// the boards — and clients watch it. Nobody plays: it isolates how well a
// client shows one server-simulated body, which is what the lab's built-in
// scenarios measure.
//
// Game is the server side. Each tick it steps the world and kicks the ball if
// a kick is due; besides the regular snapshots it asks for an extra one at a
// kick or a bounce, with the state of the tick before it if that was not
// sent, so that a client's curve has both ends of the velocity change. A
// kicked state is a knot (its velocity is the one leaving the kick). It
// writes no bytes: it declares the ball (Schema) and fills the replication
// layer's world each snapshot (package replica), which codes each client's
// snapshot against its acknowledged baseline with the predictor Ballistic.
//
// ClientGame is the client side. It shows the ball by the replicate.Method it
// is given: MethodTether, the default, draws it from the client's timeline,
// extrapolated past the newest state by the ball's own physics
// (replicate.WorldExtrapolator over the client's copy of the pitch); the
// other methods are replicate's views over the same copy.
package drill
