package soccer

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/timeline"
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

	// A predicted player's moves (nil for one driven by plain inputs).
	mv       *movement.Server[PlayerState, MoveInput]
	show     *timeline.Timeline // its applied moves, replayed in the world
	moved    PlayerState        // the state after its newest move
	movedAt  time.Duration      // that move's end
	movedGen uint8              // the teleport generation of moved (Teleport calls)
	coasting bool               // shown past its newest move (its moves are late): the world moves it on at its velocity, not by its input
	want     geom.Vec3          // the velocity it runs toward as the last tick left it (see Game.wants)
}

// Game is the authoritative soccer match: a physics world with the pitch, the
// ball and a pool of player capsules, and the rules. It implements
// server.Game. It is not safe for concurrent use.
type Game struct {
	match // the world and who has the ball, stepped by the match step
	// rewind is a second world like world, in which a kick made in the
	// past is brought to the present (see kick).
	rewind     *physics.World
	rewindBall physics.BodyID
	rewindCaps []physics.BodyID

	players  []player
	byClient map[int]int // client slot → player index

	lastToucher int
	ballGen     uint8
	score       [2]int
	pauseUntil  time.Duration // after a goal; 0 when playing

	tick uint64

	history *event.History

	knot bool // the ball's velocity jumped this tick
	// jumped says the ball's position jumped this tick: a kick made as of an
	// earlier tick and brought to the present, or from where its client
	// claimed the ball was, a ball pushed out of a player it was pressed
	// into, or a ball carried by a predicted player whose moves came back
	// after an outage too long to blend. Its state is sent as a Cut: no curve
	// joins it to the last.
	jumped        bool
	kickoff       bool // everything teleported this tick
	restart       bool // the ball was put back on the pitch this tick
	prevPossessor int
	prevCarryOff  geom.Vec3
	prevSent      bool
	sentTick      uint64
	prevTime      time.Duration
	repeat        knotState // repeated in regular snapshots for KnotRepeat
	stats         GameStats

	moveCfg movement.ServerConfig
	onMove  func(client int, m *movement.Move[MoveInput], s PlayerState)
	arrival time.Duration // the server time the packet of moves being applied arrived
	envRing []envTick
	envHead int
	envN    int
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
	if g.rewind, g.rewindBall, g.rewindCaps, err = newWorld(rules, tickHz); err != nil {
		return nil, err
	}
	depth := int(rules.MaxRewind/g.dt) + 3
	if g.history, err = event.NewHistory(depth, rules.MaxPlayers+1); err != nil {
		return nil, err
	}
	return g, nil
}

// newWorld builds the match's physics world: the pitch, the ball on the centre
// spot and a parked capsule for each player.
func newWorld(rules Rules, tickHz int) (*physics.World, physics.BodyID, []physics.BodyID, error) {
	w, err := physics.NewWorld(physics.Config{StepHz: tickHz})
	if err != nil {
		return nil, 0, nil, err
	}
	if _, err := rules.Pitch.AddTo(w); err != nil {
		return nil, 0, nil, err
	}
	b := rules.Ball
	b.Pos = geom.V(0, b.Radius, 0)
	ball, err := w.AddSphere(b)
	if err != nil {
		return nil, 0, nil, err
	}
	caps := make([]physics.BodyID, rules.MaxPlayers)
	for i := range caps {
		c := rules.Player
		c.Pos = parked(i)
		if caps[i], err = w.AddCapsule(c); err != nil {
			return nil, 0, nil, err
		}
	}
	return w, ball, caps, nil
}

// parked is where an unused player capsule waits, far outside the pitch.
func parked(i int) geom.Vec3 { return geom.V(1000+3*float64(i), 0, 1000) }

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
	p := &g.players[slot]
	if !p.anyInput {
		// The first input's action sequence is where the client starts: it
		// triggers nothing.
		p.actionSeq = d.ActionSeq
		p.anyInput = true
	}
	if d.ActionSeq != p.in.ActionSeq {
		p.acted, p.actedView, p.kickFrom = 0, 0, d.KickFrom // 0: unknown
		if in.Sent > 0 {
			p.acted = max(0, in.Sent-d.ActionAge)
		}
		if in.View > 0 {
			p.actedView = max(0, in.View-d.ActionAge)
		}
	}
	p.in = d
}

