package wire

import (
	"math"
	"slices"
	"testing"
)

func TestBaselinesRing(t *testing.T) {
	b := NewBaselines[string](3)
	if b.Find(0) != nil || b.Find(1) != nil || b.Newest() != 0 {
		t.Fatal("an empty ring finds a table")
	}
	for tick := uint64(1); tick <= 4; tick++ {
		*b.Push(tick) = string(rune('a' + tick - 1))
	}
	// Ticks 2-4 are held; 1 was overwritten by 4.
	if b.Find(1) != nil || *b.Find(2) != "b" || *b.Find(4) != "d" || b.Newest() != 4 {
		t.Fatalf("find after overwrite: 1 %v, 2 %v, 4 %v, newest %d", b.Find(1), b.Find(2), b.Find(4), b.Newest())
	}
	// Push returns the oldest table as it was: the caller may rebuild it from itself.
	if got := b.Push(5); *got != "b" || b.Find(2) != nil {
		t.Fatalf("push reused %q, tick 2 still found: %v", *got, b.Find(2) != nil)
	}
	var ticks []uint64
	c := NewBaselines[string](3)
	for tick, s := range b.All() {
		ticks = append(ticks, tick)
		*c.Push(tick) = *s
	}
	if !slices.Equal(ticks, []uint64{3, 4, 5}) || c.Newest() != 5 || *c.Find(3) != "c" {
		t.Fatalf("All yields %v; copy newest %d", ticks, c.Newest())
	}
	// The copy is apart from b, and its next table to reuse is the same.
	*c.Push(6) = "f"
	if c.Find(3) != nil || *b.Find(3) != "c" {
		t.Fatal("the copy shares b's tables, or reuses another table")
	}
}

// Isqrt is the floor of the square root, at perfect squares, either side of
// them and at the ends of int64's range.
func TestIsqrt(t *testing.T) {
	for _, r := range []int64{0, 1, 2, 3, 1000, 46340, 1 << 20, 3037000498} {
		for _, n := range []int64{r*r - 1, r * r, r*r + 2*r} {
			want := r
			if n < r*r {
				want = r - 1
			}
			if n < 0 {
				want = 0
			}
			if got := Isqrt(n); got != want {
				t.Errorf("Isqrt(%d) = %d, want %d", n, got, want)
			}
		}
	}
	if got := Isqrt(math.MaxInt64); got != 3037000499 {
		t.Errorf("Isqrt(MaxInt64) = %d, want 3037000499", got)
	}
	if got := Isqrt(-5); got != 0 {
		t.Errorf("Isqrt(-5) = %d, want 0", got)
	}
}

func TestRoundDiv(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{7, 2, 4}, {-7, 2, -4}, {5, 2, 3}, {-5, 2, -3}, {4, 3, 1}, {-4, 3, -1}, {0, 9, 0},
	} {
		if got := RoundDiv(c.a, c.b); got != c.want {
			t.Errorf("RoundDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
