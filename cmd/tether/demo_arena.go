package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/game/arena/live"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/lab"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/web"
)

// arenaDemo is what tether demo -game arena runs: bots players of package
// game/arena over real UDP on 127.0.0.1, each through an emulated link,
// every other one drawing projectiles the naive way (the lab's seed)
// (package game/arena/live), until ctx ends. With a page (ln), the match
// is shown live and the page's keys and mouse play bot 0's player;
// headless, it ends with the lab's arena report, measured by
// lab.NewArenaMeter as the lab measures (true time is the server's clock,
// read when each frame is drawn), its players by kind too (lab.EntityTap).
type arenaDemo struct {
	bots     int
	link     netsim.LinkConfig
	linkName string
	seed     uint64
	asJSON   bool
	duration time.Duration // -duration, which ctx ends after; 0: none
	ln       net.Listener  // the page's, or nil for headless
	httpAddr string
}

func (o arenaDemo) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.ln != nil {
		defer o.ln.Close() // if it is not served; closing twice does no harm
	}
	if o.bots > 16 {
		return usagef("-bots %d: want 1 to 16 for -game arena", o.bots)
	}
	scen := lab.Scenario{Name: "arena-" + o.linkName, Seed: o.seed, TickHz: 60, SnapshotHz: 30, FrameHz: 60, Game: lab.GameArena}
	for i := range o.bots {
		c := lab.Client{Name: fmt.Sprintf("bot-%d", i+1), Clock: lab.ClockTether, Ball: lab.BallTether, Link: o.link}
		if i%2 == 1 {
			c.Ball = lab.BallSeed
		}
		scen.Clients = append(scen.Clients, c)
	}
	cfg := live.Config{Bots: o.bots, Link: o.link, LinkName: o.linkName, Seed: o.seed, Naive: func(i int) bool { return i%2 == 1 }}
	rec := lab.NewArenaMeter(scen.Clients)
	// The players, measured by kind as the lab does (lab.EntityTap): its
	// server side and the bots' take turns under mu. A bot's slot is its
	// player's entity id (arena.Game.Join).
	var (
		mu   sync.Mutex
		enc  *replica.Encoder
		ents = lab.NewArenaEntityTap(scen.Clients, func() *replica.Encoder { return enc })
	)
	if o.ln == nil { // a page left running keeps no growing record
		cfg.OnShot, cfg.OnProjectile = rec.Shot, rec.Flight
		cfg.OnClaim = func(i int, s arena.ClientShot, t time.Duration) { rec.Client(i).Claim(s, t) }
		cfg.OnFrame = func(i int, t time.Duration, f *client.Frame, g *arena.ClientGame, replied bool) {
			rec.Client(i).Frame(t, f, g, replied)
			slot := -1
			if f.HasSelf {
				slot = int(f.Self)
			}
			mu.Lock()
			ents.Frame(i, slot, t, f)
			mu.Unlock()
		}
		cfg.OnEncode = func(slot int, tick uint64, t time.Duration, w *replica.World, e *replica.Encoder) {
			mu.Lock()
			enc = e
			ents.Encoding(slot, tick, t, w)
			mu.Unlock()
		}
		cfg.OnSnapshot = func(i int, s *client.Snapshot) {
			mu.Lock()
			ents.Received(i, s)
			mu.Unlock()
		}
	}
	m, err := live.Start(cfg)
	if err != nil {
		return err
	}
	if o.ln != nil {
		hub := web.NewHubConfig(webConfig(o.httpAddr))
		if err := hub.SetPitch(live.Pitch()); err != nil {
			m.Close()
			return err
		}
		stopWeb := serveWeb(o.ln, hub, stderr)
		go m.Steer(hub.Inputs(), demoIdle)
		fmt.Fprintf(stdout, "tether demo: the arena, %d bots over %s links; it is on http://%s/ (Ctrl-C to stop)\n", o.bots, o.linkName, o.ln.Addr())
		tick := time.NewTicker(demoPublish)
		var f web.Frame
		for done := false; !done; {
			select {
			case <-ctx.Done():
				done = true
			case <-tick.C:
				m.Frame(&f)
				hub.Publish(f)
			}
		}
		tick.Stop()
		stopWeb() // closes the hub's Inputs, which ends Steer
		err := m.Close()
		if ctx.Err() == context.Canceled {
			fmt.Fprintln(stdout, "tether demo: stopped")
		}
		return err
	}
	<-ctx.Done()
	ran := m.Now()
	if ctx.Err() != context.Canceled {
		ran = o.duration // the report's duration_s: the one asked for, which it ran
	}
	m.Close() // the bots, then the server: nothing feeds the record after
	for _, f := range m.Flights() {
		rec.Flight(f)
	}
	scen.DurationS = ran.Seconds()
	rep := lab.ArenaReport(scen, rec, func(i int) harness.Traffic { return m.Traffic(i) })
	mu.Lock()
	ents.Report(rep, ran)
	mu.Unlock()
	if o.asJSON {
		return printJSON(stdout, rep)
	}
	return lab.WriteTable(stdout, rep)
}
