package main

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/server"
)

// The rules: players walk about a square, coins slide across it and bounce
// off its walls; a player who touches a coin takes it, and a new one
// appears elsewhere.
const (
	maxPlayers  = 16
	half        = 20.0 // metres from the centre to a wall
	playerSpeed = 5.0  // metres per second
	coinCount   = 200
	reach       = 1.0 // a player takes a coin this close, metres
	firstCoin   = 100 // coins' entity ids start here; a player's is its slot
)

// game is the server side: a server.Game, server.Replicated (replicate.go)
// and server.Replier.
type game struct {
	rng     *rand.Rand
	players [maxPlayers]player // by client slot
	coins   []coin
	nextID  uint32
}

type player struct {
	mv    *movement.Server[state, input] // its moves; nil: the slot is free
	taken int                            // coins taken
}

type coin struct {
	id       uint32
	pos, vel geom.Vec3
}

func newGame(seed uint64) *game {
	g := &game{rng: rand.New(rand.NewPCG(seed, 0)), nextID: firstCoin}
	for range coinCount {
		g.coins = append(g.coins, g.newCoin())
	}
	return g
}

// newCoin returns a coin somewhere, sliding some way at 0.5 to 2.5 m/s.
func (g *game) newCoin() coin {
	g.nextID++
	a := g.rng.Float64() * 2 * math.Pi
	return coin{id: g.nextID, pos: geom.V((g.rng.Float64()*2-1)*half, 0, (g.rng.Float64()*2-1)*half),
		vel: geom.V(math.Cos(a), 0, math.Sin(a)).Scale(0.5 + 2*g.rng.Float64())}
}

var errFull = errors.New("tag: the game is full")

// Join implements server.Game: the client's player is its slot, placed on a
// circle about the centre; its moves go to a movement.Server from there.
func (g *game) Join(c int) (uint32, error) {
	if c >= maxPlayers {
		return 0, errFull
	}
	a := float64(c) * 2 * math.Pi / maxPlayers
	mv, err := movement.NewServer(movement.ServerConfig{}, moves{}, state{Pos: geom.V(10*math.Cos(a), 0, 10*math.Sin(a))}, nil)
	if err != nil {
		return 0, err
	}
	g.players[c] = player{mv: mv}
	return uint32(c), nil
}

// Leave implements server.Game.
func (g *game) Leave(c int) { g.players[c] = player{} }

// Input implements server.Game: a predicting client sends packets of moves
// (in.Moves), which its movement.Server applies. Plain inputs are ignored.
func (g *game) Input(c int, in server.Input) {
	if p := &g.players[c]; p.mv != nil && in.Moves {
		_ = p.mv.Receive(in.Arrival, in.Data) // a bad packet is dropped and counted by movement
	}
}

// AppendReply implements server.Replier: the acknowledgements and
// corrections of the client's moves.
func (g *game) AppendReply(dst []byte, c int, now time.Duration) []byte {
	if p := &g.players[c]; p.mv != nil {
		return p.mv.AppendReply(dst, now)
	}
	return dst
}

// Step implements server.Game: the coins slide and bounce; a coin a player
// touches is taken. (Players move when their moves arrive, in Input.)
func (g *game) Step(t server.Tick, _ server.Emitter) bool {
	dt := t.Dt.Seconds()
	for i := range g.coins {
		c := &g.coins[i]
		c.pos = c.pos.AddScaled(c.vel, dt)
		if math.Abs(c.pos.X) > half {
			c.pos.X, c.vel.X = math.Copysign(half, c.pos.X), -c.vel.X
		}
		if math.Abs(c.pos.Z) > half {
			c.pos.Z, c.vel.Z = math.Copysign(half, c.pos.Z), -c.vel.Z
		}
		for j := range g.players {
			if p := &g.players[j]; p.mv != nil && p.mv.State().Pos.Dist(c.pos) < reach {
				p.taken++
				*c = g.newCoin()
				break
			}
		}
	}
	return false
}

var (
	_ server.Game       = (*game)(nil)
	_ server.Replicated = (*game)(nil)
	_ server.Replier    = (*game)(nil)
)
