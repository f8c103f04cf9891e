package movement

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// burstyRun feeds a character running at speed along x, one move a 60 Hz
// frame, two moves a packet, the packets arriving late by a jitter of up
// to 60 ms (in order, as a burst), and calls tick at every 60 Hz server
// tick with the newest state applied by then.
func burstyRun(speed float64, dur time.Duration, applied func(st kinematic.State, arrival time.Duration), tick func(now time.Duration, newest geom.Vec3)) {
	const frame = time.Second / 60
	rng := uint64(12345)
	jitter := func() time.Duration {
		rng = rng*6364136223846793005 + 1442695040888963407
		return time.Duration(rng>>33%60) * time.Millisecond
	}
	type packet struct {
		arrival time.Duration
		moves   []kinematic.State
	}
	var packets []packet
	last := time.Duration(0)
	for end := frame; end <= dur; end += 2 * frame {
		a := max(last, end+20*time.Millisecond+jitter())
		last = a
		var p packet
		p.arrival = a
		for _, t := range []time.Duration{end - frame, end} {
			p.moves = append(p.moves, kinematic.State{Time: t, Pos: geom.V(speed*t.Seconds(), 0, 0), Vel: geom.V(speed, 0, 0)})
		}
		packets = append(packets, p)
	}
	var newest geom.Vec3
	next := 0
	for now := time.Duration(0); now <= dur; now += frame {
		for next < len(packets) && packets[next].arrival <= now {
			for _, m := range packets[next].moves {
				applied(m, packets[next].arrival)
				newest = m.Pos
			}
			next++
		}
		tick(now, newest)
	}
}

// TestShownSmoothsBursts: a character running steadily whose moves arrive
// in bursts is shown running steadily (each tick's step within a millimetre
// of its true step), where its newest applied state moves by bursts of
// centimetres. This is the wobble others see without Shown.
func TestShownSmoothsBursts(t *testing.T) {
	const speed = 5.0
	const frame = time.Second / 60
	s, err := NewShown(ShownConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := speed * frame.Seconds()
	var prevShown, prevNewest geom.Vec3
	var worstShown, worstNewest float64
	ticks, late := 0, 0
	burstyRun(speed, 10*time.Second, s.Applied, func(now time.Duration, newest geom.Vec3) {
		fr := s.At(now)
		if now >= 2*time.Second {
			ticks++
			if fr.Extrapolated || fr.Frozen {
				late++
			}
			worstShown = max(worstShown, math.Abs(fr.Pos.Sub(prevShown).Len()-want))
			worstNewest = max(worstNewest, math.Abs(newest.Sub(prevNewest).Len()-want))
			if fr.Delay > 300*time.Millisecond {
				t.Fatalf("shown %v behind at %v, want at most 300ms", fr.Delay, now)
			}
		}
		prevShown, prevNewest = fr.Pos, newest
	})
	t.Logf("worst step error: shown %.5f m, newest applied %.5f m; %d of %d ticks late", worstShown, worstNewest, late, ticks)
	if worstShown > 0.001 {
		t.Errorf("shown: a tick's step differs from the true step by up to %.4f m, want at most 1 mm", worstShown)
	}
	if worstNewest < 0.05 {
		t.Errorf("newest applied: worst step error %.4f m; the test's bursts are too mild to test anything", worstNewest)
	}
	if late*100 > ticks {
		t.Errorf("%d ticks of %d ran past the newest move, want at most 1 %%", late, ticks)
	}
}

// TestShownTeleport: a teleport is shown at once, not blended, and the
// moves after it continue from there.
func TestShownTeleport(t *testing.T) {
	const frame = time.Second / 60
	s, err := NewShown(ShownConfig{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Duration(0)
	for ; now < time.Second; now += frame {
		s.Applied(kinematic.State{Time: now, Pos: geom.V(now.Seconds(), 0, 0), Vel: geom.V(1, 0, 0)}, now)
		s.At(now)
	}
	to := geom.V(-10, 0, 5)
	s.Teleport(kinematic.State{Time: now - frame, Pos: to}, now)
	if fr := s.At(now); !fr.Valid || fr.Pos.Dist(to) > 1e-9 {
		t.Fatalf("right after the teleport shown at %v, want %v", fr.Pos, to)
	}
	for end := now; end < now+time.Second; end += frame {
		p := to.Add(geom.V(0, 0, (end - now + frame).Seconds()))
		s.Applied(kinematic.State{Time: end, Pos: p, Vel: geom.V(0, 0, 1)}, end)
		fr := s.At(end)
		if fr.Pos.X != to.X || fr.Pos.Z < to.Z-1e-9 || fr.Pos.Z > p.Z+1e-9 {
			t.Fatalf("at %v shown at %v, want on the path from %v to %v", end, fr.Pos, to, p)
		}
	}
}

func TestShownConfig(t *testing.T) {
	for _, c := range []ShownConfig{{LateShare: 1}, {LateShare: -0.1}, {MaxDelay: -time.Millisecond}, {MaxDelay: 11 * time.Second}} {
		if _, err := NewShown(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: error %v, want ErrConfig", c, err)
		}
	}
}

func TestShownAllocs(t *testing.T) {
	s, err := NewShown(ShownConfig{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Duration(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += time.Second / 60
		s.Applied(kinematic.State{Time: now, Pos: geom.V(now.Seconds(), 0, 0), Vel: geom.V(1, 0, 0)}, now+30*time.Millisecond)
		s.At(now)
	})
	if allocs != 0 {
		t.Errorf("%v allocations a move and tick, want 0", allocs)
	}
}

// A server shows a predicted character to the others from its applied
// moves, a little behind the newest: moves arriving in bursts do not jerk
// it.
func ExampleShown() {
	s, err := NewShown(ShownConfig{})
	if err != nil {
		panic(err)
	}
	const frame = time.Second / 60
	var shown []float64
	burstyRun(4, 3*time.Second, s.Applied, func(now time.Duration, _ geom.Vec3) {
		if fr := s.At(now); now > 2*time.Second && len(shown) < 3 {
			shown = append(shown, fr.Pos.X)
		}
	})
	fmt.Printf("steps: %.1f %.1f cm (true: %.1f)\n", 100*(shown[1]-shown[0]), 100*(shown[2]-shown[1]), 400*frame.Seconds())
	// Output: steps: 6.7 6.7 cm (true: 6.7)
}
