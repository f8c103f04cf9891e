// Package lab measures how well clients see a server's world over emulated
// networks, in virtual time.
//
// A run simulates an authoritative server and its clients through seeded
// emulated links (package netsim): the server steps the world at tick_hz and
// sends snapshots at snapshot_hz; every client estimates the server's clock,
// shows the ball, and renders frame_hz frames by its own (possibly drifting)
// clock. At every frame the lab compares what the client shows with the
// server's true state at that moment. Nothing reads a wall clock, so a 60 s
// scenario runs in a fraction of a second and the same scenario always gives
// the same report, byte for byte.
//
// # Methods
//
// Each client has a clock method and a ball method, compared side by side on
// identically seeded links:
//
//   - clock "tether": the clock package's estimator. "oneshot": one request at
//     connect, offset = Ts + RTT/2 - Tc, never updated (retried each second
//     until a reply arrives). "ue4": the server sends its time every 5 s and
//     the client sets offset = received - local, with no lag correction.
//   - ball "tether": the timeline package's snapshot interpolation, which
//     extrapolates past the newest state with the ball's own physics (a
//     private copy of the server's pitch and ball). "seed": a ring of 20
//     states, linear interpolation of position and of Euler angles at network
//     time - 100 ms, extrapolation by the newest velocity for at most 500 ms,
//     then hold. "velocity", "predictive" and "resim": Unreal Engine 5's
//     physics replication modes, from package replicate, each simulating the
//     ball in its own copy of the world and showing the present. "oracle" is
//     a reference, not a method: the server's exact state from one mean
//     one-way delay ago, advanced to now by the exact physics with no
//     knowledge of later kicks — the best any client could show.
//
// # Scenario files
//
// A scenario is JSON:
//
//	{"name": "example", "seed": 7, "duration_s": 60,
//	 "tick_hz": 60, "snapshot_hz": 30, "frame_hz": 60, "game": "ball-drill",
//	 "clients": [
//	   {"name": "a", "clock": "tether", "ball": "tether", "link": "wan"},
//	   {"name": "b", "clock": "oneshot", "ball": "seed",
//	    "link": {"up": {"latency_ms": 40, "jitter": {"dist": "lognormal", "mean_ms": 10, "p99_ms": 60},
//	                    "loss": {"rate": 0.03, "mean_burst": 3}, "dup": 0.01},
//	             "down": {"latency_ms": 60, "jitter": {"dist": "exponential", "mean_ms": 10}},
//	             "clock": {"offset_s": 37, "drift_ppm": 100},
//	             "blackouts": [{"at_s": 20, "len_s": 2}]}}]}
//
// Omitted fields take defaults (seed 1, 60 s, 60/30/60 Hz, ball-drill, the
// tether methods); a link is a preset name (lan, broadband, wan, mobile, lossy)
// or an object in which a missing field means "none" (see netsim.LinkConfig).
// Unknown fields and out-of-range values are errors that name the field.
//
// # Metrics
//
// Statistics (mean, p50, p99, max, rms) and counts are taken over the frames
// after a 2 s warm-up; Report documents each field. Clock error is measured
// after removing half the base latency asymmetry, which no round trip can
// observe; the raw error is reported beside it. Ball fidelity compares the
// drawn ball with the true trajectory at the moment the client claims to show,
// and ball presence compares it with where the ball is now.
package lab
