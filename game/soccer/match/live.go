package match

import (
	"crypto/rand"
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
)

// ProtocolID is the netcode protocol id of the showcase match.
const ProtocolID = 0x7465746865720001

// Live is a match over real UDP sockets on the loopback interface: a server and
// cfg.Bots bot clients, each bot's socket wrapped by netsim.NewPacketConn with
// its link's Up direction and the server's datagrams to that bot by its Down
// direction. Bots' local clocks are offset and drift as their links say.
// Blackouts are not emulated live. Create it with StartLive; Close stops
// everything.
type Live struct {
	cfg    Config
	key    netcode.Key
	game   *soccer.Game
	core   *server.Server
	srv    *server.UDP
	router *netsim.Router
	addr   netip.AddrPort
	epoch  time.Time // the instant the server's clock read zero

	mu    sync.Mutex
	truth soccer.Truth
	bots  []*Bot
	// browserAddr is the address browsers connect to (ServeBrowsers);
	// browsers counts the tokens minted for them.
	browserAddr netip.AddrPort
	browsers    uint64
	records     *recordMeter // measures the browsers (MeterBrowsers)
}

// StartLive starts the server on 127.0.0.1 (a free port) and cfg.Bots bots.
// cfg.OnTick runs on the server's goroutine; cfg.OnFrame on each bot's own
// goroutine, so calls for different bots may run concurrently. Both start
// before StartLive returns.
func StartLive(cfg Config) (*Live, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	key, err := netcode.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	l := &Live{cfg: cfg, key: key}
	tickHz := cfg.Server.TickHz
	if tickHz == 0 {
		tickHz = 60
	}
	if l.game, err = soccer.NewGame(cfg.Rules, tickHz); err != nil {
		return nil, err
	}
	l.game.SetOnMove(func(client int, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
		for _, b := range l.Bots() {
			if d := b.Driver(); d != nil && d.Transport().ClientIndex() == client {
				if cfg.OnMove != nil {
					cfg.OnMove(b, m, s)
				}
				return
			}
		}
		l.browserMoved(client, m, s)
	})
	sc := cfg.Server
	onTick := sc.OnTick
	sc.OnTick = func(t server.Tick) {
		if onTick != nil {
			onTick(t)
		}
		l.mu.Lock()
		l.game.Truth(&l.truth)
		l.mu.Unlock()
		if l.cfg.OnTick != nil {
			l.cfg.OnTick(&l.truth) // only this goroutine writes truth
		}
	}
	if l.core, err = server.New(sc, l.game); err != nil {
		return nil, err
	}
	raw, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	_ = raw.SetReadBuffer(1 << 20)
	l.addr = raw.LocalAddr().(*net.UDPAddr).AddrPort()
	l.router = netsim.NewRouter(raw)
	l.srv, err = server.ServeUDP(l.router, l.core, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: ProtocolID, PrivateKey: key, PublicAddress: l.addr, MaxClients: udpSlots(l.core.Config().MaxClients)},
	})
	if err != nil {
		l.router.Close()
		return nil, err
	}
	l.epoch = time.Now().Add(-l.srv.Now()) // within the microsecond between the two readings
	for i := range cfg.Bots {
		if _, err := l.Join(cfg.linkOf(i)); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// Addr returns the server's address.
func (l *Live) Addr() netip.AddrPort { return l.addr }

// Server returns the server's driver (its Do gives locked access to the core).
func (l *Live) Server() *server.UDP { return l.srv }

// Game returns the server's game. Read it only inside Server().Do.
func (l *Live) Game() *soccer.Game { return l.game }

// Truth copies the true state after the latest tick into dst.
func (l *Live) Truth(dst *soccer.Truth) {
	l.mu.Lock()
	defer l.mu.Unlock()
	players := append(dst.Players[:0], l.truth.Players...)
	*dst = l.truth
	dst.Players = players
}

// Bots returns the bots started so far, in order.
func (l *Live) Bots() []*Bot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Bot(nil), l.bots...)
}

