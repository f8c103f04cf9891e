package live

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/web"
)

// ProtocolID is the netcode protocol id of a live arena.
const ProtocolID = 0x7465746865720002

// ErrConfig is wrapped by the error Start returns for a bad Config.
var ErrConfig = errors.New("tether/arena/live: invalid config")

// Config configures a Match. The zero value gives the defaults noted.
type Config struct {
	// Bots is the number of bot players, each a client of its own; 0
	// means 4. Range [1, 16].
	Bots int
	// Link is the emulated link of every bot: Up on what it sends, Down
	// (on the server's side) on what it receives, Clock its local clock.
	Link netsim.LinkConfig
	// Seed seeds the links and the bots.
	Seed uint64
	// Naive, if set, says which bots draw projectiles the naive way
	// (arena.ClientConfig.NaiveSpawn).
	Naive func(bot int) bool
	// OnShot and OnProjectile are the server game's hooks
	// (arena.Config), called on the server's goroutine.
	OnShot       func(arena.Shot)
	OnProjectile func(arena.Flight)
	// OnClaim, if set, is called with every hitscan shot bot i fires, as
	// its client judged it, and the true server time then; on the bot's
	// goroutine.
	OnClaim func(bot int, s arena.ClientShot, t time.Duration)
	// LinkName names the link on the page (a netsim preset's name).
	LinkName string
	// OnFrame, if set, is called with every frame bot i draws, the true
	// server time t it was drawn at, and its game; replied says the bot's
	// clock has had a reply. On the bot's goroutine; f is valid during the
	// call only.
	OnFrame func(bot int, t time.Duration, f *client.Frame, g *arena.ClientGame, replied bool)
	// OnEncode, if set, is called before every bot's snapshot is encoded
	// (server.Config.Encode), with the bot's server slot (its player's
	// entity id), the tick, its server time, the world the game replicated
	// and the server's encoder, whose counters it may read: where a meter
	// of the match's entities taps it. On the server's goroutine.
	OnEncode func(slot int, tick uint64, t time.Duration, w *replica.World, enc *replica.Encoder)
	// OnSnapshot, if set, is called with every snapshot bot i decoded; on
	// the bot's goroutine, s valid during the call only.
	OnSnapshot func(bot int, s *client.Snapshot)
}

// Match is an arena match running live. Its methods may be called from
// any goroutine.
type Match struct {
	cfg   Config
	game  *arena.Game
	srv   *server.UDP
	epoch time.Time // server time 0
	bots  []*bot
	asym  time.Duration // the link's unobservable clock asymmetry (netsim.LinkConfig.Asymmetry)

	mu       sync.Mutex // guards the fields below and every bot's page fields
	steering bool       // the person drives bot 0
	person   person
	flights  map[shot]arena.Flight // the server's projectiles, as of the last Frame
	marks    []web.Mark            // shots judged and projectile hits, the newest last
	nextWin  time.Duration         // true time the page's figures are next averaged
}

// shot names a projectile: its shooter and the move that fired it.
type shot struct{ shooter, move uint32 }

// bot is one bot player.
type bot struct {
	driver atomic.Pointer[client.UDP]
	game   *arena.ClientGame
	ai     *arena.Bot

	// Guarded by Match.mu: what the page shows of it.
	self    uint32
	hasSelf bool
	world   web.World
	traffic harness.Traffic
	win     window
	shown   web.ClientStats
	last    harness.Traffic // at the last window's end
}

// window sums a bot's figures over the page's window.
type window struct {
	clock, delay, proj    float64
	clockN, delayN, projN int
}

// markAge is how long a shot stays in the page's frames.
const markAge = time.Second

