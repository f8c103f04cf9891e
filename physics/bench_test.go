package physics

import "testing"

// BenchmarkStepArena is one step of a ball and 22 players in a small walled arena
// with goals (the soccer pitch itself is benchmarked in game/soccer).
func BenchmarkStepArena(b *testing.B) {
	w, _, _ := arena(b, Config{}, 1)
	b.ReportAllocs()
	for b.Loop() {
		w.Step()
	}
}

// BenchmarkStep1000Spheres is one step of 1000 spheres bouncing and colliding in a
// walled 20 m × 20 m box, after they have had a second to fall.
func BenchmarkStep1000Spheres(b *testing.B) {
	w := spheres(b, 1000, 1)
	for range 60 {
		w.Step()
	}
	b.ReportAllocs()
	for b.Loop() {
		w.Step()
	}
}
