package wire

import (
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

func TestRoundDiv(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{7, 2, 4}, {-7, 2, -4}, {5, 2, 3}, {-5, 2, -3}, {4, 3, 1}, {-4, 3, -1}, {0, 9, 0},
	} {
		if got := RoundDiv(c.a, c.b); got != c.want {
			t.Errorf("RoundDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
