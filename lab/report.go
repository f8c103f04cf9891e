package lab

import (
	"time"

	"github.com/tether-net/tether/measure"
)

// Report is what a run measured: the resolved scenario and one result per
// client. Its JSON form is the output schema of the design document.
type Report struct {
	Scenario Scenario `json:"scenario"`
	Results  []Result `json:"results"`

	clients []*client // per-frame series, for plots (Options.Keep)
	truth   *measure.Truth
}

// Result is one client's measurements.
type Result struct {
	Client      string       `json:"client"`
	ClockMethod string       `json:"clock_method"`
	BallMethod  string       `json:"ball_method"`
	Clock       ClockMetrics `json:"clock"`
	Ball        BallMetrics  `json:"ball,omitzero"` // none in the arena game
	Net         NetMetrics   `json:"net"`
	// Others, in the soccer game, measures the other players' characters.
	Others *OthersMetrics `json:"others,omitempty"`
	// Own, in the soccer game, measures the client's own character.
	Own *OwnMetrics `json:"own,omitempty"`
	// Proj and Hits, in the arena game, measure how the client draws
	// projectiles and how its hitscan shots were judged.
	Proj *ProjMetrics `json:"proj,omitempty"`
	Hits *HitMetrics  `json:"hits,omitempty"`
}

// The metrics are package measure's, the one definition the lab, tether demo
// and tether bot report.
type (
	Stat          = measure.Stat
	BallMetrics   = measure.BallMetrics
	ClockMetrics  = measure.ClockMetrics
	NetMetrics    = measure.NetMetrics
	NetKinds      = measure.NetKinds
	OwnMetrics    = measure.OwnMetrics
	OthersMetrics = measure.OthersMetrics
	ProjMetrics   = measure.ProjMetrics
	HitMetrics    = measure.HitMetrics
)

// report measures every client against the ball's trajectory tr.
func (m *sim) report(tr *measure.Truth) *Report {
	r := &Report{Scenario: m.scen, clients: m.clients, truth: tr}
	for _, c := range m.clients {
		r.Results = append(r.Results, c.result(nil))
	}
	return r
}

// measureAgainst readies client c's meters, its ball measured against tr.
func (c *client) measureAgainst(tr *measure.Truth) {
	c.truth = tr
	for _, b := range c.spec.Link.Blackouts {
		at := time.Duration(b.AtS * float64(time.Second))
		c.blackouts = append(c.blackouts, measure.Span{From: at, To: at + time.Duration(b.LenS*float64(time.Second))})
	}
	up, down := c.spec.Link.Latency()
	c.clockMeter = measure.NewClockMeter(warmUp, up, down, c.spec.Link.Spiky())
	c.ballMeter = measure.BallMeter{WarmUp: warmUp, Blackouts: c.blackouts}
}

// record measures frame f of client c, and keeps it if the run keeps its
// frames (for a trace or plots).
func (c *client) record(f frame) {
	c.clockMeter.Add(measure.Frame{T: f.t, Est: f.est, Ready: f.ready, Bound: f.bound})
	ball := f.ball
	ball.T = f.t
	c.ballMeter.Add(c.truth, ball)
	if c.sim.keep() {
		c.frames = append(c.frames, f)
	}
}

// keep reports whether the run keeps every frame and the whole truth.
func (m *sim) keep() bool { return m.opts.Keep || m.opts.Trace != nil }

// result measures client c; ball is its ball method, whose re-simulated
// ticks are counted if it has any.
func (c *client) result(ball any) Result {
	res := Result{
		Client:      c.spec.Name,
		ClockMethod: c.spec.Clock,
		BallMethod:  c.spec.Ball,
		Clock:       c.clockMeter.Metrics(c.clock.firstReply()),
		Ball:        c.ballMeter.Metrics(c.truth),
		Net:         c.netMetrics(),
	}
	if rc, ok := ball.(interface{ resimTicks() (uint64, bool) }); ok {
		if n, ok := rc.resimTicks(); ok {
			c.resimTicks = &n
		}
	}
	if c.resimTicks != nil {
		perS := measure.Round(float64(*c.resimTicks) / c.sim.end.Seconds())
		res.Ball.ResimTicks = &perS
	}
	return res
}

func (c *client) netMetrics() NetMetrics {
	secs := c.sim.end.Seconds()
	kbps := func(bytes int64) float64 { return measure.Round(float64(bytes) * 8 / secs / 1000) }
	n := NetMetrics{
		DownKbps:      kbps(c.downBytes),
		UpKbps:        kbps(c.upBytes),
		ClockDownKbps: kbps(c.clockDownBytes),
		ClockUpKbps:   kbps(c.clockUpBytes),
	}
	rate := func(k *NetKinds) *NetKinds {
		if k == nil {
			return nil
		}
		r := func(bytes float64) float64 { return kbps(int64(bytes)) }
		return &NetKinds{Snapshots: r(k.Snapshots), Inputs: r(k.Inputs), Replies: r(k.Replies), Clock: r(k.Clock), Events: r(k.Events), Headers: r(k.Headers)}
	}
	n.Down, n.Up = rate(c.downKinds), rate(c.upKinds)
	return n
}

