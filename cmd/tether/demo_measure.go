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

// The demo measures its clients live as the lab does (match.Meter, package
// measure's meters fed from the match's hooks), against the lab's truth of
// the soccer ball (match.BallTruth): frames before demoWarmUp of server time
// are left out.
const (
	demoWarmUp = 2 * time.Second
	// keepTruth is how much of the ball's trajectory a run without a
	// report holds behind its newest tick, for the page's figures. A run
	// with a report holds all of it, which the own kicks are measured
	// against at the end.
	keepTruth = 10 * time.Second
)

// recorder measures every bot for the report (meter, which also holds the
// ball's truth) and keeps the page's figures and drawing. Its methods are
// called from the server's goroutine (onTick, onMove), the bots' goroutines
// (onFrame, onCorrection) and the demo's own.
type recorder struct {
	meter  *match.Meter
	report bool // measure the frames for a report (the page needs the truth alone)
	live   atomic.Pointer[match.Live]

	mu      sync.Mutex
	truth   soccer.Truth // after the newest tick, for the page
	clients []*clientRec
}

// clientRec is what the page shows of one bot.
type clientRec struct {
	name string
	link netsim.LinkConfig
	asym time.Duration // (up - down base latency)/2: what no round trip can see

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

// newRecorder returns the recorder of bots on links, predicting their own
// players or not, measuring them for a report or not.
func newRecorder(names []string, links []netsim.LinkConfig, predicts, report bool) *recorder {
	r := &recorder{report: report}
	mc := match.MeterConfig{WarmUp: demoWarmUp}
	for i, n := range names {
		l := links[i]
		up, down := msDur(l.Up.LatencyMs), msDur(l.Down.LatencyMs)
		mc.Bots = append(mc.Bots, match.MeteredBot{Up: up, Down: down, Spikes: l.Up.Spikes != nil || l.Down.Spikes != nil, Predicts: predicts})
		r.clients = append(r.clients, &clientRec{name: n, link: l, asym: (up - down) / 2,
			shown: liveStats{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}})
	}
	mc.TickHz = lab.DefaultTickHz
	if !report {
		mc.KeepBall = keepTruth
	}
	var err error
	if r.meter, err = match.NewMeter(mc); err != nil {
		panic(err) // the default rules and tick rate
	}
	return r
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// onTick measures the server's match after a tick (on the server's
// goroutine, which runs the game: its counters are ours to read).
func (r *recorder) onTick(t *soccer.Truth) {
	var kicks uint64
	if live := r.live.Load(); live != nil {
		kicks = live.Game().Stats().Kicks
	}
	r.meter.Tick(t, kicks)
	r.mu.Lock()
	defer r.mu.Unlock()
	players := append(r.truth.Players[:0], t.Players...)
	r.truth = *t
	r.truth.Players = players
}

// onMove takes a move of bot b's predicted player the server applied.
func (r *recorder) onMove(b *match.Bot, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	if r.report {
		r.meter.Moved(b, m, s)
	}
}

// onCorrection takes an adjustment or reset bot b's prediction applied.
func (r *recorder) onCorrection(b *match.Bot, corr movement.Correction) {
	if live := r.live.Load(); live != nil && r.report {
		r.meter.Corrected(b, live.Server().Now(), corr)
	}
}

// onFrame measures a bot's frame (on the bot's goroutine) and keeps the
// page's figures and drawing of it.
func (r *recorder) onFrame(b *match.Bot, f *client.Frame, v *soccer.View) {
	if r.report {
		r.meter.Frame(b, f)
	}
	t := b.TrueTime(f.Local)
	ball := match.FrameBall(t, f)
	shown, okShown := r.meter.BallAt(ball.RenderTime)
	now, okNow := r.meter.BallAt(t)

	r.mu.Lock()
	defer r.mu.Unlock()
	if b.Index >= len(r.clients) {
		return
	}
	c := r.clients[b.Index]
	c.self, c.hasSelf = f.Self, f.HasSelf
	if f.Ready {
		c.win.clock += math.Abs(durMs(f.Server - t - c.asym))
		c.win.clockN++
	}
	if ball.OK {
		if okShown {
			c.win.ball += ball.Pos.Dist(shown)
			c.win.ballN++
		}
		if okNow {
			c.win.present += ball.Pos.Dist(now)
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

// result returns client i's figures of a run measured up to server time
// end, as the lab reports them. Call it after the meter stopped.
func (r *recorder) result(i int, end time.Duration, method string, net measure.NetMetrics) lab.Result {
	fig := r.meter.Figures(i, end)
	return lab.Result{Client: r.clients[i].name, ClockMethod: lab.ClockTether, BallMethod: method,
		Clock: fig.Clock, Ball: fig.Ball, Net: net, Others: &fig.Others, Own: &fig.Own}
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// roundTo keeps places decimals.
func roundTo(x float64, places int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}
