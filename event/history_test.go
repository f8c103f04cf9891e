package event

import (
	"errors"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/tether-net/tether/geom"
)

const tick = time.Second / 60

func TestHistoryConfig(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {2, 0}, {1 << 17, 1}, {2, 1 << 17}} {
		if _, err := NewHistory(c[0], c[1]); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: %v", c, err)
		}
	}
}

// TestRewind: an entity moving at 6 m/s is found where it was at any past
// server time within the history, between ticks too.
func TestRewind(t *testing.T) {
	h, err := NewHistory(30, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.At(1, 0); ok {
		t.Fatal("empty history answered")
	}
	vel := geom.V(6, 0, 0)
	for n := 1; n <= 100; n++ {
		at := time.Duration(n) * tick
		h.Begin(at)
		h.Add(1, Pose{Pos: vel.Scale(at.Seconds()), Rot: geom.AxisAngle(geom.V(0, 1, 0), float64(n)*0.01)})
		if n%2 == 0 { // entity 2 is recorded every other tick only
			h.Add(2, Pose{Pos: geom.V(0, 0, float64(n))})
		}
	}
	oldest, newest, ok := h.Span()
	if !ok || newest != 100*tick || oldest != 71*tick {
		t.Fatalf("span %v..%v", oldest, newest)
	}
	for _, back := range []time.Duration{0, 5 * time.Millisecond, 80 * time.Millisecond, 250 * time.Millisecond, 29 * tick} {
		at := newest - back
		p, ok := h.At(1, at)
		if !ok {
			t.Fatalf("%v back: not found", back)
		}
		if want := vel.Scale(at.Seconds()); p.Pos.Dist(want) > 1e-9 {
			t.Fatalf("%v back: %v, want %v", back, p.Pos, want)
		}
		wantRot := geom.AxisAngle(geom.V(0, 1, 0), at.Seconds()*60*0.01)
		if p.Rot.Angle(wantRot) > 1e-6 {
			t.Fatalf("%v back: rotation off by %v rad", back, p.Rot.Angle(wantRot))
		}
	}
	if p, ok := h.At(1, newest+time.Second); !ok || p.Pos != vel.Scale(newest.Seconds()) {
		t.Fatal("the future is not the newest pose")
	}
	if _, ok := h.At(1, oldest-time.Millisecond); ok {
		t.Fatal("answered before the oldest tick")
	}
	if _, ok := h.At(9, newest); ok {
		t.Fatal("unknown entity found")
	}
	// Entity 2 is missing from odd ticks: the pose of the tick that has it.
	if p, ok := h.At(2, 99*tick+tick/2); !ok || math.Abs(p.Pos.Z-100) > 1e-9 && math.Abs(p.Pos.Z-98) > 1e-9 {
		t.Fatalf("sparse entity: %v %v", p.Pos, ok)
	}
}

func TestHistoryLimits(t *testing.T) {
	h, _ := NewHistory(2, 1)
	if h.Add(1, Pose{}) || h.Dropped != 1 {
		t.Fatal("added before Begin")
	}
	h.Begin(tick)
	if !h.Add(1, Pose{}) || h.Add(2, Pose{}) || h.Dropped != 2 {
		t.Fatal("MaxEntities not enforced")
	}
	// A repeated tick time replaces that tick.
	h.Begin(tick)
	h.Add(1, Pose{Pos: geom.V(1, 0, 0)})
	if p, _ := h.At(1, tick); p.Pos.X != 1 {
		t.Fatal("tick not replaced")
	}
	if n := testing.AllocsPerRun(100, func() { h.Begin(2 * tick); h.Add(1, Pose{}); h.At(1, tick) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// A check is judged at the client's view, no further back than the bound
// and never in the future.
func TestRewindTo(t *testing.T) {
	const now, bound = 10 * time.Second, 250 * time.Millisecond
	for _, tc := range []struct {
		view, at time.Duration
		clamped  bool
	}{
		{now - 100*time.Millisecond, now - 100*time.Millisecond, false},
		{now - bound, now - bound, false},
		{now - time.Second, now - bound, true},
		{now + time.Second, now, false},
	} {
		if at, c := RewindTo(now, tc.view, bound); at != tc.at || c != tc.clamped {
			t.Errorf("view %v: %v %v, want %v %v", tc.view, at, c, tc.at, tc.clamped)
		}
	}
}

// A teleport is not interpolated into: the pose before it holds until its
// tick.
func TestHistoryCut(t *testing.T) {
	h, _ := NewHistory(4, 1)
	h.Begin(time.Second)
	h.Add(1, Pose{Pos: geom.V(1, 0, 0)})
	h.Begin(2 * time.Second)
	h.Add(1, Pose{Pos: geom.V(50, 0, 0), Cut: true})
	if p, ok := h.At(1, 1500*time.Millisecond); !ok || p.Pos != geom.V(1, 0, 0) || p.Cut {
		t.Fatalf("before the cut: %+v %v", p, ok)
	}
	if p, ok := h.At(1, 2*time.Second); !ok || p.Pos != geom.V(50, 0, 0) || !p.Cut {
		t.Fatalf("at the cut: %+v %v", p, ok)
	}
}

// An entity's tick costs 61 bytes of history: its position and rotation, its
// id and its cut.
func TestHistoryBytesPerEntity(t *testing.T) {
	if n := unsafe.Sizeof(pose{}) + unsafe.Sizeof(uint32(0)) + unsafe.Sizeof(false); n > 64 {
		t.Fatalf("%d bytes per entity per tick", n)
	}
}
