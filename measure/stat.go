package measure

import (
	"math"
	"slices"
)

// Stat summarises a series of samples. Its JSON form is the statistics object
// of the design document. Every field is rounded to six decimals (Round).
type Stat struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	RMS  float64 `json:"rms"`
}

// Summarise computes the Stat of samples xs: mean, p50 and p99 by the
// nearest rank, max and rms; the zero Stat when xs is empty.
func Summarise(xs []float64) Stat {
	var s Series
	for _, x := range xs {
		s.Add(x)
	}
	return s.Stat()
}

// Series accumulates samples for a Stat in four bytes each: it keeps the
// exact sum and sum of squares, and each sample rounded to six decimals (the
// rounding the Stat applies anyway, so its quantiles are exact). A sample
// too large for that (beyond ±2147 units) is kept whole. The zero Series is
// empty.
type Series struct {
	n       int
	sum, sq float64
	small   []int32   // Round(x)·1e6
	large   []float64 // the rest
}

// Add appends sample x.
func (s *Series) Add(x float64) {
	s.n++
	s.sum += x
	s.sq += x * x
	if k := math.Round(x * 1e6); k >= math.MinInt32 && k <= math.MaxInt32 {
		s.small = append(s.small, int32(k))
		return
	}
	s.large = append(s.large, x)
}

// Len returns how many samples were added.
func (s *Series) Len() int { return s.n }

// Stat summarises the samples added so far; it sorts them in place.
func (s *Series) Stat() Stat {
	if s.n == 0 {
		return Stat{}
	}
	slices.Sort(s.small)
	slices.Sort(s.large)
	n := float64(s.n)
	return Stat{
		Mean: Round(s.sum / n),
		P50:  s.quantile(0.50),
		P99:  s.quantile(0.99),
		Max:  s.rank(s.n - 1),
		RMS:  Round(math.Sqrt(s.sq / n)),
	}
}

// quantile returns the rounded q-quantile by the nearest-rank method.
func (s *Series) quantile(q float64) float64 {
	i := int(math.Ceil(q*float64(s.n))) - 1
	return s.rank(max(0, min(i, s.n-1)))
}

// rank returns the rounded sample of rank i (from 0) in sorted order. Large
// samples lie below every small one (negative) or above it.
func (s *Series) rank(i int) float64 {
	below, _ := slices.BinarySearch(s.large, 0)
	switch {
	case i < below:
		return Round(s.large[i])
	case i < below+len(s.small):
		return float64(s.small[i-below]) / 1e6
	}
	return Round(s.large[i-len(s.small)])
}

// Round keeps six decimals so reports stay readable; the figures measured
// are nowhere near that precise.
func Round(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	return math.Round(x*1e6) / 1e6
}
