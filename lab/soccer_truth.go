package lab

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// soccerTruth is the server's match after every tick, as the lab measures the
// clients against it: the ball's trajectory (match.BallTruth), who had the ball,
// the players, and the kicks. A player whose generation changed in a tick
// was put there (a kickoff): it stays where it was until then.
type soccerTruth struct {
	rules soccer.Rules
	tick  time.Duration
	np    int // player slots

	ball    *match.BallTruth
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

func newSoccerTruth(rules soccer.Rules, tickHz, players int, start *soccer.Truth) (*soccerTruth, error) {
	ball, err := match.NewBallTruth(rules, tickHz, start)
	if err != nil {
		return nil, err
	}
	st := &soccerTruth{rules: rules, tick: time.Second / time.Duration(tickHz), np: players,
		ball: ball, pcuts: make([][]time.Duration, players)}
	st.balls = append(st.balls, start.Ball)
	st.record(start)
	return st, nil
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
