package movement

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

// TestOffsetDecay: an offset decays exponentially, never by more than
// MaxSpeed a second, and reaches zero.
func TestOffsetDecay(t *testing.T) {
	s := Smoothing{}
	if err := s.fill(); err != nil {
		t.Fatal(err)
	}
	for _, size := range []float64{0.02, 0.3, 2} {
		var o Offset
		o.Add(geom.V(size, 0, 0), 0, &s)
		prev := size
		frame := time.Second / 60
		var gone time.Duration = -1
		for now := frame; now <= 3*time.Second; now += frame {
			x := o.At(now, &s).X
			step := prev - x
			if step < 0 || step > s.MaxSpeed*frame.Seconds()+1e-12 {
				t.Fatalf("%.2f m: step of %.4f m at %v", size, step, now)
			}
			if want := prev * math.Exp(-frame.Seconds()/s.Time.Seconds()); x < want-1e-12 && !(x == 0 && prev < 1e-5) {
				t.Fatalf("%.2f m: faster than exponential at %v", size, now)
			}
			if x == 0 && gone < 0 {
				gone = now
			}
			prev = x
		}
		t.Logf("%.2f m gone after %v", size, gone)
		if gone < 0 || gone > time.Duration(size/s.MaxSpeed*float64(time.Second))+2*time.Second {
			t.Fatalf("%.2f m: gone at %v", size, gone)
		}
	}
	var o Offset
	o.Add(geom.V(1, 0, 0), time.Second, &s)
	if x := o.At(500*time.Millisecond, &s).X; x != 1 {
		t.Fatalf("decayed backwards in time: %v", x)
	}
}

// TestSnap: a correction beyond Smoothing.Snap is shown at once.
func TestSnap(t *testing.T) {
	p := newPipe(ClientConfig{}, ServerConfig{}, 30*ms)
	var got []Correction
	p.cli.cfg.OnCorrection = func(c Correction) { got = append(got, c) }
	p.run(time.Second)
	p.srv.g.(*walker).push = geom.V(0, 0, 300) // 5 m in a frame
	p.run(time.Second + time.Second/60)
	p.srv.g.(*walker).push = geom.Vec3{}
	p.run(2 * time.Second)
	if st := p.cli.Stats(); st.Snaps != 1 || len(got) < 2 || !got[1].Snapped || got[1].Offset != 0 {
		t.Fatalf("%+v, %+v", st, got)
	}
	if off := p.cli.Offset(p.now); off != (geom.Vec3{}) {
		t.Fatalf("offset %v after a snap", off)
	}
}
