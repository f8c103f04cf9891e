package lab

import (
	"fmt"
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/measure"
	tserver "github.com/tether-net/tether/server"
)

// GameArena is the arena (package game/arena): each client of the scenario
// is one bot's client, its ball method saying how it draws projectiles:
// tether (fast-forwarded by their age, the own ones predicted) or seed (the
// naive baseline: from the spawn message's position when it arrives).
const GameArena = "arena"

// arenaMatch is one run of the arena.
type arenaMatch struct {
	scen    Scenario
	end     time.Duration
	rig     *harness.Rig
	game    *arena.Game
	clients []*arenaClient
	flights map[shotKey]arena.Flight // every projectile the server fired, once it ended
	shots   []arena.Shot             // every hitscan shot the server judged
}

// shotKey names a shot or a projectile: its shooter's entity and the move
// that fired it.
type shotKey struct{ shooter, move uint32 }

// arenaClient is one bot's client and what it measured.
type arenaClient struct {
	spec   Client
	hc     *harness.Client
	game   *arena.ClientGame
	clock  *estimatorClock
	meter  measure.ClockMeter
	proj   *measure.ProjMeter
	hits   *measure.HitMeter
	drawn  []drawnProj                 // projectiles drawn, measured once the server's flights are known
	claims map[uint32]arena.ClientShot // own hitscan shots by move, as this client judged them
	fired  map[uint32]time.Duration    // and the true time each was fired
}

// drawnProj is a projectile as a client drew it at true time t.
type drawnProj struct {
	t         time.Duration
	key       shotKey
	pos       geom.Vec3
	predicted bool
}

func (s Scenario) validateArena() error {
	if len(s.Clients) > 16 {
		return scenarioErr("%d clients, want at most 16 for game arena (each client plays one player)", len(s.Clients))
	}
	for i, c := range s.Clients {
		switch {
		case c.Clock != ClockTether:
			return scenarioErr("clients[%d].clock = %q, want tether for game arena", i, c.Clock)
		case c.Ball != BallTether && c.Ball != BallSeed:
			return scenarioErr("clients[%d].ball = %q, want tether or seed for game arena (how it draws projectiles)", i, c.Ball)
		}
	}
	return nil
}

// runArena runs the validated scenario s of game arena.
func runArena(s Scenario, opts Options) (*Report, error) {
	am, err := playArena(s, opts, nil)
	if err != nil {
		return nil, err
	}
	return am.report(), nil
}

// arenaPool, if given to playArena, has every client of a ball method
// measured into one pair of meters: to pool runs.
type arenaPool map[string]*struct {
	proj measure.ProjMeter
	hits measure.HitMeter
}

// playArena plays the validated scenario s of game arena to its end.
func playArena(s Scenario, opts Options, pool arenaPool) (*arenaMatch, error) {
	am := &arenaMatch{scen: s, end: time.Duration(s.DurationS * float64(time.Second)), flights: map[shotKey]arena.Flight{}}
	g, err := arena.NewGame(arena.Config{
		MaxPlayers:   len(s.Clients),
		TickHz:       s.TickHz,
		OnProjectile: func(f arena.Flight) { am.flights[shotKey{f.Shooter, f.Move}] = f },
		OnShot:       func(sh arena.Shot) { am.shots = append(am.shots, sh) },
	})
	if err != nil {
		return nil, fmt.Errorf("tether/lab: arena: %w", err)
	}
	am.game = g
	am.rig, err = harness.New(harness.Config{Server: tserver.Config{TickHz: s.TickHz, SnapshotHz: s.SnapshotHz, MaxClients: len(s.Clients)}, FrameHz: s.FrameHz}, g)
	if err != nil {
		return nil, fmt.Errorf("tether/lab: arena: %w", err)
	}
	for i, spec := range s.Clients {
		ac := &arenaClient{spec: spec, claims: map[uint32]arena.ClientShot{}, fired: map[uint32]time.Duration{},
			proj: &measure.ProjMeter{WarmUp: warmUp}, hits: &measure.HitMeter{WarmUp: warmUp}}
		if p := pool[spec.Ball]; p != nil {
			ac.proj, ac.hits = &p.proj, &p.hits
		}
		asym := time.Duration((spec.Link.Up.LatencyMs - spec.Link.Down.LatencyMs) / 2 * float64(time.Millisecond))
		ac.meter = measure.ClockMeter{WarmUp: warmUp, Asym: asym, Within: convergeWithin(spec)}
		ac.game, err = arena.NewClientGame(arena.ClientConfig{NaiveSpawn: spec.Ball == BallSeed, OnShot: func(sh arena.ClientShot) {
			ac.claims[sh.Move], ac.fired[sh.Move] = sh, am.rig.Now()
		}})
		if err != nil {
			return nil, err
		}
		bot := arena.NewBot(s.Seed*1000 + uint64(i))
		// Every client gets an identically seeded link: the comparison is
		// paired. They join 10 ms apart.
		ac.hc, err = am.rig.Join(time.Duration(i)*10*time.Millisecond, harness.ClientConfig{Link: spec.Link, Seed: s.Seed, Game: ac.game,
			OnFrame: func(c *harness.Client, f *tclient.Frame) {
				ac.frame(c.Now(), f)
				c.Core().SetInput(arena.AppendInput(nil, bot.Input(f)))
			}})
		if err != nil {
			return nil, err
		}
		ac.clock = &estimatorClock{est: ac.hc.Core().Clock(), now: ac.hc.Now}
		am.clients = append(am.clients, ac)
	}
	step := am.end / 100
	for t := step; t <= am.end; t += step {
		am.rig.RunUntil(t)
		if opts.Progress != nil {
			opts.Progress(float64(t) / float64(am.end))
		}
	}
	for _, f := range g.Flights() {
		am.flights[shotKey{f.Shooter, f.Move}] = f
	}
	am.measure()
	return am, nil
}

