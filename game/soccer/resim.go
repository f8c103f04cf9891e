package soccer

import (
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replicate"
)

// resimBall is the resim ball method of a client (ClientGame.BallMethod):
// Unreal Engine 5's resimulation (replicate.Resim) of the whole match world
// on the client, a World with the ball and every player's capsule stepped by
// the server's match step, with the client's own kicks predicted. It is the
// ball's replicate.View, fed whole snapshots (client.Watcher) rather than
// the ball's states alone.
//
// The Resim holds the bodies; resimBall performs its requests and keeps,
// beside each tick of its history, the rest of the match state at that tick
// (who has the ball, how the players face and turn, who may not win it). The
// snapshots feed it the server's states: the ball, each player
// (ReceiveBody), and the possession, facing and pause of their tick, which
// stay in the history for that tick as the bodies' do, so a re-simulation
// through it applies them again.
//
// The own kick (ClientGame.PrepareInput): when the client sends an input
// that kicks (a new action sequence with a pass or a shot) and its world has
// the ball at its own player's feet at the tick nearest the frame, the ball
// is kicked there as the server's Game kicks it, and the kicked state goes
// into the history for that tick like a server state, with the possession
// it implies: the rollback to it shows the ball leaving at the very next
// frame, and every later re-simulation through that tick repeats the kick.
// The inputs that may carry the kick claim where it left from
// (Input.KickFrom) and the aim it left with, which the server takes within
// Rules.KickTolerance. Until the server's states show the kick (the ball no
// longer at the own player's feet at a later tick), those that still show
// it carried there are set aside: they predate the server's receipt of the
// input. If none shows the kick within a round trip and 100 ms, the
// prediction was wrong, and the server's states are taken again.
type resimBall struct {
	world *World
	r     *replicate.Resim[replicate.NoInput]
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

	// The own kick's claimed origin (Input.KickFrom; zero: none) and the
	// aim it was kicked with, put in the inputs that carry it while the
	// server may still take them.
	claim    geom.Vec3
	claimAim geom.Vec3
	claimSeq uint8
	claimAt  time.Duration

	pending bool  // an own kick awaits the server's states showing it
	giveUp  int64 // the tick past which a state still showing no kick ends the wait
	measure bool  // the next Render applies the server's first state showing the kick
	kicks   []PredictedKick
}

// PredictedKick is an own kick a client predicted (the resim ball method).
type PredictedKick struct {
	At   time.Duration // server time of the tick it was applied at
	From geom.Vec3     // where the client's world had the ball then: the claim sent (Input.KickFrom)
	// Change is how much the kick changed the ball's velocity in the
	// client's world, m/s (a kick along a carried ball's path changes it
	// little).
	Change float64
	Until  time.Duration // server time past which a state still showing no kick ended the wait
	// Confirmed says the server's states showed the ball leave the own
	// player after it (this kick, or another way of losing the ball);
	// Correction is then how far, metres, the ball the client showed in the
	// present moved when they did.
	Confirmed  bool
	Correction float64
}

type playerSeen struct {
	gen   uint8
	known bool
}

// tickRecord is the match state at one tick of the history beside the
// bodies, and the server's parts of it for that tick.
type tickRecord struct {
	tick   int64
	filled bool       // ex holds the state the world ran from
	ex     worldState // the state the world ran from at this tick
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

// worldState is the part of a World's state that is not in its bodies.
type worldState struct {
	possession
	players []onPitch
}

func (e *worldState) save(w *World) {
	e.possession = w.possession
	e.players = append(e.players[:0], w.players...)
}

func (e *worldState) load(w *World) {
	w.possession = e.possession
	copy(w.players, e.players)
}

type serverPlayer struct {
	active    bool
	yaw, turn float64
}

// overlay puts the server's parts of the record into e.
func (rec *tickRecord) overlay(e *worldState) {
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
			p.active, p.st.Yaw, p.turn = sp.active, sp.yaw, sp.turn
		}
	}
}

