package clock_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/clock"
)

// A client and a server exchange pings in virtual time over a link of 30 ms
// out and 20 ms back. The client's clock reads 37 s ahead of the server's
// and runs 100 ppm fast; the estimate ends up within the half-asymmetry
// (5 ms) of the server's clock, and Bound covers even that.
func Example() {
	est, err := clock.NewEstimator(clock.Config{})
	if err != nil {
		panic(err)
	}
	server := clock.Responder{Epoch: 1}
	local := func(t time.Duration) time.Duration { // the client's clock at true time t
		return 37*time.Second + t + t/10000
	}
	type arrival struct {
		at  time.Duration
		msg []byte
	}
	var toServer, toClient []arrival
	var buf []byte
	for t := time.Duration(0); t <= 10*time.Second; t += time.Millisecond {
		if est.PingDue(local(t)) {
			buf = clock.AppendPing(buf[:0], est.Ping(local(t)))
			toServer = append(toServer, arrival{t + 30*time.Millisecond, append([]byte(nil), buf...)})
		}
		for len(toServer) > 0 && toServer[0].at <= t {
			ping, _, err := clock.DecodePing(toServer[0].msg)
			toServer = toServer[1:]
			if err != nil {
				continue // count and drop malformed input
			}
			// The server's clock is true time; it answers at once.
			buf = clock.AppendPong(buf[:0], server.Pong(ping, t, t))
			toClient = append(toClient, arrival{t + 20*time.Millisecond, append([]byte(nil), buf...)})
		}
		for len(toClient) > 0 && toClient[0].at <= t {
			pong, _, err := clock.DecodePong(toClient[0].msg)
			toClient = toClient[1:]
			if err == nil {
				est.HandlePong(pong, local(t))
			}
		}
	}
	t := 10 * time.Second
	now, ok := est.Now(local(t))
	fmt.Println("ready:", ok)
	fmt.Println("error:", (now - t).Round(100*time.Microsecond))
	fmt.Println("bound:", est.Bound(local(t)).Round(time.Millisecond))
	fmt.Printf("drift: %.0f ppm\n", est.Stats().DriftPPM)
	// Output:
	// ready: true
	// error: 5ms
	// bound: 25ms
	// drift: -100 ppm
}