// Take sets the input bot b sends instead of its own decisions (a person at
// the keys); nil gives control back to the bot. Safe from any goroutine.
func (l *Live) Take(b *Bot, in *soccer.Input) { b.take(in) }

// Join starts one more bot over a link with config link.
func (l *Live) Join(link netsim.LinkConfig) (*Bot, error) {
	if err := link.Validate(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	i := len(l.bots)
	l.mu.Unlock()
	seed := l.cfg.botSeed(i)
	token, err := netcode.NewConnectToken(rand.Reader, &l.key, netcode.TokenParams{
		ProtocolID: ProtocolID, ClientID: uint64(i) + 1, ServerAddresses: []netip.AddrPort{l.addr}, Now: time.Now(),
	})
	if err != nil {
		return nil, err
	}
	raw, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	l.router.Route(raw.LocalAddr().(*net.UDPAddr).AddrPort(), link.Down, seed^0x646f776e)
	conn := netsim.NewPacketConn(raw, link.Up, seed)
	b := &Bot{Index: i, Seed: seed, Link: link, bot: soccer.NewBot(l.cfg.Rules, seed+uint64(i)*0x9e3779b97f4a7c15)}
	start := time.Now()
	b.start = start.Sub(l.epoch)
	clk := link.Clock
	if err := l.cfg.dial(b, conn, token, client.UDPConfig{Local: func() time.Duration { return clk.Local(time.Since(start)) }}); err != nil {
		conn.Close()
		return nil, err
	}
	l.mu.Lock()
	l.bots = append(l.bots, b)
	l.mu.Unlock()
	return b, nil
}

// Dial connects one bot to the server a connect token names, over conn (a
// socket on a real network: no link is emulated), and starts it playing as a
// Live match's bots do; its Driver reports the connection, and closing the
// driver closes conn. cfg configures its game (Rules, Server.TickHz,
// prediction, Ball), frames and hooks; cfg.Seed seeds its decisions. tc
// configures its transport (the protocol id, OnState).
func Dial(conn net.PacketConn, tok *netcode.ConnectToken, cfg Config, tc udp.ClientConfig) (*Bot, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	b := &Bot{Seed: cfg.Seed, bot: soccer.NewBot(cfg.Rules, cfg.Seed)}
	if err := cfg.dial(b, conn, tok, client.UDPConfig{Transport: tc}); err != nil {
		return nil, err
	}
	return b, nil
}

// dial starts bot b's client over conn to the server tok names, with uc's
// transport and local clock.
func (c *Config) dial(b *Bot, conn net.PacketConn, tok *netcode.ConnectToken, uc client.UDPConfig) error {
	core, err := client.New(c.clientConfig(b), c.clientGame(b))
	if err != nil {
		return err
	}
	uc.FrameHz = c.FrameHz
	uc.OnFrame = func(f *client.Frame) []byte { return b.act(f, c.OnFrame) }
	d, err := client.DialUDP(conn, tok, core, uc)
	if err != nil {
		return err
	}
	b.udp.Store(d)
	return nil
}

// Driver returns a Live bot's client driver (nil in Virtual).
func (b *Bot) Driver() *client.UDP { return b.udp.Load() }

// do runs fn with the bot's client core: in Live under its driver's lock
// (not at all in a frame before DialUDP returned the driver).
func (b *Bot) do(fn func(*client.Client)) {
	if d := b.Driver(); d != nil {
		d.Do(fn)
	} else if b.h != nil {
		fn(b.Client())
	}
}

// Leave disconnects bot b and closes its socket.
func (l *Live) Leave(b *Bot) error {
	d := b.Driver()
	if d == nil {
		return errors.New("tether/match: not a live bot")
	}
	return d.Close()
}

// Close stops every bot and the server and closes their sockets; it waits for
// every goroutine to end.
func (l *Live) Close() error {
	var errs []error
	for _, b := range l.Bots() {
		if err := b.Driver().Close(); err != nil && !errors.Is(err, udp.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if l.srv != nil {
		if err := l.srv.Close(); err != nil && !errors.Is(err, udp.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
