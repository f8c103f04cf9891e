package web

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
)

// ServerPlay says how browsers join a dedicated server's core as players
// (PlayOn).
type ServerPlay struct {
	// First and Slots are the core's client slots the browsers take,
	// beyond those of the server's first transport.
	First, Slots int
	// Transport configures the browsers' netcode server: the key and
	// protocol id of the server's first transport, and any callbacks.
	// PublicAddress and MaxClients are PlayOn's to set, and it clears
	// UsedTokens and OnTokenUsed: a token handed to whoever asks protects
	// nothing when remembered across a restart (anyone gets another), so
	// the browsers' tokens are remembered in memory only, until they
	// expire, and cannot flood a used-token file.
	Transport udp.ServerConfig
	// Anonymous lets POST /play/token mint a token for whoever asks;
	// otherwise it answers 403, and players come with tokens from the
	// game's backend (package ops/mint).
	Anonymous bool
}

// ErrNoAnonymousPlay is a PlayConfig.Token's error for a page whose
// server mints no tokens for anonymous players: POST /play/token answers
// 403.
var ErrNoAnonymousPlay = errors.New("tether/web: this server mints no tokens for anonymous players; tokens come from the game's backend")

// PlayOn returns the play endpoints (NewPlay with cfg) that let browsers
// join srv as players: POST /play/token mints a token with sp's key for
// whoever asks if sp.Anonymous (else the game's backend hands tokens only
// to the players it admits), the browsers' carriers are served as another of
// srv's transports (server.UDP.Serve) in sp's slots, and a closed tab's
// player leaves at once.
func PlayOn(srv *server.UDP, sp ServerPlay, cfg PlayConfig) (*Play, error) {
	var play *Play
	nc := sp.Transport.Netcode
	cfg.Token = func() ([]byte, error) {
		if !sp.Anonymous {
			return nil, ErrNoAnonymousPlay
		}
		var id [8]byte
		rand.Read(id[:])
		tok, err := netcode.NewConnectToken(rand.Reader, &nc.PrivateKey, netcode.TokenParams{
			ProtocolID: nc.ProtocolID, ClientID: binary.LittleEndian.Uint64(id[:]), Now: time.Now(),
			ServerAddresses: []netip.AddrPort{play.Listener().LocalAddr().(*net.UDPAddr).AddrPort()},
		})
		if err != nil {
			return nil, err
		}
		return tok.MarshalBinary()
	}
	cfg.Serve = func(conn net.PacketConn) error {
		tc := sp.Transport
		tc.Netcode.PublicAddress, tc.Netcode.MaxClients = conn.LocalAddr().(*net.UDPAddr).AddrPort(), sp.Slots
		tc.Netcode.UsedTokens, tc.Netcode.OnTokenUsed = nil, nil
		return srv.Serve(conn, sp.First, tc)
	}
	cfg.Left = func(a net.Addr) {
		for _, t := range srv.Transports()[1:] {
			t.DisconnectAddr(a.(*net.UDPAddr).AddrPort())
		}
	}
	cfg.Established = func(a net.Addr) bool {
		for _, t := range srv.Transports()[1:] {
			if t.HasClient(a.(*net.UDPAddr).AddrPort()) {
				return true
			}
		}
		return false
	}
	var err error
	play, err = NewPlay(cfg)
	return play, err
}
