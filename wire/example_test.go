package wire_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/wire"
)

func ExampleAppendState() {
	ball := kinematic.State{
		Time: 12*time.Second + 500*time.Millisecond,
		Pos:  geom.V(10.25, 0.11, -3.5),
		Vel:  geom.V(15, 0, 2),
		Rot:  geom.Identity,
	}
	buf := wire.AppendState(make([]byte, 0, wire.MaxStateSize), ball)
	got, n, err := wire.DecodeState(buf)
	fmt.Println(len(buf), n, err, got.Pos, got.Time)
	// Output: 24 24 <nil> {10.25 0.11 -3.5} 12.5s
}

// A delta against a baseline packed in bits: a changed flag and two small
// differences take one byte.
func ExampleBitWriter() {
	w := wire.NewBitWriter(nil)
	w.Bool(true) // changed
	w.Int(-3, 1) // x, millimetres from the baseline
	w.Int(0, 1)  // z
	b := w.Append()
	r := wire.NewBitReader(b)
	changed, x, z := r.Bool(), r.Int(1, 1000), r.Int(1, 1000)
	n, err := r.End()
	fmt.Println(len(b), changed, x, z, n, err)
	// Output: 1 true -3 0 1 <nil>
}
