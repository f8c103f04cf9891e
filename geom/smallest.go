package geom

import "math"

// PackSmallestThree quantises the unit quaternion q into 2+3·bits bits (bits in
// [2, 20]): the index of its largest component in the top two bits, then the other
// three components, each in [-1/√2, 1/√2], on bits bits each. The grid of each
// component is symmetric about zero, so zero components — and Identity — are
// stored exactly. The largest component is rebuilt from the unit length on
// unpacking, and the sign is chosen so that it is positive (q and -q are the
// same rotation).
func PackSmallestThree(q Quat, bits uint) uint64 {
	c := [4]float64{q.W, q.X, q.Y, q.Z}
	big := 0
	for i := 1; i < 4; i++ {
		if math.Abs(c[i]) > math.Abs(c[big]) {
			big = i
		}
	}
	sign := 1.0
	if c[big] < 0 {
		sign = -1
	}
	steps := float64(uint64(1)<<(bits-1) - 1) // components map to [-steps, steps]
	v := uint64(big)
	for i := range 4 {
		if i == big {
			continue
		}
		x := math.Round(c[i] * sign * math.Sqrt2 * steps)
		x = min(max(x, -steps), steps)
		v = v<<bits | uint64(int64(x)+int64(steps))
	}
	return v
}

// UnpackSmallestThree is the inverse of PackSmallestThree for the same bits.
func UnpackSmallestThree(v uint64, bits uint) Quat {
	steps := int64(1)<<(bits-1) - 1
	mask := uint64(1)<<bits - 1
	big := int(v >> (3 * bits) & 3)
	var c [4]float64
	sum := 0.0
	shift := uint(0)
	for i := 3; i >= 0; i-- {
		if i == big {
			continue
		}
		x := float64(int64(v>>shift&mask) - steps)
		c[i] = x / (math.Sqrt2 * float64(steps))
		sum += c[i] * c[i]
		shift += bits
	}
	c[big] = math.Sqrt(max(0, 1-sum))
	return Quat{c[0], c[1], c[2], c[3]}
}