// definitions is report.md's last section: what every column of the tables
// is, and what each method and reference is.
const definitions = "## Definitions\n\n" +
	"Every figure is taken over the frames after a 2 s warm-up, each client on an identically seeded link. " +
	"A figure that was not measured prints as `-`, and a column no client measured is left out. " +
	"T is the true server time at a client's frame, R the ball as the client draws it, X the server's true trajectory of the ball, " +
	"and d the render delay: T minus the server time the client draws the ball at (so d includes the client's clock error).\n\n" +
	"### Methods and references\n\n" +
	"- clock `tether`: the clock package's estimator (four-timestamp pings, min-delay filter, drift, slewing, an error bound).\n" +
	"- clock `oneshot`: a baseline, one request at connect, offset = server time + RTT/2 - client time, never updated.\n" +
	"- clock `ue4`: a baseline, Unreal's replicated world time: the server sends its time every 5 s and the client takes it as is, with no lag correction.\n" +
	"- ball `tether`: the timeline package's snapshot interpolation with an adaptive render delay, extrapolating past the newest state with the ball's own physics.\n" +
	"- ball `seed`: a baseline, the naive interpolation buffer: 20 states, linear interpolation at network time - 100 ms, extrapolation by the newest velocity for at most 500 ms, then hold.\n" +
	"- ball `velocity`, `predictive`, `resim`: Unreal Engine 5's physics replication modes (package replicate), each simulating the ball in its own world and showing the present.\n" +
	"- `oracle`: a reference, not a method a client could run. It shows the present: the server's exact state from one mean one-way delay ago, " +
	"advanced to now by the exact physics, with no knowledge of kicks made since. It bounds the present error of a client that shows the present; " +
	"as it claims to show now, its fidelity error is its present error, so it is no target for the methods that show the past (tether, seed).\n" +
	"- `oracle-players` (soccer): the other reference, the tether client's frames at its render delay, but past the newest snapshot the true ball, " +
	"as a client knowing every player's future motion (and so every touch) would draw it: the best an interpolating client can do at that delay.\n\n" +
	"### Clock and traffic\n\n" +
	"- client, clock, ball: the client's name and its clock and ball methods.\n" +
	"- err p50 / p99 / max ms: |estimate - true server time - (up - down base latency)/2|, milliseconds: the error round trips can remove (half the latency asymmetry no round trip can observe is taken out).\n" +
	"- backsteps: frames whose estimate of server time is earlier than the previous frame's.\n" +
	"- max rate ppm: the largest |d estimate / d true time - 1| over consecutive 1 s windows after convergence (the whole run if it never converged), parts per million; `-` when no whole second was measured.\n" +
	"- converge s: from the first clock reply until the error stays within 2 ms (5 ms on a link with latency spikes) to the end of the run; `never` if it does not.\n" +
	"- coverage: the share of frames whose raw error is within the error bound the method reports; `-` for a method that reports none.\n" +
	"- clock up / down kbps: the clock method's own messages; in the soccer game they share datagrams with inputs and snapshots and are not told apart.\n" +
	"- up / down kbps: every byte of the client's traffic on the wire: payload, the transport's header (netcode's prefix, sequence number and MAC) and 28 bytes of IPv4 and UDP headers per datagram, averaged over the run, kilobits per second. In the JSON, down_by_kind and up_by_kind (soccer) split them by kind: snapshots, inputs (and predicted moves), replies (the game's acks and adjustments), clock (pings, pongs), events, and headers (the rest: IPv4, UDP, netcode, the reliable channel's header, framing and resends).\n\n" +
	"### Ball\n\n" +
	"- fidelity p99 / max m: |R - X(T - d)|, metres: how faithfully the client shows the moment it claims to show, outside blackouts and the half second after a teleport.\n" +
	"- present rms m: |R - X(T)|, metres: how far what the player sees is from where the ball is now.\n" +
	"- delay mean ms: d, milliseconds.\n" +
	"- pops: frames where the drawn motion differs from the true motion over that frame's advance of render time by more than 5 cm: visible jumps.\n" +
	"- extrap frames: frames drawn past the newest state received. frozen frames: frames held still for lack of data, outside blackouts.\n" +
	"- resim ticks/s: ticks the resim method re-simulated, per second of the run.\n\n" +
	"### Soccer: other players and own kicks\n\n" +
	"- others present rms m: |drawn - true position now| of every other player, on the ground, metres. others pops: their visible jumps, as for the ball.\n" +
	"- kicks: the client's own kick inputs the server applied. kick visible max frames: the most frames from a kick input to the drawn ball showing it (0: the next frame).\n" +
	"- kick correction p99 m, kick lag mean ms, kick origin p99 m (resim, which predicts its own kicks): how far its ball moved when the server's states showed the kick, how much later the server applied it, and how far from the server's ball it kicked.\n" +
	"- kicks predicted, kicks refuted: the kicks resim predicted, and those the server never made.\n\n" +
	"### Soccer: own player\n\n" +
	"- predicted: whether the client predicts its own player; one that does not has no corrections, present error or pops of its own.\n" +
	"- own corrections/min, correction p99 m: the server's adjustments of the predicted player per minute, and their size.\n" +
	"- own present rms m: |drawn - the server's position for the client's now|, metres. own pops: its visible jumps.\n" +
	"- input-to-visible max frames: the most frames from an input to the drawn player showing it (0: the next frame).\n" +
	"- inputs lost: moves the server never applied, outside blackouts.\n"
