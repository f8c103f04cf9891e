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

// ArenaRecord is what an arena match records to be measured: the server's
// projectiles and hitscan judgements, and what each client drew and claimed.
// The lab fills one in virtual time; tether demo -game arena fills one live,
// so that both report the same figures from the same code. The server's
// side and each client's may be fed from different goroutines, each side
// from one; Report reads them all once the match is over.
type ArenaRecord struct {
	flights map[shotKey]arena.Flight // every projectile the server fired
	shots   []arena.Shot             // every hitscan shot the server judged
	clients []*ArenaClient
}

// shotKey names a shot or a projectile: its shooter's entity and the move
// that fired it.
type shotKey struct{ shooter, move uint32 }

// ArenaClient is what one client drew and claimed.
type ArenaClient struct {
	hasSelf bool
	id      uint32
	clock   measure.ClockMeter
	first   time.Duration // true time of the first frame with a clock sample
	replied bool
	proj    *measure.ProjMeter
	hits    *measure.HitMeter
	drawn   []drawnProj                 // projectiles drawn, measured once the server's flights are known
	claims  map[uint32]arena.ClientShot // own hitscan shots by move, as this client judged them
	fired   map[uint32]time.Duration    // and the true time each was fired
}

// drawnProj is a projectile as a client drew it at true time t.
type drawnProj struct {
	t         time.Duration
	key       shotKey
	pos       geom.Vec3
	predicted bool
}

// NewArenaRecord returns a record for clients on links with clients'
// specs (their links set the clock meters' asymmetry).
func NewArenaRecord(clients []Client) *ArenaRecord {
	r := &ArenaRecord{flights: map[shotKey]arena.Flight{}}
	for _, spec := range clients {
		asym := time.Duration((spec.Link.Up.LatencyMs - spec.Link.Down.LatencyMs) / 2 * float64(time.Millisecond))
		r.clients = append(r.clients, &ArenaClient{
			clock:  measure.ClockMeter{WarmUp: warmUp, Asym: asym, Within: convergeWithin(spec)},
			proj:   &measure.ProjMeter{WarmUp: warmUp},
			hits:   &measure.HitMeter{WarmUp: warmUp},
			claims: map[uint32]arena.ClientShot{}, fired: map[uint32]time.Duration{},
		})
	}
	return r
}

// Flight records a projectile the server's game ended (its
// Config.OnProjectile, and those still flying at the end).
func (r *ArenaRecord) Flight(f arena.Flight) { r.flights[shotKey{f.Shooter, f.Move}] = f }

// Shot records a hitscan shot the server judged (its Config.OnShot).
func (r *ArenaRecord) Shot(s arena.Shot) { r.shots = append(r.shots, s) }

// Client returns the record of client i.
func (r *ArenaRecord) Client(i int) *ArenaClient { return r.clients[i] }

// Claim records a hitscan shot the client fired at true time t (its
// ClientConfig.OnShot).
func (c *ArenaClient) Claim(s arena.ClientShot, t time.Duration) {
	c.claims[s.Move], c.fired[s.Move] = s, t
}

// Frame records frame f the client drew at true time t, with g its game.
func (c *ArenaClient) Frame(t time.Duration, f *tclient.Frame, g *arena.ClientGame) {
	if f.HasSelf {
		c.id, c.hasSelf = f.Self, true
	}
	fr := measure.Frame{T: t, Est: f.Server, Ready: f.Ready, Bound: -1}
	if f.Ready {
		fr.Bound = f.Bound
	}
	c.clock.Add(fr)
	for _, d := range g.Projectiles() {
		c.drawn = append(c.drawn, drawnProj{t: t, key: shotKey{d.Shooter, d.Move}, pos: d.Pos, predicted: d.Predicted})
	}
}

// Replied notes that the client's clock had its first reply by true time t.
func (c *ArenaClient) Replied(t time.Duration) {
	if !c.replied {
		c.first, c.replied = t, true
	}
}

// measure measures every projectile drawn against the server's, and every
// hitscan shot against the server's judgement.
func (r *ArenaRecord) measure() {
	for _, c := range r.clients {
		for _, d := range c.drawn {
			f, ok := r.flights[d.key]
			if !ok || d.t < f.Spawn.Time || d.t > f.End {
				continue // the server's had not left yet, or had ended
			}
			c.proj.Add(d.t, d.pos, f.At(d.t), d.predicted)
		}
		c.drawn = nil
	}
	for _, sh := range r.shots {
		c := r.clientOf(sh.Shooter)
		if c == nil {
			continue
		}
		claim, ok := c.claims[sh.Move]
		if !ok {
			continue // fired before its client predicted
		}
		c.hits.Add(measure.Shot{T: c.fired[sh.Move], Claimed: claim.Target, Judged: sh.Target, Present: sh.Present,
			Rewind: sh.Arrival - sh.At, Clamped: sh.Clamped})
	}
	r.shots = nil
}

