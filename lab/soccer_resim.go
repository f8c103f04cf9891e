package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replicate"
)

// soccerResimBall is the resim method in the soccer game: Unreal Engine 5's
// resimulation (replicate.Resim) of the whole match world on the client — the
// ball and every player's capsule in a soccerWorld — with the client's own
// kicks predicted.
//
// The Resim holds the bodies; this driver performs its requests and keeps,
// beside each tick of its history, the rest of the match state at that tick
// (soccerExtras: who has the ball, how the players face and turn, who may not
// win it). The snapshots feed it the server's states: the ball, each player
// (ReceiveBody), and the possession, facing and pause of their tick, which
// stay in the history for that tick as the bodies' do, so a re-simulation
// through it applies them again.
//
// The own kick: when the client sends an input that kicks (a new action
// sequence with a pass or a shot) and its world has the ball at its own
// player's feet at the tick nearest the frame, the ball is kicked there as
// Game.kick would, and the kicked state goes into the history for that tick
// like a server state, with the possession it implies: the rollback to it
// shows the ball leaving at the very next frame, and every later
// re-simulation through that tick repeats the kick. Until the server's states
// show the kick (the ball no longer at the own player's feet at a later
// tick), those that still show it carried there are set aside: they predate
// the server's receipt of the input. If none shows the kick within a round
// trip and 100 ms, the prediction was wrong, and the server's states are
// taken again.
type soccerResimBall struct {
	world *soccerWorld
	r     *replicate.Resim[replicate.NoInput]
	rules soccer.Rules
	tick  time.Duration
	recs  []tickRecord // beside the Resim's history, by tick modulo its length
	save  []physics.BodyState

	self   int // own player slot, -1 until known
	seq    uint8
	hasSeq bool

	// The server's ball states fed so far.
	ballTick int64 // the newest one's tick (or the own kick's)
	hasBall  bool
	ballGen  uint8
	poss     int           // the possessor of the newest one, -1: free
	since    time.Duration // when that possessor won it
	from     geom.Vec3     // where it was in the possessor's frame then
	age      time.Duration // smoothed age of the ball states on arrival
	players  []playerSeen

	// The own kick's claimed origin (soccer.Input.KickFrom; zero: none)
	// and the aim it was kicked with, put in the inputs that carry it while
	// the server may still take them.
	claim    geom.Vec3
	claimAim geom.Vec3
	claimSeq uint8
	claimAt  time.Duration

	pending bool  // an own kick awaits the server's states showing it
	kickAt  int64 // its tick
	giveUp  int64 // the tick past which a state still showing no kick ends the wait
	measure bool  // the next Update applies the server's first state showing the kick
	kicks   []predictedKick
}

type playerSeen struct {
	gen   uint8
	known bool
}

// predictedKick is an own kick the client predicted.
type predictedKick struct {
	at         time.Duration // server time of the tick it was applied at
	from       geom.Vec3     // where the world had the ball then
	until      time.Duration // server time past which a state still showing no kick ended the wait
	confirmed  bool          // the server's states showed it (or that it was wrong)
	correction float64       // metres: how far the ball in the present moved when they did
}

// tickRecord is the match state at one tick of the history beside the
// bodies, and the server's parts of it for that tick.
type tickRecord struct {
	tick   int64
	filled bool         // ex holds the state the world ran from
	ex     soccerExtras // the state the world ran from at this tick
	ball   physics.BodyState
	self   geom.Vec3 // the own player's capsule then

	fixBall    bool // the server's (or the own kick's) possession at this tick
	possessor  int
	carryFrom  geom.Vec3
	carrySince time.Duration
	released   int // the player that lost the ball at this tick, -1: none
	releasedTo time.Duration
	fixPaused  bool
	paused     bool
	fixPlayers bool
	players    []serverPlayer
}

type serverPlayer struct {
	active    bool
	yaw, turn float64
}

