// Package soccer is the showcase game: a soccer pitch with boards around it, the
// ball and the players, built on the physics world.
//
// The pitch is centred on the origin of a Y-up world in metres: its length runs
// along X, with the goal lines at x = ±Length/2, and its width along Z; the grass
// is the plane y = 0. DefaultPitch, DefaultBall and DefaultPlayer give the sizes
// and materials of a regulation match, and Pitch.AddTo builds them into a
// physics.World.
package soccer