// frame records what client ac drew at true time now.
func (ac *arenaClient) frame(now time.Duration, f *tclient.Frame) {
	ac.clock.observe()
	fr := measure.Frame{T: now, Est: f.Server, Ready: f.Ready, Bound: -1}
	if f.Ready {
		fr.Bound = f.Bound
	}
	ac.meter.Add(fr)
	for _, d := range ac.game.Projectiles() {
		ac.drawn = append(ac.drawn, drawnProj{t: now, key: shotKey{d.Shooter, d.Move}, pos: d.Pos, predicted: d.Predicted})
	}
}

// measure measures every projectile drawn against the server's, and every
// hitscan shot against the server's judgement.
func (am *arenaMatch) measure() {
	for _, ac := range am.clients {
		for _, d := range ac.drawn {
			f, ok := am.flights[d.key]
			if !ok || d.t < f.Spawn.Time || d.t > f.End {
				continue // the server's had not left yet, or had ended
			}
			ac.proj.Add(d.t, d.pos, f.At(d.t), d.predicted)
		}
		ac.drawn = nil
	}
	for _, sh := range am.shots {
		ac := am.clientOf(sh.Shooter)
		if ac == nil {
			continue
		}
		claim, ok := ac.claims[sh.Move]
		if !ok {
			continue // fired before its client predicted
		}
		ac.hits.Add(measure.Shot{T: ac.fired[sh.Move], Claimed: claim.Target, Judged: sh.Target, Present: sh.Present,
			Rewind: sh.Arrival - sh.At, Clamped: sh.Clamped})
	}
}

// clientOf returns the client that plays entity id, or nil.
func (am *arenaMatch) clientOf(id uint32) *arenaClient {
	for _, ac := range am.clients {
		if self, ok := ac.hc.Core().Self(); ok && self == id {
			return ac
		}
	}
	return nil
}

func (am *arenaMatch) report() *Report {
	r := &Report{Scenario: am.scen}
	secs := am.end.Seconds()
	kbps := func(bytes int64) float64 { return measure.Round(float64(bytes) * 8 / secs / 1000) }
	for _, ac := range am.clients {
		tr := ac.hc.Traffic()
		pm, hm := ac.proj.Metrics(), ac.hits.Metrics()
		r.Results = append(r.Results, Result{
			Client: ac.spec.Name, ClockMethod: ac.spec.Clock, BallMethod: ac.spec.Ball,
			Clock: ac.meter.Metrics(ac.clock.firstReply()),
			Net: NetMetrics{
				DownKbps: kbps(tr.PayloadDown + tr.PacketsDown*headerBytes),
				UpKbps:   kbps(tr.PayloadUp + tr.PacketsUp*headerBytes),
			},
			Proj: &pm, Hits: &hm,
		})
	}
	return r
}