// overlay puts the server's parts of the record into e.
func (rec *tickRecord) overlay(e *soccerExtras) {
	if rec.fixBall {
		e.possessor, e.carryFrom, e.carrySince = rec.possessor, rec.carryFrom, rec.carrySince
		if rec.released >= 0 {
			p := &e.players[rec.released]
			p.noTouchUntil = max(p.noTouchUntil, rec.releasedTo)
		}
	}
	if rec.fixPaused {
		e.paused = rec.paused
	}
	if rec.fixPlayers {
		for i, sp := range rec.players {
			p := &e.players[i]
			p.active, p.yaw, p.turn = sp.active, sp.yaw, sp.turn
		}
	}
}

func newSoccerResimBall(rules soccer.Rules, tickHz, players int) *soccerResimBall {
	w := newSoccerWorld(rules, tickHz, players)
	tick := time.Second / time.Duration(tickHz)
	scratch := w.w.Save(nil)
	r, err := replicate.NewResim[replicate.NoInput](replicate.ResimConfig{Tick: tick, Bodies: len(scratch), Body: int(w.ball)})
	if err != nil {
		panic(err) // the lab's own config
	}
	b := &soccerResimBall{world: w, r: r, rules: rules, tick: tick, save: scratch, self: -1, poss: -1,
		recs: make([]tickRecord, r.HistoryTicks()), players: make([]playerSeen, players)}
	for i := range b.recs {
		b.recs[i].ex.players = make([]playerExtras, players)
		b.recs[i].players = make([]serverPlayer, players)
	}
	return b
}

func (b *soccerResimBall) rec(k int64) *tickRecord {
	n := int64(len(b.recs))
	return &b.recs[((k%n)+n)%n]
}

// fixAt returns the record of tick k to put the server's parts in, or nil if
// k is out of the history. A record of a tick not yet simulated is taken over
// for it.
func (b *soccerResimBall) fixAt(k int64) *tickRecord {
	rec := b.rec(k)
	if rec.tick == k && (rec.filled || rec.fixBall || rec.fixPaused || rec.fixPlayers) {
		return rec
	}
	if cur, ok := b.r.Tick(); ok && (k > cur+1 || k < cur+2-int64(len(b.recs))) {
		return nil
	}
	rec.tick, rec.filled = k, false
	rec.fixBall, rec.fixPaused, rec.fixPlayers = false, false, false
	return rec
}

// fixed applies the server's parts of rec to the state the world ran from at
// its tick, if it ran from it already (a rollback may start there).
func (b *soccerResimBall) fixed(rec *tickRecord) {
	if rec.filled {
		rec.overlay(&rec.ex)
	}
}

func (b *soccerResimBall) snapshot(s *tclient.Snapshot, arrival time.Duration) {
	k := tickOfTime(s.Time, b.tick)
	if score, err := soccer.DecodeScore(s.Meta); err == nil {
		if rec := b.fixAt(k); rec != nil {
			rec.fixPaused, rec.paused = true, score.Paused
			b.fixed(rec)
		}
	}
	var rec *tickRecord
	for i := range s.Entities {
		e := &s.Entities[i]
		switch e.Kind {
		case soccer.KindBall:
			b.ballState(e, arrival)
		case soccer.KindPlayer:
			slot := int(e.ID - soccer.FirstPlayerID)
			if slot < 0 || slot >= len(b.players) {
				continue
			}
			if rec == nil {
				if rec = b.fixAt(k); rec != nil {
					rec.fixPlayers = true
					for j := range rec.players {
						rec.players[j] = serverPlayer{}
					}
				}
			}
			st := e.State
			seen := &b.players[slot]
			cut := seen.known && seen.gen != e.Gen
			seen.gen, seen.known = e.Gen, true
			b.r.ReceiveBody(int(b.world.caps[slot]), kinematic.State{Time: st.Time, Pos: st.Pos, Vel: st.Vel, Rot: geom.Identity, Cut: cut}, arrival)
			if rec != nil && st.Time == s.Time { // not a carrier's state of the tick before
				rec.players[slot] = serverPlayer{active: true, yaw: soccer.YawOfRot(st.Rot), turn: st.AngVel.Y}
			}
		}
	}
	if rec != nil {
		b.fixed(rec)
	}
}

