// Package clock estimates the server's clock on a client: the time base every
// server state a client receives is stamped with.
//
// # Time and units
//
// Every time is a time.Duration since an arbitrary origin. Local times come
// from the client's own clock, which must be monotonic (in Go,
// time.Since(start) on a fixed start); it may run at a rate different from
// the server's, and its origin is unrelated to the server's. Server times
// come from the server's clock. Rates and drifts are in parts per million
// (ppm): a drift of +100 ppm means the server's clock gains 100 µs per second
// of local time.
//
// # Protocol
//
// The client sends a Ping (an id) and remembers when it sent it; the server
// answers with a Pong carrying the id, the server time the ping arrived, the
// server time the pong left, and the server's clock epoch. The client stamps
// the pong's arrival. The four timestamps give one sample. Pongs are matched
// by id, so lost, duplicated, reordered and stale pongs are harmless.
// AppendPing, AppendPong, DecodePing and DecodePong are the wire form
// (microsecond resolution, varints, a few bytes; the caller frames them).
// Responder is the whole server side.
//
// Ping on the Estimator's schedule: PingDue says whether one is due now (so
// it can ride on a packet being sent anyway) and NextPing when. The schedule
// starts at 10 Hz and settles to 2 Hz (about 1 kbit/s each way including
// IP and UDP headers, averaged over the first minute).
//
// # Estimate
//
// The filter keeps a window of recent samples. Every ping's forward point
// (t2-t1: offset plus the outbound delay) lies above the true offset by at
// least the outbound base delay, and every pong's backward point (t3-t4:
// offset minus the inbound delay) below it by at least the inbound base
// delay: jitter only adds. The filter fits a lower envelope to the forward
// points and an upper envelope to the backward ones with a common slope, the
// drift, and takes their mean. This is minimum-delay filtering done per
// direction, with the drift found by regression over the window: the
// posterior mean under an exponential-jitter likelihood and a prior on the
// drift. Samples whose round trip is far above the window's typical excess
// (delay spikes) are left out of the fit. Base asymmetry (outbound base
// delay minus inbound, halved) cannot be observed by any round trip; the
// estimate differs from the server's clock by it.
//
// # Output
//
// Now(local) is the estimated server time. It is ready after a few samples
// (within about 1.2 s of the first pong). From then on it is a deterministic
// piecewise-linear function of local time, re-planned only when a pong
// arrives: it never decreases and never steps, and it closes any gap to the
// estimate by slewing at no more than SlewPPM (ConvergeSlewPPM, 1 %, for the
// part of a gap beyond FastSlewAbove while converging). How often Now is
// called changes nothing.
//
// The output steps only at a signalled reset, which increments Epoch: when
// the server's epoch changes (it restarted its clock; Now is not ready until
// the new epoch has enough samples) or when the gap to the estimate exceeds
// ResetAbove (1 s; for example after the samples showed the server's clock
// jumped). Callers compare Epoch between frames.
//
// Bound(local) bounds |Now(local) - true server time|, asymmetry included:
// no sample allows the true offset outside an interval about half the least
// round trip wide, carried forward with the drift's uncertainty, and the
// output's slew lag is added. It holds whatever the network does, as long as
// the clocks' rates are steady within the window.
//
// An Estimator is a state machine without I/O, goroutines or clocks of its
// own, and is not safe for concurrent use. Now and Bound cost tens of
// nanoseconds; HandlePong a few tens of microseconds with a full window.
// Neither allocates.
package clock
