// Package order finds order statistics (the k-th smallest value, a median) of
// a slice in linear expected time, without allocating.
package order

import "cmp"

// Select returns the k-th smallest element of s (0-based), reordering s. It
// panics if k is out of range.
func Select[T cmp.Ordered](s []T, k int) T {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Hoare partition around the median of the first, middle and last.
		a, b, c := s[lo], s[(lo+hi)/2], s[hi]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}
