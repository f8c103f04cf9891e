package reliable_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/netcode/reliable"
)

// Two endpoints exchange a large reliable message and a snapshot; the
// "network" is a direct call, and the first packet (which carried the
// snapshot and the first fragment) is lost: the fragment is resent, the
// snapshot is not.
func Example() {
	a, _ := reliable.New(reliable.Config{})
	b, _ := reliable.New(reliable.Config{})
	a.SendReliable(make([]byte, 5000)) // five fragments
	a.SendUnreliable([]byte("snapshot 1"))

	lostFirst := false
	for now := time.Duration(0); now < time.Second; now += 20 * time.Millisecond {
		for p, ok := a.AppendPacket(nil, now); ok; p, ok = a.AppendPacket(nil, now) {
			if !lostFirst {
				lostFirst = true
				continue
			}
			b.Receive(now, p)
		}
		for p, ok := b.AppendPacket(nil, now); ok; p, ok = b.AppendPacket(nil, now) {
			a.Receive(now, p)
		}
		for m, rel, ok := b.Read(); ok; m, rel, ok = b.Read() {
			fmt.Printf("got %d bytes, reliable=%v\n", len(m), rel)
		}
	}
	fmt.Println("pending at sender:", a.Pending())
	// Output:
	// got 5000 bytes, reliable=true
	// pending at sender: 0
}
