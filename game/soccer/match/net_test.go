package match

import (
	"testing"
	"time"

	"github.com/tether-net/tether/measure"
)

// NetBetween counts every datagram with its 28 bytes of IPv4 and UDP
// header, splits it by the kinds of the messages in it, and puts the rest
// in Headers; its clock figures are the clock's messages alone.
func TestNetBetween(t *testing.T) {
	a := NetCounters{At: time.Second, PacketsIn: 5, BytesIn: 100, PacketsOut: 3, BytesOut: 60,
		In: measure.NetKinds{Snapshots: 40, Clock: 10}, Out: measure.NetKinds{Inputs: 20, Acks: 4, Clock: 5}}
	b := NetCounters{At: 3 * time.Second, PacketsIn: 15, BytesIn: 820, PacketsOut: 13, BytesOut: 380,
		In: measure.NetKinds{Snapshots: 540, Clock: 60}, Out: measure.NetKinds{Inputs: 220, Acks: 54, Clock: 30}}
	n := NetBetween(a, b)
	// Down: 720 bytes + 10 × 28 = 1000 bytes in 2 s = 4 kbps; snapshots 500
	// bytes = 2 kbps, clock 50 = 0.2; the rest 1.8. Up: 320 + 280 = 600
	// bytes = 2.4 kbps; inputs 200 = 0.8, acks 50 = 0.2, clock 25 = 0.1;
	// the rest 1.3.
	if n.DownKbps != 4 || n.UpKbps != 2.4 || n.ClockDownKbps != 0.2 || n.ClockUpKbps != 0.1 {
		t.Errorf("totals %+v", n)
	}
	if d := *n.Down; d.Snapshots != 2 || d.Clock != 0.2 || d.Headers != 1.8 {
		t.Errorf("down by kind %+v", d)
	}
	if u := *n.Up; u.Inputs != 0.8 || u.Acks != 0.2 || u.Clock != 0.1 || u.Headers != 1.3 {
		t.Errorf("up by kind %+v", u)
	}
	if z := NetBetween(b, b); z.DownKbps != 0 || z.Down != nil {
		t.Errorf("no time between: %+v", z)
	}
}
