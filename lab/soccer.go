package lab

import (
	"fmt"
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/replicate"
	tserver "github.com/tether-net/tether/server"
)

// soccerMatch is one run of the soccer game.
type soccerMatch struct {
	sim     *sim
	rules   soccer.Rules
	v       *match.Virtual
	truth   *soccerTruth
	clients []*soccerClient // by bot index, which is the scenario's order
	scratch soccer.Truth
}

// soccerClient is one bot's client: measured as the lab's clients are
// (frames, clock, ball, traffic), and beside that the other players and the
// own kicks.
type soccerClient struct {
	match  *soccerMatch
	c      *client
	bot    *match.Bot
	clock  *estimatorClock
	ball   soccerBallView
	others measure.OthersMeter
	own    ownRecord

	kicks  measure.KickMeter
	self   int // own player slot, -1 until the welcome
	seq    uint8
	hasSeq bool
	frames int // frames drawn so far
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
	sm := &soccerMatch{sim: m, rules: soccer.DefaultRules()}
	m.clock = sm.now
	cfg := match.Config{
		Seed: s.Seed, Bots: len(s.Clients), PairedLinks: true, Rules: sm.rules,
		Server:  tserver.Config{TickHz: s.TickHz, SnapshotHz: s.SnapshotHz},
		FrameHz: s.FrameHz, LateShare: s.LateShare,
		OnTick: sm.onTick, OnFrame: sm.onFrame,
		// Every client predicts its own player (package movement) but those
		// whose ball method is resim: that method predicts the own kicks
		// in a world whose own player the server moves tick by tick.
		Predicts:     func(i int) bool { return s.Clients[i].Ball != BallResim },
		OnMove:       sm.ownMove,
		OnCorrection: sm.ownCorrection,
	}
	for _, spec := range s.Clients {
		cfg.Links = append(cfg.Links, spec.Link)
		ball := replicate.Method(spec.Ball)
		if spec.Ball == BallOracle || spec.Ball == BallOraclePlayers {
			ball = replicate.MethodTether // the references draw from it or their own
		}
		cfg.Balls = append(cfg.Balls, ball)
		sc := &soccerClient{match: sm, self: -1, kicks: measure.KickMeter{WarmUp: warmUp, FrameHz: float64(s.FrameHz)}, c: &client{
			sim: m, spec: spec,
			asym: time.Duration((spec.Link.Up.LatencyMs - spec.Link.Down.LatencyMs) / 2 * float64(time.Millisecond)),
		}}
		sm.clients = append(sm.clients, sc)
		m.clients = append(m.clients, sc.c)
	}
	v, err := match.NewVirtual(cfg)
	if err != nil {
		return nil, fmt.Errorf("tether/lab: soccer match: %w", err)
	}
	sm.v = v
	v.Truth(&sm.scratch)
	if sm.truth, err = newSoccerTruth(sm.rules, s.TickHz, len(s.Clients), &sm.scratch); err != nil {
		return nil, fmt.Errorf("tether/lab: %w", err)
	}
	sm.truth.keep = m.keep()
	for i, b := range v.Bots() {
		sc := sm.clients[i]
		sc.c.measureAgainst(&sm.truth.ball.Truth)
		sc.bot = b
		sc.c.link = b.NetLink()
		sc.c.est = b.Client().Clock()
		sc.clock = &estimatorClock{est: sc.c.est, now: sm.now}
		sc.c.clock = sc.clock
		sc.ball = newSoccerBallView(sc.c.spec.Ball, sc)
		sc.others = measure.OthersMeter{WarmUp: warmUp, Blackouts: sc.c.blackouts}
		sc.own = newOwnRecord(sc, cfg.Predicts(i))
	}
	step := m.end / 100
	for t := step; t <= m.end; t += step {
		v.RunUntil(t)
		if opts.Progress != nil {
			opts.Progress(float64(t) / float64(m.end))
		}
	}
	v.RunUntil(m.end)
	for _, sc := range sm.clients {
		sc.others.Measure(sm.truth, m.end+time.Hour)
		sc.traffic()
	}
	if opts.Trace != nil {
		m.trace(opts.Trace, &sm.truth.ball.Truth)
	}
	return sm, nil
}

// now returns the true time, which is the server's clock.
func (sm *soccerMatch) now() time.Duration { return sm.v.Sched.Now() }

