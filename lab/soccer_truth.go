package lab

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
)

// soccerTruth is the server's match after every tick, as the lab measures the
// clients against it: the ball's trajectory (SoccerBall), who had the ball,
// the players, and the kicks. A player whose generation changed in a tick
// was put there (a kickoff): it stays where it was until then.
type soccerTruth struct {
	rules soccer.Rules
	tick  time.Duration
	np    int // player slots

	ball    *SoccerBall
	balls   []physics.BodyState // the ball leaving tick n, for restore
	ticks   []soccerTick
	players []playerTruth     // players[(n-first)*np + slot] at tick n
	first   int               // the oldest tick whose players are held
	keep    bool              // hold every tick's players (else soccerKeep's)
	pcuts   [][]time.Duration // by slot: when the player was teleported
	kicks   []truthKick       // in order of time
	scratch soccer.Truth      // restore's

	stats soccer.GameStats // the server's counters after the previous tick
}

// SoccerBall is the soccer ball's true trajectory (Truth), recovered from
// the server's match after every tick (soccer.Truth) as exactly as that
// allows: the one truth the lab and tether demo measure the soccer ball
// against.
//
// Where the ball flew free over the tick, a private world with the pitch
// and the ball alone steps it from the earlier tick: when that lands on the
// later tick's position, as it does unless a player got in the way, its
// velocity on arrival and any bounce inside the step are the server's (a
// kick at the later tick changes only the velocity leaving it). Where a
// player got in the way, the ball follows the earlier tick's flight up to
// where the two ticks' flights pass closest and the later tick's after it.
// A carried ball moves with its carrier: at its place in the carrier's
// frame, the carrier's pose and that place both taken linearly between the
// ticks (the server's carry rule, at the lab's pose of the player between
// ticks). A ball whose generation changed in a tick was put there (a
// kickoff or a restart): it stays on the earlier tick's motion until then.
// A ball the server moved at a tick (Truth.BallJumped: a kick made as of an
// earlier tick and brought to the present, or from where its client claimed
// the ball was, or a ball pushed out of a player) stays on the earlier
// tick's motion until then too, and jumps there; no frame across that jump
// counts as a pop, whatever the method draws, as across a teleport. (A kick
// made as of an earlier tick can move the ball metres in one tick: distance
// tells nothing.) Where ticks are missing (a live server that skipped
// some), the ball between them is the cubic through both ticks.
type SoccerBall struct {
	Truth measure.Truth
	tick  time.Duration
	world *physics.World // the pitch and the ball alone
	wball physics.BodyID
	prev  soccer.Truth // the match after the previous tick
}

// NewSoccerBall starts the ball's trajectory of a server stepping at tickHz
// at the match start.
func NewSoccerBall(tickHz int, start *soccer.Truth) *SoccerBall {
	w, ball := newBallWorld(tickHz)
	b := &SoccerBall{Truth: measure.Truth{G: geom.V(0, -gravity, 0)}, tick: time.Second / time.Duration(tickHz), world: w, wball: ball}
	b.Truth.Add(measure.Sample{T: start.Time, Pos: start.Ball.Pos, Vel: start.Ball.Vel, VelIn: start.Ball.Vel})
	b.keep(start)
	return b
}

// keep copies t as the previous tick's match.
func (b *SoccerBall) keep(t *soccer.Truth) {
	players := append(b.prev.Players[:0], t.Players...)
	b.prev = *t
	b.prev.Players = players
}

