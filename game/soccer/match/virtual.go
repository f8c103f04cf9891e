package match

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/server"
)

// Config describes a match. The zero value is 4 bots on perfect links at 60 Hz
// ticks, 30 Hz snapshots and 60 Hz frames, under soccer.DefaultRules.
type Config struct {
	Seed  uint64
	Bots  int                 // bots at the start; 0 means 4 (use Join for more or later ones)
	Link  netsim.LinkConfig   // every bot's link, unless Links has one for it
	Links []netsim.LinkConfig // per bot, by index
	// PairedLinks seeds every bot's link alike (from Seed) instead of from
	// Seed and the bot's index: bots on the same config then meet the same
	// network, as the lab's paired comparisons want.
	PairedLinks bool
	// Rules of the match; the zero value means soccer.DefaultRules().
	Rules   soccer.Rules
	Server  server.Config // TickHz and SnapshotHz are used by clients too
	Client  client.Config
	FrameHz int // client frames per second by their local clocks; 0 means 60

	// OnTick is called after every server tick with the true state (owned
	// by the caller for the duration of the call).
	OnTick func(t *soccer.Truth)
	// OnFrame is called after every client frame, with the frame and the
	// view the bot (or the caller's input) acted on; both only valid during
	// the call. It runs before the input decided is sent, and may replace it
	// (Bot.SetInput). In Live it runs on the client's goroutine.
	OnFrame func(c *Bot, f *client.Frame, v *soccer.View)
	// OnSnapshot is called with every snapshot a bot's client decodes, at
	// the bot's local time of arrival (see client.Config.OnSnapshot).
	OnSnapshot func(c *Bot, local time.Duration, s *client.Snapshot)

	// NoPrediction turns off the prediction of each bot's own player. By
	// default every bot's client predicts it (soccer.ClientGame.Prediction,
	// package movement): its input moves it in the same frame, and the
	// server acknowledges or adjusts its moves.
	NoPrediction bool
	// Predicts, if set, says which bots (by index) predict, when
	// NoPrediction is not set; nil means every bot.
	Predicts func(i int) bool
	// Movement configures the bots' prediction.
	Movement movement.ClientConfig
	// Ball is how every bot's client shows the ball
	// (soccer.ClientGame.BallMethod) unless Balls has a method for it;
	// Balls is per bot, by index.
	Ball  replicate.Method
	Balls []replicate.Method
	// LateShare is every bot's client's render clock's target share of late
	// frames (soccer.ClientGame.LateShare); 0 means the default.
	LateShare float64
	// OnCorrection is called with every adjustment and reset a bot's
	// prediction applies (in Live, on the bot's goroutines).
	OnCorrection func(c *Bot, corr movement.Correction)
	// OnMove is called with every move of a bot's predicted player the
	// server applies, as applied, and the player's state after it: the
	// authoritative path of the player by the time of its moves (in Live,
	// on the server's goroutine).
	OnMove func(c *Bot, m *movement.Move[soccer.MoveInput], s soccer.PlayerState)
}

// clientGame returns the client side of the game for bot b.
func (c *Config) clientGame(b *Bot) *soccer.ClientGame {
	g := soccer.NewClientGame(c.Rules)
	g.Prediction = !c.NoPrediction && (c.Predicts == nil || c.Predicts(b.Index))
	g.Movement = c.Movement
	g.TickHz = c.Server.TickHz
	g.LateShare = c.LateShare
	g.BallMethod = c.Ball
	if b.Index < len(c.Balls) {
		g.BallMethod = c.Balls[b.Index]
	}
	if on, user := c.OnCorrection, c.Movement.OnCorrection; on != nil || user != nil {
		g.Movement.OnCorrection = func(corr movement.Correction) {
			if user != nil {
				user(corr)
			}
			if on != nil {
				on(b, corr)
			}
		}
	}
	b.game = g
	return g
}

// clientConfig returns the client configuration of bot b.
func (c *Config) clientConfig(b *Bot) client.Config {
	cc := c.Client
	if on, user := c.OnSnapshot, cc.OnSnapshot; on != nil || user != nil {
		cc.OnSnapshot = func(local time.Duration, s *client.Snapshot) {
			if user != nil {
				user(local, s)
			}
			if on != nil {
				on(b, local, s)
			}
		}
	}
	return cc
}

func (c *Config) fill() error {
	if c.Bots == 0 {
		c.Bots = 4
	}
	if c.Bots < 0 {
		return fmt.Errorf("tether/match: Bots = %d, want ≥ 0", c.Bots)
	}
	if c.Rules == (soccer.Rules{}) {
		c.Rules = soccer.DefaultRules()
	}
	if c.FrameHz == 0 {
		c.FrameHz = 60
	}
	for _, m := range append([]replicate.Method{c.Ball}, c.Balls...) {
		if _, err := replicate.ParseMethod(string(m)); err != nil {
			return fmt.Errorf("tether/match: %w", err)
		}
	}
	if c.FrameHz < 1 || c.FrameHz > 1000 {
		return fmt.Errorf("tether/match: FrameHz = %d, want 1 to 1000", c.FrameHz)
	}
	if err := c.Link.Validate(); err != nil {
		return err
	}
	for _, l := range c.Links {
		if err := l.Validate(); err != nil {
			return err
		}
	}
	return c.Rules.Validate()
}

