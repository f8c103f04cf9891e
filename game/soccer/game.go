package soccer

import (
	"errors"
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/server"
)

// Entity ids: the ball is BallID, the player in slot i is FirstPlayerID + i.
const (
	BallID        uint32 = 0
	FirstPlayerID uint32 = 1
	// NoPlayer stands for no player (a free ball).
	NoPlayer = ^uint32(0)
)

// Entity kinds, as clients see them.
const (
	KindBall   uint8 = 0
	KindPlayer uint8 = 1
)

// Teams. Home attacks the goal at +X, away the goal at -X.
const (
	Home uint8 = 0
	Away uint8 = 1
)

// Event kinds.
const (
	EventKick    uint8 = 1 // Entity the ball, Actor the kicker, Arg the Action; with the ball's state
	EventTackle  uint8 = 2 // Entity the ball, Actor the tackler, Arg the tackled player; with the ball's state
	EventGoal    uint8 = 3 // Actor the last player to touch the ball (or NoPlayer), Arg the scoring team
	EventKickoff uint8 = 4 // everything teleported to the kickoff positions
	EventRestart uint8 = 5 // the ball left the field and was put back; with the ball's state, a Cut
)

// ErrFull is returned by Join when every player slot is taken.
var ErrFull = errors.New("tether/soccer: no free player slot")

// contactKnotSpeed is the impact speed (m/s) above which a ball contact gets
// an extra snapshot: a bounce, not a ball rolling.
const contactKnotSpeed = 0.5

// player is a player slot of the server's match: the part the match step
// moves (onPitch), whose client controls it and on which team, its inputs
// and the actions they asked for and, for a predicted player, its moves.
type player struct {
	onPitch
	client int
	team   uint8
	gen    uint8
	prev   sentPose // as the previous tick left it

	in          Input
	acted       time.Duration // when its client made the newest action (server time: the input's send time less its ActionAge; 0: unknown)
	actedView   time.Duration // the server time the client was showing then
	kickFrom    geom.Vec3     // where the newest action claims the ball left from (Input.KickFrom)
	actionSeq   uint8
	anyInput    bool
	tackleReady time.Duration

	// A predicted player's moves (nil for one driven by plain inputs),
	// replayed in the world; the state after its newest move is mv.State(),
	// that move's end mv.End().
	mv       *movement.Replayed[PlayerState, MoveInput]
	movedGen uint8     // the teleport generation of mv.State() (Teleport calls)
	coasting bool      // shown past its newest move (its moves are late): the world moves it on at its velocity, not by its input
	want     geom.Vec3 // the velocity it runs toward as the last tick left it (see Game.wants)
}

// Game is the authoritative soccer match: a physics world with the pitch, the
// ball and a pool of player capsules, and the rules. It implements
// server.Game. It is not safe for concurrent use.
//
// Its parts, by concern: the match world and its step (match, step.go),
// shared with clients' Worlds; the rules of play the server alone applies
// after it (play.go); lag compensation (lag, rewind.go); what snapshots need
// of the ticks before (sent, snapshot.go); and the bookkeeping of predicted
// players (moves, predicted.go).
type Game struct {
	match // the world and who has the ball, stepped by the match step

	players  []player
	byClient map[int]int // client slot → player index

	lastToucher int           // player slot, -1 for none
	ballGen     uint8         // the ball's teleport generation
	score       [2]int        // goals of Home and Away
	pauseUntil  time.Duration // after a goal, server time; 0 when playing
	tick        uint64

	// What the tick being stepped (and, between ticks, the last) did.
	knot bool // the ball's velocity jumped
	// jumped says the ball's position jumped: a kick made as of an earlier
	// tick and brought to the present, or from where its client claimed
	// the ball was, a ball pushed out of a player it was pressed into, or a
	// ball carried by a predicted player whose moves came back after an
	// outage too long to blend. Its state is sent as a Cut: no curve joins
	// it to the last.
	jumped  bool
	kickoff bool // everything teleported
	restart bool // the ball was put back on the pitch

	lag   lagComp   // rewind.go
	sent  sendState // snapshot.go
	moves moveBook  // predicted.go
	rep   repState  // replica.go
	stats GameStats
}

