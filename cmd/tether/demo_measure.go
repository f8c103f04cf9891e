package main

import (
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/lab"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
)

// The demo measures its clients live with the lab's definitions (see the
// lab package): frames before demoWarmUp of server time are left out, a pop
// is a frame whose drawn motion differs from the true motion by more than
// demoPopM.
const (
	demoWarmUp = 2 * time.Second
	demoPopM   = 0.05
	// demoTeleportSpan: the frames this long after a teleport of the ball
	// (a kickoff, a restart) are left out of its error statistics and pops,
	// as the lab leaves them out.
	demoTeleportSpan = 500 * time.Millisecond
	// contactDV: a change of velocity in one tick that departs from gravity
	// by more than this (m/s) is a contact or a kick inside the step.
	contactDV = 1.0
	// keepTruth is how much of the server's ball trajectory a run that
	// keeps no report holds, for the live figures.
	keepTruth = 10 * time.Second
)

// truthPoint is the server's ball after one tick.
type truthPoint struct {
	t        time.Duration // server time of the tick
	pos, vel geom.Vec3
	gen      uint8 // the ball's teleport generation
	jumped   bool  // the server moved the ball at this tick (soccer.Truth.BallJumped)
}

// trajectory is the server's ball, one point per tick, in order of time.
type trajectory struct {
	g   geom.Vec3
	pts []truthPoint
}

// at returns the true ball at server time t, and false if t is before the
// trajectory starts. Between two ticks the ball moves in a straight line,
// which is within a millimetre of its flight at 60 Hz, except across a
// teleport or a jump the server made (the earlier tick's ball moves on at its
// velocity until the later tick) and across a contact or kick inside the
// step (the earlier tick's flight up to the moment the two ticks' flights are
// closest, the later tick's flight after it). Past the newest tick the ball
// flies on from it.
func (tr *trajectory) at(t time.Duration) (geom.Vec3, bool) {
	pts := tr.pts
	if len(pts) == 0 || t < pts[0].t {
		return geom.Vec3{}, false
	}
	i := sort.Search(len(pts), func(i int) bool { return pts[i].t > t })
	a := pts[i-1]
	h := (t - a.t).Seconds()
	if i == len(pts) {
		return flight(a.pos, a.vel, tr.g, h), true
	}
	b := pts[i]
	step := (b.t - a.t).Seconds()
	switch {
	case b.gen != a.gen || b.jumped:
		return flight(a.pos, a.vel, tr.g, h), true
	case b.vel.Sub(a.vel.AddScaled(tr.g, step)).Len() > contactDV:
		// The two flights differ by a(τ) = (a.pos - b.pos) + a.vel·τ -
		// b.vel·(τ - step), linear in τ (their gravity terms cancel):
		// the contact is where it is shortest.
		d0 := a.pos.Sub(b.pos).AddScaled(b.vel, step)
		dv := a.vel.Sub(b.vel)
		tc := step / 2
		if n := dv.Len2(); n > 0 {
			tc = min(max(-d0.Dot(dv)/n, 0), step)
		}
		if h < tc {
			return flight(a.pos, a.vel, tr.g, h), true
		}
		return flight(b.pos, b.vel, tr.g, h-step), true
	}
	return a.pos.Lerp(b.pos, h/step), true
}

// teleportedWithin reports whether the ball was teleported at most span
// before server time t (and not after it).
func (tr *trajectory) teleportedWithin(t, span time.Duration) bool {
	pts := tr.pts
	i := sort.Search(len(pts), func(i int) bool { return pts[i].t > t })
	for j := i - 1; j > 0 && t-pts[j].t < span; j-- {
		if pts[j].gen != pts[j-1].gen {
			return true
		}
	}
	return false
}

// jumpedBetween reports whether the server moved the ball at a tick after
// server time t0 and up to t1.
func (tr *trajectory) jumpedBetween(t0, t1 time.Duration) bool {
	pts := tr.pts
	for i := sort.Search(len(pts), func(i int) bool { return pts[i].t > t0 }); i < len(pts) && pts[i].t <= t1; i++ {
		if pts[i].jumped {
			return true
		}
	}
	return false
}

// flight is the position dt seconds along a free flight from p at velocity v
// under gravity g.
func flight(p, v, g geom.Vec3, dt float64) geom.Vec3 {
	return p.AddScaled(v, dt).AddScaled(g, dt*dt/2)
}

