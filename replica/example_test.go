package replica_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/replica"
)

// A ball rolling at a steady speed, sent to one client: whole at first, then
// as deltas against what the client acknowledged, where a ball where its
// prediction says costs almost nothing.
func Example() {
	schema, err := replica.NewSchema(replica.Kind{Name: "ball", Fields: []replica.Field{
		replica.Position(1000, replica.XYZ), replica.Velocity(1000, replica.XYZ)}})
	if err != nil {
		panic(err)
	}
	enc := replica.NewEncoder(schema, replica.Config{})
	enc.Join(0, replica.NoSelf)
	dec := replica.NewDecoder(schema)

	var acked uint64
	var out replica.Decoded
	for tick := uint64(1); tick <= 3; tick++ {
		t := time.Duration(tick) * time.Second / 30
		w := enc.World()
		w.Reset()
		w.Add(replica.Entity{ID: 7, State: kinematic.State{Pos: geom.V(2*t.Seconds(), 0.11, 0), Vel: geom.V(2, 0, 0)}})
		b := enc.Append(nil, 0, tick, t, acked, 0)

		out.Entities = out.Entities[:0]
		if err := dec.Decode(&out, tick, t, b); err != nil {
			panic(err)
		}
		if out.Keep {
			acked = tick // the client acknowledges it
		}
		ball := out.Entities[0]
		fmt.Printf("tick %d: %d bytes against %d, ball at x %.3f m\n", tick, len(b), out.Base, ball.State.Pos.X)
	}
	// Output:
	// tick 1: 12 bytes against 0, ball at x 0.067 m
	// tick 2: 2 bytes against 1, ball at x 0.133 m
	// tick 3: 2 bytes against 2, ball at x 0.200 m
}
