package soccer

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/movement"
)

// A predicted player (its client sends move packets, package movement) is
// moved by its moves as they arrive, not by the tick: the server applies them
// at once with Rules.Step, checks them, and answers. Its place in the world
// (what the ball meets, what snapshots carry, what tackles are judged
// against) is its applied moves replayed smoothly, through a timeline, a
// little behind the newest: moves arrive in bursts and the world must not
// jerk with them.

// moveBook is what the server keeps for its predicted players beyond each
// one's own (player.mv and the fields after it): the movement settings, the
// caller's hook, and the record of the world their moves meet.
type moveBook struct {
	cfg    movement.ServerConfig
	left   movement.ServerStats // the movement statistics of predicted players that left
	onMove func(client int, m *movement.Move[MoveInput], s PlayerState)
	env    []envTick // a ring over the last envRecord, by tick
	head   int       // the newest entry of env
	n      int       // entries of env filled
}

// envTick is the record of one tick a move's Env is looked up in: where every
// player was drawn from and who had the ball.
type envTick struct {
	t         time.Duration
	possessor int
	active    []bool
	pos       []geom.Vec3
	speed     []float64
}

// envRecord is how far back moves' views are looked up: moves can arrive late
// (after an outage the client resends what the server missed), and a move
// meets the world of its view time, up to movement's MaxViewLag before its
// end.
const envRecord = 3 * time.Second

// serverSim is the server's movement.Game for the player in slot: a move
// meets the world the server sent, at the move's view time.
type serverSim struct {
	moveCodec
	g    *Game
	slot int
}

func (s serverSim) Move(st PlayerState, m *movement.Move[MoveInput]) PlayerState {
	var env Env
	s.g.checkEnv(s.slot, m.View, st.Pos, &m.Input.Env, &env)
	return s.g.rules.Step(st, m.Input.Input, &env, m.Dt)
}

// recordEnv adds this tick to the record of the world moves meet.
func (g *Game) recordEnv() {
	if len(g.moves.env) == 0 {
		n := int(envRecord/g.dt) + 2
		g.moves.env = make([]envTick, n)
		for i := range g.moves.env {
			g.moves.env[i].active = make([]bool, len(g.players))
			g.moves.env[i].pos = make([]geom.Vec3, len(g.players))
			g.moves.env[i].speed = make([]float64, len(g.players))
		}
		g.moves.head = -1
	}
	g.moves.head = (g.moves.head + 1) % len(g.moves.env)
	g.moves.n = min(g.moves.n+1, len(g.moves.env))
	e := &g.moves.env[g.moves.head]
	e.t, e.possessor = g.now, g.possessor
	for i := range g.players {
		e.active[i] = g.players[i].active
		e.pos[i] = g.players[i].st.Pos
		e.speed[i] = g.players[i].vel.Len()
	}
}

// carryWindow: a move's claim of having the ball (or not) is accepted if the
// server's record agrees with it at some tick within this of the move's view
// time; the claim and the record can disagree only by a snapshot lost around a
// change of possession.
const carryWindow = 100 * time.Millisecond

// checkEnv sets env to the world the move of the player in slot starting at
// from meets at server time view: the players of the server's record then,
// within reach of from (interpolated between the ticks around view), each
// where the move's claim puts it if that is within Rules.ContactTolerance,
// plus the distance it runs in Rules.ContactLead at its highest speed over
// the ContactLead before view, of the record (a client
// draws the other players from the snapshots it got: a few millimetres off
// the record, more when it extrapolates a late one), and the ball's possession as
// claimed if the record has it so at some tick within carryWindow of view.
// A player the claim leaves out is in env all the same: a client cannot walk
// through another by not naming it.
func (g *Game) checkEnv(slot int, view time.Duration, from geom.Vec3, claim, env *Env) {
	*env = Env{}
	reach := g.rules.reach()
	var b near
	pos := func(i int, p geom.Vec3, speed float64) geom.Vec3 {
		id := FirstPlayerID + uint32(i)
		tol := g.rules.ContactTolerance + speed*g.rules.ContactLead.Seconds()
		for k := range min(claim.N, MaxNear) {
			if claim.ID[k] == id && math.Hypot(claim.Near[k].X-p.X, claim.Near[k].Z-p.Z) <= tol {
				return claim.Near[k]
			}
		}
		return p
	}
	if g.moves.n == 0 {
		env.Carrying = g.possessor == slot
		for i := range g.players {
			if i != slot && g.players[i].active {
				b.add(FirstPlayerID+uint32(i), pos(i, g.players[i].st.Pos, g.players[i].vel.Len()), from, reach)
			}
		}
		b.fill(env)
		return
	}
	at := func(age int) *envTick { return &g.moves.env[(g.moves.head-age+len(g.moves.env))%len(g.moves.env)] }
	a, c := at(0), at(0)
	aAge := 0
	for age := 0; age < g.moves.n; age++ {
		a, aAge = at(age), age
		if a.t <= view {
			break
		}
		c = a
	}
	u := 0.0
	if c.t > a.t && view > a.t {
		u = float64(view-a.t) / float64(c.t-a.t)
	}
	// A client drawing a player past its newest state runs it on at the
	// speed it had: the tolerance takes the fastest over the last
	// ContactLead, not only the speed at view.
	back := int(g.rules.ContactLead/g.dt) + 1
	for i := range g.players {
		if i == slot || !a.active[i] || !c.active[i] {
			continue
		}
		speed := c.speed[i]
		for age := aAge; age < min(g.moves.n, aAge+back); age++ {
			speed = max(speed, at(age).speed[i])
		}
		b.add(FirstPlayerID+uint32(i), pos(i, a.pos[i].Lerp(c.pos[i], u), speed), from, reach)
	}
	b.fill(env)
	env.Carrying = a.possessor == slot
	if claim.Carrying != env.Carrying {
		for age := 0; age < g.moves.n; age++ {
			e := at(age)
			if e.t < view-carryWindow {
				break
			}
			if e.t <= view+carryWindow && (e.possessor == slot) == claim.Carrying {
				env.Carrying = claim.Carrying
				break
			}
		}
	}
}

