package arena

import (
	"errors"
	"fmt"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

// Event kinds the server emits.
const (
	// EventSpawn is a projectile fired: Entity is the projectile, Actor the
	// shooter's entity, Arg the number of the move that fired it (so the
	// shooter's client matches it with the one it predicted); its State
	// leaves the muzzle at Time.
	EventSpawn uint8 = 1
	// EventEnd is a projectile that hit a player at Time: Entity is the
	// projectile, Arg the player hit. (A projectile meeting a wall ends
	// where every client computes it ends: FlightEnd.)
	EventEnd uint8 = 2
)

// KindPlayer is the client.EntityState Kind of a player; its Tag is its
// health.
const KindPlayer uint8 = 0

// DefaultMaxRewind is the default of Config.MaxRewind.
const DefaultMaxRewind = 250 * time.Millisecond

// Config configures a Game. The zero value gives the defaults noted.
type Config struct {
	// MaxPlayers is the most players at once; 0 means 16. Range [1, 16].
	MaxPlayers int
	// TickHz is the server's tick rate; 0 means 60. Range [1, 1000].
	TickHz int
	// MaxRewind bounds how far back in server time a hitscan shot is
	// judged; 0 means DefaultMaxRewind (250 ms), negative means no rewind
	// at all. A shot is judged against the other players where the
	// shooter's client drew them (the render time its move carries), but
	// never further back than MaxRewind: this is the anti-abuse bound.
	// However late a client claims to be showing the match, by lag or by
	// lying, it cannot hit a player where that player was more than
	// MaxRewind ago. Range [-1ns, 1 s].
	MaxRewind time.Duration
	// Movement configures the server's side of every player's prediction.
	Movement movement.ServerConfig
	// OnShot, if set, is called with every hitscan shot judged: for tools
	// and the lab.
	OnShot func(Shot)
	// OnProjectile, if set, is called with every projectile once it ended.
	OnProjectile func(Flight)
}

// Shot is a hitscan shot as the server judged it.
type Shot struct {
	Shooter uint32        // the shooter's entity
	Move    uint32        // the number of the move that fired it
	Time    time.Duration // server time it was fired (the move's end)
	View    time.Duration // server time the shooter's client was showing
	At      time.Duration // server time it was judged at: View, within MaxRewind
	Arrival time.Duration // server time the move arrived
	Clamped bool          // View was further back than MaxRewind
	From    geom.Vec3     // where the shooter fired from
	Aim     float64       // and its aim, radians (AimDir)
	// Target is the player hit, or NoTarget. Present is the one a server
	// that does not rewind would have hit, judging against where the
	// players are when the move arrives: the baseline the lab compares.
	Target, Present uint32
	// Range is how far along the aim the shot went, metres: to Target
	// (where it was at At), or to a wall or pillar, or ShotRange.
	Range float64
}

// Flight is a projectile's whole flight as the server simulated it.
type Flight struct {
	ID      uint32          // its entity, in EventSpawn and EventEnd
	Shooter uint32          // the shooter's entity
	Move    uint32          // the number of the move that fired it
	Spawn   kinematic.State // leaving the muzzle, at Spawn.Time
	End     time.Duration   // server time it hit a player or a wall, or ran out
	Hit     uint32          // the player hit, or NoTarget
}

// At returns where the projectile is at server time t, within its flight.
func (f *Flight) At(t time.Duration) geom.Vec3 {
	t = max(f.Spawn.Time, min(f.End, t))
	return f.Spawn.Pos.AddScaled(f.Spawn.Vel, (t - f.Spawn.Time).Seconds())
}

// NoTarget is the Target of a shot that hit nobody.
const NoTarget = ^uint32(0)

// ErrFull is returned by Join when MaxPlayers are playing.
var ErrFull = errors.New("tether/arena: the arena is full")

// ErrConfig is wrapped by the error NewGame returns for a bad Config.
var ErrConfig = errors.New("tether/arena: invalid config")

// Stats are a Game's counters.
type Stats struct {
	Projectiles, ProjectileHits uint64
	Shots, ShotHits             uint64
	Rewinds, RewindsClamped     uint64 // shots judged in the past; of which clamped to MaxRewind
	Respawns                    uint64
	Void                        uint64 // shots fired by a player's moves made before it learned of its respawn, ignored
}

type player struct {
	active bool
	// mv applies the player's moves; the others are sent it replayed a
	// little behind the newest (Replayed.At), so that the bursts its
	// packets arrive in do not make it wobble on their screens.
	mv     *movement.Replayed[PlayerState, Input]
	health int
	gen    uint8
}

// Game is the server side: a server.Game. Create it with NewGame.
type Game struct {
	cfg     Config
	dt      time.Duration
	now     time.Duration // the last tick's time
	at      time.Duration // the time of the call in progress (a move's arrival)
	players []player
	seen    *event.Seen // what each client was sent of the players, for rewind
	flights []Flight    // in flight
	spawned []Flight    // fired since the last tick, their spawn events not yet emitted
	nextID  uint32
	respawn int // next spawn point
	stats   Stats
}

// NewGame returns the server side of an arena.
func NewGame(cfg Config) (*Game, error) {
	if cfg.MaxPlayers == 0 {
		cfg.MaxPlayers = 16
	}
	if cfg.TickHz == 0 {
		cfg.TickHz = 60
	}
	if cfg.MaxRewind == 0 {
		cfg.MaxRewind = DefaultMaxRewind
	}
	switch {
	case cfg.MaxPlayers < 1 || cfg.MaxPlayers > 16:
		return nil, fmt.Errorf("%w: MaxPlayers = %d, want 1 to 16", ErrConfig, cfg.MaxPlayers)
	case cfg.TickHz < 1 || cfg.TickHz > 1000:
		return nil, fmt.Errorf("%w: TickHz = %d, want 1 to 1000", ErrConfig, cfg.TickHz)
	case cfg.MaxRewind > time.Second:
		return nil, fmt.Errorf("%w: MaxRewind = %v, want at most 1s", ErrConfig, cfg.MaxRewind)
	}
	if _, err := movement.NewServer(cfg.Movement, moves{}, PlayerState{}, nil); err != nil {
		return nil, err
	}
	g := &Game{cfg: cfg, dt: time.Second / time.Duration(cfg.TickHz), players: make([]player, cfg.MaxPlayers)}
	// The rewind history covers MaxRewind and a few snapshots more (at
	// most one a tick).
	depth := int(max(0, cfg.MaxRewind)/g.dt) + 3
	var err error
	if g.seen, err = event.NewSeen(cfg.MaxPlayers, depth, cfg.MaxPlayers); err != nil {
		return nil, err
	}
	return g, nil
}

// Stats returns the counters.
func (g *Game) Stats() Stats { return g.stats }

// Player returns the state of the player of entity id and its health, and
// whether it is playing.
func (g *Game) Player(id uint32) (PlayerState, int, bool) {
	if int(id) >= len(g.players) || !g.players[id].active {
		return PlayerState{}, 0, false
	}
	p := &g.players[id]
	return p.mv.State(), p.health, true
}

// Flights returns the projectiles in flight; valid until the next call of
// the Game.
func (g *Game) Flights() []Flight { return g.flights }

// spawnPoint returns the next of eight places players (re)appear at, along
// the walls.
func (g *Game) spawnPoint() PlayerState {
	g.respawn++
	k := g.respawn % 8
	x := []float64{-16, -5, 5, 16}[k%4]
	z := []float64{-9, 9}[k/4]
	return PlayerState{Pos: geom.V(x, 0, z), Aim: AimAt(geom.V(x, 0, z), geom.Vec3{})}
}

// Join implements server.Game: the client's player is entity client (its
// slot), which must be below MaxPlayers.
func (g *Game) Join(client int) (uint32, error) {
	if client < 0 || client >= len(g.players) {
		return 0, ErrFull
	}
	id := uint32(client)
	mv, err := movement.NewReplayed(g.cfg.Movement, movement.ShownConfig{}, moves{}, g.spawnPoint(), g.now, shownState,
		func(m *movement.Move[Input], s PlayerState) { g.moved(id, m, s) })
	if err != nil {
		return 0, err
	}
	g.players[client] = player{active: true, mv: mv, health: MaxHealth}
	g.seen.Forget(client)
	return id, nil
}

// Leave implements server.Game.
func (g *Game) Leave(client int) {
	if client >= 0 && client < len(g.players) {
		g.players[client] = player{}
		g.seen.Forget(client)
	}
}

// Input implements server.Game: a packet of moves (the client predicts its
// player through package movement); plain inputs are ignored.
func (g *Game) Input(client int, in server.Input) {
	if client < 0 || client >= len(g.players) || !g.players[client].active || !in.Moves {
		return
	}
	g.at = in.Arrival
	_ = g.players[client].mv.Receive(in.Arrival, in.Data) // a bad packet is counted by movement
}

// AppendReply implements server.Replier: the acknowledgements and
// adjustments of the client's moves.
func (g *Game) AppendReply(dst []byte, client int, now time.Duration) []byte {
	if client < 0 || client >= len(g.players) || !g.players[client].active {
		return dst
	}
	g.at = now
	return g.players[client].mv.AppendReply(dst, now)
}

// moved is called by movement for every move of player id it applies, with
// the state after it: a move that fired spawns a projectile or judges a
// hitscan shot.
func (g *Game) moved(id uint32, m *movement.Move[Input], s PlayerState) {
	if s.Fired != NoWeapon && g.players[id].mv.Resetting() {
		g.stats.Void++ // fired before its client knew it was respawned
		return
	}
	switch s.Fired {
	case Projectile:
		g.nextID++
		st := kinematic.State{Time: m.Time, Pos: s.Pos, Vel: AimDir(s.Aim).Scale(ProjectileSpeed), Knot: true}
		g.spawned = append(g.spawned, Flight{ID: g.nextID, Shooter: id, Move: m.Seq, Spawn: st, End: FlightEnd(st), Hit: NoTarget})
		g.stats.Projectiles++
	case Hitscan:
		g.shoot(id, m, s)
	}
}

// shoot judges a hitscan shot by player id where its client drew the other
// players: where its snapshots had them at the move's view time, no
// further back than MaxRewind.
func (g *Game) shoot(id uint32, m *movement.Move[Input], s PlayerState) {
	now := g.at
	sh := Shot{Shooter: id, Move: m.Seq, Time: m.Time, View: m.View, Arrival: now}
	if g.cfg.MaxRewind < 0 {
		sh.At = now
	} else {
		sh.At, sh.Clamped = event.RewindTo(now, m.View, g.cfg.MaxRewind)
	}
	g.stats.Shots++
	if sh.At < now {
		g.stats.Rewinds++
	}
	if sh.Clamped {
		g.stats.RewindsClamped++
	}
	sh.From, sh.Aim = s.Pos, s.Aim
	dir := AimDir(s.Aim)
	sh.Target, sh.Range = g.trace(s.Pos, dir, id, sh.At, true)
	sh.Present, _ = g.trace(s.Pos, dir, id, now, false)
	if g.cfg.OnShot != nil {
		g.cfg.OnShot(sh)
	}
	if sh.Target != NoTarget {
		g.stats.ShotHits++
		g.damage(sh.Target, HitscanDamage)
	}
}

// trace returns the first player other than shooter that a shot from o
// along dir hits before a wall, the players where the shooter's client was
// sent them at server time at (rewind; where they are now if it was sent
// nothing of one by then) or where they are now, and how far the shot
// went. The shooter's client is its entity, as Join gives it.
func (g *Game) trace(o, dir geom.Vec3, shooter uint32, at time.Duration, rewind bool) (uint32, float64) {
	best, hit := wallHit(o, dir, ShotRange), NoTarget
	for j := range g.players {
		p := &g.players[j]
		if !p.active || uint32(j) == shooter {
			continue
		}
		pos := p.mv.State().Pos
		if rewind {
			if pose, ok := g.seen.At(int(shooter), uint32(j), at); ok {
				pos = pose.Pos
			}
		}
		if d, ok := rayCircle(o, dir, pos, HitRadius); ok && d < best {
			best, hit = d, uint32(j)
		}
	}
	return hit, best
}

// damage takes hp from player id; at 0 it respawns, teleported.
func (g *Game) damage(id uint32, hp int) {
	p := &g.players[id]
	if p.health -= hp; p.health > 0 {
		return
	}
	p.health = MaxHealth
	p.gen++
	st := g.spawnPoint()
	st.ProjReady, st.HitscanReady = p.mv.State().ProjReady, p.mv.State().HitscanReady
	p.mv.Teleport(st, g.at)
	g.stats.Respawns++
}

// Step implements server.Game: it emits the projectiles fired since the
// last tick, moves every projectile to the tick's time (one fired in the
// past covers its whole way from then), ends those that hit a player, and
// judges the projectiles against the players where they are now.
func (g *Game) Step(t server.Tick, events server.Emitter) bool {
	from := g.now
	g.now, g.at = t.Time, t.Time
	for _, f := range g.spawned {
		events.Emit(event.Event{Kind: EventSpawn, Time: f.Spawn.Time, Entity: f.ID, Actor: f.Shooter, Arg: f.Move, HasState: true, State: f.Spawn})
		g.flights = append(g.flights, f)
	}
	g.spawned = g.spawned[:0]
	live := g.flights[:0]
	for _, f := range g.flights {
		if g.fly(&f, max(from, f.Spawn.Time), t.Time) {
			events.Emit(event.Event{Kind: EventEnd, Time: f.End, Entity: f.ID, Arg: f.Hit})
		}
		if f.End > t.Time {
			live = append(live, f)
		} else if g.cfg.OnProjectile != nil {
			g.cfg.OnProjectile(f)
		}
	}
	clear(g.flights[len(live):])
	g.flights = live
	return false
}

// fly moves projectile f from server time a to b, against the players where
// they are now, and reports whether it hit one.
func (g *Game) fly(f *Flight, a, b time.Duration) bool {
	b = min(b, f.End)
	if b <= a {
		return false
	}
	o := f.At(a)
	seg := f.At(b).Dist(o)
	if seg == 0 {
		return false
	}
	dir := f.Spawn.Vel.Scale(1 / f.Spawn.Vel.Len())
	best, hit := seg, NoTarget
	for j := range g.players {
		p := &g.players[j]
		if !p.active || uint32(j) == f.Shooter {
			continue
		}
		if d, ok := rayCircle(o, dir, p.mv.State().Pos, HitRadius); ok && d <= best {
			best, hit = d, uint32(j)
		}
	}
	if hit == NoTarget {
		return false
	}
	f.End = a + time.Duration(best/ProjectileSpeed*float64(time.Second))
	f.Hit = hit
	g.stats.ProjectileHits++
	g.damage(hit, ProjectileDamage)
	return true
}

// Replication implements server.Replicated: the arena's schema, and the
// layer's defaults, with every player each client's snapshot carries
// recorded for rewind (sent).
func (g *Game) Replication() (*replica.Schema, replica.Config) {
	return Schema(), replica.Config{OnEntity: g.sent}
}

// sent records that client's snapshot of this tick carried e: a hitscan
// shot of its player is judged against what its snapshots carried (a
// player the byte budget left out stays where the client's last snapshot
// of it had it).
func (g *Game) sent(client int, e *replica.Entity, _ float64) {
	g.seen.Add(client, g.now, e.ID, e.Gen, event.Pose{Pos: e.State.Pos, Rot: e.State.Rot})
}

// Replicate implements server.Replicated: every player, with its health as
// its Tag and its teleport generation, as the others see it: its applied
// moves replayed a little behind the newest (movement.Shown), not its
// newest state, which moves in bursts with its packets.
func (g *Game) Replicate(w *replica.World) {
	for j := range g.players {
		p := &g.players[j]
		if !p.active {
			continue
		}
		s := p.mv.State()
		st := kinematic.State{Pos: s.Pos, Vel: s.Vel, Rot: aimRot(s.Aim)}
		if fr := p.mv.At(g.now); fr.Valid {
			st = kinematic.State{Pos: fr.Pos, Vel: fr.Vel, Rot: fr.Rot}
		}
		w.Add(replica.Entity{ID: uint32(j), Kind: KindPlayer, Tag: uint8(p.health), Gen: p.gen,
			State: kinematic.State{Pos: geom.V(st.Pos.X, 0, st.Pos.Z), Vel: geom.V(st.Vel.X, 0, st.Vel.Z), Rot: st.Rot}})
	}
}

// aimRot is the rotation of aim about the vertical.
func aimRot(aim float64) geom.Quat { return geom.AxisAngle(geom.V(0, 1, 0), aim) }

// shownState is a player as the others are shown it (movement.Replayed).
func shownState(_, s PlayerState, _ time.Duration) kinematic.State {
	return kinematic.State{Pos: s.Pos, Vel: s.Vel, Rot: aimRot(s.Aim)}
}

var (
	_ server.Game       = (*Game)(nil)
	_ server.Replicated = (*Game)(nil)
	_ server.Replier    = (*Game)(nil)
)

// ReplyHold is the arena's server.Config.ReplyHold: the movement replies
// (an acknowledgement every 50 ms, adjustments) wait up to a snapshot
// interval at 30 Hz for the next snapshot's packet rather than go in packets
// of their own.
const ReplyHold = 34 * time.Millisecond
