package lab

import (
	"fmt"
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/replicate"
	tserver "github.com/tether-net/tether/server"
)

// soccerMatch is one run of the soccer game, measured by the match's own
// meter (match.Meter, as tether demo measures a live match): the clock, the
// ball, the other players, the own player and the own kicks. The lab adds
// the references (soccerBallView), the traffic, and the frames its plots
// and traces keep.
type soccerMatch struct {
	sim     *sim
	v       *match.Virtual
	meter   *match.Meter
	clients []*soccerClient // by bot index, which is the scenario's order
	// ticks are the server's match after the ticks from first on, if an
	// oracle needs them: those of the last oracleKeep at least.
	ticks []soccer.Truth
	first int
}

// oracleKeep is how far back an oracle may restore the match: more than
// any link's mean one-way delay.
const oracleKeep = 10 * time.Second

// soccerClient is one bot's client.
type soccerClient struct {
	c    *client
	bot  *match.Bot
	ball soccerBallView
}

func (s Scenario) validateSoccer() error {
	if n := soccer.DefaultRules().MaxPlayers; len(s.Clients) > n {
		return scenarioErr("%d clients, want at most %d for game soccer (each client plays one player)", len(s.Clients), n)
	}
	for i, c := range s.Clients {
		if c.Clock != ClockTether {
			return scenarioErr("clients[%d].clock = %q, want tether for game soccer: its clients draw the match by the client package's own clock estimator", i, c.Clock)
		}
	}
	return nil
}

// runSoccer runs the validated scenario s of game soccer.
func runSoccer(s Scenario, opts Options) (*Report, error) {
	sm, err := playSoccer(s, opts)
	if err != nil {
		return nil, err
	}
	return sm.report(), nil
}