func (c *Config) linkOf(i int) netsim.LinkConfig {
	if i < len(c.Links) {
		return c.Links[i]
	}
	return c.Link
}

// botSeed returns the seed of bot i's link and decisions.
func (c *Config) botSeed(i int) uint64 {
	if c.PairedLinks {
		return c.Seed*1000003 + 1
	}
	return c.Seed*1000003 + uint64(i)*7919 + 1
}

// Bot is one bot client of a match.
type Bot struct {
	Index int // order of joining, from 0
	Seed  uint64
	Link  netsim.LinkConfig

	bot     *soccer.Bot
	game    *soccer.ClientGame
	view    soccer.View
	bview   soccer.View // the bot's own view (see botView)
	control atomic.Pointer[soccer.Input]
	keys    atomic.Pointer[soccer.Keys]
	human   soccer.Human
	inBuf   []byte
	udp     atomic.Pointer[client.UDP] // Live only

	h      *harness.Client // Virtual only
	lastIn soccer.Input
	start  time.Duration // Live: the server's time when the bot's local clock started
}

// decide sets the bot's input for frame f (or the caller's, if it took over).
func (b *Bot) decide(f *client.Frame) {
	b.view.FromFrame(f)
	in := b.bot.Decide(b.botView())
	if k := b.keys.Load(); k != nil {
		in = b.human.Input(*k, &b.view)
	} else if c := b.control.Load(); c != nil {
		in = *c
	}
	b.lastIn = in
}

// botView returns the view the bot decides from (BotView).
func (b *Bot) botView() *soccer.View { return BotView(b.game, &b.view, &b.bview) }

// BotView returns the view a bot decides from, given its client's game g
// and view v: v, but for its own player, which it sees as the server's
// picture of it (delayed like the others) even when its client draws it
// predicted, so that bots play alike with prediction and without (a bot
// steering its present self by a ball and players of the past turns harder
// than any person would). scratch holds the view returned when it differs
// from v; v is left as it is.
func BotView(g *soccer.ClientGame, v, scratch *soccer.View) *soccer.View {
	e, ok := g.Shown()
	me := v.Player(v.Self)
	if !ok || me == nil {
		return v
	}
	players := scratch.Players[:0] // scratch's own array: v's is the caller's
	*scratch = *v
	scratch.Players = append(players, v.Players...)
	me = scratch.Player(v.Self)
	me.Pos, me.Vel, me.Forward = e.Pos, e.Vel, e.Rot.Rotate(geom.V(1, 0, 0))
	return scratch
}

// Game returns the bot's client side of the game: its prediction (Own) and
// settings. In Live, read it only within Driver().Do.
func (b *Bot) Game() *soccer.ClientGame { return b.game }

// View returns the bot's view of its last frame (Virtual; in Live read it in
// OnFrame).
func (b *Bot) View() *soccer.View { return &b.view }

// Input returns the input decided at the bot's last frame (by the bot, or by
// the caller if it took over): the one sent with that frame. In Live read it
// only in OnFrame.
func (b *Bot) Input() soccer.Input { return b.lastIn }

// SetInput replaces the input decided at the bot's current frame: call it
// only in OnFrame, which runs before the input is prepared
// (soccer.ClientGame.PrepareInput) and sent.
func (b *Bot) SetInput(in soccer.Input) { b.lastIn = in }

// Client returns the bot's client core (Virtual only; nil in Live).
func (b *Bot) Client() *client.Client {
	if b.h == nil {
		return nil
	}
	return b.h.Core()
}

// NetLink returns the bot's emulated link (Virtual only).
func (b *Bot) NetLink() *netsim.Link { return b.h.Link() }

// Harness returns the bot's client in the virtual rig (Virtual only).
func (b *Bot) Harness() *harness.Client { return b.h }

// TrueTime returns the true time at which the bot's local clock read local:
// the server's clock then (in Virtual the scheduler's, in Live the server
// driver's, to within a microsecond).
func (b *Bot) TrueTime(local time.Duration) time.Duration {
	start := b.start
	if b.h != nil {
		start = b.h.Start()
	}
	return start + b.Link.Clock.True(local)
}

// Slot returns the server's client slot of the bot, or -1 before it
// connected (Virtual; in Live, Driver().Transport().ClientIndex()).
func (b *Bot) Slot() int {
	if b.h == nil {
		return -1
	}
	return b.h.Slot()
}

