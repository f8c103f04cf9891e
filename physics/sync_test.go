package physics

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tether-net/tether/geom"
)

// run steps w n times, steering the players from rng and kicking the ball now and
// then, and returns every state and contact along the way.
func run(w *World, ball BodyID, players []BodyID, rng *rand.Rand, n int) ([][]BodyState, [][]Contact) {
	var states [][]BodyState
	var contacts [][]Contact
	for range n {
		steer(w, players, rng)
		if rng.IntN(40) == 0 {
			s := w.Body(ball)
			s.Vel = s.Vel.Add(geom.V(rng.Float64()*30-15, rng.Float64()*10, rng.Float64()*30-15))
			s.AngVel = geom.V(rng.Float64()*60-30, rng.Float64()*60-30, rng.Float64()*60-30)
			w.SetBody(ball, s)
		}
		w.Step()
		states = append(states, w.Save(nil))
		contacts = append(contacts, slices.Clone(w.Contacts()))
	}
	return states, contacts
}

func compareRuns(t *testing.T, what string, s1, s2 [][]BodyState, c1, c2 [][]Contact) {
	t.Helper()
	for i := range s1 {
		if !slices.Equal(s1[i], s2[i]) {
			for j := range s1[i] {
				if s1[i][j] != s2[i][j] {
					t.Fatalf("%s: step %d body %d: %+v then %+v", what, i, j, s1[i][j], s2[i][j])
				}
			}
		}
		if !slices.Equal(c1[i], c2[i]) {
			t.Fatalf("%s: step %d contacts differ:\n%+v\n%+v", what, i, c1[i], c2[i])
		}
	}
}

// Two worlds built and driven alike stay bit-identical.
func TestDeterminism(t *testing.T) {
	w1, ball1, players1 := arena(t, Config{SubSteps: 2}, 11)
	w2, ball2, players2 := arena(t, Config{SubSteps: 2}, 11)
	s1, c1 := run(w1, ball1, players1, rand.New(rand.NewPCG(1, 2)), 300)
	s2, c2 := run(w2, ball2, players2, rand.New(rand.NewPCG(1, 2)), 300)
	compareRuns(t, "arena", s1, s2, c1, c2)

	a, b := spheres(t, 200, 4), spheres(t, 200, 4)
	for step := range 120 {
		a.Step()
		b.Step()
		if !slices.Equal(a.state, b.state) || !slices.Equal(a.contacts, b.contacts) {
			t.Fatalf("spheres: step %d differs", step)
		}
	}
}

// The sync test: save, step 120, restore, step 120 again: bit-identical.
func TestSaveRestoreSync(t *testing.T) {
	for _, cfg := range []Config{{}, {SubSteps: 3}, {StepHz: 30}} {
		w, ball, players := arena(t, cfg, 7)
		warm := rand.New(rand.NewPCG(7, 7))
		run(w, ball, players, warm, 45)
		saved := w.Save(nil)
		s1, c1 := run(w, ball, players, rand.New(rand.NewPCG(8, 8)), 120)
		if err := w.Restore(saved); err != nil {
			t.Fatal(err)
		}
		if len(w.Contacts()) != 0 {
			t.Errorf("Restore kept %d contacts of the last step", len(w.Contacts()))
		}
		s2, c2 := run(w, ball, players, rand.New(rand.NewPCG(8, 8)), 120)
		compareRuns(t, "re-simulation", s1, s2, c1, c2)
	}
}

// Step, Save and Restore allocate nothing once the world is built.
func TestStepAllocatesNothing(t *testing.T) {
	w, _, _ := arena(t, Config{SubSteps: 2}, 3)
	buf := w.Save(nil)
	if n := testing.AllocsPerRun(200, func() {
		w.Step()
		buf = w.Save(buf)
		_ = w.Restore(buf)
	}); n != 0 {
		t.Errorf("arena: %v allocations per step", n)
	}
	s := spheres(t, 300, 1)
	for range 30 {
		s.Step()
	}
	if n := testing.AllocsPerRun(20, s.Step); n != 0 {
		t.Errorf("300 spheres: %v allocations per step", n)
	}
}
