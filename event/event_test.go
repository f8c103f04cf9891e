package event

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
	"github.com/tether-net/tether/wire"
)

func sampleEvents() []Event {
	return []Event{
		{},
		{ID: 1, Kind: 3, Time: 1500 * time.Millisecond, Entity: 0, Actor: 4, Arg: 2},
		{ID: 70000, Kind: 1, Time: 12*time.Second + 345*time.Microsecond, Entity: 0, Actor: 7, Arg: 1, HasState: true,
			State: kinematic.State{Time: 12*time.Second + 345*time.Microsecond, Pos: geom.V(10.5, 0.11, -3.25), Vel: geom.V(18, 4, -2),
				Rot: geom.AxisAngle(geom.V(0, 1, 0), 1), AngVel: geom.V(0, 0, -20), Knot: true}},
		{ID: math.MaxUint32, Kind: 255, Time: -time.Second, Entity: math.MaxUint32, Actor: math.MaxUint32, Arg: math.MaxUint32},
	}
}

func TestRoundTrip(t *testing.T) {
	buf := make([]byte, 0, MaxSize)
	for _, e := range sampleEvents() {
		b := Append(buf[:0], e)
		if len(b) > MaxSize {
			t.Fatalf("%d bytes > MaxSize", len(b))
		}
		got, n, err := Decode(b)
		if err != nil || n != len(b) {
			t.Fatalf("decode %+v: n %d of %d, %v", e, n, len(b), err)
		}
		if got.ID != e.ID || got.Kind != e.Kind || got.Time != e.Time || got.Entity != e.Entity || got.Actor != e.Actor || got.Arg != e.Arg || got.HasState != e.HasState {
			t.Fatalf("got %+v, want %+v", got, e)
		}
		if e.HasState {
			if got.State.Pos.Dist(e.State.Pos) > 1e-3 || got.State.Vel.Dist(e.State.Vel) > 1e-3 || got.State.Rot.Angle(e.State.Rot) > 1e-3 || !got.State.Knot || got.State.Time != e.Time {
				t.Fatalf("state %+v, want %+v", got.State, e.State)
			}
		}
		for i := range len(b) {
			if _, _, err := Decode(b[:i]); !errors.Is(err, ErrTruncated) {
				t.Fatalf("prefix %d of %d: %v, want ErrTruncated", i, len(b), err)
			}
		}
	}
}

func TestAppendAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxSize)
	e := sampleEvents()[2]
	if n := testing.AllocsPerRun(100, func() { buf = Append(buf[:0], e); _, _, _ = Decode(buf) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, b := range [][]byte{{0x80, 0}, {0x02, 0}} {
		if _, _, err := Decode(append(b, 1, 0, 0, 0, 0)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%x: %v, want ErrMalformed", b, err)
		}
	}
	// A state whose time differs from the event's.
	bad := Append(nil, Event{ID: 1, Time: 2 * time.Second})
	bad[0] |= flagState
	bad = wire.AppendState(bad, kinematic.State{Time: time.Second, Rot: geom.Identity})
	if _, _, err := Decode(bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a state at another time than its event: %v", err)
	}
}

// TestFastForward: a kick seen 80 ms late is drawn 80 ms along its path.
func TestFastForward(t *testing.T) {
	kick := Event{ID: 1, Time: time.Second, HasState: true,
		State: kinematic.State{Time: time.Second, Pos: geom.V(0, 0.11, 0), Vel: geom.V(20, 0, 0), Rot: geom.Identity, Knot: true}}
	now := time.Second + 80*time.Millisecond
	if got := kick.Age(now); got != 80*time.Millisecond {
		t.Fatalf("age %v", got)
	}
	s := kick.At(now, nil)
	if want := geom.V(1.6, 0.11, 0); s.Pos.Dist(want) > 1e-9 || s.Time != now || s.Knot {
		t.Fatalf("at %v: %+v, want pos %v", now, s, want)
	}
	// With gravity, a lofted kick rises and falls on its parabola.
	lob := kick
	lob.State.Vel = geom.V(10, 10, 0)
	ball := timeline.Ballistic{Gravity: geom.V(0, -9.81, 0), Floor: 0.11, Restitution: 0.5, RollingDecel: 1}
	s = lob.At(now, ball.Extrapolate)
	h := 0.08
	if want := geom.V(10*h, 0.11+10*h-9.81*h*h/2, 0); s.Pos.Dist(want) > 1e-9 {
		t.Fatalf("lob at %v: %v, want %v", now, s.Pos, want)
	}
	// Before the event: the event's own state; no state: the zero state.
	if s := kick.At(time.Second/2, nil); s.Pos != kick.State.Pos {
		t.Fatalf("before: %v", s.Pos)
	}
	if s := (Event{Time: time.Second}).At(2*time.Second, nil); s != (kinematic.State{}) {
		t.Fatalf("stateless: %+v", s)
	}
	if kick.Age(0) != 0 {
		t.Fatal("negative age")
	}
}

func TestLog(t *testing.T) {
	l := NewLog(3)
	for id := uint32(1); id <= 5; id++ {
		if !l.Add(Event{ID: id, Time: time.Duration(id) * time.Second}) {
			t.Fatalf("event %d refused", id)
		}
	}
	if l.Add(Event{ID: 4}) || l.Add(Event{ID: 5}) || l.Duplicates != 2 {
		t.Fatal("duplicates accepted")
	}
	if l.Len() != 3 || l.Event(0).ID != 3 || l.Event(2).ID != 5 {
		t.Fatalf("held %d, oldest %d", l.Len(), l.Event(0).ID)
	}
	if i := l.Since(4 * time.Second); i != 2 {
		t.Fatalf("since 4 s: %d", i)
	}
	if i := l.Since(10 * time.Second); i != 3 {
		t.Fatalf("since 10 s: %d", i)
	}
}

func FuzzDecode(f *testing.F) {
	for _, e := range sampleEvents() {
		f.Add(Append(nil, e))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, n, err := Decode(b)
		if err != nil {
			return
		}
		if n > len(b) || n <= 0 {
			t.Fatalf("n %d of %d", n, len(b))
		}
		again, m, err := Decode(Append(nil, e))
		if err != nil || m == 0 || again.ID != e.ID || again.Time != e.Time || again.HasState != e.HasState || again.Arg != e.Arg {
			t.Fatalf("re-encoding %+v gave %+v (%v)", e, again, err)
		}
	})
}