// Tick adds the ball's sample of the server's match after its next tick.
func (b *SoccerBall) Tick(t *soccer.Truth) {
	a, prev := &b.prev.Ball, &b.prev
	pt := measure.Sample{T: t.Time, Pos: t.Ball.Pos, Vel: t.Ball.Vel, VelIn: t.Ball.Vel}
	h := b.tick.Seconds()
	switch {
	case t.BallGen != prev.BallGen:
		pt.Cut = true
	case t.BallJumped:
		pt.Jump = true
	case t.Time-prev.Time != b.tick:
		// Ticks missing: nothing is known of the steps between.
	case prev.Possessor != soccer.NoPlayer:
		// Carried over the step (and perhaps kicked or poked at its end).
		pt.VelIn = t.Ball.Pos.Sub(a.Pos).Scale(1 / h)
		if t.Possessor == prev.Possessor || t.Possessor == soccer.NoPlayer {
			b.carry(&pt, t)
		}
	default:
		b.world.SetBody(b.wball, *a)
		b.world.Step()
		s := b.world.Body(b.wball)
		if s.Pos.Dist(t.Ball.Pos) < 1e-9 {
			pt.VelIn = s.Vel
			for _, c := range b.world.Contacts() {
				if c.Body == b.wball && c.Speed > contactKnotSpeed {
					pt.Contact, pt.ContactAt = true, t.Time-b.tick+c.At
					break
				}
			}
			break
		}
		// A player got in the way: the contact is where the flights from
		// both ticks pass closest.
		tc := measure.ClosestApproach(a.Pos, a.Vel, t.Ball.Pos, t.Ball.Vel, h)
		pt.Contact, pt.ContactAt = true, t.Time-b.tick+time.Duration(tc*float64(time.Second))
	}
	b.Truth.Add(pt)
	b.keep(t)
}

// carry marks pt, the step into t, as carried by the previous tick's
// possessor, if that player was in play at both ends and not teleported
// between: the ball is then at its place in the player's frame, taken
// between the two ticks.
func (b *SoccerBall) carry(pt *measure.Sample, t *soccer.Truth) {
	find := func(ps []soccer.PlayerTruth) *soccer.PlayerTruth {
		for i := range ps {
			if ps[i].ID == b.prev.Possessor {
				return &ps[i]
			}
		}
		return nil
	}
	from, to := find(b.prev.Players), find(t.Players)
	if from == nil || to == nil || from.Gen != to.Gen {
		return
	}
	pose := func(p soccer.PlayerState, ball geom.Vec3) measure.Attachment {
		return measure.Attachment{Pos: p.Pos, Yaw: p.Yaw, Off: p.Rot().Conj().Rotate(ball.Sub(p.Pos))}
	}
	pt.Attached = true
	pt.Frame = [2]measure.Attachment{pose(from.PlayerState, b.prev.Ball.Pos), pose(to.PlayerState, pt.Pos)}
}

// soccerTick is the match at one tick beside the ball's and players' states.
type soccerTick struct {
	possessor  int // player slot, -1 when free
	carryFrom  geom.Vec3
	carrySince time.Duration
	paused     bool
}

type playerTruth struct {
	st      soccer.PlayerState
	gen     uint8         // its teleport generation
	ok      bool          // the slot is in play
	noTouch time.Duration // soccer.PlayerTruth.NoTouchUntil
}

// truthKick is a kick the server applied.
type truthKick struct {
	at   time.Duration // server time of the tick it was applied at
	slot int           // the kicker
	dv   float64       // how much it changed the ball's velocity, m/s
}

func newSoccerTruth(rules soccer.Rules, tickHz, players int, start *soccer.Truth) *soccerTruth {
	st := &soccerTruth{rules: rules, tick: time.Second / time.Duration(tickHz), np: players,
		ball: NewSoccerBall(tickHz, start), pcuts: make([][]time.Duration, players)}
	st.balls = append(st.balls, start.Ball)
	st.record(start)
	return st
}

// onTick records the server's state after a tick, with its counters then.
func (st *soccerTruth) onTick(t *soccer.Truth, stats soccer.GameStats) {
	prev := st.ticks[len(st.ticks)-1]
	st.ball.Tick(t)
	st.balls = append(st.balls, t.Ball)
	st.record(t)
	if stats.Kicks > st.stats.Kicks && prev.possessor >= 0 {
		dv := t.Ball.Vel.Sub(st.balls[len(st.balls)-2].Vel).Len()
		st.kicks = append(st.kicks, truthKick{at: t.Time, slot: prev.possessor, dv: dv})
	}
	st.stats = stats
	st.forget()
}

// soccerKeep is how far back the players' truth is held: further behind the
// newest tick than any client's render time of a player lags, or any
// oracle's state.
const soccerKeep = 10 * time.Second

