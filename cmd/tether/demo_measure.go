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
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netsim"
)

// The demo measures its clients live as the lab does, with the lab's meters
// (package measure) fed as the lab feeds them, against the lab's truth of the
// soccer ball (lab.SoccerBall): frames before demoWarmUp of server time are
// left out.
const (
	demoWarmUp = 2 * time.Second
	// keepTruth is how much of the server's match a run holds behind its
	// newest tick: further back than any frame's render time lags. A run
	// that keeps a report holds the whole ball trajectory, which the own
	// kicks are measured against at the end.
	keepTruth = 10 * time.Second
)

// recorder measures every bot's frames against the server's truth. Its
// methods are called from the server's goroutine (onTick, onMove), the bots'
// goroutines (onFrame, onCorrection) and the demo's own.
type recorder struct {
	keep bool // keep the whole ball trajectory, for the report
	live atomic.Pointer[match.Live]

	mu        sync.Mutex
	done      bool            // the run is over: no more frames are measured
	ball      *lab.SoccerBall // nil until the first tick
	cast      measure.Cast    // the players
	forgot    time.Duration   // the cast holds no ticks before it
	poses     []measure.Pose  // scratch for cast
	truth     soccer.Truth    // after the newest tick, for the page
	kicks     uint64          // the server's kicks so far
	possessor uint32          // after the tick before
	clients   []*clientRec
}

