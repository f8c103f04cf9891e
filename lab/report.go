package lab

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
)

// Report is what a run measured: the resolved scenario and one result per
// client. Its JSON form is the output schema of the design document.
type Report struct {
	Scenario Scenario `json:"scenario"`
	Results  []Result `json:"results"`

	clients []*client // per-frame series, for plots
	truth   *truth
}

// Result is one client's measurements.
type Result struct {
	Client      string       `json:"client"`
	ClockMethod string       `json:"clock_method"`
	BallMethod  string       `json:"ball_method"`
	Clock       ClockMetrics `json:"clock"`
	Ball        BallMetrics  `json:"ball"`
	Net         NetMetrics   `json:"net"`
	// Others, in the soccer game, measures the other players' characters.
	Others *OthersMetrics `json:"others,omitempty"`
	// Own, in the soccer game, measures the client's own character.
	Own *OwnMetrics `json:"own,omitempty"`
}

// OthersMetrics measure how a client of the soccer game draws the other
// players' characters, one sample per other player per frame after the
// warm-up, the positions on the ground.
type OthersMetrics struct {
	// PresentM is |drawn - true position now|, metres. Samples in the half
	// second after the player was teleported (a kickoff) are left out, as
	// the ball's are.
	PresentM Stat `json:"present_m"`
	// Pops counts the samples outside blackouts where |ΔR - ΔX| > 5 cm, ΔX
	// being the player's true motion over that frame's advance of its render
	// time; a teleport (a kickoff) drawn as one, or one in the truth over
	// the frame, is not a pop.
	Pops int `json:"pops"`
	// Samples is how many there were.
	Samples int `json:"samples"`
}

// BallMetrics measure how a client shows the server's ball, over the frames
// after the warm-up that drew it. L is a frame, T(L) the true server time then,
// R(L) the drawn position, X the server's true trajectory and d(L) the client's
// render delay: T(L) minus the server time the client renders at L. d is the
// delay as it really is, so it includes the error of the client's clock; X(T(L)
// - d(L)) is the moment the client claims to show.
type BallMetrics struct {
	// FidelityM is |R(L) - X(T(L) - d(L))|: how faithfully the client shows
	// the moment it claims to show, metres, over the frames outside blackouts.
	FidelityM Stat `json:"fidelity_m"`
	// PresentM is |R(L) - X(T(L))|: how far what the player sees is from where
	// the ball is now, metres.
	PresentM Stat `json:"present_m"`
	// DelayMs is d(L), milliseconds.
	DelayMs Stat `json:"delay_ms"`
	// Pops counts frames outside blackouts where |ΔR - ΔX| > 5 cm, ΔX being
	// the true motion over that frame's advance of render time: visible jumps.
	// A teleport (the soccer game's kickoff), drawn as one or in the truth
	// over the frame, is not a pop.
	Pops int `json:"pops"`
	// PopsAfterBlackout counts the pops in the 3 s after each blackout ends.
	PopsAfterBlackout int `json:"pops_after_blackout"`
	// ExtrapFrames counts frames rendered past the newest state received;
	// FrozenFrames those held still for lack of data, outside blackouts.
	ExtrapFrames int `json:"extrap_frames"`
	FrozenFrames int `json:"frozen_frames"`
	// BlackoutFrames counts frames whose true time or render time falls in a
	// blackout of the link; they are left out of FidelityM, Pops and
	// FrozenFrames.
	BlackoutFrames int `json:"blackout_frames"`
	// TeleportFrames counts frames in the half second after the ball was
	// teleported (the soccer game's kickoff, or a ball put back on the
	// pitch), which every method shows a delay later: a jump of tens of
	// metres that would swamp the statistics. They are left out of
	// FidelityM, PresentM, Pops and FrozenFrames.
	TeleportFrames int `json:"teleport_frames,omitempty"`
	// Frames is how many frames drew the ball.
	Frames int `json:"frames"`
	// ResimTicks is how many ticks the resim method re-simulated, per second
	// of the run; absent for other methods.
	ResimTicks *float64 `json:"resim_ticks,omitempty"`

	// The own player's kicks, in the soccer game (absent in the ball drill).
	// Kicks counts the inputs after the warm-up that asked the client's
	// player to kick and that the server applied (it kicked for that player
	// within 1 s). KickVisibleFrames is, over those, the frames drawn after
	// the one the input was decided at before the drawn ball shows the kick
	// (its motion over a frame differs by more than 2 cm from its motion into
	// that frame): 0 when the very next frame shows it.
	Kicks             *int  `json:"kicks,omitempty"`
	KickVisibleFrames *Stat `json:"kick_visible_frames,omitempty"`
	// For a method that predicts the own kicks (resim): KicksPredicted counts
	// the kicks it predicted after the warm-up; over those the server
	// applied (a kick by that player before the method stops waiting for it:
	// a round trip and 100 ms), KickCorrectionM is how far the ball in the
	// present (the world's newest tick) moved when the first server state
	// showing the kick was applied, metres, and KickLagMs how much later the
	// server applied the kick than the prediction, milliseconds (it kicks as
	// of the moment the client made it, so the lag itself moves nothing).
	// KickOriginM is how far from the server's ball at the same tick the
	// world kicked it, metres (the server kicks from there if it is within
	// soccer.Rules.KickTolerance). What moves the ball then is where the
	// world had the other players: those that touch the ball or that it
	// bounces off soon after the kick. KicksRefuted counts the predicted
	// kicks the server did not make (the player had lost the ball in the
	// round trip), and KickRefutedM how far the ball in the present moved
	// when the server's states showed that.
	KicksPredicted  *int  `json:"kicks_predicted,omitempty"`
	KickCorrectionM *Stat `json:"kick_correction_m,omitempty"`
	KickLagMs       *Stat `json:"kick_lag_ms,omitempty"`
	KickOriginM     *Stat `json:"kick_origin_m,omitempty"`
	KicksRefuted    *int  `json:"kicks_refuted,omitempty"`
	KickRefutedM    *Stat `json:"kick_refuted_m,omitempty"`
}