// Virtual is a match in virtual time: a harness.Rig running the soccer game.
// Create it with NewVirtual and advance it with RunUntil. Not safe for
// concurrent use.
type Virtual struct {
	Sched *netsim.Scheduler

	cfg   Config
	game  *soccer.Game
	rig   *harness.Rig
	bots  []*Bot
	truth soccer.Truth
}

// NewVirtual builds a match in virtual time with cfg.Bots bots joining at time
// 0, their links seeded from cfg.Seed and their index.
func NewVirtual(cfg Config) (*Virtual, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	v := &Virtual{cfg: cfg}
	sc := cfg.Server
	onTick := sc.OnTick
	sc.OnTick = func(t server.Tick) {
		if onTick != nil {
			onTick(t)
		}
		if v.cfg.OnTick != nil {
			v.game.Truth(&v.truth)
			v.cfg.OnTick(&v.truth)
		}
	}
	var err error
	tickHz := sc.TickHz
	if tickHz == 0 {
		tickHz = 60
	}
	if v.game, err = soccer.NewGame(cfg.Rules, tickHz); err != nil {
		return nil, err
	}
	if cfg.OnMove != nil {
		v.game.SetOnMove(func(slot int, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
			for _, b := range v.bots {
				if b.h.Connected() && b.h.Slot() == slot {
					cfg.OnMove(b, m, s)
				}
			}
		})
	}
	if v.rig, err = harness.New(harness.Config{Server: sc, FrameHz: cfg.FrameHz}, v.game); err != nil {
		return nil, err
	}
	v.Sched = v.rig.Sched
	for i := range cfg.Bots {
		if _, err := v.Join(0, cfg.linkOf(i)); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Game returns the server's game: its true state, rules and statistics.
func (v *Virtual) Game() *soccer.Game { return v.game }

// Server returns the server core.
func (v *Virtual) Server() *server.Server { return v.rig.Server() }

// Bots returns the bots that joined, in order of joining (including those that
// left).
func (v *Virtual) Bots() []*Bot { return v.bots }

// Truth copies the server's current true state into dst.
func (v *Virtual) Truth(dst *soccer.Truth) { v.game.Truth(dst) }

// RunUntil runs the match up to true (server) time t.
func (v *Virtual) RunUntil(t time.Duration) { v.rig.RunUntil(t) }

// Join adds a bot at true time at (not before now) over a link with config
// link, seeded from the match seed and its index. It connects after a
// handshake over its link (see package harness), then plays.
func (v *Virtual) Join(at time.Duration, link netsim.LinkConfig) (*Bot, error) {
	i := len(v.bots)
	seed := v.cfg.botSeed(i)
	b := &Bot{Index: i, Seed: seed, Link: link, bot: soccer.NewBot(v.cfg.Rules, seed+uint64(i)*0x9e3779b97f4a7c15)}
	h, err := v.rig.Join(at, harness.ClientConfig{
		Link: link, Seed: seed, Core: v.cfg.clientConfig(b), Game: v.cfg.clientGame(b),
		OnFrame: func(h *harness.Client, f *client.Frame) { h.Core().SetInput(b.act(f, v.cfg.OnFrame)) },
	})
	if err != nil {
		return nil, err
	}
	b.h = h
	v.bots = append(v.bots, b)
	return b, nil
}

// Leave makes bot b leave at true time at: the server drops it after its
// disconnect message travels up the link (or at once, if it is lost, as a
// timeout would eventually).
func (v *Virtual) Leave(b *Bot, at time.Duration) { v.rig.Leave(b.h, at) }

// Take sets the input bot b sends instead of its own decisions (a person at
// the keys); nil gives control back to the bot.
func (v *Virtual) Take(b *Bot, in *soccer.Input) { b.take(in) }

// Steer sets the keys a person presses to play bot b's player instead of the
// bot (see soccer.Human); nil gives control back to the bot. Safe from any
// goroutine.
func (b *Bot) Steer(k *soccer.Keys) {
	if k == nil {
		b.keys.Store(nil)
		return
	}
	c := *k
	b.keys.Store(&c)
}

func (b *Bot) take(in *soccer.Input) {
	if in == nil {
		b.control.Store(nil)
		return
	}
	c := *in
	b.control.Store(&c)
}

// act decides the bot's input at frame f, lets the caller's OnFrame see or
// replace it, lets the game prepare it (ClientGame.PrepareInput: the resim
// method's kick claims), and returns its bytes.
func (b *Bot) act(f *client.Frame, onFrame func(*Bot, *client.Frame, *soccer.View)) []byte {
	b.decide(f)
	if onFrame != nil {
		onFrame(b, f, &b.view)
	}
	b.game.PrepareInput(&b.lastIn, f)
	b.inBuf = soccer.AppendInput(b.inBuf[:0], b.lastIn)
	return b.inBuf
}
