// Package lab measures how well clients see a server's world over emulated
// networks, in virtual time.
//
// A run is the shipped code: one server core (package server) and a client
// core (package client) per client of the scenario, with the game's server
// and client sides (game/drill for the ball drill, game/soccer, game/arena),
// over seeded emulated links in virtual time (packages harness and netsim).
// The server steps the world at tick_hz and sends snapshots at snapshot_hz;
// every client estimates the server's clock, shows the ball, and renders
// frame_hz frames by its own (possibly drifting) clock. The lab selects
// methods and measures (package measure); it holds no game rule and no
// client of its own. At every frame the lab compares what the client shows with the
// server's true state at that moment. Nothing reads a wall clock, so a 60 s
// scenario runs in a fraction of a second and the same scenario always gives
// the same report, byte for byte.
//
// # Methods
//
// Each client has a clock method and a ball method, compared side by side on
// identically seeded links:
//
//   - clock "tether": the clock package's estimator, as the client runs it.
//     The baselines draw at their own estimate (client.Config.ServerTime):
//     "oneshot" takes offset = Ts + RTT/2 - Tc from the first ping exchange
//     answered (clock.Estimator.First) and never updates it; "ue4" takes the
//     server's time from a snapshot every 5 s, offset = received - local,
//     with no lag correction.
//   - ball "tether": the timeline package's snapshot interpolation with the
//     render delay its knob sets (late_share), which extrapolates past the
//     newest state with the ball's own physics (a copy of the server's pitch
//     and ball). "seed" (replicate.Seed): a ring of 20 states, linear
//     interpolation of position and of Euler angles at network time - 100
//     ms, extrapolation by the newest velocity for at most 500 ms, then
//     hold. "velocity", "predictive" and "resim": Unreal Engine 5's
//     physics replication modes, from package replicate, each simulating the
//     ball in its own copy of the world and showing the present. "oracle" is
//     a reference, not a method: the server's exact state from one mean
//     one-way delay ago, advanced to now by the exact physics with no
//     knowledge of later kicks: a bound on the present error of a client
//     that shows the present. As it claims to show now, its fidelity is its
//     present error, which makes it no target for fidelity.
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
// tether methods); "late_share" (0 to 1, default the game's) sets every
// client's render delay knob (timeline.Config.LateShare), which tether lab
// -sweep varies; a link is a preset name (lan, broadband, wan, mobile, lossy)
// or an object in which a missing field means "none" (see netsim.LinkConfig).
// Unknown fields and out-of-range values are errors that name the field.
//
// # The soccer game
//
// With "game": "soccer" a run is the whole match of package
// game/soccer/match in virtual time: the authoritative server (package
// server running soccer.Game) and one bot per client of the scenario, each a
// client of package client playing one player through that client's link;
// the links are seeded alike. The built-in presets stay ball drills; a soccer
// run is a scenario file, such as testdata/soccer.json (every ball method on
// the broadband link):
//
//	tether lab -scenario-file lab/testdata/soccer.json
//
// Each client is measured by the match's own meter (match.Meter, the one
// tether demo measures a live match with), with the drill's definitions and
// what its client shows:
//
//   - clock: the client package's own estimator, the only clock a soccer
//     client draws by; a soccer scenario asking for another is an error
//     naming the client's clock field.
//   - ball: the ball the client draws, by the method the scenario names,
//     which the lab selects and does not implement
//     (soccer.ClientGame.BallMethod): "tether" (its timeline, and a ball in
//     possession at its possessor's drawn place), "seed", "velocity" and
//     "predictive" (their views, fed the ball's states from the snapshots),
//     "resim" (the whole match world re-simulated by the server's own match
//     step, soccer.World, with the own kicks predicted and claimed). "oracle"
//     is a reference, not a method: it steps the server's exact match from
//     one mean one-way delay ago in a soccer.World, the players running on
//     as they ran; its bot plays from the tether method's frames.
//     "oracle-players" is the other reference: tether's frames and render
//     delay, but past the newest snapshot the true ball, as a client that
//     knew every player's future would draw it; the best an interpolating
//     client can do at that delay. Every
//     other bot plays from its own client's frames, so the method changes
//     the match; within one run every client sees the same match.
//   - others: the other players as the client package draws them.
//   - net: every datagram the client sent and the server sent it, with its
//     headers: netcode's (prefix, sequence number, MAC) and 28 bytes of
//     IPv4 and UDP (harness.Traffic); the connection handshake is left out.
//     In the soccer game it is split by kind (measure.NetKinds). The clock's pings and pongs share datagrams with inputs and
//     snapshots, so its own traffic is not told apart (reported as 0).
//
// The server's truth comes from its state after every tick; between ticks
// the ball is stepped by the same physics where it flew free. The half second
// after a teleport (a kickoff, a ball put back on the pitch) is left out of
// the error statistics, for the ball and for each player, as blackouts are.
// Where the server moved the ball at a tick without a teleport (a kick made
// as of an earlier tick and brought to the present, or from where its client
// claimed the ball was, or a ball pushed out of a player), the truth jumps at
// that tick, and the frame across the jump is not counted as a pop, for any
// method; the errors around it are counted.
// Besides the drill's metrics, a soccer result has others.* (the other
// players' present error, fidelity and pops) and the own kicks: ball.kicks,
// ball.kick_visible_frames (frames from a kick input to the drawn ball
// showing it) and, for resim, how far its ball moved when the server's states
// showed the kick (kick_correction_m), how much later the server applied it
// (kick_lag_ms), how far from the server's ball it kicked (kick_origin_m),
// and the predicted kicks the server never made (kicks_refuted, with how far
// the ball moved when that showed: kick_refuted_m). The server kicks as of
// the moment the client made the kick, from where it claims and in the
// direction it sent, so neither the lag nor the client's error in its own
// player's place moves the ball: what remains is the players the ball met
// after the kick, where the client could not know them.
//
// # The arena game
//
// With "game": "arena" a run is package game/arena on package harness: its
// server and one bot per client of the scenario (at most 16), each playing
// one player through its link; the links are seeded alike. A client's ball
// method says how it draws projectiles: "tether" (the shipped method: each
// spawn event fast-forwarded by its age, the own projectiles predicted at
// once) or "seed" (the naive baseline: from the spawn message's position when
// it arrives, advanced from then on). testdata/arena-broadband.json,
// arena-wan.json and arena-mobile.json put four of each on one link:
//
//	tether lab -scenario-file lab/testdata/arena-wan.json -seed 3
//
// An arena result has clock and net as above, no ball, and:
//
//   - proj.spawn_err_m: |drawn - the server's projectile at the frame's true
//     time|, every projectile drawn in every frame while the server's flies.
//   - hits.agree: the share of the client's hitscan shots on which the client
//     (against the players it drew) and the server (rewinding them to the
//     client's view time, at most 250 ms back) name the same player hit, or
//     none; hits.agree_no_rewind the same for a server judging against the
//     players where they are when the shot arrives; hits.rewind_ms how far
//     back each was judged, hits.clamped how many reached the bound.
//   - entities: the other players (see below).
//
// With "game": "crowd" a run is game/crowd's Virtual: each client (tether's
// methods) draws 1,000 spheres from snapshots within "snapshot_budget" bytes
// (0: one packet); its result has clock, net, crowd (crowd.Figures) and
// entities.
//
// # Entities by kind
//
// In a game on the replication layer (arena, crowd) every result also has
// entities: one object per kind the game declares (replica.Kind), in the
// schema's order, measured by package measure's EntityMeter (fed by
// EntityTap) against the world the server replicated at each snapshot:
// kind, fidelity_m (|drawn - the entity's true position at its render
// time|), pops and pops_per_min (|ΔR - ΔX| > 5 cm, none across a teleport
// or a despawn), refresh_ms (server time between the snapshots received
// that refreshed an entity), kbps (the layer's bits on the kind in the
// client's snapshots, no header), samples, extrap_frames and
// frozen_frames. The client's own predicted player is left out: it is the
// own player's. tether demo -game arena reports the same.
//
// # Metrics
//
// Statistics (mean, p50, p99, max, rms) and counts are taken over the frames
// after a 2 s warm-up; Report documents each field. Clock error is measured
// after removing half the base latency asymmetry, which no round trip can
// observe; the raw error is reported beside it. Ball fidelity compares the
// drawn ball with the true trajectory at the moment the client claims to show,
// and ball presence compares it with where the ball is now. The definitions,
// the result types and the statistics are package measure's, which tether
// demo and tether bot measure with too. A run measures each frame as soon as
// the truth it needs has arrived and keeps only what its statistics need, so
// its memory grows by about a byte per sample (Options.Keep keeps every frame
// for plots and traces).
package lab