// Start starts a server of package arena on 127.0.0.1 and cfg.Bots bots
// connecting to it over UDP, each through its emulated link.
func Start(cfg Config) (*Match, error) {
	if cfg.Bots == 0 {
		cfg.Bots = 4
	}
	if cfg.Bots < 1 || cfg.Bots > 16 {
		return nil, fmt.Errorf("%w: Bots = %d, want 1 to 16", ErrConfig, cfg.Bots)
	}
	m := &Match{cfg: cfg, flights: map[shot]arena.Flight{}, asym: cfg.Link.Asymmetry()}
	game, err := arena.NewGame(arena.Config{MaxPlayers: cfg.Bots, OnShot: m.onShot, OnProjectile: m.onProjectile})
	if err != nil {
		return nil, err
	}
	m.game = game
	sc := server.Config{MaxClients: cfg.Bots, ReplyHold: arena.ReplyHold}
	var core *server.Server
	if cfg.OnEncode != nil {
		sc.Encode = func(dst []byte, slot int, tick uint64, t time.Duration, w *replica.World, _ uint64) ([]byte, bool) {
			cfg.OnEncode(slot, tick, t, w, core.Replica())
			return dst, false
		}
	}
	core, err = server.New(sc, game)
	if err != nil {
		return nil, err
	}
	key, err := netcode.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	raw, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	addr := raw.LocalAddr().(*net.UDPAddr).AddrPort()
	router := netsim.NewRouter(raw)
	m.srv, err = server.ServeUDP(router, core, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: ProtocolID, PrivateKey: key, PublicAddress: addr, MaxClients: cfg.Bots}})
	if err != nil {
		router.Close()
		return nil, err
	}
	m.epoch = time.Now().Add(-m.srv.Now())
	for range cfg.Bots { // all of them before any runs: their frames read m.bots
		m.bots = append(m.bots, &bot{})
	}
	for i := range cfg.Bots {
		if err := m.join(i, addr, &key, router); err != nil {
			m.Close()
			return nil, err
		}
	}
	return m, nil
}

// Now returns the true server time.
func (m *Match) Now() time.Duration { return time.Since(m.epoch) }

// Close stops the bots, then the server: no hook is called after it
// returns. It returns nil.
func (m *Match) Close() error {
	for _, b := range m.bots {
		if d := b.driver.Load(); d != nil {
			d.Close()
		}
	}
	m.srv.Close()
	return nil
}

// Flights returns the projectiles the server has in flight (after Close,
// those in flight at the end).
func (m *Match) Flights() []arena.Flight {
	var out []arena.Flight
	m.srv.Do(func(*server.Server) { out = append(out, m.game.Flights()...) })
	return out
}

// Traffic returns bot i's bytes on the wire so far: payloads, netcode's
// header and the IPv4 and UDP headers, as package harness counts them.
func (m *Match) Traffic(i int) harness.Traffic {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bots[i].traffic
}

// join starts bot i: its socket, its link (up on its socket, down on the
// server's router), its client and its bot.
func (m *Match) join(i int, addr netip.AddrPort, key *netcode.Key, router *netsim.Router) error {
	token, err := netcode.NewConnectToken(rand.Reader, key, netcode.TokenParams{
		ProtocolID: ProtocolID, ClientID: uint64(i) + 1, ServerAddresses: []netip.AddrPort{addr}, Now: time.Now()})
	if err != nil {
		return err
	}
	raw, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	seed := m.cfg.Seed*1000 + uint64(i)
	router.Route(raw.LocalAddr().(*net.UDPAddr).AddrPort(), m.cfg.Link.Down, seed^0x646f776e)
	conn := netsim.NewPacketConn(raw, m.cfg.Link.Up, seed)
	b := m.bots[i]
	b.ai = arena.NewBot(seed)
	cc := arena.ClientConfig{NaiveSpawn: m.cfg.Naive != nil && m.cfg.Naive(i)}
	if m.cfg.OnClaim != nil {
		cc.OnShot = func(s arena.ClientShot) { m.cfg.OnClaim(i, s, m.Now()) }
	}
	if b.game, err = arena.NewClientGame(cc); err != nil {
		conn.Close()
		return err
	}
	var ccfg client.Config
	if m.cfg.OnSnapshot != nil {
		ccfg.OnSnapshot = func(_ time.Duration, s *client.Snapshot) { m.cfg.OnSnapshot(i, s) }
	}
	core, err := client.New(ccfg, b.game)
	if err != nil {
		conn.Close()
		return err
	}
	start, clk := time.Now(), m.cfg.Link.Clock
	d, err := client.DialUDP(conn, token, core, client.UDPConfig{
		Local:   func() time.Duration { return clk.Local(time.Since(start)) },
		OnFrame: func(f *client.Frame) []byte { return m.frame(i, f) },
	})
	if err != nil {
		conn.Close()
		return err
	}
	b.driver.Store(d)
	return nil
}

