package drill

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

// contactKnotSpeed is the impact speed, m/s, above which a contact earns an
// extra snapshot: a bounce, not a ball rolling.
const contactKnotSpeed = 0.5

// Game is the server side of the drill: a server.Game. Create it with
// NewGame.
type Game struct {
	world *physics.World
	ball  physics.BodyID
	kick  kicker
	tick  time.Duration

	last     Tick               // the tick just stepped
	prev     physics.BodyState  // the ball at the tick before it
	prevSent bool               // whether the tick before was in a snapshot
	sent     bool               // whether this tick is
	earlier  [1]kinematic.State // the tick before, as Replicate sends it
}

// Tick is the ball over one server tick, as the server computed it: the
// truth a lab measures clients against.
type Tick struct {
	N    uint64
	Time time.Duration
	// Ball is the ball leaving the tick (after a kick at it); VelIn its
	// velocity arriving (before the kick).
	Ball  physics.BodyState
	VelIn geom.Vec3
	// Contact marks a bounce inside the step that ended at this tick, at
	// server time ContactAt.
	Contact   bool
	ContactAt time.Duration
	Kicked    bool // a scripted kick at this tick
}

// NewGame returns the drill's server side for a server ticking at tickHz,
// its kicks seeded by seed.
func NewGame(seed uint64, tickHz int) (*Game, error) {
	w, ball, err := NewWorld(tickHz)
	if err != nil {
		return nil, err
	}
	g := &Game{world: w, ball: ball, kick: newKicker(seed), tick: time.Second / time.Duration(tickHz)}
	g.last.Ball = w.Body(ball)
	return g, nil
}

// Last returns the tick just stepped (at time 0, the ball at rest before the
// first).
func (g *Game) Last() Tick { return g.last }

// Join implements server.Game: every client watches; its Self is the ball,
// which nothing it sends moves.
func (g *Game) Join(int) (uint32, error) { return BallID, nil }

// Leave implements server.Game.
func (g *Game) Leave(int) {}

// Input implements server.Game: a drill has no inputs.
func (g *Game) Input(int, server.Input) {}

// Step implements server.Game: it steps the ball, kicks it if a kick is
// due, and asks for an extra snapshot at a kick or a bounce.
func (g *Game) Step(t server.Tick, _ server.Emitter) bool {
	g.prev, g.prevSent, g.sent = g.last.Ball, g.sent, false
	g.world.Step()
	tk := Tick{N: t.N, Time: t.Time}
	for _, c := range g.world.Contacts() {
		if c.Body == g.ball && c.Speed > contactKnotSpeed {
			tk.Contact, tk.ContactAt = true, t.Time-t.Dt+c.At
			break
		}
	}
	b := g.world.Body(g.ball)
	tk.VelIn = b.Vel
	if b, tk.Kicked = g.kick.kick(t.Time, b); tk.Kicked {
		g.world.SetBody(g.ball, b)
	}
	tk.Ball = g.world.Body(g.ball)
	g.last = tk
	return tk.Contact || tk.Kicked
}

// Replication implements server.Replicated: the drill's schema, and the
// layer's defaults.
func (g *Game) Replication() (*replica.Schema, replica.Config) { return Schema(), replica.Config{} }

// Replicate implements server.Replicated: the ball's state at this tick (a
// knot at a kick), and at a kick or a bounce the state of the tick before
// as an earlier sample if that tick was not sent.
func (g *Game) Replicate(w *replica.World) {
	tk := &g.last
	st := tk.Ball.State(tk.Time)
	st.Knot = tk.Kicked
	e := replica.Entity{ID: BallID, Kind: KindBall, State: st}
	if (tk.Contact || tk.Kicked) && !g.prevSent && tk.N > 1 {
		g.earlier[0] = g.prev.State(tk.Time - g.tick)
		e.Earlier = g.earlier[:]
	}
	g.sent = true
	w.Add(e)
}

var (
	_ server.Game       = (*Game)(nil)
	_ server.Replicated = (*Game)(nil)
)
