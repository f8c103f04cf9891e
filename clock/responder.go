package clock

import "time"

// Responder is the server's side of the protocol: it answers pings with its
// own time. It holds no state beyond the epoch and is safe to copy and to use
// from several goroutines.
type Responder struct {
	// Epoch identifies the server's clock origin. Pick a new value whenever the
	// server's clock may have restarted or jumped (for example a random value
	// at process start); clients then reset instead of slewing.
	Epoch uint32
}

// Pong answers p. recv is the server time the ping arrived and send the server
// time the pong will leave (stamp it as late as practical; the time between
// the two is subtracted from the round trip). A send before recv is treated
// as equal to recv.
func (r Responder) Pong(p Ping, recv, send time.Duration) Pong {
	return Pong{ID: p.ID, Epoch: r.Epoch, Recv: recv, Send: max(send, recv)}
}
