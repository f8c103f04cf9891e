package lab

import (
	"fmt"
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/replica"
	tserver "github.com/tether-net/tether/server"
)

// GameArena is the arena (package game/arena): each client of the scenario
// is one bot's client, its ball method saying how it draws projectiles:
// tether (fast-forwarded by their age, the own ones predicted) or seed (the
// naive baseline: from the spawn message's position when it arrives).
const GameArena = "arena"

// NewArenaMeter returns the meter of a match of the arena clients.
func NewArenaMeter(clients []Client) *arena.Meter { return arena.NewMeter(arenaMeterConfig(clients)) }

func arenaMeterConfig(clients []Client) arena.MeterConfig {
	cfg := arena.MeterConfig{WarmUp: warmUp}
	for _, spec := range clients {
		cfg.Clients = append(cfg.Clients, arena.MeteredClient{Link: measure.LinkOf(spec.Link)})
	}
	return cfg
}

// ArenaReport reports what m measured of a match of scenario s (its
// clients in order) that ran for s.DurationS; traffic gives each client's
// bytes on the wire, up and down.
func ArenaReport(s Scenario, m *arena.Meter, traffic func(i int) harness.Traffic) *Report {
	rep := &Report{Scenario: s}
	kbps := func(bytes int64) float64 { return measure.Round(float64(bytes) * 8 / s.DurationS / 1000) }
	for i, spec := range s.Clients {
		tr, fig := traffic(i), m.Figures(i)
		rep.Results = append(rep.Results, Result{
			Client: spec.Name, ClockMethod: spec.Clock, BallMethod: spec.Ball, Clock: fig.Clock,
			Net:  NetMetrics{DownKbps: kbps(tr.WireDown), UpKbps: kbps(tr.WireUp)},
			Proj: &fig.Proj, Hits: &fig.Hits,
		})
	}
	return rep
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
	m, rig, tap, err := playArena(s, opts, nil)
	if err != nil {
		return nil, err
	}
	rep := ArenaReport(s, m, func(i int) harness.Traffic { return rig.Clients()[i].Traffic() })
	tap.Report(rep, rig.Now())
	return rep, nil
}

// NewArenaEntityTap returns the tap of the arena's entities (its players)
// for the clients; enc returns the server's encoder once there is one.
func NewArenaEntityTap(clients []Client, enc func() *replica.Encoder) *EntityTap {
	links := make([]measure.Link, len(clients))
	for i, c := range clients {
		links[i] = measure.LinkOf(c.Link)
	}
	return NewEntityTap(arena.Schema().Names(), links, enc)
}

// arenaPool, if given to playArena, has every client of a ball method
// measured into one pair of meters: to pool runs.
type arenaPool map[string]*struct {
	proj measure.ProjMeter
	hits measure.HitMeter
}

// playArena plays the validated scenario s of game arena to its end, on
// package harness, and returns its record, measured, and its entities'.
func playArena(s Scenario, opts Options, pool arenaPool) (*arena.Meter, *harness.Rig, *EntityTap, error) {
	mc := arenaMeterConfig(s.Clients)
	for i, spec := range s.Clients {
		if p := pool[spec.Ball]; p != nil {
			mc.Clients[i].Proj, mc.Clients[i].Hits = &p.proj, &p.hits
		}
	}
	rec := arena.NewMeter(mc)
	g, err := arena.NewGame(arena.Config{MaxPlayers: len(s.Clients), TickHz: s.TickHz, OnProjectile: rec.Flight, OnShot: rec.Shot})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tether/lab: arena: %w", err)
	}
	var rig *harness.Rig
	tap := NewArenaEntityTap(s.Clients, func() *replica.Encoder { return rig.Server().Replica() })
	rig, err = harness.New(harness.Config{Server: tserver.Config{TickHz: s.TickHz, SnapshotHz: s.SnapshotHz, MaxClients: len(s.Clients),
		ReplyHold: arena.ReplyHold, Encode: tap.Encode}, FrameHz: s.FrameHz}, g)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tether/lab: arena: %w", err)
	}
	for i, spec := range s.Clients {
		c := rec.Client(i)
		cg, err := arena.NewClientGame(arena.ClientConfig{NaiveSpawn: spec.Ball == BallSeed,
			OnShot: func(sh arena.ClientShot) { c.Claim(sh, rig.Now()) }})
		if err != nil {
			return nil, nil, nil, err
		}
		bot := arena.NewBot(s.Seed*1000 + uint64(i))
		// Every client gets an identically seeded link: the comparison is
		// paired. They join 10 ms apart.
		_, err = rig.Join(time.Duration(i)*10*time.Millisecond, harness.ClientConfig{Link: spec.Link, Seed: s.Seed, Game: cg,
			Core: tclient.Config{OnSnapshot: func(_ time.Duration, sn *tclient.Snapshot) { tap.Received(i, sn) }},
			OnFrame: func(hc *harness.Client, f *tclient.Frame) {
				c.Frame(hc.Now(), f, cg, hc.Core().Clock().Stats().Samples > 0)
				tap.Frame(i, hc.Slot(), hc.Now(), f)
				hc.Core().SetInput(arena.AppendInput(nil, bot.Input(f)))
			}})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	newSim(s, opts).run(rig.RunUntil)
	for _, f := range g.Flights() {
		rec.Flight(f)
	}
	rec.Measure()
	return rec, rig, tap, nil
}
