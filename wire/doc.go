// Package wire encodes Tether's messages compactly: quantised, byte-aligned,
// appended into caller-provided buffers without allocating, and decoded with
// errors rather than panics (every decoder is fuzzed).
//
// Units on the wire: times in whole microseconds, positions in millimetres,
// velocities in millimetres per second, angular velocities in milliradians per
// second, rotations as smallest-three quaternions. Signed integers are zig-zag
// varints, so small values take one byte. BitWriter and BitReader pack
// fields below a byte, and exponential-Golomb codes for the small
// differences of a delta against a baseline.
package wire