// held returns player slot as tick k had it; the tick must be held.
func (st *soccerTruth) held(k, slot int) playerTruth {
	if k < st.first {
		panic(fmt.Sprintf("tether/lab: the players' truth of tick %d is forgotten (ticks from %d held)", k, st.first))
	}
	return st.players[(k-st.first)*st.np+slot]
}

// forget drops the players' truth no frame can still need, unless the run
// keeps it all; at most every soccerKeep, so that it copies little.
func (st *soccerTruth) forget() {
	keep := int(soccerKeep / st.tick)
	if st.keep || len(st.players)/st.np < 2*keep {
		return
	}
	drop := len(st.players)/st.np - keep
	st.players = st.players[:copy(st.players, st.players[drop*st.np:])]
	st.first += drop
}

// record appends the possession and the players of t.
func (st *soccerTruth) record(t *soccer.Truth) {
	k := soccerTick{possessor: -1, paused: t.Paused, carryFrom: t.CarryFrom, carrySince: t.CarrySince}
	if t.Possessor != soccer.NoPlayer {
		k.possessor = int(t.Possessor - soccer.FirstPlayerID)
	}
	base := len(st.players)
	st.players = append(st.players, make([]playerTruth, st.np)...)
	for _, p := range t.Players {
		if slot := int(p.ID - soccer.FirstPlayerID); slot >= 0 && slot < st.np {
			st.players[base+slot] = playerTruth{st: p.PlayerState, gen: p.Gen, ok: true, noTouch: p.NoTouchUntil}
			if base > 0 {
				if was := st.players[base-st.np+slot]; was.ok && was.gen != p.Gen {
					st.pcuts[slot] = append(st.pcuts[slot], t.Time)
				}
			}
		}
	}
	if k.possessor >= st.np {
		k.possessor = -1
	}
	st.ticks = append(st.ticks, k)
}

// Position returns the true position of player slot at server time t, and
// whether it was in play: between ticks on the straight line joining them,
// except across a teleport (a kickoff), before which it stood where it was.
func (st *soccerTruth) Position(slot int, t time.Duration) (geom.Vec3, bool) {
	n := len(st.ticks)
	if t <= 0 {
		p := st.held(0, slot)
		return p.st.Pos, p.ok
	}
	k := int((t + st.tick - 1) / st.tick)
	if k >= n {
		p := st.held(n-1, slot)
		return p.st.Pos, p.ok
	}
	a, b := st.held(k-1, slot), st.held(k, slot)
	switch {
	case !a.ok || t == time.Duration(k)*st.tick:
		return b.st.Pos, b.ok
	case !b.ok || b.gen != a.gen:
		return a.st.Pos, true
	}
	u := float64(t-time.Duration(k-1)*st.tick) / float64(st.tick)
	return a.st.Pos.Lerp(b.st.Pos, u), true
}

// Teleported reports whether player slot was teleported after server time
// t0 and up to t1, or at most span before t1.
func (st *soccerTruth) Teleported(slot int, t0, t1, span time.Duration) bool {
	for _, c := range st.pcuts[slot] {
		if c > t0 && c <= t1 || c <= t1 && t1-c < span {
			return true
		}
	}
	return false
}

// restore sets w to the server's state at tick k: the ball, the players at
// their running velocity, facing as they did and not turning (what the
// server does next is unknown), who has the ball, and who may not win it.
func (st *soccerTruth) restore(w *soccer.World, k int) {
	tk := st.ticks[k]
	t := &st.scratch
	*t = soccer.Truth{Time: time.Duration(k) * st.tick, Ball: st.balls[k], Possessor: soccer.NoPlayer, Paused: tk.paused,
		Players: t.Players[:0]}
	if tk.possessor >= 0 {
		t.Possessor, t.CarryFrom, t.CarrySince = soccer.FirstPlayerID+uint32(tk.possessor), tk.carryFrom, tk.carrySince
	}
	for i := range st.np {
		if p := st.held(k, i); p.ok {
			t.Players = append(t.Players, soccer.PlayerTruth{ID: soccer.FirstPlayerID + uint32(i), PlayerState: p.st, NoTouchUntil: p.noTouch})
		}
	}
	w.SetTruth(t)
}
