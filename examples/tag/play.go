package main

import (
	"crypto/rand"
	"fmt"
	"log"
	"net"
	"net/netip"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
)

// protocolID names the game and its version: a client of another game, or
// of another version of this one, is refused.
const protocolID = 0x74616731 // "tag1"

// options are the program's flags.
type options struct {
	bots     int           // clients, 1 to maxPlayers
	duration time.Duration // how long they play
	addr     string        // the server's UDP address
}

// result is what one run measured.
type result struct {
	addr    netip.AddrPort // the server's
	played  time.Duration  // from the clients' dialling to the figures' reading
	clients []botResult
	replica replica.Stats // the server's replication layer, all clients
}

// botResult is one client's figures.
type botResult struct {
	connected   bool
	wire        netcode.ClientStats // datagrams and their bytes, netcode's headers included
	corrections uint64              // the server's corrections of its prediction
	bot                             // its frames
}

// play runs a server and o.bots bot clients in this process, over UDP,
// for o.duration, and returns their figures.
func play(o options) (*result, error) {
	if errSchema != nil {
		return nil, errSchema
	}
	if o.bots < 1 || o.bots > maxPlayers {
		return nil, fmt.Errorf("tag: %d bots, want 1 to %d", o.bots, maxPlayers)
	}

	// The server: the game, the sans-I/O core, the UDP driver. A snapshot
	// that outgrows its packet is reported once (the layer then sends what
	// fits, the most overdue first).
	g := newGame(1)
	core, err := server.New(server.Config{OnLimit: func(l server.Limit) { log.Printf("tag: %s", l.Cause) }}, g)
	if err != nil {
		return nil, err
	}
	key, err := netcode.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	laddr, err := net.ResolveUDPAddr("udp", o.addr)
	if err != nil {
		return nil, err
	}
	sconn, err := net.ListenUDP("udp", laddr)
	if err != nil {
		return nil, err
	}
	srv, err := server.ServeUDP(sconn, core, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: protocolID, PrivateKey: key, MaxClients: maxPlayers}})
	if err != nil {
		sconn.Close()
		return nil, err
	}
	defer srv.Close()
	at := sconn.LocalAddr().(*net.UDPAddr).AddrPort()
	if at.Addr().IsUnspecified() { // listening on every address: the clients dial loopback
		at = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), at.Port())
	}

	// The clients. Each needs a connect token, which a matchmaking backend
	// holding the server's key would mint; here we hold it.
	start := time.Now()
	drivers := make([]*client.UDP, o.bots)
	views := make([]*view, o.bots)
	bots := make([]*bot, o.bots)
	defer func() {
		for _, d := range drivers {
			if d != nil {
				d.Close()
			}
		}
	}()
	for i := range drivers {
		token, err := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
			ProtocolID: protocolID, ClientID: uint64(i + 1), Now: time.Now(), ServerAddresses: []netip.AddrPort{at}})
		if err != nil {
			return nil, err
		}
		if views[i], err = newView(); err != nil {
			return nil, err
		}
		core, err := client.New(client.Config{}, views[i])
		if err != nil {
			return nil, err
		}
		conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: at.Addr().AsSlice()})
		if err != nil {
			return nil, err
		}
		bots[i] = new(bot)
		if drivers[i], err = client.DialUDP(conn, token, core, client.UDPConfig{OnFrame: bots[i].frame}); err != nil {
			conn.Close()
			return nil, err
		}
	}

	time.Sleep(o.duration)

	// The figures, read while everything runs: each client's under its
	// driver's lock, the server's under the server's.
	r := &result{addr: at, played: time.Since(start), clients: make([]botResult, o.bots)}
	for i, d := range drivers {
		c := &r.clients[i]
		select {
		case <-d.Connected():
			c.connected = true
		default:
		}
		c.wire = d.Transport().Stats()
		d.Do(func(*client.Client) { c.corrections = views[i].Own().Stats().Corrections })
	}
	srv.Do(func(s *server.Server) { r.replica = s.Replica().Stats() })
	// The bots' own counts, once their drivers have stopped calling them.
	for i, d := range drivers {
		d.Close()
		r.clients[i].bot = *bots[i]
	}
	return r, nil
}
