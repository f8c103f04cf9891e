package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
		"usage: tether serve [-addr IP:PORT] [-public IP:PORT] [-key FILE] [-protocol-id ID] [-max-clients N] [-matches N] [-used-tokens FILE]",
		"                   [-admin HOST:PORT [-admin-hosts NAME,...] [-pprof]] [-log-format text|json] [-drain-grace D] [-agones [-agones-port NAME]]",
		"                   [-match-length D] [-idle-timeout D] [-unused-timeout D] [-after-match shutdown|ready]",
		"                   [-http ADDR [-tls-cert FILE -tls-key FILE] [-anonymous-play]]",
		"Runs a dedicated soccer server that accepts clients with connect tokens (tether token)",
		"minted with the same key and protocol id, until interrupted, or with -agones until its match ends.",
		"With -matches N it hosts N matches, each with its own slots on its own port: match i listens on",
		"-addr's port + i, and a token selects it by naming its address (-public's port + i, or with",
		"-agones-port NAME the GameServer's port NAME-i); every match returns to the pool when it ends,",
		"the process ends on drain, and with -agones it reports its matches in use in the Counter rooms.",
	)
	addr := fs.String("addr", "127.0.0.1:40000", "UDP address to listen on, IP:PORT (port 0: any free port)")
	public := fs.String("public", "", "address clients send to, as written in their tokens (default: -addr; required when -addr is 0.0.0.0 or ::)")
	keyPath := fs.String("key", "tether.key", "private key file written by tether keygen")
	pid := protocolFlag(fs, "protocol id of the game; tokens must carry the same")
	allowReadable := fs.Bool("allow-readable-key", false, "use a key file other users can read")
	usedPath := fs.String("used-tokens", "", `file that keeps the tokens clients used, so a restarted server refuses them (default: the -key file's name with ".used" added; "none": forget them on exit)`)
	maxClients := fs.Int("max-clients", 22, fmt.Sprintf("client slots, one player each, 1 to %d", maxServePlayers))
	admin := fs.String("admin", "", "serve /healthz, /readyz and /metrics over HTTP on HOST:PORT (:PORT means loopback); off when empty")
	adminHosts := fs.String("admin-hosts", "", "with -admin: host names (comma-separated, no port) requests may name in their Host header besides -admin's host, IP addresses and localhost: the DNS names a scraper reaches the pod by (others get 421, against DNS rebinding)")
	matches := fs.Int("matches", 1, fmt.Sprintf("matches this process hosts, 1 to %d, each a game with its own -max-clients slots on its own UDP port", maxMatches))
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
	afterMatch := fs.String("after-match", "shutdown", "when a match ends: shutdown (disconnect its players and exit 0; Agones then replaces the server) or ready (disconnect them, restart the match and take the next one: Agones may allocate it again); with -matches above 1 always ready")
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
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *afterMatch != "shutdown" && *afterMatch != "ready" {
		return usagef("-after-match %q: want shutdown or ready", *afterMatch)
	}
	if *matches < 1 || *matches > maxMatches {
		return usagef("-matches %d: want 1 to %d", *matches, maxMatches)
	}
	multi := *matches > 1
	if multi {
		switch {
		case set["after-match"] && *afterMatch == "shutdown":
			return usagef("-matches %d: a match that ends returns to the pool (the process ends on drain); -after-match shutdown does not go with it", *matches)
		case *httpAddr != "":
			return usagef("-matches %d does not go with -http (the page shows one match)", *matches)
		}
		*afterMatch = "ready"
	}
	if *afterMatch == "ready" && *httpAddr != "" {
		return usagef("-after-match ready does not go with -http (the page shows one match)")
	}
	if mcfg.Length < 0 || mcfg.Idle < 0 || mcfg.NobodyCame < 0 {
		return usagef("-match-length, -idle-timeout, -unused-timeout: want 0 or more")
	}
	if *agonesFlag {
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
	if (*pprof || *adminHosts != "") && *admin == "" {
		return usagef("-pprof and -admin-hosts need -admin")
	}
	var hosts []string
	if *admin != "" {
		if *admin, hosts, err = adminAddr(*admin, *adminHosts); err != nil {
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
	var gs *agones.GameServer
	if *agonesFlag {
		if ag, err = agones.New(agones.Config{Log: log}); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), agonesAddressWait)
		gs, err = ag.GameServer(ctx)
		cancel()
		if err != nil {
			return fmt.Errorf("-agones: reading the GameServer record: %w", err)
		}
		log = withTrailing(log, "gameserver", gs.Meta.Name)
		if _, ok := gs.Status.Counters[roomsCounter]; multi && !ok {
			return fmt.Errorf("-matches %d with -agones: the GameServer has no Counter %q (declare it in spec.counters, with capacity %d)", *matches, roomsCounter, *matches)
		}
	}
	// Match i listens on -addr's port + i and is named in tokens by
	// -public's port + i, or the GameServer's port NAME-i.
	listens, pubs := make([]netip.AddrPort, *matches), make([]netip.AddrPort, *matches)
	for i := range *matches {
		if listens[i], err = roomAddr("-addr", listen, i); err != nil {
			return err
		}
		switch {
		case *agonesPort != "":
			name := *agonesPort
			if multi {
				name = fmt.Sprintf("%s-%d", name, i)
			}
			if pubs[i], err = gs.PublicAddress(name); err != nil {
				return fmt.Errorf("-agones-port %s: %w", name, err)
			}
			if listen.Port() == 0 {
				listens[i] = netip.AddrPortFrom(listen.Addr(), pubs[i].Port())
			}
		case pub.IsValid():
			if pubs[i], err = roomAddr("-public", pub, i); err != nil {
				return err
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
	lc := ops.NewLifecycle()
	rcfg := roomConfig{rules: rules, slots: slots, netcode: ncfg, match: mcfg, proc: lc}
	rooms := make([]*room, 0, *matches)
	closeRooms := func() error { // before Agones hears of the shutdown
		var errs []error
		for _, r := range rooms {
			errs = append(errs, r.close())
		}
		rooms = nil
		return errors.Join(errs...)
	}
	defer closeRooms() // on a failure: the rooms opened
	for i := range *matches {
		rlc, rlog := lc, log
		if multi {
			rlc, rlog = ops.NewLifecycle(), log.With("match", i)
		}
		r, err := openRoom(i, listens[i], pubs[i], rlc, rcfg, rlog)
		if err != nil {
			return err
		}
		rooms = append(rooms, r)
		if multi {
			if err := rlc.Ready(); err != nil {
				return err
			}
		}
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	if *httpAddr != "" {
		stopPlay, err := servePlay(rooms[0].srv, rooms[0].game, *maxClients, *httpAddr, *tlsCert, *tlsKey, *anonymous, ncfg, log)
		if err != nil {
			return err
		}
		defer stopPlay()
	}
	health := roomsHealth(rooms)
	var adminSrv *http.Server
	adminAt := "off"
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if *admin != "" {
		process := prom.Process{Lifecycle: lc}
		if ag != nil {
			process.Agones = ag.Calls
		}
		collectors := make([]*prom.Collector, len(rooms))
		for i, r := range rooms {
			collectors[i] = prom.ServerCollector(r.srv, prom.ServerConfig{Match: i, Lifecycle: r.lc, Capacity: slots, Fill: func(s *prom.Snapshot) {
				s.Movement, s.BadInputs = r.game.MovementTotals(), r.game.Stats().BadInputs
			}})
			go collectors[i].SampleRTT(ctx, time.Second)
		}
		hs, at, err := serveAdmin(*admin, hosts, lc, prom.Handler(process, collectors...), health, *pprof, log)
		if err != nil {
			return err
		}
		adminSrv, adminAt = hs, at.String()
	}
	defer stopAdmin(adminSrv)
	if ag != nil {
		if multi {
			ag.SetCounter(roomsCounter, 0, int64(*matches))
		}
		defer ag.Start(lc, health)() // stops after the server closed: Agones then removes the pod
	}
	if err := lc.Ready(); err != nil {
		return err
	}
	for _, r := range rooms {
		r.log.Info("listening", "udp", r.local.String(), "public", r.pub.String(), "protocol_id", fmt.Sprintf("%#x", *pid), "max_clients", *maxClients, "admin", adminAt,
			"match_length", mcfg.Length, "idle_timeout", mcfg.Idle, "unused_timeout", mcfg.NobodyCame, "after_match", *afterMatch)
	}
	// With several matches the process is Allocated while one is in use,
	// or for -unused-timeout after Agones allocated it; a check after its
	// last match ended it is Ready again.
	pool := ops.NewMatchClock(ops.MatchConfig{Idle: matchCheck, NobodyCame: mcfg.NobodyCame})
	used := 0 // matches in use at the last check
	check := time.NewTicker(matchCheck)
	defer check.Stop()
	for ended := false; !ended; {
		select {
		case <-signals:
			second, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
			srvs := make([]*server.UDP, len(rooms))
			for i, r := range rooms {
				srvs[i] = r.srv
			}
			ops.Drain(second, lc, *grace, log, srvs...)
			ended = true
		case now := <-check.C:
			for _, r := range rooms {
				why := r.clock.Check(now, r.lc.State(), r.lc.Match(), r.players())
				switch {
				case why == nil:
				case *afterMatch == "shutdown":
					lc.Drain()
					log.Info("match over: shutting down", "reason", why.Error(), "clients", r.clients())
					ended = true // closing the server tells the clients
				default:
					if err := r.reset(why); err != nil {
						return err
					}
				}
			}
			if !multi {
				break
			}
			p := inUse(rooms)
			if p.Connected != used && ag != nil {
				ag.SetCounter(roomsCounter, int64(p.Connected), int64(*matches))
			}
			used = p.Connected
			if why := pool.Check(now, lc.State(), lc.Match(), p); why != nil && lc.Release() == nil {
				log.Info("every match free: ready", "reason", why.Error())
			}
			if inUse(rooms).Connected > 0 { // a player joined since
				_ = lc.Allocate()
			}
		}
	}
	return closeRooms()
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