// startMoving turns the player in slot into a predicted one.
func (g *Game) startMoving(slot int) error {
	p := &g.players[slot]
	onMove := func(m *movement.Move[MoveInput], s PlayerState) {
		p := &g.players[slot]
		// Moves are applied in order, none lost: a new action is this
		// one's (a predicted player's kick is not backdated: Game.kick).
		p.take(m.Input.Input, 0, m.View)
		if g.moves.onMove != nil {
			g.moves.onMove(p.client, m, s)
		}
	}
	mv, err := movement.NewReplayed(g.moves.cfg, movement.ShownConfig{}, movement.Game[PlayerState, MoveInput](serverSim{g: g, slot: slot}),
		p.st, g.now, shownState, onMove)
	if err != nil {
		return err
	}
	p.mv, p.follows = mv, true
	return nil
}

// shownState is a predicted player as the world replays it (moveInput),
// after a move of dt from prev to s.
func shownState(prev, s PlayerState, dt time.Duration) kinematic.State {
	turn := 0.0
	if h := dt.Seconds(); h > 0 {
		turn = angleDiff(s.Yaw, prev.Yaw) / h
	}
	return kinematic.State{Pos: s.Pos, Vel: s.Vel, Rot: s.Rot(), AngVel: geom.V(0, turn, 0)}
}

// moveInput applies a packet of moves from the predicted player in slot,
// arrived at server time now.
func (g *Game) moveInput(slot int, now time.Duration, data []byte) {
	p := &g.players[slot]
	if p.mv == nil {
		if err := g.startMoving(slot); err != nil {
			g.stats.BadInputs++
			return
		}
	}
	if err := p.mv.Receive(max(now, g.now), data); err != nil {
		g.stats.BadInputs++
	}
}

// present returns where a predicted player stands in the world this tick:
// its applied moves replayed (movement.Replayed.At) at the tick's time; and
// whether it jumped there (its moves came back after an outage too long to
// blend).
func (g *Game) present(p *player, now time.Duration) (PlayerState, bool) {
	fr := p.mv.At(now)
	p.coasting = fr.Extrapolated || fr.Frozen
	if !fr.Valid {
		return p.st, false
	}
	return g.rules.clampPlayer(PlayerState{
		Pos: geom.V(fr.Pos.X, 0, fr.Pos.Z),
		Vel: geom.V(fr.Vel.X, 0, fr.Vel.Z),
		Yaw: YawOfRot(fr.Rot),
	}), fr.Snapped
}

// teleportMoved tells a predicted player's client and the world's replay of
// it that the game moved it to p.st.
func (g *Game) teleportMoved(p *player) {
	if p.mv == nil {
		return
	}
	p.mv.Teleport(p.st, g.now)
	p.movedGen++
}

// AppendReply implements server.Replier: a predicted player's
// acknowledgements, adjustments and resets.
func (g *Game) AppendReply(dst []byte, client int, now time.Duration) []byte {
	slot, ok := g.byClient[client]
	if !ok || g.players[slot].mv == nil {
		return dst
	}
	return g.players[slot].mv.AppendReply(dst, now)
}

// Movement returns the movement statistics of the client's predicted player,
// and false if it has none (not joined, or not predicted).
func (g *Game) Movement(client int) (movement.ServerStats, bool) {
	slot, ok := g.byClient[client]
	if !ok || g.players[slot].mv == nil {
		return movement.ServerStats{}, false
	}
	return g.players[slot].mv.Stats(), true
}

// MovementTotals returns the movement statistics of every predicted player
// the match has had, those that left included: counts that only grow.
func (g *Game) MovementTotals() movement.ServerStats {
	t := g.moves.left
	for i := range g.players {
		if p := &g.players[i]; p.active && p.mv != nil {
			t.Add(p.mv.Stats())
		}
	}
	return t
}

// SetOnMove sets a function called with every move of a predicted player
// applied, with its client slot, the move as applied and the state after it:
// the authoritative path a client's prediction is measured against. nil
// removes it.
func (g *Game) SetOnMove(fn func(client int, m *movement.Move[MoveInput], s PlayerState)) {
	g.moves.onMove = fn
}

// SetMovement configures the checks of predicted players that start from now
// on; the zero value gives movement's defaults.
func (g *Game) SetMovement(cfg movement.ServerConfig) { g.moves.cfg = cfg }