// liveFrame is one client frame as the report needs it.
type liveFrame struct {
	local   time.Duration // the client's local time of the frame
	trueOff time.Duration // true time since the bot started, at local
	est     time.Duration // the clock's estimate of server time
	bound   time.Duration // its error bound
	ready   bool
	ball    bool // the ball was drawn
	cut     bool
	extrap  bool
	frozen  bool
	pos     geom.Vec3     // the drawn ball
	rt      time.Duration // its render time
}

// clientRec is what the demo knows about one bot.
type clientRec struct {
	name string
	link netsim.LinkConfig
	asym time.Duration // (up - down base latency)/2: what no round trip can see

	// anchor is the server time at the bot's true time zero (when its local
	// clock started), as tight as seen so far: every frame gives an upper
	// bound, server time read after the frame minus the true time of the
	// frame. It turns a frame's local time into the true server time of
	// that frame, free of the scheduling delay before the reading.
	anchor    time.Duration
	hasAnchor bool

	frames []liveFrame // every frame, when keeping a report

	// The newest frame, for the page.
	view  viewRec
	win   window // figures since the page's last update of them
	shown liveStats

	self    uint32
	hasSelf bool
}

// viewRec is a client's newest frame as the page draws it.
type viewRec struct {
	ready   bool
	ball    geom.Vec3
	owner   int
	players []playerRec
	score   [2]int
}

type playerRec struct {
	id   uint32
	team uint8
	pos  geom.Vec3
}

// window accumulates a client's figures over about a second.
type window struct {
	clockN, ballN, presentN, delayN int
	clock, ball, present, delay     float64
}

// liveStats are the figures the page shows for a client (NaN: unknown).
type liveStats struct {
	clockErrMs, ballFidelityM, ballPresentM, delayMs, downKbps, upKbps float64
}

// recorder gathers the server's truth and every client's frames. Its methods
// are called from the server's goroutine (onTick), the bots' goroutines
// (onFrame) and the demo's own.
type recorder struct {
	keep bool // keep every frame and tick for the report
	srv  atomic.Pointer[server.UDP]

	mu      sync.Mutex
	traj    trajectory
	truth   soccer.Truth // after the newest tick
	clients []*clientRec
}

func newRecorder(names []string, links []netsim.LinkConfig, keep bool) *recorder {
	r := &recorder{keep: keep, traj: trajectory{g: soccer.BallExtrapolator(soccer.DefaultRules()).Gravity}}
	for i, n := range names {
		l := links[i]
		r.clients = append(r.clients, &clientRec{
			name: n, link: l,
			asym:  time.Duration((l.Up.LatencyMs - l.Down.LatencyMs) / 2 * float64(time.Millisecond)),
			shown: liveStats{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		})
	}
	return r
}

// onTick records the server's state after a tick (on the server's goroutine).
func (r *recorder) onTick(t *soccer.Truth) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.traj.pts = append(r.traj.pts, truthPoint{t: t.Time, pos: t.Ball.Pos, vel: t.Ball.Vel, gen: t.BallGen, jumped: t.BallJumped})
	if !r.keep && len(r.traj.pts) > 1 && t.Time-r.traj.pts[0].t > 2*keepTruth {
		cut := sort.Search(len(r.traj.pts), func(i int) bool { return t.Time-r.traj.pts[i].t <= keepTruth })
		r.traj.pts = slices.Delete(r.traj.pts, 0, cut)
	}
	players := append(r.truth.Players[:0], t.Players...)
	r.truth = *t
	r.truth.Players = players
}

// serverTime returns the true server time of a frame at true time trueOff
// after the bot started, and whether it is known yet.
func (c *clientRec) serverTime(trueOff time.Duration) (time.Duration, bool) {
	return c.anchor + trueOff, c.hasAnchor
}