// frame takes bot i's frame f and returns its input: its bot's, or the
// person's while they steer bot 0.
func (m *Match) frame(i int, f *client.Frame) []byte {
	t := m.Now()
	b := m.bots[i]
	replied, fired := false, arena.NoWeapon
	if d := b.driver.Load(); d != nil {
		d.Do(func(c *client.Client) {
			replied = c.Clock().Stats().Samples > 0
			if own := b.game.Own(); own != nil {
				fired = own.State().Fired
			}
		})
	}
	if m.cfg.OnFrame != nil {
		m.cfg.OnFrame(i, t, f, b.game, replied)
	}
	in := b.ai.Input(f) // the bot keeps playing, so it takes over smoothly
	m.mu.Lock()
	defer m.mu.Unlock()
	m.record(b, t, f)
	if i == 0 && m.steering {
		in = m.person.input(f, fired)
	}
	return arena.AppendInput(nil, in)
}

// record keeps what the page shows of bot b's frame f, drawn at true time t.
func (m *Match) record(b *bot, t time.Duration, f *client.Frame) {
	b.self, b.hasSelf = f.Self, f.HasSelf
	w := &b.world
	w.Ball = web.Ball{Pos: [3]float64{math.NaN(), math.NaN(), math.NaN()}, Owner: -1}
	w.Players, w.Projectiles = w.Players[:0], w.Projectiles[:0]
	if f.Ready {
		b.win.clock += math.Abs(float64(f.Server-t-m.asym)) / float64(time.Millisecond)
		b.win.clockN++
		if f.RenderTime != 0 {
			b.win.delay += float64(f.Server-f.RenderTime) / float64(time.Millisecond)
			b.win.delayN++
		}
		for k := range f.Entities {
			e := &f.Entities[k]
			if e.Kind == arena.KindPlayer {
				w.Players = append(w.Players, web.Player{ID: int(e.ID), Pos: vec(e.Pos), Human: m.steering && b == m.bots[0] && e.ID == f.Self,
					Facing: vec(e.Rot.Rotate(geom.V(1, 0, 0))), Health: int(e.Tag)})
			}
		}
		for _, d := range b.game.Projectiles() {
			w.Projectiles = append(w.Projectiles, web.Projectile{ID: int(d.ID), Shooter: int(d.Shooter), Pos: vec(d.Pos), Predicted: d.Predicted})
			if fl, ok := m.flights[shot{d.Shooter, d.Move}]; ok && t >= fl.Spawn.Time && t <= fl.End {
				b.win.proj += d.Pos.Dist(fl.At(t))
				b.win.projN++
			}
		}
	}
	count(&b.traffic, f)
}

// count brings tr up to the payloads f counts, adding netcode's header
// and the IPv4 and UDP headers to each packet.
func count(tr *harness.Traffic, f *client.Frame) {
	for ; tr.PacketsUp < int64(f.PacketsOut); tr.PacketsUp++ {
		tr.WireUp += int64(netcode.PayloadOverhead(uint64(tr.PacketsUp+1)) + netsim.HeaderBytes)
	}
	for ; tr.PacketsDown < int64(f.PacketsIn); tr.PacketsDown++ {
		tr.WireDown += int64(netcode.PayloadOverhead(uint64(tr.PacketsDown+1)) + netsim.HeaderBytes)
	}
	tr.WireUp += int64(f.BytesOut) - tr.PayloadUp
	tr.WireDown += int64(f.BytesIn) - tr.PayloadDown
	tr.PayloadUp, tr.PayloadDown = int64(f.BytesOut), int64(f.BytesIn)
}

func vec(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }

// onShot marks a hitscan shot the server judged for the page.
func (m *Match) onShot(s arena.Shot) {
	if m.cfg.OnShot != nil {
		m.cfg.OnShot(s)
	}
	to := s.From.AddScaled(arena.AimDir(s.Aim), s.Range)
	m.mark(web.Mark{T: s.Time.Seconds(), Shooter: int(s.Shooter), From: vec(s.From), To: vec(to), Hit: target(s.Target)})
}

// onProjectile marks a projectile that hit a player for the page.
func (m *Match) onProjectile(f arena.Flight) {
	if m.cfg.OnProjectile != nil {
		m.cfg.OnProjectile(f)
	}
	if f.Hit != arena.NoTarget {
		at := vec(f.At(f.End))
		m.mark(web.Mark{T: f.End.Seconds(), Shooter: int(f.Shooter), From: at, To: at, Hit: target(f.Hit)})
	}
}

func (m *Match) mark(k web.Mark) {
	m.mu.Lock()
	m.marks = append(m.marks, k)
	m.mu.Unlock()
}

func target(id uint32) int {
	if id == arena.NoTarget {
		return -1
	}
	return int(id)
}
