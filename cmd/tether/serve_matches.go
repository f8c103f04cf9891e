package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
)

// maxMatches is the most matches one tether serve hosts (-matches).
const maxMatches = 64

// roomsCounter is the Agones Counter through which tether serve -matches N
// reports its matches in use (Count) and N (Capacity), as Agones'
// high-density pattern names it.
const roomsCounter = "rooms"

// room is one match of a tether serve process: its own game and server
// core on its own UDP port, with its own client slots and lifecycle.
type room struct {
	n     int // its number in the process, from 0
	game  *soccer.Game
	srv   *server.UDP
	lc    *ops.Lifecycle // the match's: the process's own when it hosts one
	clock *ops.MatchClock
	log   *slog.Logger // the process's, with match=n when it hosts several
	local netip.AddrPort
	pub   netip.AddrPort
}

// roomConfig is what every room of a process shares.
type roomConfig struct {
	rules   soccer.Rules
	slots   int // the core's, browsers' included
	netcode netcode.ServerConfig
	match   ops.MatchConfig
	proc    *ops.Lifecycle // the process's, Allocated while a match is in use
}

// openRoom starts match n listening on listen (port 0: any free port),
// named pub in its tokens (invalid: its local address), with its own
// lifecycle, or the process's when lc is that.
func openRoom(n int, listen, pub netip.AddrPort, lc *ops.Lifecycle, cfg roomConfig, log *slog.Logger) (*room, error) {
	game, err := soccer.NewGame(cfg.rules, 60)
	if err != nil {
		return nil, err
	}
	core, err := server.New(server.Config{MaxClients: cfg.slots, ClockEpoch: uint32(time.Now().UnixNano())}, game)
	if err != nil {
		return nil, err
	}
	network := "udp4"
	if listen.Addr().Is6() && !listen.Addr().Is4In6() {
		network = "udp6"
	}
	conn, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(listen))
	if err != nil {
		return nil, fmt.Errorf("-addr %s: %w", listen, err)
	}
	local := conn.LocalAddr().(*net.UDPAddr).AddrPort()
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	if !pub.IsValid() {
		pub = local
	} else if pub.Port() != local.Port() && listen.Port() == 0 {
		conn.Close()
		return nil, usagef("-public with -addr port 0: give -addr a fixed port, the one -public's port forwards to")
	}
	r := &room{n: n, game: game, lc: lc, clock: ops.NewMatchClock(cfg.match), log: log, local: local, pub: pub}
	ncfg := cfg.netcode
	ncfg.PublicAddress = pub
	r.srv, err = server.ServeUDP(conn, core, udp.ServerConfig{
		Netcode: ncfg,
		OnConnect: func(slot int, id uint64) {
			_ = lc.Allocate() // the match is in use (refused while draining)
			_ = cfg.proc.Allocate()
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
		return nil, err
	}
	return r, nil
}

// players is what the room's MatchClock is shown.
func (r *room) players() (p ops.Players) {
	r.srv.Do(func(c *server.Server) {
		st := c.Stats()
		p = ops.Players{Connected: st.Clients, Joins: st.Joins}
	})
	return p
}

// clients returns the clients connected to the room now.
func (r *room) clients() int {
	n := 0
	for _, t := range r.srv.Transports() {
		n += t.NumConnected()
	}
	return n
}

// reset disconnects the room's players, restarts its match and returns it
// to the pool (Ready): its match is over and it takes the next.
func (r *room) reset(why error) error {
	clients := r.clients()
	for _, t := range r.srv.Transports() {
		t.DisconnectAll()
	}
	r.srv.Do(func(*server.Server) { r.game.Restart() })
	if err := r.lc.Release(); err != nil {
		return err
	}
	r.log.Info("match over: ready for the next", "reason", why.Error(), "clients", clients)
	return nil
}

// close stops the room's server and logs its summary.
func (r *room) close() error {
	var st server.Stats
	var score [2]int
	r.srv.Do(func(s *server.Server) {
		st = s.Stats()
		score = r.game.Score()
	})
	drops := r.srv.Transport().Stats().Dropped
	err := r.srv.Close()
	if errors.Is(err, udp.ErrClosed) {
		err = nil
	}
	r.log.Info("stopped", "ticks", st.Ticks, "skipped", st.Skipped, "overruns", st.Overruns, "score", fmt.Sprintf("%d-%d", score[0], score[1]),
		"dropped", drops.Total(), "over_budget", drops.OverBudget)
	return err
}

// inUse counts the rooms whose match is in use, and sums their matches
// begun (Lifecycle.Match): the process's MatchClock's players.
func inUse(rooms []*room) ops.Players {
	var p ops.Players
	for _, r := range rooms {
		if r.lc.State() == ops.Allocated {
			p.Connected++
		}
		p.Joins += r.lc.Match()
	}
	return p
}

// roomAddr returns match n's address: base's port plus n, or port 0 when
// base's is (any free port).
func roomAddr(flagName string, base netip.AddrPort, n int) (netip.AddrPort, error) {
	if base.Port() == 0 || n == 0 {
		return base, nil
	}
	port := int(base.Port()) + n
	if port > 0xffff {
		return netip.AddrPort{}, usagef("%s %s: match %d's port %d is above 65535", flagName, base, n, port)
	}
	return netip.AddrPortFrom(base.Addr(), uint16(port)), nil
}

// roomsHealth is the health check of every room's tick loop.
func roomsHealth(rooms []*room) func() error {
	checks := make([]func() error, len(rooms))
	for i, r := range rooms {
		checks[i] = ops.TickHealth(r.srv, stallLimit)
	}
	return func() error {
		var errs []error
		for i, check := range checks {
			if err := check(); err != nil {
				if len(rooms) > 1 {
					err = fmt.Errorf("match %d: %w", i, err)
				}
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
}
