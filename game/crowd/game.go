package crowd

import (
	"math"
	"time"

	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

// NoSelf is the entity Join gives every client: the crowd's clients watch,
// and control none.
const NoSelf = ^uint32(0)

// KindBody is the client.EntityState Kind of a sphere; its ID is its index,
// from 0.
const KindBody uint8 = 0

// Encoded is the make-up of one per-client snapshot (Config.OnSnapshot).
type Encoded struct {
	Client int           // the client's slot
	Time   time.Duration // server time of the snapshot
	Bytes  int           // the game's bytes of it
	Delta  bool          // encoded against a baseline the client acknowledged
	// Rest is the spheres at rest on the server (no velocity, at VelUnit),
	// and RestBits the bits spent on them: one each once the client
	// knows them.
	Rest     int
	RestBits float64
	// Unchanged spheres were where the baseline, extrapolated, has them (a
	// fraction of a bit each); Sent went with their differences, Whole in
	// full (new to the client); LeftOut were changed or new to the client
	// but did not fit the budget.
	Unchanged, Sent, Whole, LeftOut int
}

// Stats are a Game's counters.
type Stats struct {
	Ticks     uint64
	Kicks     uint64 // spheres kicked
	Snapshots uint64 // per-client snapshots encoded
	Deltas    uint64 // of which against a baseline
	LeftOut   uint64 // spheres left out of them by the byte budget
}

// Schema is the crowd's replicated world: one kind, the sphere, its
// position to a millimetre and velocity to 5 cm/s, predicted to roll on in
// a straight line and slow as rolling resistance slows it, so a sphere at
// rest or rolling freely costs a fraction of a bit.
var Schema = func() *replica.Schema {
	s, err := replica.NewSchema(replica.Kind{Name: "sphere", Predictor: rolling{},
		Fields: []replica.Field{replica.Position(1000, replica.XYZ), replica.Velocity(1/velUnit, replica.XYZ)}})
	if err != nil {
		panic(err)
	}
	return s
}()

// restSpeed is the speed under which a sphere counts as at rest: half a
// step of its velocity.
const restSpeed = 0.025 // m/s

// Game is the server side of the crowd (server.Game and
// server.Replicated): the spheres, stirred by the kicks, replicated by the
// layer to every client within the byte budget.
type Game struct {
	cfg   Config
	w     *world
	kicks []kick // the kicks of the last tick
	stats Stats
	enc   Encoded // the snapshot being encoded
}

// NewGame returns a crowd of cfg, or an error wrapping ErrConfig.
func NewGame(cfg Config) (*Game, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	return &Game{cfg: cfg, w: w, kicks: make([]kick, 0, cfg.Kicked)}, nil
}

// Config returns the configuration in use, defaults filled in.
func (g *Game) Config() Config { return g.cfg }

// Stats returns the counters.
func (g *Game) Stats() Stats { return g.stats }

// Body returns sphere i as the server has it now.
func (g *Game) Body(i int) physics.BodyState { return g.w.phys.Body(physics.BodyID(i)) }

// Join implements server.Game: the client watches, controlling nothing.
func (g *Game) Join(int) (uint32, error) { return NoSelf, nil }

// Leave implements server.Game.
func (g *Game) Leave(int) {}

// Input implements server.Game: the crowd takes no input.
func (g *Game) Input(int, server.Input) {}

// Step implements server.Game: one physics step, then the kicks due.
func (g *Game) Step(t server.Tick, _ server.Emitter) bool {
	g.kicks = g.w.step(t.Time, g.kicks)
	g.stats.Ticks++
	g.stats.Kicks += uint64(len(g.kicks))
	return false
}

// Replication implements server.Replicated: the crowd's Schema, and an
// observer that counts the snapshots; with Config.OnSnapshot, what each
// spent on spheres at rest too (an observer of every entity sent, which
// costs the encoder a dequantised entity each, so only for a meter).
func (g *Game) Replication() (*replica.Schema, replica.Config) {
	rc := replica.Config{OnSnapshot: func(r replica.Encoded) {
		e := g.enc
		g.enc = Encoded{}
		e.Client, e.Time, e.Bytes, e.Delta = r.Client, r.Time, r.Bytes, r.Base != 0
		e.Unchanged, e.Sent, e.Whole, e.LeftOut = r.Unchanged, r.Sent, r.Spawned, r.LeftOut
		g.stats.Snapshots++
		g.stats.LeftOut += uint64(e.LeftOut)
		if e.Delta {
			g.stats.Deltas++
		}
		if g.cfg.OnSnapshot != nil {
			g.cfg.OnSnapshot(e)
		}
	}}
	if g.cfg.OnSnapshot != nil {
		rc.OnEntity = func(_ int, e *replica.Entity, bits float64) {
			if v := e.State.Vel; math.Abs(v.X) < restSpeed && math.Abs(v.Y) < restSpeed && math.Abs(v.Z) < restSpeed {
				g.enc.Rest++
				g.enc.RestBits += bits
			}
		}
	}
	return Schema, rc
}

// Replicate implements server.Replicated: every sphere, its id its index.
func (g *Game) Replicate(w *replica.World) {
	for i := range g.w.n {
		b := g.w.phys.Body(physics.BodyID(i))
		w.Add(replica.Entity{ID: uint32(i), Kind: KindBody, State: kinematic.State{Pos: b.Pos, Vel: b.Vel}})
	}
}

var (
	_ server.Game       = (*Game)(nil)
	_ server.Replicated = (*Game)(nil)
)
