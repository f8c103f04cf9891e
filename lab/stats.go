package lab

import (
	"math"
	"slices"
)

// Stat summarises a series of samples. Its JSON form is the statistics object of
// the design document.
type Stat struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	RMS  float64 `json:"rms"`
}

// summarise computes the Stat of xs; it reorders xs.
func summarise(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	slices.Sort(xs)
	n := float64(len(xs))
	return Stat{
		Mean: round(sum / n),
		P50:  round(quantile(xs, 0.50)),
		P99:  round(quantile(xs, 0.99)),
		Max:  round(xs[len(xs)-1]),
		RMS:  round(math.Sqrt(sq / n)),
	}
}

// quantile returns the q-quantile of sorted xs by the nearest-rank method.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// round keeps six significant decimals so reports stay readable; the figures
// the lab reports are nowhere near that precise.
func round(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	return math.Round(x*1e6) / 1e6
}
