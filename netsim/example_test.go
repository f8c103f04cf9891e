package netsim_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/netsim"
)

// A server sends a snapshot every 20 ms to a client over the "wan" preset;
// the scheduler delivers each copy at its arrival time, in virtual time.
// Jitter reorders snapshots 2 and 3, and 4 and 5.
func Example() {
	cfg, err := netsim.Preset("wan")
	if err != nil {
		panic(err)
	}
	link := netsim.NewLink(cfg, 4)
	var sched netsim.Scheduler
	var arrivals []time.Duration
	for i := range 8 {
		sent := time.Duration(i) * 20 * time.Millisecond
		sched.At(sent, func() {
			arrivals = link.Down.Send(sched.Now(), 200, arrivals[:0])
			for _, at := range arrivals {
				sched.At(at, func() {
					fmt.Printf("snapshot %d: sent %3d ms, arrived %5.1f ms\n",
						i, sent.Milliseconds(), float64(sched.Now())/1e6)
				})
			}
		})
	}
	sched.RunUntil(time.Second)
	st := link.Down.Stats()
	fmt.Printf("sent %d, delivered %d, lost %d, %d wire bytes\n", st.Sent, st.Delivered, st.Lost, st.WireBytes)
	fmt.Printf("client clock at true t=10s: %v\n", link.Clock.Local(10*time.Second))
	// Output:
	// snapshot 0: sent   0 ms, arrived  66.3 ms
	// snapshot 1: sent  20 ms, arrived  88.5 ms
	// snapshot 3: sent  60 ms, arrived 125.5 ms
	// snapshot 2: sent  40 ms, arrived 162.0 ms
	// snapshot 5: sent 100 ms, arrived 166.8 ms
	// snapshot 4: sent  80 ms, arrived 185.4 ms
	// snapshot 6: sent 120 ms, arrived 185.8 ms
	// snapshot 7: sent 140 ms, arrived 205.9 ms
	// sent 8, delivered 8, lost 0, 1824 wire bytes
	// client clock at true t=10s: 47.001s
}