// GameStats counts what happened in a match.
type GameStats struct {
	Kicks, Passes, Shots    uint64
	Tackles, TacklesWon     uint64
	Possessions             uint64 // times a player won a free ball
	Goals                   uint64
	Kickoffs, Restarts      uint64
	BadInputs               uint64 // inputs (or packets of moves) that did not decode
	KicksBackdated          uint64 // kicks made as of a past tick, when their client made them
	KicksClaimed            uint64 // kicks made from where their client claimed the ball was (Input.KickFrom)
	Rewinds, RewindsClamped uint64 // tackles judged in the past; of which asked further back than MaxRewind
}

// NewGame returns a match under rules (zero fields taking their defaults)
// with no players, its world stepping at tickHz, the ball on the centre spot.
func NewGame(rules Rules, tickHz int) (*Game, error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	rules = rules.WithDefaults()
	g := &Game{lastToucher: -1, byClient: map[int]int{}, players: make([]player, rules.MaxPlayers)}
	slots := make([]*onPitch, len(g.players))
	for i := range g.players {
		g.players[i].client = -1
		slots[i] = &g.players[i].onPitch
	}
	var err error
	if g.match, err = newMatch(rules, tickHz, slots); err != nil {
		return nil, err
	}
	if g.lag, err = newLagComp(rules, tickHz); err != nil {
		return nil, err
	}
	return g, nil
}

// Rules returns the rules the match plays by: those it was made with, zero
// fields filled (Rules.WithDefaults).
func (g *Game) Rules() Rules { return g.rules }

// Stats returns the match's counters.
func (g *Game) Stats() GameStats { return g.stats }

// Score returns the goals of Home and Away.
func (g *Game) Score() [2]int { return g.score }

// Join implements server.Game: the client gets a free player slot on the team
// with fewer players (Home on a tie), at its team's kickoff position.
func (g *Game) Join(client int) (uint32, error) {
	if _, ok := g.byClient[client]; ok {
		return 0, fmt.Errorf("tether/soccer: client %d already has a player", client)
	}
	slot := -1
	var n [2]int
	for i := range g.players {
		if g.players[i].active {
			n[g.players[i].team]++
		} else if slot < 0 {
			slot = i
		}
	}
	if slot < 0 {
		return 0, ErrFull
	}
	team := Home
	if n[Away] < n[Home] {
		team = Away
	}
	p := &g.players[slot]
	*p = player{onPitch: onPitch{active: true, body: p.body}, client: client, team: team, gen: p.gen + 1}
	g.byClient[client] = slot
	p.st, p.vel, p.turn = g.kickoffState(slot), geom.Vec3{}, 0
	g.world.SetBody(p.body, physics.BodyState{Pos: p.st.Pos})
	return FirstPlayerID + uint32(slot), nil
}

// Leave implements server.Game: the client's player leaves the pitch; a ball it
// had is left free where it is.
func (g *Game) Leave(client int) {
	slot, ok := g.byClient[client]
	if !ok {
		return
	}
	delete(g.byClient, client)
	if g.possessor == slot {
		g.possessor = -1
		g.knot = true
	}
	if g.lastToucher == slot {
		g.lastToucher = -1
	}
	p := &g.players[slot]
	if p.mv != nil {
		g.moves.left.Add(p.mv.Stats())
	}
	p.active, p.client = false, -1
	g.world.SetBody(p.body, physics.BodyState{Pos: parked(slot)})
	g.world.SetVelocity(p.body, geom.Vec3{})
}

// Input implements server.Game: the newest input of each client drives its
// player from the next tick on; a packet of moves (package movement, in.Moves
// set) from a predicting client is applied at once, and its player is a predicted one
// from then on (plain inputs are then ignored).
func (g *Game) Input(client int, in server.Input) {
	slot, ok := g.byClient[client]
	if !ok {
		return
	}
	if in.Moves {
		g.moveInput(slot, in.Arrival, in.Data)
		return
	}
	if g.players[slot].mv != nil {
		return
	}
	var d Input
	if _, err := DecodeInput(&d, in.Data); err != nil {
		g.stats.BadInputs++
		return
	}
	var acted, view time.Duration // 0: unknown
	if in.Sent > 0 {
		acted = max(0, in.Sent-d.ActionAge)
	}
	if in.View > 0 {
		view = max(0, in.View-d.ActionAge)
	}
	g.players[slot].take(d, acted, view)
}