// ballState takes one of the server's ball states.
func (b *soccerResimBall) ballState(e *tclient.EntityState, arrival time.Duration) {
	st := e.State
	k := tickOfTime(st.Time, b.tick)
	if b.hasBall && k <= b.ballTick {
		return // older than one taken (or than the own kick)
	}
	poss := -1
	if slot := int(e.Parent - soccer.FirstPlayerID); e.Parent != tclient.NoParent && slot >= 0 && slot < len(b.players) {
		poss = slot
	}
	if b.pending {
		switch {
		case poss == b.self && k <= b.giveUp:
			return // the server has not had the kick yet
		case poss == b.self:
			b.pending = false // it never kicked: the prediction was wrong
		default:
			b.pending, b.measure = false, true
			b.kicks[len(b.kicks)-1].confirmed = true
		}
	}
	cut := b.hasBall && e.Gen != b.ballGen
	b.ballGen = e.Gen
	if age := arrival - st.Time; !b.hasBall {
		b.age = age
	} else {
		b.age += (age - b.age) / 8
	}
	st.Cut = cut
	b.r.Receive(st, arrival)

	// Possession: a new possessor won the ball where and when the state's
	// blend says, or, with none, at this state's tick where the state has
	// it in the possessor's frame.
	rec := b.fixAt(k)
	released := -1
	if poss != b.poss {
		if b.poss >= 0 {
			released = b.poss
		}
		b.since, b.from = st.Time, e.Offset
		if e.Blend.Span > 0 {
			b.since, b.from = e.Blend.Since, e.Blend.From
		}
	}
	b.poss, b.ballTick, b.hasBall = poss, k, true
	if rec == nil {
		return
	}
	rec.fixBall, rec.possessor, rec.carryFrom, rec.carrySince = true, poss, b.from, b.since
	rec.released, rec.releasedTo = released, st.Time+b.rules.KickNoTouch
	b.fixed(rec)
}

func (b *soccerResimBall) input(sent *soccer.Input, f *tclient.Frame) {
	if f.HasSelf {
		b.self = int(f.Self - soccer.FirstPlayerID)
	}
	if b.claim != (geom.Vec3{}) && sent.ActionSeq == b.claimSeq && f.Server-b.claimAt <= soccer.MaxActionAge {
		sent.KickFrom, sent.Aim = b.claim, b.claimAim // every input that may be the first to arrive with the kick
	}
	in, ok := serverInput(*sent)
	if !ok {
		return
	}
	if !b.hasSeq {
		b.seq, b.hasSeq = in.ActionSeq, true // the first input triggers nothing
		return
	}
	if in.ActionSeq == b.seq {
		return
	}
	b.seq = in.ActionSeq
	if in.Action != soccer.ActionPass && in.Action != soccer.ActionShot || b.self < 0 || b.self >= len(b.players) || !f.Ready {
		return
	}
	cur, ok := b.r.Tick()
	k := min(tickOfTime(f.Server, b.tick), cur)
	rec := b.rec(k)
	if !ok || rec.tick != k || !rec.filled || rec.ex.possessor != b.self || rec.ex.paused || (b.hasBall && k <= b.ballTick) {
		return // not at our feet in the world: nothing to predict
	}
	// The claim, as the server will read it: where the ball left from, and
	// the aim it left with (turned by KickAim as this world has the kicker;
	// the server keeps an aim so sent unless its kicker is far off).
	kicker := soccer.PlayerState{Pos: rec.self, Yaw: rec.ex.players[b.self].yaw}
	aim := sent.Aim
	sent.KickFrom = rec.ball.Pos
	if in, ok = serverInput(*sent); ok && in.KickFrom != (geom.Vec3{}) {
		sent.Aim = b.rules.KickAim(in.Aim, kicker, in.KickFrom)
		in, ok = serverInput(*sent)
	}
	if !ok || in.KickFrom == (geom.Vec3{}) {
		sent.KickFrom, sent.Aim = geom.Vec3{}, aim
		return
	}
	b.claim, b.claimAim, b.claimSeq, b.claimAt = in.KickFrom, in.Aim, in.ActionSeq, f.Server
	at := time.Duration(k) * b.tick
	kb := rec.ball
	kb.Pos = in.KickFrom
	kb.Vel, kb.AngVel = b.rules.Kick(in.Action, b.rules.KickAim(in.Aim, kicker, kb.Pos), in.Power)
	b.r.Receive(kb.State(at), f.Server)
	rec.fixBall, rec.possessor, rec.released, rec.releasedTo = true, -1, b.self, at+b.rules.KickNoTouch
	b.fixed(rec)
	b.ballTick, b.hasBall = k, true
	b.pending, b.kickAt = true, k
	b.giveUp = k + int64((2*b.age+100*time.Millisecond)/b.tick) + 1
	b.kicks = append(b.kicks, predictedKick{at: at, until: time.Duration(b.giveUp) * b.tick, from: kb.Pos})
}

