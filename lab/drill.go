package lab

import (
	"fmt"

	tclient "github.com/tether-net/tether/client"
	gdrill "github.com/tether-net/tether/game/drill"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replicate"
	tserver "github.com/tether-net/tether/server"
)

// gravity is the physics world's default, m/s².
const gravity = 9.81

// newBallWorld returns the ball drill's world stepping at tickHz (package
// game/drill): the private world of every client method that simulates the
// ball, and of the oracle.
func newBallWorld(tickHz int) (*physics.World, physics.BodyID) {
	w, ball, err := gdrill.NewWorld(tickHz)
	if err != nil {
		panic(err) // the scenario's tick rate was validated
	}
	return w, ball
}

// drillRun is one run of the ball drill: the drill's shipped server and
// client sides (package game/drill) in the virtual harness, every client on
// an identically seeded copy of its link.
type drillRun struct {
	sim    *sim
	game   *gdrill.Game
	rig    *harness.Rig
	truth  measure.Truth
	states []physics.BodyState // the ball leaving every tick, for the oracle
	games  []*gdrill.ClientGame
}

// runDrill runs the validated scenario s of the ball drill.
func runDrill(s Scenario, opts Options) (*Report, error) {
	m := newSim(s, opts)
	game, err := gdrill.NewGame(s.Seed, s.TickHz)
	if err != nil {
		return nil, err
	}
	d := &drillRun{sim: m, game: game, truth: measure.Truth{G: geom.V(0, -gravity, 0)}}
	d.record()
	d.rig, err = harness.New(harness.Config{
		Server: tserver.Config{
			TickHz: s.TickHz, SnapshotHz: s.SnapshotHz,
			OnTick: func(tserver.Tick) { d.record() },
		},
		FrameHz: s.FrameHz,
	}, game)
	if err != nil {
		return nil, fmt.Errorf("tether/lab: %w", err)
	}
	m.clock = d.rig.Now
	for _, spec := range s.Clients {
		if err := d.join(spec); err != nil {
			return nil, err
		}
	}
	m.run(d.rig.RunUntil)
	for i, c := range m.clients {
		h := d.rig.Clients()[i]
		c.traffic(h.Traffic(), h.Core().Stats())
		if v, ok := d.games[i].BallView().(*replicate.WorldResim[replicate.NoInput]); ok {
			n := v.Resim().Stats().ResimTicks
			c.resimTicks = &n
		}
	}
	if opts.Trace != nil {
		m.trace(opts.Trace, &d.truth)
	}
	return m.report(&d.truth), nil
}

// record takes the server's ball after a tick (at time 0, before the first).
func (d *drillRun) record() {
	tk := d.game.Last()
	d.truth.Add(measure.Sample{T: tk.Time, Pos: tk.Ball.Pos, Vel: tk.Ball.Vel, VelIn: tk.VelIn, Contact: tk.Contact, ContactAt: tk.ContactAt})
	d.states = append(d.states, tk.Ball)
}

// join adds the scenario's client spec: the drill's client side showing the
// ball by the spec's method (the oracle's client draws by the default, which
// the lab does not measure), at the spec's clock.
func (d *drillRun) join(spec Client) error {
	m := d.sim
	c := m.newClient(spec, &d.truth)
	method := replicate.Method(spec.Ball)
	if spec.Ball == BallOracle {
		method = replicate.MethodTether
		c.oracle = newOracleBall(c, m.scen.TickHz, &d.states)
	}
	cfg := gdrill.ClientConfig{TickHz: m.scen.TickHz, Ball: method}
	if m.scen.LateShare != 0 {
		rc := gdrill.DefaultRenderClock()
		rc.LateShare = m.scen.LateShare
		cfg.RenderClock = &rc
	}
	cg, err := gdrill.NewClientGame(cfg)
	if err != nil {
		return fmt.Errorf("tether/lab: client %q: %w", spec.Name, err)
	}
	d.games = append(d.games, cg)
	var core tclient.Config
	core.ServerTime, core.OnSnapshot = c.clockHooks(spec.Clock)
	h, err := d.rig.Join(0, harness.ClientConfig{
		Link: spec.Link, Seed: m.scen.Seed, Core: core, Game: cg,
		OnFrame: func(h *harness.Client, f *tclient.Frame) { c.frame(h.Now(), f, gdrill.BallID) },
	})
	if err != nil {
		return fmt.Errorf("tether/lab: client %q: %w", spec.Name, err)
	}
	c.link = h.Link()
	c.est = h.Core().Clock()
	if c.clock == nil {
		c.clock = &estimatorClock{est: c.est, now: c.now}
	}
	return nil
}