func (sm *soccerMatch) onTick(t *soccer.Truth) {
	sm.truth.onTick(t, sm.v.Game().Stats())
	for _, sc := range sm.clients {
		sc.others.Measure(sm.truth, t.Time)
		sc.own.tick(t)
	}
}

// onFrame measures a frame of bot b: what it draws now, before the input it
// decided from that frame is sent.
func (sm *soccerMatch) onFrame(b *match.Bot, f *tclient.Frame, _ *soccer.View) {
	sc := sm.clients[b.Index]
	now := sm.now()
	if f.HasSelf {
		sc.self = int(f.Self - soccer.FirstPlayerID)
	}
	fr := frame{t: now, est: f.Server, ready: f.Ready, bound: -1}
	if f.Ready {
		fr.bound = f.Bound
		fr.ball = sc.ball.render(f)
		sc.othersFrame(sc.frames, now, f)
	}
	sc.own.frame(now, f)
	sc.clock.observe()
	sc.c.record(fr)
	sc.kicks.Frame(measure.Drawn{T: now, OK: fr.ball.ok, Pos: fr.ball.pos})
	sc.frames++
	sc.input(b.Input())
}

// input notes the input decided at the frame just drawn, which the client
// sends now, if it asks the own player to kick.
func (sc *soccerClient) input(in soccer.Input) {
	if !sc.hasSeq {
		sc.seq, sc.hasSeq = in.ActionSeq, true // the server takes the first as the start
		return
	}
	if in.ActionSeq == sc.seq {
		return
	}
	sc.seq = in.ActionSeq
	if in.Action == soccer.ActionPass || in.Action == soccer.ActionShot {
		sc.kicks.Kicked(sc.match.now())
	}
}

// traffic takes every byte sent both ways on the client's link, the
// datagrams' headers included (harness.Traffic), and splits it by kind from
// the client's and the server's counters of the messages they sent.
func (sc *soccerClient) traffic() {
	t := sc.bot.Harness().Traffic()
	sc.c.upBytes, sc.c.downBytes = t.WireUp, t.WireDown
	cs := sc.bot.Client().Stats()
	up := NetKinds{Inputs: float64(cs.InputBytesOut), Clock: float64(cs.ClockBytesOut)}
	up.Headers = float64(t.WireUp) - up.Inputs - up.Clock
	sc.c.upKinds = &up
	if ss, ok := sc.match.v.Server().ClientStats(sc.bot.Slot()); ok {
		down := NetKinds{Snapshots: float64(ss.SnapshotBytes), Replies: float64(ss.ReplyBytes), Clock: float64(ss.PongBytes), Events: float64(ss.EventBytes)}
		down.Headers = float64(t.WireDown) - down.Snapshots - down.Replies - down.Clock - down.Events
		sc.c.downKinds = &down
	}
}

func (sm *soccerMatch) report() *Report {
	m := sm.sim
	tr := &sm.truth.ball.Truth
	r := &Report{Scenario: m.scen, clients: m.clients, truth: tr}
	for _, sc := range sm.clients {
		res := sc.c.result(sc.ball)
		sc.kickMetrics(&res.Ball)
		om := sc.others.Metrics()
		res.Others = &om
		own := sc.own.meter.Metrics(m.end)
		res.Own = &own
		r.Results = append(r.Results, res)
	}
	return r
}

// kickMetrics fills the own kick figures of bm (measure.KickMeter): the
// server's kicks by the client's player, and the kicks its method predicted.
func (sc *soccerClient) kickMetrics(bm *BallMetrics) {
	tr := sc.match.truth
	for _, k := range tr.kicks {
		if k.slot == sc.self {
			sc.kicks.Applied(k.at, k.dv)
		}
	}
	_, sc.kicks.Predicts = sc.bot.Game().ResimStats()
	sc.kicks.Metrics(bm, match.PredictedKicks(sc.bot.Game()), &tr.ball.Truth)
}

// othersFrame queues the other players drawn in frame f, the client's frame
// i at true time now.
func (sc *soccerClient) othersFrame(i int, now time.Duration, f *tclient.Frame) {
	for j := range f.Entities {
		e := &f.Entities[j]
		slot := int(e.ID - soccer.FirstPlayerID)
		if e.Kind != soccer.KindPlayer || f.HasSelf && e.ID == f.Self || slot < 0 || slot >= sc.match.truth.np {
			continue
		}
		sc.others.Add(measure.OtherDrawn{Frame: i, T: now, Slot: slot, Pos: e.Pos, RenderTime: e.RenderTime, Cut: e.Cut})
	}
}