// popThreshold is the mismatch between drawn and true motion in one frame that
// counts as a visible jump, metres.
const popThreshold = 0.05

// teleportSpan is how long after a teleport of the ball (or of a player) the
// frames are left out of the error statistics: longer than any render delay
// plus the time for the teleport's state to arrive, outside blackouts.
const teleportSpan = 500 * time.Millisecond

// ClockMetrics measure a client's estimate of server time, over the frames after
// the warm-up.
type ClockMetrics struct {
	// ErrMs is |estimate - true server time - (up - down base latency)/2|: the
	// error round trips can remove. RawErrMs is |estimate - true server time|.
	ErrMs    Stat `json:"err_ms"`
	RawErrMs Stat `json:"raw_err_ms"`
	// Backsteps counts frames whose estimate is earlier than the previous one.
	Backsteps int `json:"backsteps"`
	// MaxRatePPM is the largest |d estimate / d true - 1| over consecutive 1 s
	// windows after convergence, in parts per million.
	MaxRatePPM float64 `json:"max_rate_ppm"`
	// ConvergeS is the time from the first clock reply until the error stays
	// within ConvergeWithinMs for the rest of the run; -1 if it never does.
	ConvergeS        float64 `json:"converge_s"`
	ConvergeWithinMs float64 `json:"converge_within_ms"`
	// BoundCoverage is the share of frames whose raw error is within the bound
	// the method reports; null for a method that reports none.
	BoundCoverage *float64 `json:"bound_coverage"`
	// NotReady counts frames after the warm-up with no estimate at all.
	NotReady int `json:"not_ready_frames"`
}

// NetMetrics is the client's traffic: payload plus 28 bytes of IPv4 and UDP
// headers per datagram, averaged over the run, in kilobits per second; Clock*
// counts the clock method's own messages alone.
type NetMetrics struct {
	DownKbps      float64 `json:"down_kbps"`
	UpKbps        float64 `json:"up_kbps"`
	ClockDownKbps float64 `json:"clock_down_kbps"`
	ClockUpKbps   float64 `json:"clock_up_kbps"`
}

