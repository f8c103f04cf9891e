package gaffer_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/lab/gaffer"
	"github.com/tether-net/tether/replica"
)

// A server sends a client three bodies, then, once the client acknowledged
// that snapshot, the one that moved.
func Example() {
	cfg := gaffer.Config{Bodies: 3, HalfWidth: 10}
	enc, dec := gaffer.NewEncoder(cfg), gaffer.NewDecoder(cfg)
	enc.Join(1)
	var w replica.World
	for i := range 3 {
		w.Add(replica.Entity{ID: uint32(i), State: kinematic.State{Pos: geom.V(float64(i), 0.25, -2)}})
	}

	b := enc.Append(nil, 1, 1, &w, 0) // nothing acknowledged yet
	ents, base, keep, err := dec.Decode(nil, 1, time.Second/60, b)
	fmt.Printf("tick 1: %d bytes against the initial state (base %d), %d bodies, kept %v, %v\n", len(b), base, len(ents), keep, err)

	w.Entity(1).State.Pos.X += 0.01 // body 1 rolls a centimetre
	b = enc.Append(nil, 1, 2, &w, 1)
	ents, base, _, _ = dec.Decode(ents[:0], 2, 2*time.Second/60, b)
	fmt.Printf("tick 2: %d bytes against tick %d, body 1 at x = %.4f m\n", len(b), base, ents[1].State.Pos.X)
	// Output:
	// tick 1: 18 bytes against the initial state (base 0), 3 bodies, kept true, <nil>
	// tick 2: 6 bytes against tick 1, body 1 at x = 1.0098 m
}
