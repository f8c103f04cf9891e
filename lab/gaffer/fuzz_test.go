package gaffer_test

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/lab/gaffer"
	"github.com/tether-net/tether/replica"
)

// fuzzStream is the snapshots of a small world, each against the one before
// but the first, and the config they were encoded with.
func fuzzStream() (gaffer.Config, [][]byte) {
	cfg := gaffer.Config{Bodies: 40, HalfWidth: 8, Height: 4}
	_, _, snaps := stream(cfg, newSim(9, cfg.Bodies, 7), 1.0/20, 24) // 20 Hz, so that bodies move far
	return cfg, snaps
}

// The decoder, holding the baselines of ticks 1 to 8, decodes any bytes as
// the snapshot of any tick without panicking: into bodies within the bounds
// and rotations of unit length, or into an error that changes nothing (the
// next snapshot of the stream still decodes as it would have).
func FuzzDecode(f *testing.F) {
	const held = 8
	cfg, snaps := fuzzStream()
	for i, b := range snaps {
		f.Add(uint64(i+1), b)
	}
	f.Add(uint64(held+1), []byte{})
	prime := func() *gaffer.Decoder {
		d := gaffer.NewDecoder(cfg)
		for i, b := range snaps[:held] {
			if _, _, _, err := d.Decode(nil, uint64(i+1), 0, b); err != nil {
				f.Fatal(err)
			}
		}
		return d
	}
	next, _, _, err := prime().Decode(nil, held+1, 0, snaps[held])
	if err != nil {
		f.Fatal(err)
	}
	out := make([]replica.Entity, 0, cfg.Bodies)
	f.Fuzz(func(t *testing.T, tick uint64, b []byte) {
		d := prime()
		got, base, keep, err := d.Decode(out, tick, time.Second, b)
		if err != nil {
			if len(got) != 0 || keep {
				t.Fatalf("error %v with %d bodies, keep %v", err, len(got), keep)
			}
			after, _, _, err := d.Decode(nil, held+1, 0, snaps[held])
			if err != nil {
				t.Fatalf("after an error: %v", err)
			}
			equal(t, held+1, after, next)
			return
		}
		if len(got) != cfg.Bodies || base >= tick && base != 0 {
			t.Fatalf("%d bodies, base %d of tick %d", len(got), base, tick)
		}
		for i, e := range got {
			p, q := e.State.Pos, e.State.Rot
			if e.ID != uint32(i) || e.State.Time != time.Second ||
				!(math.Abs(p.X) <= 8 && math.Abs(p.Z) <= 8 && p.Y >= 0 && p.Y < 4) ||
				math.Abs(q.Len()-1) > 1e-9 {
				t.Fatalf("body %d: %+v", i, e)
			}
		}
	})
}
