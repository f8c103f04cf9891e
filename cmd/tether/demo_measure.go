package main

import (
	"math"
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

// The demo measures its clients live with the lab's definitions and
// functions (package measure), against the lab's truth of the soccer ball
// (lab.SoccerBall): frames before demoWarmUp of server time are left out.
const (
	demoWarmUp = 2 * time.Second
	// keepTruth is how much of the server's ball trajectory a run that
	// keeps no report holds, for the live figures.
	keepTruth = 10 * time.Second
)

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
	ball    *lab.SoccerBall // nil until the first tick
	truth   soccer.Truth    // after the newest tick
	clients []*clientRec
}

func newRecorder(names []string, links []netsim.LinkConfig, keep bool) *recorder {
	r := &recorder{keep: keep}
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
	if r.ball == nil {
		r.ball = lab.NewSoccerBall(lab.DefaultTickHz, t)
	} else {
		r.ball.Tick(t)
	}
	if tr := &r.ball.Truth; !r.keep && t.Time-tr.Oldest().T > 2*keepTruth {
		tr.Forget(t.Time - keepTruth)
	}
	players := append(r.truth.Players[:0], t.Players...)
	r.truth = *t
	r.truth.Players = players
}

// ballAt returns the true ball at server time t for the page's figures, and
// false if t is before the truth held: past the newest tick the ball flies
// on from it.
func (r *recorder) ballAt(t time.Duration) (geom.Vec3, bool) {
	if r.ball == nil || t < r.ball.Truth.Oldest().T {
		return geom.Vec3{}, false
	}
	tr := &r.ball.Truth
	if n := tr.Newest(); t > n.T {
		return measure.Flight(n.Pos, n.Vel, tr.G, (t - n.T).Seconds()), true
	}
	return tr.At(t), true
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
		if x, ok := r.ballAt(lf.rt); ok {
			c.win.ball += lf.pos.Dist(x)
			c.win.ballN++
		}
		if x, ok := r.ballAt(t); ok {
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
		Clock: c.clockMetrics(), Ball: c.ballMetrics(r.ball), Net: net,
	}
}

// clockMetrics measures the client's clock, each frame at its true server
// time by the final anchor. clock.converge_s counts from the first frame
// with an estimate: a live client's first clock reply is not seen.
func (c *clientRec) clockMetrics() lab.ClockMetrics {
	k := measure.ClockMeter{WarmUp: demoWarmUp, Asym: c.asym, Within: 2 * time.Millisecond}
	if c.link.Up.Spikes != nil || c.link.Down.Spikes != nil {
		k.Within = 5 * time.Millisecond
	}
	first, ready := time.Duration(0), false
	for i := range c.frames {
		f := &c.frames[i]
		t, _ := c.serverTime(f.trueOff)
		if f.ready && !ready {
			first, ready = t, true
		}
		k.Add(measure.Frame{T: t, Est: f.est, Ready: f.ready, Bound: f.bound})
	}
	return k.Metrics(first, ready)
}

// ballMetrics measures how the client drew the ball against its truth tr
// (nil: the server never ticked). Blackouts are not emulated live.
func (c *clientRec) ballMetrics(tr *lab.SoccerBall) lab.BallMetrics {
	if tr == nil {
		return lab.BallMetrics{}
	}
	b := measure.BallMeter{WarmUp: demoWarmUp}
	for i := range c.frames {
		f := &c.frames[i]
		t, _ := c.serverTime(f.trueOff)
		b.Add(&tr.Truth, measure.Drawn{T: t, OK: f.ball, Pos: f.pos, RenderTime: f.rt, Extrapolated: f.extrap, Frozen: f.frozen, Cut: f.cut})
	}
	return b.Metrics(&tr.Truth)
}