// kickoffState returns where the player in slot stands at a kickoff: its team's
// half, in a formation by its rank among its team's active players.
func (g *Game) kickoffState(slot int) PlayerState {
	p := &g.players[slot]
	rank := 0
	for i := range slot {
		if g.players[i].active && g.players[i].team == p.team {
			rank++
		}
	}
	spots := [...][2]float64{{-9, 0}, {-22, -14}, {-22, 14}, {-34, 0}, {-14, -26}, {-14, 26}, {-40, -18}, {-40, 18}, {-4, -20}, {-4, 20}, {-48, 0}}
	s := spots[rank%len(spots)]
	x, z := s[0]-float64(rank/len(spots))*2, s[1]
	yaw := 0.0
	if p.team == Away {
		x, z, yaw = -x, -z, math.Pi
	}
	return PlayerState{Pos: geom.V(x, 0, z), Yaw: yaw}
}

// attackDir is +1 for Home (attacking +X) and -1 for Away.
func attackDir(team uint8) float64 {
	if team == Home {
		return 1
	}
	return -1
}

// Step implements server.Game: it moves the players by their inputs, steps the
// world, applies possession, goals, kicks and tackles, and asks for an extra
// snapshot when the ball's motion jumped.
func (g *Game) Step(t server.Tick, events server.Emitter) bool {
	g.prevSent = g.tick > 0 && g.sentTick == g.tick
	g.prevTime = g.now
	g.prevPossessor, g.prevCarryOff = g.possessor, g.carryOff
	for i := range g.players {
		p := &g.players[i]
		p.prev = g.pose(i)
	}
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
	if g.knot && g.possessor < 0 && !g.kickoff && !g.restart {
		g.repeat = knotState{ok: true, t: g.now, gen: g.ballGen, ball: g.world.Body(g.ball), cut: g.jumped}
	}
	g.record()
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

// catchUp brings a ball kicked back ticks ago, in state b then, to the
// present, in the rewind world: the pitch, the ball and every player's
// capsule run along its recorded path (History), so that the ball meets the
// players it would have. A player touching it on the way wins it then, as
// touch would have had it, and carries it now.
func (g *Game) catchUp(b physics.BodyState, back int) {
	at := func(i int, t time.Duration) (PlayerState, bool) {
		p := &g.players[i]
		if t >= g.now {
			return p.st, true
		}
		pose, ok := g.history.At(FirstPlayerID+uint32(i), t)
		return PlayerState{Pos: pose.Pos, Yaw: YawOfRot(pose.Rot)}, ok
	}
	g.rewind.SetBody(g.rewindBall, b)
	for k := back; k > 0; k-- {
		from, to := g.now-time.Duration(k)*g.dt, g.now-time.Duration(k-1)*g.dt
		for i, id := range g.rewindCaps {
			a, ok1 := at(i, from)
			c, ok2 := at(i, to)
			if !g.players[i].active || !ok1 || !ok2 {
				g.rewind.SetBody(id, physics.BodyState{Pos: parked(i)})
				g.rewind.SetVelocity(id, geom.Vec3{})
				continue
			}
			g.rewind.SetBody(id, physics.BodyState{Pos: a.Pos})
			g.rewind.SetVelocity(id, c.Pos.Sub(a.Pos).Scale(1/g.dt.Seconds()))
		}
		g.rewind.Step()
		ball := g.rewind.Body(g.rewindBall)
		if q := g.toucher(ball.Pos, to, func(i int) (PlayerState, bool) { return at(i, to) }); q >= 0 {
			st, _ := at(q, to)
			g.win(q, st.Rot().Conj().Rotate(ball.Pos.Sub(st.Pos)), to)
			g.wonBy(q)
			g.carry()
			return
		}
	}
	g.world.SetBody(g.ball, g.rewind.Body(g.rewindBall))
}

// checkGoal scores a ball wholly over a goal line between the posts and under
// the crossbar.
func (g *Game) checkGoal(events server.Emitter) {
	b := g.world.Body(g.ball)
	pt := g.rules.Pitch
	r := g.rules.Ball.Radius
	if math.Abs(b.Pos.X) < pt.Length/2+r || math.Abs(b.Pos.Z) > pt.GoalWidth/2 || b.Pos.Y > pt.GoalHeight {
		return
	}
	team := Home
	if b.Pos.X < 0 {
		team = Away
	}
	g.score[team]++
	g.stats.Goals++
	if g.possessor >= 0 {
		g.possessor = -1
		g.knot = true
	}
	actor := NoPlayer
	if g.lastToucher >= 0 {
		actor = FirstPlayerID + uint32(g.lastToucher)
	}
	events.Emit(event.Event{Kind: EventGoal, Time: g.now, Entity: BallID, Actor: actor, Arg: uint32(team)})
	g.paused, g.pauseUntil = true, g.now+g.rules.GoalPause
}

// checkOut puts back a ball that left the field over the boards.
func (g *Game) checkOut(events server.Emitter) {
	b := g.world.Body(g.ball)
	pt := g.rules.Pitch
	lx, lz := pt.Length/2+pt.Margin, pt.Width/2+pt.Margin
	if b.Pos.IsFinite() && math.Abs(b.Pos.X) < lx+0.5 && math.Abs(b.Pos.Z) < lz+0.5 && b.Pos.Y > -0.5 {
		return
	}
	x, z := b.Pos.X, b.Pos.Z
	if !b.Pos.IsFinite() {
		x, z = 0, 0
	}
	in := geom.V(math.Max(-lx+2, math.Min(lx-2, x)), g.rules.Ball.Radius, math.Max(-lz+2, math.Min(lz-2, z)))
	g.world.SetBody(g.ball, physics.BodyState{Pos: in})
	g.possessor = -1
	g.ballGen++
	g.knot, g.restart = true, true
	g.stats.Restarts++
	events.Emit(event.Event{Kind: EventRestart, Time: g.now, Entity: BallID, Actor: NoPlayer, HasState: true,
		State: bodyOf(g.now, g.world.Body(g.ball), true, true)})
}

// resetKickoff teleports everyone to the kickoff positions.
func (g *Game) resetKickoff(events server.Emitter) {
	g.paused = false
	for i := range g.players {
		p := &g.players[i]
		if !p.active {
			continue
		}
		p.st, p.vel, p.turn = g.kickoffState(i), geom.Vec3{}, 0
		p.gen++
		g.teleportMoved(p)
		g.world.SetBody(p.body, physics.BodyState{Pos: p.st.Pos})
		g.world.SetVelocity(p.body, geom.Vec3{})
		p.noTouchUntil = 0
	}
	g.world.SetBody(g.ball, physics.BodyState{Pos: geom.V(0, g.rules.Ball.Radius, 0)})
	g.possessor, g.lastToucher = -1, -1
	g.ballGen++
	g.kickoff, g.knot = true, true
	g.stats.Kickoffs++
	events.Emit(event.Event{Kind: EventKickoff, Time: g.now, Entity: BallID, Actor: NoPlayer})
}

// actions runs the kicks and tackles asked for by inputs since the last tick.
func (g *Game) actions(events server.Emitter) {
	for i := range g.players {
		p := &g.players[i]
		if !p.active || !p.anyInput || p.in.ActionSeq == p.actionSeq {
			continue
		}
		p.actionSeq = p.in.ActionSeq
		switch p.in.Action {
		case ActionPass, ActionShot:
			if g.possessor == i {
				g.kick(i, events)
			}
		case ActionTackle:
			if g.possessor >= 0 && g.possessor != i && g.players[g.possessor].team != p.team && g.now >= p.tackleReady {
				g.tackle(i, events)
			}
		}
	}
}

// kick kicks the ball at player i's feet as of the moment its client made
// the kick: at the tick nearest the input's Sent time less its ActionAge
// (the input that first carried the kick may have been lost), but not before
// the player won the ball, nor more than MaxRewind ago. The ball leaves from
// where it was at that tick, or from where the input claims it was if that is
// within KickTolerance, and is brought to the present (catchUp). A client that
// predicts its own kick in its estimate of the present (package replicate's
// Resim) then needs no correction for the time its input took to arrive, nor
// for its estimate of where its own player stood; everyone else sees the ball
// leave that much further along. A predicted player (moves) kicks when its
// moves arrive: the world has it replayed behind its client, and the ball
// with it.
func (g *Game) kick(i int, events server.Emitter) {
	p := &g.players[i]
	b, kicker := g.world.Body(g.ball), p.st
	from := b.Pos
	back := 0
	if p.mv == nil && p.acted > 0 {
		acted := max(min(p.acted, g.now), g.now-g.rules.MaxRewind, g.carrySince)
		back = int((g.now - acted + g.dt/2) / g.dt)
	}
	at := g.now - time.Duration(back)*g.dt
	if back > 0 {
		ball, ok1 := g.history.At(BallID, at)
		pl, ok2 := g.history.At(FirstPlayerID+uint32(i), at)
		if ok1 && ok2 {
			b.Pos, b.Rot = ball.Pos, ball.Rot
			kicker = PlayerState{Pos: pl.Pos, Yaw: YawOfRot(pl.Rot)}
		} else {
			back, at = 0, g.now
		}
	}
	if c := p.kickFrom; c != (geom.Vec3{}) && c.Dist(b.Pos) <= g.rules.KickTolerance {
		b.Pos = c
		g.stats.KicksClaimed++
	}
	b = g.rules.kicked(b, p.in, kicker)
	g.world.SetBody(g.ball, b)
	g.possessor = -1
	p.noTouchUntil = at + g.rules.KickNoTouch
	if back > 0 {
		g.catchUp(b, back)
		g.stats.KicksBackdated++
	}
	if g.possessor < 0 {
		// Out of any player it was pressed into (a defender at the
		// dribble), here and not by the next step: the state sent is the
		// one the ball flies from.
		g.world.Separate(g.ball)
	}
	g.knot = true
	g.jumped = g.jumped || g.world.Body(g.ball).Pos != from
	g.stats.Kicks++
	if p.in.Action == ActionShot {
		g.stats.Shots++
	} else {
		g.stats.Passes++
	}
	events.Emit(event.Event{Kind: EventKick, Time: g.now, Entity: BallID, Actor: FirstPlayerID + uint32(i), Arg: uint32(p.in.Action),
		HasState: true, State: bodyOf(g.now, g.world.Body(g.ball), true, g.jumped)})
}

// tackle judges a tackle by player i on the ball's possessor where the
// tackling client saw both: at the server time it was showing, clamped to
// MaxRewind.
func (g *Game) tackle(i int, events server.Emitter) {
	p := &g.players[i]
	p.tackleReady = g.now + g.rules.TackleCooldown
	g.stats.Tackles++
	at := p.actedView
	if at < g.now-g.rules.MaxRewind {
		at = g.now - g.rules.MaxRewind
		g.stats.RewindsClamped++
	}
	if at > g.now {
		at = g.now
	}
	if at < g.now {
		g.stats.Rewinds++
	}
	v := g.possessor
	tp, ok1 := g.history.At(FirstPlayerID+uint32(i), at)
	vp, ok2 := g.history.At(FirstPlayerID+uint32(v), at)
	if !ok1 {
		tp.Pos = p.st.Pos
	}
	if !ok2 {
		vp.Pos = g.players[v].st.Pos
	}
	if math.Hypot(tp.Pos.X-vp.Pos.X, tp.Pos.Z-vp.Pos.Z) > g.rules.TackleReach {
		return
	}
	g.stats.TacklesWon++
	victim := &g.players[v]
	victim.noTouchUntil = g.now + g.rules.TackledNoTouch
	dir := victim.st.Pos.Sub(p.st.Pos)
	dir = geom.V(dir.X, 0, dir.Z).Norm()
	if dir.Len2() == 0 {
		dir = p.st.Forward()
	}
	b := g.world.Body(g.ball)
	from := b.Pos
	b.Vel = dir.Scale(g.rules.TacklePoke).Add(geom.V(victim.st.Vel.X, 0, victim.st.Vel.Z).Scale(0.5))
	b.AngVel = geom.V(b.Vel.Z/g.rules.Ball.Radius, 0, -b.Vel.X/g.rules.Ball.Radius)
	g.world.SetBody(g.ball, b)
	g.world.Separate(g.ball)
	g.possessor = -1
	g.lastToucher = i
	g.knot = true
	g.jumped = g.jumped || g.world.Body(g.ball).Pos != from
	events.Emit(event.Event{Kind: EventTackle, Time: g.now, Entity: BallID, Actor: FirstPlayerID + uint32(i), Arg: FirstPlayerID + uint32(v),
		HasState: true, State: bodyOf(g.now, g.world.Body(g.ball), true, g.jumped)})
}

// record adds this tick's poses to the rewind history and to the record moves
// meet.
func (g *Game) record() {
	g.recordEnv()
	g.history.Begin(g.now)
	b := g.world.Body(g.ball)
	g.history.Add(BallID, event.Pose{Pos: b.Pos, Vel: b.Vel, Rot: b.Rot})
	for i := range g.players {
		p := &g.players[i]
		if p.active {
			g.history.Add(FirstPlayerID+uint32(i), event.Pose{Pos: p.st.Pos, Vel: p.st.Vel, Rot: p.st.Rot()})
		}
	}
}

// History returns the rewind history of ball and player poses, one entry per
// tick over the last MaxRewind.
func (g *Game) History() *event.History { return g.history }
