package order

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSelectMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 200; n++ {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(rng.IntN(20)) // many ties
		}
		sorted := slices.Clone(s)
		slices.Sort(sorted)
		for _, k := range []int{0, n / 2, n - 1, rng.IntN(n)} {
			if got := Select(slices.Clone(s), k); got != sorted[k] {
				t.Fatalf("n=%d k=%d: %v, want %v", n, k, got, sorted[k])
			}
		}
	}
}

func TestSelectDoesNotAllocate(t *testing.T) {
	s := []int{5, 3, 9, 1, 7}
	if a := testing.AllocsPerRun(100, func() { Select(s, 2) }); a != 0 {
		t.Fatalf("%v allocations", a)
	}
}
