package geom

import "math"

// PackSmallestThree quantises the unit quaternion q into 2+3·bits bits (bits in
// [2, 20]): the index of its largest component in the top two bits, then the other
// three components, each in [-1/√2, 1/√2], on bits bits each. The largest
// component is rebuilt from the unit length on unpacking, and the sign is chosen
// so that it is positive (q and -q are the same rotation).
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
	maxQ := float64(uint64(1)<<bits - 1)
	v := uint64(big)
	for i := 0; i < 4; i++ {
		if i == big {
			continue
		}
		x := (c[i]*sign*math.Sqrt2 + 1) / 2 // [-1/√2, 1/√2] -> [0, 1]
		x = math.Round(math.Max(0, math.Min(1, x)) * maxQ)
		v = v<<bits | uint64(x)
	}
	return v
}

// UnpackSmallestThree is the inverse of PackSmallestThree for the same bits.
func UnpackSmallestThree(v uint64, bits uint) Quat {
	maxQ := float64(uint64(1)<<bits - 1)
	mask := uint64(1)<<bits - 1
	big := int(v >> (3 * bits) & 3)
	var c [4]float64
	sum := 0.0
	for i, shift := 3, uint(0); i >= 0; i-- {
		if i == big {
			continue
		}
		x := float64(v>>shift&mask)/maxQ*2 - 1
		c[i] = x / math.Sqrt2
		sum += c[i] * c[i]
		shift += bits
	}
	c[big] = math.Sqrt(math.Max(0, 1-sum))
	return Quat{c[0], c[1], c[2], c[3]}.Norm()
}