// serverInput returns in as the server decodes it.
func serverInput(in soccer.Input) (soccer.Input, bool) {
	var buf [soccer.MaxInputSize]byte
	_, err := soccer.DecodeInput(&in, soccer.AppendInput(buf[:0], in))
	return in, err == nil
}

func (b *soccerResimBall) render(f *tclient.Frame) ballFrame {
	now := f.Server
	var before geom.Vec3
	cur, measuring := b.r.Tick()
	measuring = measuring && b.measure
	if measuring {
		before = b.rec(cur).ball.Pos
	}
	b.perform(b.r.Update(now))
	if measuring {
		b.measure = false
		if rec := b.rec(cur); rec.tick == cur {
			b.kicks[len(b.kicks)-1].correction = rec.ball.Pos.Dist(before)
		}
	}
	fr := b.r.Render(now)
	return ballFrame{ok: fr.Valid, pos: fr.Pos, rot: fr.Rot, renderTime: fr.Time,
		extrapolated: fr.Extrapolated, frozen: fr.Frozen, cut: fr.Cut}
}

// perform performs the Resim's requests on the world and keeps the match
// state beside each tick.
func (b *soccerResimBall) perform(reqs []replicate.Request[replicate.NoInput]) {
	w := b.world
	for i := range reqs {
		q := &reqs[i]
		switch q.Kind {
		case replicate.SaveState:
			b.save = w.w.Save(b.save)
			for j, s := range b.save {
				q.Cell.Set(j, s.State(0))
			}
			rec := b.rec(q.Tick)
			if rec.tick != q.Tick {
				rec.tick = q.Tick
				rec.fixBall, rec.fixPaused, rec.fixPlayers = false, false, false
			}
			rec.ex.copyFrom(&w.ex)
			rec.filled = true
			rec.overlay(&rec.ex)
		case replicate.LoadState:
			for j := range b.save {
				b.save[j] = physics.BodyStateOf(q.Cell.Get(j))
			}
			_ = w.w.Restore(b.save) // one state per body: cannot fail
			rec := b.rec(q.Tick)
			w.ex.copyFrom(&rec.ex)
			rec.ball = w.w.Body(w.ball)
			if b.self >= 0 && b.self < len(w.caps) {
				rec.self = w.w.Body(w.caps[b.self]).Pos
			}
		case replicate.AdvanceTick:
			w.step(time.Duration(q.Tick+1) * b.tick)
		}
	}
}

func (b *soccerResimBall) resimTicks() (uint64, bool) { return b.r.Stats().ResimTicks, true }

// tickOfTime returns the tick nearest server time t.
func tickOfTime(t, tick time.Duration) int64 {
	if t >= 0 {
		return int64((t + tick/2) / tick)
	}
	return -int64((-t + tick/2) / tick)
}