// convergeWithin is the error a clock must stay within to count as converged:
// 2 ms, or 5 ms on a link with latency spikes (the mobile preset).
func convergeWithin(l Client) time.Duration {
	if l.Link.Up.Spikes != nil || l.Link.Down.Spikes != nil {
		return 5 * time.Millisecond
	}
	return 2 * time.Millisecond
}

// report measures every client against the ball's trajectory tr.
func (m *sim) report(tr *truth) *Report {
	r := &Report{Scenario: m.scen, clients: m.clients, truth: tr}
	for _, c := range m.clients {
		r.Results = append(r.Results, c.result(tr, c.ball))
	}
	return r
}

// result measures client c against the ball's trajectory tr; ball is its
// ball method, whose re-simulated ticks are counted if it has any.
func (c *client) result(tr *truth, ball any) Result {
	res := Result{
		Client:      c.spec.Name,
		ClockMethod: c.spec.Clock,
		BallMethod:  c.spec.Ball,
		Clock:       c.clockMetrics(),
		Ball:        c.ballMetrics(tr),
		Net:         c.netMetrics(),
	}
	if rc, ok := ball.(interface{ resimTicks() (uint64, bool) }); ok {
		if n, ok := rc.resimTicks(); ok {
			perS := round(float64(n) / c.sim.end.Seconds())
			res.Ball.ResimTicks = &perS
		}
	}
	return res
}

func (c *client) clockMetrics() ClockMetrics {
	var errs, raws []float64
	var km ClockMetrics
	covered, bounded := 0, 0
	var prev *frame
	for i := range c.frames {
		f := &c.frames[i]
		if f.t < warmUp {
			continue
		}
		if !f.ready {
			km.NotReady++
			continue
		}
		raw := f.est - f.t
		errs = append(errs, math.Abs(durMs(raw-c.asym)))
		raws = append(raws, math.Abs(durMs(raw)))
		if prev != nil && f.est < prev.est {
			km.Backsteps++
		}
		if f.bound >= 0 {
			bounded++
			if raw.Abs() <= f.bound {
				covered++
			}
		}
		prev = f
	}
	km.ErrMs = summarise(errs)
	km.RawErrMs = summarise(raws)
	if bounded > 0 {
		cov := round(float64(covered) / float64(bounded))
		km.BoundCoverage = &cov
	}
	within := convergeWithin(c.spec)
	km.ConvergeWithinMs = durMs(within)
	km.ConvergeS = -1
	conv, converged := c.convergedAt(within)
	if first, ok := c.clock.firstReply(); ok && converged {
		km.ConvergeS = round(max(0, (conv - first)).Seconds())
	}
	if !converged {
		conv = warmUp
	}
	km.MaxRatePPM = round(c.maxRatePPM(max(conv, warmUp)))
	return km
}

// convergedAt returns the true time of the first frame from which the error
// stays within limit to the end of the run.
func (c *client) convergedAt(limit time.Duration) (time.Duration, bool) {
	at, ok := time.Duration(0), false
	for i := len(c.frames) - 1; i >= 0; i-- {
		f := c.frames[i]
		if !f.ready || (f.est-f.t-c.asym).Abs() > limit {
			break
		}
		at, ok = f.t, true
	}
	return at, ok
}

