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
