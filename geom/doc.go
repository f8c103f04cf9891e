// Package geom holds the small vector and rotation types every other package of
// Tether shares: Vec3 (a position, velocity or axis, in metres, metres per second
// or radians per second as the field says) and Quat (a unit quaternion for a
// rotation). Both are float64 value types; every operation returns a new value.
//
// Rotations are interpolated with Slerp or Nlerp along the shortest arc, never by
// interpolating Euler angles, which spins the wrong way across ±180°. Hermite
// evaluates a cubic position curve from two states with velocities, which is how
// snapshot interpolation follows a ball's arc instead of cutting its corners.
package geom
