package wire

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

func sampleStates() []kinematic.State {
	return []kinematic.State{
		{},
		{Time: 1234567 * time.Microsecond, Pos: geom.V(12.345, 0.11, -30.5), Vel: geom.V(20, 3.5, -1), Rot: geom.AxisAngle(geom.V(0, 1, 0), 2), AngVel: geom.V(0, -40, 5)},
		{Time: 90 * time.Minute, Pos: geom.V(-52.5, 0.11, 34), Rot: geom.Identity, Cut: true},
		{Time: 3 * time.Second, Pos: geom.V(1, 0.11, 2), Vel: geom.V(5, 4, 0), Knot: true, Rot: geom.AxisAngle(geom.V(1, 1, 0), -3)},
	}
}

func TestStateRoundTrip(t *testing.T) {
	for _, s := range sampleStates() {
		b := AppendState(nil, s)
		got, n, err := DecodeState(b)
		if err != nil || n != len(b) {
			t.Fatalf("decode %+v: n=%d/%d err=%v", s, n, len(b), err)
		}
		if got.Time != s.Time.Truncate(TimeUnit) || got.Cut != s.Cut || got.Knot != s.Knot {
			t.Fatalf("flags/time: got %+v want %+v", got, s)
		}
		for _, p := range [][2]geom.Vec3{{got.Pos, s.Pos}, {got.Vel, s.Vel}, {got.AngVel, s.AngVel}} {
			if p[0].Dist(p[1]) > 0.001 {
				t.Fatalf("vector %v came back as %v", p[1], p[0])
			}
		}
		want := s.Rot
		if want == (geom.Quat{}) {
			want = geom.Identity
		}
		if a := got.Rot.Angle(want); a > 0.001 {
			t.Fatalf("rotation off by %v rad", a)
		}
		if len(b) > MaxStateSize {
			t.Fatalf("encoding of %d bytes exceeds MaxStateSize %d", len(b), MaxStateSize)
		}
	}
}

func TestStateSize(t *testing.T) {
	// A ball in flight mid-pitch: what a snapshot costs.
	b := AppendState(nil, sampleStates()[1])
	if len(b) > 32 {
		t.Fatalf("ball state takes %d bytes, want <= 32", len(b))
	}
}

func TestStateClampsAndRejects(t *testing.T) {
	b := AppendState(nil, kinematic.State{Pos: geom.V(math.NaN(), math.Inf(1), -1e300), Rot: geom.Identity})
	got, _, err := DecodeState(b)
	if err != nil || !got.Pos.IsFinite() {
		t.Fatalf("non-finite input: %+v %v", got, err)
	}
	good := AppendState(nil, sampleStates()[1])
	for i := range len(good) {
		if _, _, err := DecodeState(good[:i]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("prefix of %d bytes: %v, want ErrTruncated", i, err)
		}
	}
	if _, _, err := DecodeState(append([]byte{0x80}, good[1:]...)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("unknown flag: %v", err)
	}
	overlong := append([]byte{0, 0x80, 0x00}, good[2:]...)
	if _, _, err := DecodeState(overlong); !errors.Is(err, ErrMalformed) {
		t.Fatalf("overlong varint: %v", err)
	}
}

func TestAppendStateDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, MaxStateSize)
	s := sampleStates()[3]
	if n := testing.AllocsPerRun(100, func() { buf = AppendState(buf[:0], s) }); n != 0 {
		t.Fatalf("AppendState allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _, _ = DecodeState(buf) }); n != 0 {
		t.Fatalf("DecodeState allocates %v times", n)
	}
}

func FuzzDecodeState(f *testing.F) {
	for _, s := range sampleStates() {
		f.Add(AppendState(nil, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, n, err := DecodeState(b)
		if err != nil {
			return
		}
		if n > len(b) || !s.Pos.IsFinite() || !s.Vel.IsFinite() || !s.AngVel.IsFinite() {
			t.Fatalf("decoded %+v from %d of %d bytes", s, n, len(b))
		}
		// A decoded body re-encodes to a body that decodes the same.
		again, _, err := DecodeState(AppendState(nil, s))
		if err != nil || again.Time != s.Time || again.Pos.Dist(s.Pos) > 1e-9 || again.Cut != s.Cut || again.Knot != s.Knot {
			t.Fatalf("re-encoding changed %+v into %+v (%v)", s, again, err)
		}
	})
}

func BenchmarkAppendState(b *testing.B) {
	buf := make([]byte, 0, MaxStateSize)
	s := sampleStates()[1]
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendState(buf[:0], s)
	}
}

func BenchmarkDecodeState(b *testing.B) {
	buf := AppendState(nil, sampleStates()[1])
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = DecodeState(buf)
	}
}

// A quantised state stands for the very state DecodeState gives.
func TestQStateIsDecodeState(t *testing.T) {
	for _, s := range append(sampleStates(), kinematic.State{Time: time.Second, Pos: geom.V(1, 2, 3), AngVel: geom.V(1e-5, 0, 0), Rot: geom.Identity}) {
		want, _, err := DecodeState(AppendState(nil, s))
		if err != nil {
			t.Fatal(err)
		}
		q := QuantiseState(s)
		if got := q.State(want.Time); got != want || q.Rot>>RotPackBits != 0 || q.Flags&^FlagMask != 0 {
			t.Fatalf("%+v: quantised gives %+v, decoded %+v", s, got, want)
		}
	}
}