// maxRatePPM returns the largest |d estimate / d true - 1| over consecutive
// windows of at least 1 s starting at from, in ppm.
func (c *client) maxRatePPM(from time.Duration) float64 {
	worst := 0.0
	start := -1
	for i, f := range c.frames {
		if f.t < from || !f.ready {
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		s := c.frames[start]
		if f.t-s.t < time.Second {
			continue
		}
		rate := float64(f.est-s.est)/float64(f.t-s.t) - 1
		worst = max(worst, math.Abs(rate)*1e6)
		start = i
	}
	return worst
}

func (c *client) netMetrics() NetMetrics {
	secs := c.sim.end.Seconds()
	kbps := func(bytes int64) float64 { return round(float64(bytes) * 8 / secs / 1000) }
	return NetMetrics{
		DownKbps:      kbps(c.downBytes),
		UpKbps:        kbps(c.upBytes),
		ClockDownKbps: kbps(c.clockDownBytes),
		ClockUpKbps:   kbps(c.clockUpBytes),
	}
}

func (c *client) ballMetrics(tr *truth) BallMetrics {
	var bm BallMetrics
	var fid, pres, delay []float64
	var prev *frame
	var prevTrue geom.Vec3
	for i := range c.frames {
		f := &c.frames[i]
		if !f.ball.ok {
			prev = nil
			continue
		}
		d := f.t - f.ball.renderTime
		shown := tr.at(f.ball.renderTime)
		if f.t >= warmUp {
			bm.Frames++
			delay = append(delay, durMs(d))
			if f.ball.extrapolated {
				bm.ExtrapFrames++
			}
			if tr.cutWithin(f.t, teleportSpan) {
				bm.TeleportFrames++
				prev, prevTrue = f, shown
				continue
			}
			pres = append(pres, f.ball.pos.Dist(tr.at(f.t)))
			if c.inBlackout(f.t) || c.inBlackout(f.ball.renderTime) {
				bm.BlackoutFrames++
				prev, prevTrue = f, shown
				continue
			}
			fid = append(fid, f.ball.pos.Dist(shown))
			if f.ball.frozen {
				bm.FrozenFrames++
			}
			// Across a teleport or a jump the server made, no motion is
			// true: a jump there is not a pop, whatever the method draws.
			if prev != nil && !f.ball.cut && !tr.cutBetween(prev.ball.renderTime, f.ball.renderTime) &&
				!tr.jumpBetween(prev.ball.renderTime, f.ball.renderTime) &&
				f.ball.pos.Sub(prev.ball.pos).Sub(shown.Sub(prevTrue)).Len() > popThreshold {
				bm.Pops++
				if c.afterBlackout(f.t, 3*time.Second) {
					bm.PopsAfterBlackout++
				}
			}
		}
		prev, prevTrue = f, shown
	}
	bm.FidelityM = summarise(fid)
	bm.PresentM = summarise(pres)
	bm.DelayMs = summarise(delay)
	return bm
}

// inBlackout reports whether true time t falls in a blackout of c's link.
func (c *client) inBlackout(t time.Duration) bool {
	for _, b := range c.spec.Link.Blackouts {
		at := time.Duration(b.AtS * float64(time.Second))
		if t >= at && t < at+time.Duration(b.LenS*float64(time.Second)) {
			return true
		}
	}
	return false
}

// afterBlackout reports whether true time t falls within span after the end
// of a blackout of c's link.
func (c *client) afterBlackout(t, span time.Duration) bool {
	for _, b := range c.spec.Link.Blackouts {
		end := time.Duration((b.AtS + b.LenS) * float64(time.Second))
		if t >= end && t < end+span {
			return true
		}
	}
	return false
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
	"as it claims to show now, its fidelity error is its present error, so it is no target for the methods that show the past (tether, seed).\n\n" +
	"### Clock and traffic\n\n" +
	"- client, clock, ball: the client's name and its clock and ball methods.\n" +
	"- err p50 / p99 / max ms: |estimate - true server time - (up - down base latency)/2|, milliseconds: the error round trips can remove (half the latency asymmetry no round trip can observe is taken out).\n" +
	"- backsteps: frames whose estimate of server time is earlier than the previous frame's.\n" +
	"- max rate ppm: the largest |d estimate / d true time - 1| over consecutive 1 s windows after convergence, parts per million.\n" +
	"- converge s: from the first clock reply until the error stays within 2 ms (5 ms on a link with latency spikes) to the end of the run; `never` if it does not.\n" +
	"- coverage: the share of frames whose raw error is within the error bound the method reports; `-` for a method that reports none.\n" +
	"- clock up / down kbps: the clock method's own messages; in the soccer game they share datagrams with inputs and snapshots and are not told apart.\n" +
	"- up / down kbps: all the client's traffic, payload plus 28 bytes of IPv4 and UDP headers per datagram, averaged over the run, kilobits per second.\n\n" +
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