func newResimBall(rules Rules, tickHz int) (*resimBall, error) {
	w, err := NewWorld(rules, tickHz)
	if err != nil {
		return nil, err
	}
	scratch := w.world.Save(nil)
	r, err := replicate.NewResim[replicate.NoInput](replicate.ResimConfig{Tick: w.dt, Bodies: len(scratch), Body: int(w.ball)})
	if err != nil {
		return nil, err
	}
	n := len(w.players)
	b := &resimBall{world: w, r: r, tick: w.dt, save: scratch, self: -1, poss: -1,
		recs: make([]tickRecord, r.HistoryTicks()), players: make([]playerSeen, n)}
	for i := range b.recs {
		b.recs[i].ex.players = make([]onPitch, n)
		b.recs[i].players = make([]serverPlayer, n)
	}
	return b, nil
}

func (b *resimBall) rec(k int64) *tickRecord {
	n := int64(len(b.recs))
	return &b.recs[((k%n)+n)%n]
}

// fixAt returns the record of tick k to put the server's parts in, or nil if
// k is out of the history. A record of a tick not yet simulated is taken over
// for it.
func (b *resimBall) fixAt(k int64) *tickRecord {
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
func (b *resimBall) fixed(rec *tickRecord) {
	if rec.filled {
		rec.overlay(&rec.ex)
	}
}

// snapshot takes a snapshot the client placed, arrived at estimated server
// time arrival.
func (b *resimBall) snapshot(s *client.Snapshot, arrival time.Duration) {
	k := tickOfTime(s.Time, b.tick)
	if score, err := DecodeScore(s.Meta); err == nil {
		if rec := b.fixAt(k); rec != nil {
			rec.fixPaused, rec.paused = true, score.Paused
			b.fixed(rec)
		}
	}
	var rec *tickRecord
	for i := range s.Entities {
		e := &s.Entities[i]
		switch e.Kind {
		case KindBall:
			b.ballState(e, arrival)
		case KindPlayer:
			slot := int(e.ID - FirstPlayerID)
			if e.ID < FirstPlayerID || slot >= len(b.players) {
				continue
			}
			if rec == nil {
				if rec = b.fixAt(k); rec != nil {
					rec.fixPlayers = true
					clear(rec.players)
				}
			}
			st := e.State
			seen := &b.players[slot]
			cut := seen.known && seen.gen != e.Gen
			seen.gen, seen.known = e.Gen, true
			b.r.ReceiveBody(int(b.world.players[slot].body), kinematic.State{Time: st.Time, Pos: st.Pos, Vel: st.Vel, Rot: geom.Identity, Cut: cut}, arrival)
			if rec != nil && st.Time == s.Time { // not a carrier's state of the tick before
				rec.players[slot] = serverPlayer{active: true, yaw: YawOfRot(st.Rot), turn: st.AngVel.Y}
			}
		}
	}
	if rec != nil {
		b.fixed(rec)
	}
}

// ballState takes one of the server's ball states.
func (b *resimBall) ballState(e *client.EntityState, arrival time.Duration) {
	st := e.State
	k := tickOfTime(st.Time, b.tick)
	if b.hasBall && k <= b.ballTick {
		return // older than one taken (or than the own kick)
	}
	poss := -1
	if slot := int(e.Parent - FirstPlayerID); e.Parent != client.NoParent && e.Parent >= FirstPlayerID && slot < len(b.players) {
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
			b.kicks[len(b.kicks)-1].Confirmed = true
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
	rec.released, rec.releasedTo = released, st.Time+b.world.rules.KickNoTouch
	b.fixed(rec)
}

// input takes the input sent after frame f, predicts the own kick it asks
// for, and puts the kick's claim in it.
func (b *resimBall) input(sent *Input, f *client.Frame) {
	if f.HasSelf && f.Self >= FirstPlayerID && int(f.Self-FirstPlayerID) < len(b.players) {
		b.self = int(f.Self - FirstPlayerID)
	}
	if b.claim != (geom.Vec3{}) && sent.ActionSeq == b.claimSeq && f.Server-b.claimAt <= MaxActionAge {
		sent.KickFrom, sent.Aim = b.claim, b.claimAim // every input that may be the first to arrive with the kick
	}
	in, ok := asSent(*sent)
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
	if in.Action != ActionPass && in.Action != ActionShot || b.self < 0 || !f.Ready {
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
	rules := &b.world.rules
	kicker := PlayerState{Pos: rec.self, Yaw: rec.ex.players[b.self].st.Yaw}
	aim := sent.Aim
	sent.KickFrom = rec.ball.Pos
	if in, ok = asSent(*sent); ok && in.KickFrom != (geom.Vec3{}) {
		sent.Aim = rules.KickAim(in.Aim, kicker, in.KickFrom)
		in, ok = asSent(*sent)
	}
	if !ok || in.KickFrom == (geom.Vec3{}) {
		sent.KickFrom, sent.Aim = geom.Vec3{}, aim
		return
	}
	b.claim, b.claimAim, b.claimSeq, b.claimAt = in.KickFrom, in.Aim, in.ActionSeq, f.Server
	at := time.Duration(k) * b.tick
	kb := rec.ball
	kb.Pos = in.KickFrom
	kb = rules.kicked(kb, in, kicker)
	change := kb.Vel.Sub(rec.ball.Vel).Len()
	b.r.Receive(kb.State(at), f.Server)
	rec.fixBall, rec.possessor, rec.released, rec.releasedTo = true, -1, b.self, at+rules.KickNoTouch
	b.fixed(rec)
	b.ballTick, b.hasBall = k, true
	b.pending = true
	b.giveUp = k + int64((2*b.age+100*time.Millisecond)/b.tick) + 1
	b.kicks = append(b.kicks, PredictedKick{At: at, Until: time.Duration(b.giveUp) * b.tick, From: kb.Pos, Change: change})
}

// asSent returns in as the server decodes it.
func asSent(in Input) (Input, bool) {
	var buf [MaxInputSize]byte
	_, err := DecodeInput(&in, AppendInput(buf[:0], in))
	return in, err == nil
}

// Receive implements replicate.View: the ball's states reach the world with
// their snapshots (ClientGame.Placed), possession and players included.
func (*resimBall) Receive(kinematic.State, time.Duration) {}

// Render implements replicate.View: the world re-simulated as the Resim
// asks and brought to now, and the ball in it.
func (b *resimBall) Render(now time.Duration) replicate.Frame {
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
			b.kicks[len(b.kicks)-1].Correction = rec.ball.Pos.Dist(before)
		}
	}
	return b.r.Render(now)
}

// perform performs the Resim's requests on the world and keeps the match
// state beside each tick.
func (b *resimBall) perform(reqs []replicate.Request[replicate.NoInput]) {
	w := b.world
	for i := range reqs {
		q := &reqs[i]
		switch q.Kind {
		case replicate.SaveState:
			b.save = w.world.Save(b.save)
			for j, s := range b.save {
				q.Cell.Set(j, s.State(0))
			}
			rec := b.rec(q.Tick)
			if rec.tick != q.Tick {
				rec.tick = q.Tick
				rec.fixBall, rec.fixPaused, rec.fixPlayers = false, false, false
			}
			rec.ex.save(w)
			rec.filled = true
			rec.overlay(&rec.ex)
		case replicate.LoadState:
			for j := range b.save {
				b.save[j] = physics.BodyStateOf(q.Cell.Get(j))
			}
			_ = w.world.Restore(b.save) // one state per body: cannot fail
			rec := b.rec(q.Tick)
			rec.ex.load(w)
			rec.ball = w.world.Body(w.ball)
			if b.self >= 0 {
				rec.self = w.world.Body(w.players[b.self].body).Pos
			}
		case replicate.AdvanceTick:
			w.stepTo(time.Duration(q.Tick+1) * b.tick)
		}
	}
}

// tickOfTime returns the tick nearest server time t.
func tickOfTime(t, tick time.Duration) int64 {
	if t >= 0 {
		return int64((t + tick/2) / tick)
	}
	return -int64((-t + tick/2) / tick)
}