// clientOf returns the client that plays entity id, or nil.
func (r *ArenaRecord) clientOf(id uint32) *ArenaClient {
	for _, c := range r.clients {
		if c.hasSelf && c.id == id {
			return c
		}
	}
	return nil
}

// Report measures the record of a match of scenario s (its clients in
// order) that ran for s.DurationS; traffic gives each client's bytes on
// the wire, up and down.
func (r *ArenaRecord) Report(s Scenario, traffic func(i int) harness.Traffic) *Report {
	r.measure()
	rep := &Report{Scenario: s}
	secs := s.DurationS
	kbps := func(bytes int64) float64 { return measure.Round(float64(bytes) * 8 / secs / 1000) }
	for i, c := range r.clients {
		tr := traffic(i)
		pm, hm := c.proj.Metrics(), c.hits.Metrics()
		spec := s.Clients[i]
		rep.Results = append(rep.Results, Result{
			Client: spec.Name, ClockMethod: spec.Clock, BallMethod: spec.Ball,
			Clock: c.clock.Metrics(c.first, c.replied),
			Net: NetMetrics{
				DownKbps: kbps(tr.WireDown),
				UpKbps:   kbps(tr.WireUp),
			},
			Proj: &pm, Hits: &hm,
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
	rec, rig, err := playArena(s, opts, nil)
	if err != nil {
		return nil, err
	}
	return rec.Report(s, func(i int) harness.Traffic { return rig.Clients()[i].Traffic() }), nil
}

// arenaPool, if given to playArena, has every client of a ball method
// measured into one pair of meters: to pool runs.
type arenaPool map[string]*struct {
	proj measure.ProjMeter
	hits measure.HitMeter
}

// playArena plays the validated scenario s of game arena to its end, on
// package harness, and returns its record, measured.
func playArena(s Scenario, opts Options, pool arenaPool) (*ArenaRecord, *harness.Rig, error) {
	end := time.Duration(s.DurationS * float64(time.Second))
	rec := NewArenaRecord(s.Clients)
	g, err := arena.NewGame(arena.Config{MaxPlayers: len(s.Clients), TickHz: s.TickHz, OnProjectile: rec.Flight, OnShot: rec.Shot})
	if err != nil {
		return nil, nil, fmt.Errorf("tether/lab: arena: %w", err)
	}
	rig, err := harness.New(harness.Config{Server: tserver.Config{TickHz: s.TickHz, SnapshotHz: s.SnapshotHz, MaxClients: len(s.Clients)}, FrameHz: s.FrameHz}, g)
	if err != nil {
		return nil, nil, fmt.Errorf("tether/lab: arena: %w", err)
	}
	for i, spec := range s.Clients {
		c := rec.Client(i)
		if p := pool[spec.Ball]; p != nil {
			c.proj, c.hits = &p.proj, &p.hits
		}
		cg, err := arena.NewClientGame(arena.ClientConfig{NaiveSpawn: spec.Ball == BallSeed,
			OnShot: func(sh arena.ClientShot) { c.Claim(sh, rig.Now()) }})
		if err != nil {
			return nil, nil, err
		}
		bot := arena.NewBot(s.Seed*1000 + uint64(i))
		// Every client gets an identically seeded link: the comparison is
		// paired. They join 10 ms apart.
		_, err = rig.Join(time.Duration(i)*10*time.Millisecond, harness.ClientConfig{Link: spec.Link, Seed: s.Seed, Game: cg,
			OnFrame: func(hc *harness.Client, f *tclient.Frame) {
				if hc.Core().Clock().Stats().Samples > 0 {
					c.Replied(hc.Now())
				}
				c.Frame(hc.Now(), f, cg)
				hc.Core().SetInput(arena.AppendInput(nil, bot.Input(f)))
			}})
		if err != nil {
			return nil, nil, err
		}
	}
	step := end / 100
	for t := step; t <= end; t += step {
		rig.RunUntil(t)
		if opts.Progress != nil {
			opts.Progress(float64(t) / float64(end))
		}
	}
	for _, f := range g.Flights() {
		rec.Flight(f)
	}
	rec.measure()
	return rec, rig, nil
}
