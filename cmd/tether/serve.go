package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/ops/agones"
	"github.com/tether-net/tether/ops/prom"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
)

// maxServePlayers is the most player slots a soccer match has.
const maxServePlayers = 64

// runServe runs a dedicated soccer server until interrupted: the showcase
// match (package game/soccer) at 60 ticks and 30 snapshots a second, one
// player per client slot, accepting the clients whose connect tokens were
// minted with its key and protocol id and name its public address. It prints
// where it listens, each client that connects or leaves, and a summary when
// it stops.
func runServe(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("serve", stderr,
		"usage: tether serve [-addr IP:PORT] [-public IP:PORT] [-key FILE] [-protocol-id ID] [-max-clients N] [-used-tokens FILE]",
		"                   [-admin HOST:PORT [-pprof]] [-log-format text|json] [-drain-grace D] [-agones [-agones-port NAME]]",
		"                   [-match-length D] [-idle-timeout D] [-unused-timeout D] [-after-match shutdown|ready]",
		"                   [-http ADDR [-tls-cert FILE -tls-key FILE] [-anonymous-play]]",
		"Runs a dedicated soccer server that accepts clients with connect tokens (tether token)",
		"minted with the same key and protocol id, until interrupted, or with -agones until its match ends.",
	)
	addr := fs.String("addr", "127.0.0.1:40000", "UDP address to listen on, IP:PORT (port 0: any free port)")
	public := fs.String("public", "", "address clients send to, as written in their tokens (default: -addr; required when -addr is 0.0.0.0 or ::)")
	keyPath := fs.String("key", "tether.key", "private key file written by tether keygen")
	pid := protocolFlag(fs, "protocol id of the game; tokens must carry the same")
	allowReadable := fs.Bool("allow-readable-key", false, "use a key file other users can read")
	usedPath := fs.String("used-tokens", "", `file that keeps the tokens clients used, so a restarted server refuses them (default: the -key file's name with ".used" added; "none": forget them on exit)`)
	maxClients := fs.Int("max-clients", 22, fmt.Sprintf("client slots, one player each, 1 to %d", maxServePlayers))
	admin := fs.String("admin", "", "serve /healthz, /readyz and /metrics over HTTP on HOST:PORT (:PORT means loopback); off when empty")
	pprof := fs.Bool("pprof", false, "also serve net/http/pprof under /debug/pprof/ on the -admin address")
	logFormat := fs.String("log-format", "text", "log records as text or json (log/slog)")
	agonesFlag := fs.Bool("agones", false, "report the lifecycle (ready, allocated, health, shutdown) to the Agones SDK sidecar's REST API on localhost:$AGONES_SDK_HTTP_PORT")
	agonesPort := fs.String("agones-port", "", "with -agones: before serving, take the public address from the GameServer record (status.address and the port of this name), for Dynamic or Passthrough ports; with -addr port 0 also listen on that port (Passthrough)")
	httpAddr := fs.String("http", "", "serve the page on ADDR (IP:PORT): whoever opens it can join the match as a player from the browser, in 8 slots beyond -max-clients (WebTransport on the same port over UDP, else a WebSocket); off when empty")
	tlsCert := fs.String("tls-cert", "", "with -http: certificate file (PEM) to serve the page over HTTPS and WebTransport with (default: HTTP, and a self-signed WebTransport certificate)")
	tlsKey := fs.String("tls-key", "", "with -http: the -tls-cert's private key file (PEM)")
	anonymous := fs.Bool("anonymous-play", false, "with -http: the page's POST /play/token mints a token for anyone who asks (else it answers 403: players bring tokens from your backend, tether token -serve)")
	grace := fs.Duration("drain-grace", 30*time.Second, "on SIGTERM or Ctrl-C, how long the match may go on with the clients it has before they are disconnected (a second signal stops at once)")
	var mcfg ops.MatchConfig
	fs.DurationVar(&mcfg.Length, "match-length", 0, fmt.Sprintf("end a match this long after its first player joined, its full time (default %v with -agones; 0: never)", defaultMatch.Length))
	fs.DurationVar(&mcfg.Idle, "idle-timeout", 0, fmt.Sprintf("end a match this long after its last player left (default %v with -agones; 0: never)", defaultMatch.Idle))
	fs.DurationVar(&mcfg.NobodyCame, "unused-timeout", 0, fmt.Sprintf("end a match this long after Agones allocated the server if no player joined (default %v with -agones; 0: never)", defaultMatch.NobodyCame))
	afterMatch := fs.String("after-match", "shutdown", "when a match ends: shutdown (disconnect its players and exit 0; Agones then replaces the server) or ready (disconnect them, restart the match and take the next one: Agones may allocate it again)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := newLogger(*logFormat, stdout)
	if err != nil {
		return err
	}
	log = withTrailing(log, "version", ops.Version())
	if *logFormat == "json" {
		// Every record is JSON, a fatal one too (but for a command line
		// that cannot run, which says so on stderr).
		defer func() {
			var ue usageError
			if err != nil && !errors.As(err, &ue) {
				log.Error("tether serve failed", "err", err.Error())
				err = loggedError{err}
			}
		}()
	}
	if *afterMatch != "shutdown" && *afterMatch != "ready" {
		return usagef("-after-match %q: want shutdown or ready", *afterMatch)
	}
	if *afterMatch == "ready" && *httpAddr != "" {
		return usagef("-after-match ready does not go with -http (the page shows one match)")
	}
	if mcfg.Length < 0 || mcfg.Idle < 0 || mcfg.NobodyCame < 0 {
		return usagef("-match-length, -idle-timeout, -unused-timeout: want 0 or more")
	}
	if *agonesFlag {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["match-length"] {
			mcfg.Length = defaultMatch.Length
		}
		if !set["idle-timeout"] {
			mcfg.Idle = defaultMatch.Idle
		}
		if !set["unused-timeout"] {
			mcfg.NobodyCame = defaultMatch.NobodyCame
		}
	}
	if *pprof && *admin == "" {
		return usagef("-pprof needs -admin")
	}
	if *admin != "" {
		if *admin, err = adminAddr(*admin); err != nil {
			return err
		}
	}
	listen, err := netip.ParseAddrPort(*addr)
	if err != nil {
		return usagef("-addr %q: want IP:PORT or [IPv6]:PORT", *addr)
	}
	slots := *maxClients
	if *httpAddr != "" {
		slots += match.BrowserSlots
	} else if *tlsCert != "" || *tlsKey != "" || *anonymous {
		return usagef("-tls-cert, -tls-key and -anonymous-play need -http")
	}
	if *maxClients < 1 || slots > maxServePlayers {
		return usagef("-max-clients %d: want 1 to %d (%d with -http)", *maxClients, maxServePlayers, maxServePlayers-match.BrowserSlots)
	}
	var pub netip.AddrPort
	if *agonesPort != "" && (!*agonesFlag || *public != "") {
		return usagef("-agones-port needs -agones, and takes the place of -public")
	}
	if *public != "" {
		if pub, err = netip.ParseAddrPort(*public); err != nil || pub.Addr().IsUnspecified() || pub.Port() == 0 {
			return usagef("-public %q: want the IP:PORT clients reach the server at", *public)
		}
	} else if listen.Addr().IsUnspecified() && *agonesPort == "" {
		return usagef("-addr %s listens on every interface: give -public, the IP:PORT clients reach the server at and their tokens name", listen)
	}
	key, err := readKeyFile(*keyPath, *allowReadable)
	if err != nil {
		return fmt.Errorf("-key: %w", err)
	}
	var ag *agones.Adapter
	if *agonesFlag {
		if ag, err = agones.New(agones.Config{Log: log}); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), agonesAddressWait)
		gs, err := ag.GameServer(ctx)
		cancel()
		if err != nil {
			return fmt.Errorf("-agones: reading the GameServer record: %w", err)
		}
		log = withTrailing(log, "gameserver", gs.Meta.Name)
		if *agonesPort != "" {
			if pub, err = gs.PublicAddress(*agonesPort); err != nil {
				return fmt.Errorf("-agones-port %s: %w", *agonesPort, err)
			}
			if listen.Port() == 0 {
				listen = netip.AddrPortFrom(listen.Addr(), pub.Port())
			}
		}
	}

	ncfg := netcode.ServerConfig{ProtocolID: *pid, PrivateKey: key, MaxClients: *maxClients,
		OnRefused: ops.NewRefusalLog(log, time.Now).Refused}
	if *usedPath == "" {
		*usedPath = *keyPath + ".used"
	}
	if *usedPath != "none" {
		used, file, err := ops.OpenUsedTokens(*usedPath, time.Now)
		if err != nil {
			return fmt.Errorf("-used-tokens: %w", err)
		}
		defer func() {
			if cerr := file.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("-used-tokens: %w", cerr)
			}
		}()
		ncfg.UsedTokens, ncfg.OnTokenUsed = used, file.Record
	}

	rules := soccer.DefaultRules()
	rules.MaxPlayers = slots
	game, err := soccer.NewGame(rules, 60)
	if err != nil {
		return err
	}
	core, err := server.New(server.Config{MaxClients: slots, ClockEpoch: uint32(time.Now().UnixNano())}, game)
	if err != nil {
		return err
	}
	network := "udp4"
	if listen.Addr().Is6() && !listen.Addr().Is4In6() {
		network = "udp6"
	}
	conn, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(listen))
	if err != nil {
		return fmt.Errorf("-addr %s: %w", listen, err)
	}
	local := conn.LocalAddr().(*net.UDPAddr).AddrPort()
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	if !pub.IsValid() {
		pub = local
	} else if pub.Port() != local.Port() && listen.Port() == 0 {
		conn.Close()
		return usagef("-public with -addr port 0: give -addr a fixed port, the one -public's port forwards to")
	}

	ncfg.PublicAddress = pub
	lc := ops.NewLifecycle()
	srv, err := server.ServeUDP(conn, core, udp.ServerConfig{
		Netcode: ncfg,
		OnConnect: func(slot int, id uint64) {
			_ = lc.Allocate() // the match is in use (refused while draining)
			log.Info("client connected", "client_id", id, "slot", slot)
		},
		OnDisconnect: func(slot int, id uint64, reason error) {
			if errors.Is(reason, netcode.ErrOverBudget) {
				log.Warn("client disconnected for flooding", "client_id", id, "slot", slot, "reason", reason.Error())
				return
			}
			log.Info("client left", "client_id", id, "slot", slot, "reason", reason.Error())
		},
	})
	if err != nil {
		conn.Close()
		return err
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	if *httpAddr != "" {
		stopPlay, err := servePlay(srv, game, *maxClients, *httpAddr, *tlsCert, *tlsKey, *anonymous, ncfg, log)
		if err != nil {
			srv.Close()
			return err
		}
		defer stopPlay()
	}
	health := ops.TickHealth(srv, stallLimit)
	var adminSrv *http.Server
	adminAt := "off"
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if *admin != "" {
		collector := prom.ServerCollector(srv, prom.ServerConfig{Lifecycle: lc, Capacity: slots, Fill: func(s *prom.Snapshot) {
			s.Movement, s.BadInputs = game.MovementTotals(), game.Stats().BadInputs
			if ag != nil {
				s.Agones = ag.Calls()
			}
		}})
		go collector.SampleRTT(ctx, time.Second)
		hs, at, err := serveAdmin(*admin, lc, collector, health, *pprof, log)
		if err != nil {
			srv.Close()
			return err
		}
		adminSrv, adminAt = hs, at.String()
	}
	defer stopAdmin(adminSrv)
	if ag != nil {
		defer ag.Start(lc, health)() // stops after the server closed: Agones then removes the pod
	}
	if err := lc.Ready(); err != nil {
		return err
	}
	over := make(chan error)
	go ops.NewMatchClock(mcfg).Run(ctx, lc, matchCheck, func() (p ops.Players) {
		srv.Do(func(c *server.Server) {
			st := c.Stats()
			p = ops.Players{Connected: st.Clients, Joins: st.Joins}
		})
		return p
	}, over)
	log.Info("listening", "udp", local.String(), "public", pub.String(), "protocol_id", fmt.Sprintf("%#x", *pid), "max_clients", *maxClients, "admin", adminAt,
		"match_length", mcfg.Length, "idle_timeout", mcfg.Idle, "unused_timeout", mcfg.NobodyCame, "after_match", *afterMatch)
	for ended := false; !ended; {
		select {
		case <-signals:
			second, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
			ops.Drain(second, srv, lc, *grace, log)
			ended = true
		case why := <-over:
			clients := 0
			for _, t := range srv.Transports() {
				clients += t.NumConnected()
			}
			if *afterMatch == "shutdown" {
				lc.Drain()
				log.Info("match over: shutting down", "reason", why.Error(), "clients", clients)
				ended = true
				break // closing the server tells the clients
			}
			for _, t := range srv.Transports() {
				t.DisconnectAll()
			}
			srv.Do(func(*server.Server) { game.Restart() })
			if err := lc.Release(); err != nil {
				return err
			}
			log.Info("match over: ready for the next", "reason", why.Error(), "clients", clients)
		}
	}
	var st server.Stats
	var score [2]int
	srv.Do(func(s *server.Server) {
		st = s.Stats()
		score = game.Score()
	})
	drops := srv.Transport().Stats().Dropped
	err = srv.Close()
	if errors.Is(err, udp.ErrClosed) {
		err = nil
	}
	log.Info("stopped", "ticks", st.Ticks, "skipped", st.Skipped, "overruns", st.Overruns, "score", fmt.Sprintf("%d-%d", score[0], score[1]),
		"dropped", drops.Total(), "over_budget", drops.OverBudget)
	return err
}

// defaultMatch is when a match ends with -agones, unless flags say
// otherwise.
var defaultMatch = ops.MatchConfig{Length: 10 * time.Minute, Idle: 30 * time.Second, NobodyCame: time.Minute}

// matchCheck is how often tether serve checks whether its match is over.
const matchCheck = 250 * time.Millisecond

// stallLimit: /healthz fails when no tick ran for this long.
const stallLimit = 5 * time.Second

// agonesAddressWait bounds how long tether serve waits for its GameServer
// record to name its address.
const agonesAddressWait = time.Minute