// take makes in the player's newest input: an action it asks for anew
// (a new ActionSeq) was made at server time acted, its client showing view
// then (0: unknown). The first input's action sequence is where the client
// starts: it triggers nothing.
func (p *player) take(in Input, acted, view time.Duration) {
	if !p.anyInput {
		p.actionSeq, p.anyInput = in.ActionSeq, true
	}
	if in.ActionSeq != p.in.ActionSeq {
		p.acted, p.actedView, p.kickFrom = acted, view, in.KickFrom
	}
	p.in = in
}

// Step implements server.Game: it moves the players by their inputs, steps the
// world, applies possession, goals, kicks and tackles, and asks for an extra
// snapshot when the ball's motion jumped.
func (g *Game) Step(t server.Tick, events server.Emitter) bool {
	g.keepPrevious()
	g.tick, g.now, g.dt = t.N, t.Time, t.Dt
	g.knot, g.jumped, g.kickoff, g.restart = false, false, false, false
	g.carrierJump = geom.Vec3{}
	g.drive(t)
	free := g.possessor < 0
	won := g.step(t.Time)
	if free {
		for _, c := range g.world.Contacts() {
			if c.Body == g.ball && c.Speed > contactKnotSpeed {
				g.knot = true
				break
			}
		}
	}
	if won >= 0 {
		g.wonBy(won)
	}
	if g.paused && g.now >= g.pauseUntil {
		g.resetKickoff(events)
	}
	if !g.paused {
		g.checkGoal(events)
	}
	g.checkOut(events)
	if !g.paused {
		g.actions(events)
	}
	g.wants()
	g.keepKnot()
	g.recordEnv()
	g.recordPoses()
	return g.knot || g.kickoff
}

// drive sets every player's motion for tick t before the match step: a
// player driven by inputs runs by Rules.Move under its newest input; a
// predicted one follows its replayed moves (follows, next).
func (g *Game) drive(t server.Tick) {
	r := &g.rules
	for i := range g.players {
		p := &g.players[i]
		if !p.active {
			continue
		}
		if p.mv != nil {
			// Moved by its moves: along its replayed path, unpushed.
			var jumped bool
			if p.next, jumped = g.present(p, t.Time); jumped {
				// Its moves came back after an outage too long to blend:
				// it jumps, and clients draw a jump. It is put a tick back
				// along its run from where it lands, so that it is not
				// swept through the world at the speed of the jump, and
				// neither is a ball it carries.
				p.gen++
				was := p.st
				p.st.Pos, p.st.Yaw = p.next.Pos.AddScaled(p.next.Vel, -t.Dt.Seconds()), p.next.Yaw
				g.world.SetBody(p.body, physics.BodyState{Pos: p.st.Pos})
				if g.possessor == i {
					off := g.carryOff
					g.carrierJump = p.st.Pos.Add(p.st.Rot().Rotate(off)).Sub(was.Pos.Add(was.Rot().Rotate(off)))
					g.jumped = true
				}
			}
			p.turn = angleDiff(p.next.Yaw, p.st.Yaw) / t.Dt.Seconds()
			g.world.SetVelocity(p.body, p.next.Pos.Sub(p.st.Pos).Scale(1/t.Dt.Seconds()))
			continue
		}
		st := r.Move(p.st, p.in, g.possessor == i, t.Dt)
		p.turn = angleDiff(st.Yaw, p.st.Yaw) / t.Dt.Seconds()
		p.st.Vel, p.st.Yaw = st.Vel, st.Yaw
		g.world.SetVelocity(p.body, st.Vel)
	}
}

// wants sets the velocity each player runs toward, which snapshots send for
// clients to extrapolate it by (PlayerExtrapolator): the one its newest input
// asks for, but for a predicted player whose moves are late, which the world
// moves on at the velocity it has.
func (g *Game) wants() {
	for i := range g.players {
		p := &g.players[i]
		if _, p.want = g.rules.wanted(p.in, g.possessor == i); p.mv != nil && p.coasting {
			p.want = p.vel
		}
	}
}

// wonBy counts a possession won by player i (the match step's or a
// rewind's): it touched the ball last, and the ball's motion jumped.
func (g *Game) wonBy(i int) {
	g.lastToucher = i
	g.stats.Possessions++
	g.knot = true
}