// onFrame records a bot's frame (on the bot's goroutine).
func (r *recorder) onFrame(b *match.Bot, f *client.Frame, v *soccer.View) {
	srv := r.srv.Load()
	if srv == nil {
		return // the first frames, before StartLive returned
	}
	now := srv.Now()
	trueOff := b.Link.Clock.True(f.Local)
	lf := liveFrame{local: f.Local, trueOff: trueOff, est: f.Server, bound: f.Bound, ready: f.Ready}
	if e := f.Find(soccer.BallID); f.Ready && e != nil {
		lf.ball, lf.cut, lf.extrap, lf.frozen = true, e.Cut, e.Extrapolated, e.Frozen
		lf.pos, lf.rt = e.Pos, e.RenderTime
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if b.Index >= len(r.clients) {
		return
	}
	c := r.clients[b.Index]
	if a := now - trueOff; !c.hasAnchor || a < c.anchor {
		c.anchor, c.hasAnchor = a, true
	}
	if r.keep {
		c.frames = append(c.frames, lf)
	}
	c.self, c.hasSelf = f.Self, f.HasSelf

	// The page's figures.
	t, _ := c.serverTime(trueOff)
	if lf.ready {
		c.win.clock += math.Abs(durMs(lf.est - t - c.asym))
		c.win.clockN++
	}
	if lf.ball {
		if x, ok := r.traj.at(lf.rt); ok {
			c.win.ball += lf.pos.Dist(x)
			c.win.ballN++
		}
		if x, ok := r.traj.at(t); ok {
			c.win.present += lf.pos.Dist(x)
			c.win.presentN++
		}
		c.win.delay += durMs(t - lf.rt)
		c.win.delayN++
	}

	// The page's drawing.
	vr := &c.view
	vr.ready = v.Ready
	vr.ball, vr.owner = v.Ball, -1
	if v.Possessor != soccer.NoPlayer {
		vr.owner = int(v.Possessor)
	}
	vr.players = vr.players[:0]
	for _, p := range v.Players {
		vr.players = append(vr.players, playerRec{id: p.ID, team: p.Team, pos: p.Pos})
	}
	vr.score = [2]int{v.Score.Home, v.Score.Away}
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// netSample is a bot's traffic counters at one moment.
type netSample struct {
	at                   time.Duration // server time
	packetsIn, bytesIn   uint64        // datagrams received, their bytes
	packetsOut, bytesOut uint64        // datagrams sent, their bytes
	pings, pongs         uint64        // clock messages sent and answered
}

// sampleNet reads a live bot's counters.
func sampleNet(b *match.Bot, now time.Duration) netSample {
	s := netSample{at: now}
	d := b.Driver()
	if d == nil {
		return s
	}
	st := d.Transport().Stats()
	s.packetsIn, s.bytesIn, s.packetsOut, s.bytesOut = st.PacketsIn, st.BytesIn, st.PacketsOut, st.BytesOut
	d.Do(func(c *client.Client) {
		cs := c.Clock().Stats()
		s.pings, s.pongs = cs.Pings, cs.Samples+cs.Stale+cs.Invalid
	})
	return s
}

// Sizes of the clock's messages inside payloads (tag and fields), bytes:
// what clock_up_kbps and clock_down_kbps count per ping and pong. They ride
// in datagrams shared with inputs and snapshots, so no header is added.
const (
	pingBytes = 1 + 2             // tag, id
	pongBytes = 1 + 2 + 1 + 4 + 1 // tag, id, epoch, receive time, hold
)

// kbps returns the traffic between two samples: datagram bytes plus the IPv4
// and UDP headers, and the clock's message bytes.
func kbps(a, b netSample) lab.NetMetrics {
	secs := (b.at - a.at).Seconds()
	if secs <= 0 {
		return lab.NetMetrics{}
	}
	rate := func(bytes uint64) float64 { return roundTo(float64(bytes)*8/secs/1000, 6) }
	return lab.NetMetrics{
		DownKbps:      rate(b.bytesIn - a.bytesIn + (b.packetsIn-a.packetsIn)*netsim.HeaderBytes),
		UpKbps:        rate(b.bytesOut - a.bytesOut + (b.packetsOut-a.packetsOut)*netsim.HeaderBytes),
		ClockUpKbps:   rate((b.pings - a.pings) * pingBytes),
		ClockDownKbps: rate((b.pongs - a.pongs) * pongBytes),
	}
}

// roundTo keeps places decimals.
func roundTo(x float64, places int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// result computes a client's metrics after the run, as the lab defines them.
// Call it once every goroutine has stopped.
func (r *recorder) result(i int, net lab.NetMetrics) lab.Result {
	c := r.clients[i]
	return lab.Result{
		Client: c.name, ClockMethod: lab.ClockTether, BallMethod: lab.BallTether,
		Clock: c.clockMetrics(), Ball: c.ballMetrics(&r.traj), Net: net,
	}
}

func (c *clientRec) clockMetrics() lab.ClockMetrics {
	var km lab.ClockMetrics
	var errs, raws []float64
	covered, bounded := 0, 0
	var prev *liveFrame
	first := time.Duration(-1) // server time of the first frame with an estimate
	type point struct{ t, est time.Duration }
	var pts []point
	for i := range c.frames {
		f := &c.frames[i]
		t, _ := c.serverTime(f.trueOff)
		if f.ready && first < 0 {
			first = t
		}
		if t < demoWarmUp {
			continue
		}
		if !f.ready {
			km.NotReady++
			continue
		}
		raw := f.est - t
		errs = append(errs, math.Abs(durMs(raw-c.asym)))
		raws = append(raws, math.Abs(durMs(raw)))
		if prev != nil && f.est < prev.est {
			km.Backsteps++
		}
		bounded++
		if raw.Abs() <= f.bound {
			covered++
		}
		prev = f
		pts = append(pts, point{t, f.est})
	}
	km.ErrMs = measure.Summarise(errs)
	km.RawErrMs = measure.Summarise(raws)
	if bounded > 0 {
		cov := roundTo(float64(covered)/float64(bounded), 6)
		km.BoundCoverage = &cov
	}
	within := 2 * time.Millisecond
	if c.link.Up.Spikes != nil || c.link.Down.Spikes != nil {
		within = 5 * time.Millisecond
	}
	km.ConvergeWithinMs = durMs(within)
	km.ConvergeS = -1
	// Converged from the first frame after which the error stays within.
	conv, converged := time.Duration(0), false
	for i := len(c.frames) - 1; i >= 0; i-- {
		f := &c.frames[i]
		t, _ := c.serverTime(f.trueOff)
		if !f.ready || (f.est-t-c.asym).Abs() > within {
			break
		}
		conv, converged = t, true
	}
	if converged && first >= 0 {
		km.ConvergeS = roundTo(max(0, conv-first).Seconds(), 6)
	}
	from := max(conv, demoWarmUp)
	worst, start := 0.0, -1
	for j, p := range pts {
		if p.t < from {
			continue
		}
		if start < 0 {
			start = j
			continue
		}
		s := pts[start]
		if p.t-s.t < time.Second {
			continue
		}
		worst = max(worst, math.Abs(float64(p.est-s.est)/float64(p.t-s.t)-1)*1e6)
		start = j
	}
	km.MaxRatePPM = roundTo(worst, 6)
	return km
}

func (c *clientRec) ballMetrics(tr *trajectory) lab.BallMetrics {
	var bm lab.BallMetrics
	var fid, pres, delay []float64
	var prev *liveFrame
	var prevShown geom.Vec3
	for i := range c.frames {
		f := &c.frames[i]
		t, _ := c.serverTime(f.trueOff)
		shown, ok := tr.at(f.rt)
		if !f.ball || !ok {
			prev = nil
			continue
		}
		if t >= demoWarmUp {
			bm.Frames++
			delay = append(delay, durMs(t-f.rt))
			if f.extrap {
				bm.ExtrapFrames++
			}
			if tr.teleportedWithin(t, demoTeleportSpan) {
				bm.TeleportFrames++
				prev, prevShown = f, shown
				continue
			}
			now, _ := tr.at(t)
			pres = append(pres, f.pos.Dist(now))
			fid = append(fid, f.pos.Dist(shown))
			if f.frozen {
				bm.FrozenFrames++
			}
			// Across a jump the server made no motion is true: as in the lab,
			// it is not a pop.
			if prev != nil && !f.cut && !tr.jumpedBetween(prev.rt, f.rt) && f.pos.Sub(prev.pos).Sub(shown.Sub(prevShown)).Len() > demoPopM {
				bm.Pops++
			}
		}
		prev, prevShown = f, shown
	}
	bm.FidelityM = measure.Summarise(fid)
	bm.PresentM = measure.Summarise(pres)
	bm.DelayMs = measure.Summarise(delay)
	return bm
}
