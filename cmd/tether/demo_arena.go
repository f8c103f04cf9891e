package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/lab"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
)

// arenaProtocolID is the netcode protocol id of the arena.
const arenaProtocolID = 0x7465746865720002

// arenaDemo is what tether demo -game arena runs: bots players of package
// game/arena over real UDP on 127.0.0.1, each through an emulated link,
// every other one drawing projectiles the naive way (the lab's seed), until
// ctx ends; then the lab's arena report, measured by lab.ArenaRecord as the
// lab measures (true time is the server's clock, read when each frame is
// drawn).
type arenaDemo struct {
	bots     int
	link     netsim.LinkConfig
	linkName string
	seed     uint64
	asJSON   bool
}

func (o arenaDemo) run(ctx context.Context, stdout io.Writer) error {
	if o.bots > 16 {
		return usagef("-bots %d: want 1 to 16 for -game arena", o.bots)
	}
	scen := lab.Scenario{Name: "arena-" + o.linkName, Seed: o.seed, TickHz: 60, SnapshotHz: 30, FrameHz: 60, Game: lab.GameArena}
	for i := range o.bots {
		c := lab.Client{Name: fmt.Sprintf("bot-%d", i+1), Clock: lab.ClockTether, Ball: lab.BallTether, Link: o.link}
		if i%2 == 1 {
			c.Ball = lab.BallSeed
		}
		scen.Clients = append(scen.Clients, c)
	}
	rec := lab.NewArenaRecord(scen.Clients)
	game, err := arena.NewGame(arena.Config{MaxPlayers: o.bots, OnProjectile: rec.Flight, OnShot: rec.Shot})
	if err != nil {
		return err
	}
	core, err := server.New(server.Config{MaxClients: o.bots}, game)
	if err != nil {
		return err
	}
	key, err := netcode.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	raw, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	addr := raw.LocalAddr().(*net.UDPAddr).AddrPort()
	router := netsim.NewRouter(raw)
	srv, err := server.ServeUDP(router, core, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: arenaProtocolID, PrivateKey: key, PublicAddress: addr, MaxClients: o.bots}})
	if err != nil {
		router.Close()
		return err
	}
	epoch := time.Now().Add(-srv.Now())
	trueNow := func() time.Duration { return time.Since(epoch) }
	drivers := make([]atomic.Pointer[client.UDP], o.bots)
	stopAll := func() {
		for i := range drivers {
			if d := drivers[i].Load(); d != nil {
				d.Close()
			}
		}
		srv.Close()
	}
	for i := range o.bots {
		if err := o.join(i, addr, &key, router, rec, &drivers[i], trueNow); err != nil {
			stopAll()
			return err
		}
	}
	<-ctx.Done()
	// Close the clients first, then the server: nothing feeds the record after.
	traffic := make([]harness.Traffic, o.bots)
	for i := range drivers {
		d := drivers[i].Load()
		d.Do(func(c *client.Client) {
			st := c.Stats()
			traffic[i] = harness.Traffic{PacketsUp: int64(st.PacketsOut), PayloadUp: int64(st.BytesOut), PacketsDown: int64(st.PacketsIn), PayloadDown: int64(st.BytesIn)}
		})
	}
	ran := trueNow()
	stopAll()
	srv.Do(func(*server.Server) {
		for _, f := range game.Flights() {
			rec.Flight(f)
		}
	})
	scen.DurationS = ran.Seconds()
	rep := rec.Report(scen, func(i int) harness.Traffic { return traffic[i] })
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return lab.WriteTable(stdout, rep)
}

// join starts bot i: its socket, its link (up on its socket, down on the
// server's router), its client and its measurement.
func (o arenaDemo) join(i int, addr netip.AddrPort, key *netcode.Key, router *netsim.Router, rec *lab.ArenaRecord,
	driver *atomic.Pointer[client.UDP], trueNow func() time.Duration) error {
	token, err := netcode.NewConnectToken(rand.Reader, key, netcode.TokenParams{
		ProtocolID: arenaProtocolID, ClientID: uint64(i) + 1, ServerAddresses: []netip.AddrPort{addr}, Now: time.Now()})
	if err != nil {
		return err
	}
	raw, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	seed := o.seed*1000 + uint64(i)
	router.Route(raw.LocalAddr().(*net.UDPAddr).AddrPort(), o.link.Down, seed^0x646f776e)
	conn := netsim.NewPacketConn(raw, o.link.Up, seed)
	rc := rec.Client(i)
	cg, err := arena.NewClientGame(arena.ClientConfig{NaiveSpawn: i%2 == 1, OnShot: func(s arena.ClientShot) { rc.Claim(s, trueNow()) }})
	if err != nil {
		conn.Close()
		return err
	}
	core, err := client.New(client.Config{}, cg)
	if err != nil {
		conn.Close()
		return err
	}
	bot := arena.NewBot(seed)
	start, clk := time.Now(), o.link.Clock
	d, err := client.DialUDP(conn, token, core, client.UDPConfig{
		Local: func() time.Duration { return clk.Local(time.Since(start)) },
		OnFrame: func(f *client.Frame) []byte {
			t := trueNow()
			if d := driver.Load(); d != nil {
				d.Do(func(c *client.Client) {
					if c.Clock().Stats().Samples > 0 {
						rc.Replied(t)
					}
				})
			}
			rc.Frame(t, f, cg)
			return arena.AppendInput(nil, bot.Input(f))
		},
	})
	if err != nil {
		conn.Close()
		return err
	}
	driver.Store(d)
	return nil
}