// clientRec is one bot as the demo measures and draws it.
type clientRec struct {
	name string
	link netsim.LinkConfig
	asym time.Duration // (up - down base latency)/2: what no round trip can see

	clock         measure.ClockMeter
	firstReply    time.Duration // the first frame after the clock's first reply
	replied       bool
	hasReply      atomic.Bool // the clock had its first reply (read without mu)
	ball          measure.BallMeter
	others        measure.OthersMeter
	own           measure.OwnMeter
	kicks         measure.KickMeter
	frames        int // frames measured so far
	seq           uint8
	hasSeq        bool
	ownGen        uint8 // the own player's teleport generation by the server's moves
	hasGen        bool
	resimTicks    uint64 // taken at the end
	resim         bool
	predictedKick []measure.PredictedKick

	self    uint32
	hasSelf bool

	// The newest frame, for the page.
	view  viewRec
	win   window // figures since the page's last update of them
	shown liveStats
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

func newRecorder(names []string, links []netsim.LinkConfig, predicts, keep bool) *recorder {
	r := &recorder{keep: keep, possessor: soccer.NoPlayer}
	for i, n := range names {
		l := links[i]
		asym := time.Duration((l.Up.LatencyMs - l.Down.LatencyMs) / 2 * float64(time.Millisecond))
		within := 2 * time.Millisecond
		if l.Up.Spikes != nil || l.Down.Spikes != nil {
			within = 5 * time.Millisecond
		}
		r.clients = append(r.clients, &clientRec{
			name: n, link: l, asym: asym,
			clock:  measure.ClockMeter{WarmUp: demoWarmUp, Asym: asym, Within: within},
			ball:   measure.BallMeter{WarmUp: demoWarmUp},
			others: measure.OthersMeter{WarmUp: demoWarmUp},
			own: measure.OwnMeter{WarmUp: demoWarmUp, Asym: asym, Predicted: predicts,
				Up: time.Duration(l.Up.LatencyMs * float64(time.Millisecond))},
			kicks: measure.KickMeter{WarmUp: demoWarmUp},
			shown: liveStats{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		})
	}
	return r
}

// onTick records the server's state after a tick (on the server's
// goroutine) and measures the frames it completes.
func (r *recorder) onTick(t *soccer.Truth) {
	live := r.live.Load()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	if r.ball == nil {
		r.ball = lab.NewSoccerBall(lab.DefaultTickHz, t)
	} else {
		r.ball.Tick(t)
	}
	if tr := &r.ball.Truth; !r.keep && t.Time-tr.Oldest().T > 2*keepTruth {
		tr.Forget(t.Time - keepTruth)
	}
	r.poses = r.poses[:0]
	for _, p := range t.Players {
		slot := int(p.ID - soccer.FirstPlayerID)
		for len(r.poses) <= slot {
			r.poses = append(r.poses, measure.Pose{})
		}
		r.poses[slot] = measure.Pose{Pos: p.Pos, Gen: p.Gen, In: true}
	}
	r.cast.Tick(t.Time, r.poses)
	if t.Time-r.forgot > 2*keepTruth {
		r.cast.Forget(t.Time - keepTruth)
		r.forgot = t.Time - keepTruth
	}
	// The game runs this tick on this goroutine: its counters are ours to
	// read. A kick at this tick was made by the player with the ball before.
	if live != nil {
		if k := live.Game().Stats().Kicks; k > r.kicks {
			r.kicks = k
			if c := r.byPlayer(r.possessor); c != nil {
				c.kicks.Applied(t.Time)
			}
		}
	}
	r.possessor = t.Possessor
	for _, c := range r.clients {
		c.others.Measure(&r.cast, t.Time)
		c.ownTeleports(t)
	}
	players := append(r.truth.Players[:0], t.Players...)
	r.truth = *t
	r.truth.Players = players
}

// byPlayer returns the client playing player id, or nil.
func (r *recorder) byPlayer(id uint32) *clientRec {
	for _, c := range r.clients {
		if c.hasSelf && c.self == id {
			return c
		}
	}
	return nil
}

// ownTeleports notes the teleports of the client's predicted player by the
// server's moves.
func (c *clientRec) ownTeleports(t *soccer.Truth) {
	for _, p := range t.Players {
		if !c.hasSelf || p.ID != c.self || !p.Predicted {
			continue
		}
		if c.hasGen && p.MovedGen != c.ownGen {
			c.own.Teleported(p.Moved.Pos)
		}
		c.ownGen, c.hasGen = p.MovedGen, true
	}
}

// onMove takes a move of bot b's predicted player the server applied (on
// the server's goroutine).
func (r *recorder) onMove(b *match.Bot, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.client(b); c != nil {
		c.own.Moved(m.Time, s.Pos)
		c.own.Applied(int(m.Seq))
	}
}

// onCorrection takes an adjustment or reset bot b's prediction applied.
func (r *recorder) onCorrection(b *match.Bot, corr movement.Correction) {
	live := r.live.Load()
	if corr.Kind != movement.Adjust || live == nil {
		return
	}
	now := live.Server().Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.client(b); c != nil {
		c.own.Corrected(now, corr.Error)
	}
}

// client returns bot b's record, or nil once the run is over.
func (r *recorder) client(b *match.Bot) *clientRec {
	if r.done || b.Index >= len(r.clients) {
		return nil
	}
	return r.clients[b.Index]
}

// onFrame measures a bot's frame (on the bot's goroutine): what it draws
// now, before the input it decided from that frame is sent.
func (r *recorder) onFrame(b *match.Bot, f *client.Frame, v *soccer.View) {
	t := b.TrueTime(f.Local)
	if b.Index >= len(r.clients) {
		return
	}
	if c := r.clients[b.Index]; !c.hasReply.Load() {
		b.Driver().Do(func(cl *client.Client) { c.hasReply.Store(cl.Clock().Stats().Samples > 0) })
	}
	ball := measure.Drawn{T: t}
	if e := f.Find(soccer.BallID); f.Ready && e != nil {
		ball = measure.Drawn{T: t, OK: true, Pos: e.Pos, RenderTime: e.RenderTime,
			Extrapolated: e.Extrapolated, Frozen: e.Frozen, Cut: e.Cut}
	}
	own := measure.OwnDrawn{T: t, Est: f.Server}
	if e := f.Find(f.Self); f.Ready && f.HasSelf && e != nil {
		own.OK, own.Pos, own.RenderTime, own.Predicted, own.Cut = true, e.Pos, e.RenderTime, e.Predicted, e.Cut
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.client(b)
	if c == nil || r.ball == nil {
		return
	}
	if f.HasSelf {
		c.self, c.hasSelf = f.Self, true
	}
	if !c.replied && c.hasReply.Load() {
		c.firstReply, c.replied = t, true
	}
	bound := time.Duration(-1)
	if f.Ready {
		bound = f.Bound
		for i := range f.Entities {
			e := &f.Entities[i]
			if e.Kind == soccer.KindPlayer && !(f.HasSelf && e.ID == f.Self) {
				c.others.Add(measure.OtherDrawn{Frame: c.frames, T: t, Slot: int(e.ID - soccer.FirstPlayerID), Pos: e.Pos, RenderTime: e.RenderTime, Cut: e.Cut})
			}
		}
	}
	c.own.Frame(own)
	if o := b.Game().Own(); o != nil {
		c.own.Made(int(o.Seq()), t)
	}
	c.clock.Add(measure.Frame{T: t, Est: f.Server, Ready: f.Ready, Bound: bound})
	c.ball.Add(&r.ball.Truth, ball)
	c.kicks.Frame(ball)
	c.frames++
	if in := b.Input(); !c.hasSeq {
		c.seq, c.hasSeq = in.ActionSeq, true // the server takes the first as the start
	} else if in.ActionSeq != c.seq {
		c.seq = in.ActionSeq
		if in.Action == soccer.ActionPass || in.Action == soccer.ActionShot {
			c.kicks.Kicked(t)
		}
	}
	c.pageFrame(r, t, f, ball, v)
}

// pageFrame keeps the page's figures and drawing of a frame at true time t.
func (c *clientRec) pageFrame(r *recorder, t time.Duration, f *client.Frame, ball measure.Drawn, v *soccer.View) {
	if f.Ready {
		c.win.clock += math.Abs(durMs(f.Server - t - c.asym))
		c.win.clockN++
	}
	if ball.OK {
		if x, ok := r.ballAt(ball.RenderTime); ok {
			c.win.ball += ball.Pos.Dist(x)
			c.win.ballN++
		}
		if x, ok := r.ballAt(t); ok {
			c.win.present += ball.Pos.Dist(x)
			c.win.presentN++
		}
		c.win.delay += durMs(t - ball.RenderTime)
		c.win.delayN++
	}
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

// ballAt returns the true ball at server time t for the page's figures, and
// false if t is before the truth held: past the newest tick the ball flies
// on from it.
func (r *recorder) ballAt(t time.Duration) (geom.Vec3, bool) {
	tr := &r.ball.Truth
	if t < tr.Oldest().T {
		return geom.Vec3{}, false
	}
	if n := tr.Newest(); t > n.T {
		return measure.Flight(n.Pos, n.Vel, tr.G, (t - n.T).Seconds()), true
	}
	return tr.At(t), true
}

// stop ends the measurement: later ticks and frames are not measured. It
// takes what the bots' clients counted of their own (the resim method's
// re-simulated ticks and predicted kicks).
func (r *recorder) stop(bots []*match.Bot) {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
	for i, b := range bots {
		c := r.clients[i]
		b.Driver().Do(func(*client.Client) {
			st, ok := b.Game().ResimStats()
			c.resimTicks, c.resim = st.ResimTicks, ok
			c.kicks.Predicts = ok
			for _, k := range b.Game().PredictedKicks() {
				c.predictedKick = append(c.predictedKick, measure.PredictedKick{At: k.At, Until: k.Until, From: k.From, Confirmed: k.Confirmed, Correction: k.Correction})
			}
		})
	}
}

// result returns client i's figures of a run that lasted end, as the lab
// defines them. Call it after stop.
func (r *recorder) result(i int, end time.Duration, method string, net measure.NetMetrics) lab.Result {
	c := r.clients[i]
	res := lab.Result{Client: c.name, ClockMethod: lab.ClockTether, BallMethod: method, Net: net,
		Clock: c.clock.Metrics(c.firstReply, c.replied)}
	if r.ball == nil {
		return res // the server never ticked
	}
	res.Ball = c.ball.Metrics(&r.ball.Truth)
	if c.resim {
		perS := measure.Round(float64(c.resimTicks) / end.Seconds())
		res.Ball.ResimTicks = &perS
	}
	c.kicks.Metrics(&res.Ball, c.predictedKick, &r.ball.Truth)
	c.others.Measure(&r.cast, end+time.Hour)
	others, own := c.others.Metrics(), c.own.Metrics(end)
	res.Others, res.Own = &others, &own
	return res
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
func kbps(a, b netSample) measure.NetMetrics {
	secs := (b.at - a.at).Seconds()
	if secs <= 0 {
		return measure.NetMetrics{}
	}
	rate := func(bytes uint64) float64 { return measure.Round(float64(bytes) * 8 / secs / 1000) }
	return measure.NetMetrics{
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