// playSoccer plays the validated scenario s of game soccer to its end.
func playSoccer(s Scenario, opts Options) (*soccerMatch, error) {
	m := newSim(s, opts)
	sm := &soccerMatch{sim: m}
	m.clock = sm.now
	// Every client predicts its own player (package movement) but those
	// whose ball method is resim: that method predicts the own kicks in a
	// world whose own player the server moves tick by tick.
	predicts := func(i int) bool { return s.Clients[i].Ball != BallResim }
	cfg := match.Config{
		Seed: s.Seed, Bots: len(s.Clients), PairedLinks: true,
		Server:  tserver.Config{TickHz: s.TickHz, SnapshotHz: s.SnapshotHz},
		FrameHz: s.FrameHz, LateShare: s.LateShare,
		OnTick: sm.onTick, OnFrame: sm.onFrame, Predicts: predicts,
		OnCorrection: func(b *match.Bot, c movement.Correction) { sm.meter.Corrected(b, sm.now(), c) },
	}
	mc := match.MeterConfig{WarmUp: warmUp, TickHz: s.TickHz, FrameHz: s.FrameHz, DrawnBall: sm.drawnBall}
	for i, spec := range s.Clients {
		cfg.Links = append(cfg.Links, spec.Link)
		ball := replicate.Method(spec.Ball)
		if spec.Ball == BallOracle || spec.Ball == BallOraclePlayers {
			ball = replicate.MethodTether // the references draw from it or their own
		}
		cfg.Balls = append(cfg.Balls, ball)
		c := m.newClient(spec, nil)
		mc.Bots = append(mc.Bots, match.MeteredBot{Link: measure.LinkOf(spec.Link), Predicts: predicts(i)})
		sm.clients = append(sm.clients, &soccerClient{c: c})
	}
	var err error
	if sm.meter, err = match.NewMeter(mc); err != nil {
		return nil, fmt.Errorf("tether/lab: %w", err)
	}
	cfg.OnMove = sm.meter.Moved
	if m.keep() {
		for i, sc := range sm.clients {
			sm.meter.BallMeter(i).OnPop = sc.c.popped
		}
	}
	if sm.v, err = match.NewVirtual(cfg); err != nil {
		return nil, fmt.Errorf("tether/lab: soccer match: %w", err)
	}
	for i, b := range sm.v.Bots() {
		sc := sm.clients[i]
		sc.bot, sc.c.link = b, b.NetLink()
		sc.ball = newSoccerBallView(sc.c.spec.Ball, sm, sc.c)
	}
	var start soccer.Truth
	sm.v.Truth(&start)
	sm.meter.Tick(&start, 0)
	m.run(sm.v.RunUntil)
	sm.meter.Stop(sm.v.Bots())
	if opts.Trace != nil {
		m.trace(opts.Trace, sm.meter.Ball())
	}
	return sm, nil
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// now returns the true time, which is the server's clock.
func (sm *soccerMatch) now() time.Duration { return sm.v.Sched.Now() }

func (sm *soccerMatch) onTick(t *soccer.Truth) {
	sm.meter.Tick(t, sm.v.Game().Stats().Kicks)
	if sm.ticks == nil {
		return
	}
	sm.ticks = append(sm.ticks, restorable(t))
	if keep := int(oracleKeep / sm.sim.tick); len(sm.ticks) > 2*keep {
		drop := len(sm.ticks) - keep
		sm.ticks = sm.ticks[:copy(sm.ticks, sm.ticks[drop:])]
		sm.first += drop
	}
}

// drawnBall is the ball bot b drew in frame f at true time t, as its ball
// method or reference shows it.
func (sm *soccerMatch) drawnBall(b *match.Bot, t time.Duration, f *tclient.Frame) measure.Drawn {
	d := sm.clients[b.Index].ball.render(f)
	d.T = t
	return d
}

// onFrame measures a frame of bot b: what it draws now, before the input it
// decided from that frame is sent.
func (sm *soccerMatch) onFrame(b *match.Bot, f *tclient.Frame, _ *soccer.View) {
	sc := sm.clients[b.Index]
	ball := sm.meter.Frame(b, f)
	if sm.sim.keep() {
		fr := frame{t: sm.now(), est: f.Server, ready: f.Ready, bound: -1, ball: ball}
		if f.Ready {
			fr.bound = f.Bound
		}
		sc.c.frames = append(sc.c.frames, fr)
	}
}

// traffic takes every byte sent both ways on the client's link, the
// datagrams' headers included (harness.Traffic), and splits it by kind from
// the client's and the server's counters of the messages they sent.
func (sm *soccerMatch) traffic(sc *soccerClient) {
	t := sc.bot.Harness().Traffic()
	sc.c.upBytes, sc.c.downBytes = t.WireUp, t.WireDown
	cs := sc.bot.Client().Stats()
	up := NetKinds{Inputs: float64(cs.InputBytesOut), Acks: float64(cs.AckBytesOut), Clock: float64(cs.ClockBytesOut)}
	up.Headers = float64(t.WireUp) - up.Inputs - up.Acks - up.Clock
	sc.c.upKinds = &up
	if ss, ok := sm.v.Server().ClientStats(sc.bot.Slot()); ok {
		down := NetKinds{Snapshots: float64(ss.SnapshotBytes), Replies: float64(ss.ReplyBytes), Clock: float64(ss.PongBytes), Events: float64(ss.EventBytes)}
		down.Headers = float64(t.WireDown) - down.Snapshots - down.Replies - down.Clock - down.Events
		sc.c.downKinds = &down
	}
}

func (sm *soccerMatch) report() *Report {
	m := sm.sim
	r := &Report{Scenario: m.scen, clients: m.clients, truth: sm.meter.Ball()}
	for i, sc := range sm.clients {
		sm.traffic(sc)
		fig := sm.meter.Figures(i, m.end)
		sc.c.ballMeter = *sm.meter.BallMeter(i) // for a sweep's pooling
		r.Results = append(r.Results, Result{Client: sc.c.spec.Name, ClockMethod: sc.c.spec.Clock, BallMethod: sc.c.spec.Ball,
			Clock: fig.Clock, Ball: fig.Ball, Net: sc.c.netMetrics(), Others: &fig.Others, Own: &fig.Own})
	}
	return r
}
