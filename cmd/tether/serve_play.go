package main

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/game/soccer/match/page"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/web"
)

// servePlay serves the demo's page on httpAddr so that people on other
// machines can open it and join srv's match as players, in the
// match.BrowserSlots slots from first: web.Play's endpoints, with ncfg's
// key and protocol id. POST /play/token mints a token for anyone who asks:
// it is where a matchmaker plugs in, handing tokens only to the players it
// admits. It returns a function that stops it.
//
// With certFile and keyFile the page is served over HTTPS and WebTransport
// with the same certificate; without them over HTTP, with a self-signed
// certificate for WebTransport, which a browser uses only for a page on
// its own loopback address (elsewhere the page plays over the WebSocket).
func servePlay(srv *server.UDP, first int, httpAddr, certFile, keyFile string, ncfg netcode.ServerConfig, log *slog.Logger) (func(), error) {
	var cert *tls.Certificate
	if certFile != "" || keyFile != "" {
		c, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert, -tls-key: %w", err)
		}
		cert = &c
	}
	tcp, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return nil, fmt.Errorf("-http %s: %w", httpAddr, err)
	}
	var play *web.Play
	client := webClient()
	play, err = web.NewPlay(web.PlayConfig{
		Addr: tcp.Addr().(*net.TCPAddr).AddrPort(),
		Token: func() ([]byte, error) {
			var id [8]byte
			rand.Read(id[:])
			tok, err := netcode.NewConnectToken(rand.Reader, &ncfg.PrivateKey, netcode.TokenParams{
				ProtocolID: ncfg.ProtocolID, ClientID: binary.LittleEndian.Uint64(id[:]), Now: time.Now(),
				ServerAddresses: []netip.AddrPort{play.Listener().LocalAddr().(*net.UDPAddr).AddrPort()},
			})
			if err != nil {
				return nil, err
			}
			return tok.MarshalBinary()
		},
		Serve: func(conn net.PacketConn) error {
			cfg := ncfg
			cfg.PublicAddress, cfg.MaxClients = conn.LocalAddr().(*net.UDPAddr).AddrPort(), match.BrowserSlots
			return srv.Serve(conn, first, udp.ServerConfig{Netcode: cfg,
				OnConnect: func(slot int, id uint64) { log.Info("browser connected", "client_id", id, "slot", slot) },
				OnDisconnect: func(slot int, id uint64, reason error) {
					log.Info("browser left", "client_id", id, "slot", slot, "reason", reason.Error())
				}})
		},
		Left: func(a net.Addr) {
			for _, t := range srv.Transports()[1:] {
				t.DisconnectAddr(a.(*net.UDPAddr).AddrPort())
			}
		},
		Client:      client.Get,
		MaxConns:    2 * match.BrowserSlots,
		Certificate: cert,
	})
	if err != nil {
		tcp.Close()
		return nil, err
	}
	wc := webConfig(httpAddr)
	wc.Play = play
	hub := web.NewHubConfig(wc)
	if err := hub.SetPitch(page.Pitch(soccer.Rules{})); err != nil {
		tcp.Close()
		play.Close()
		return nil, err
	}
	hs := &http.Server{Handler: hub.Handler(), ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if cert != nil {
		scheme = "https"
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*cert}}
		tcp = tls.NewListener(tcp, hs.TLSConfig)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(tcp); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("web", "err", err)
		}
	}()
	log.Info("serving the page", "url", scheme+"://"+tcp.Addr().String()+"/", "browser_slots", match.BrowserSlots)
	return func() {
		hs.Close()
		play.Close()
		<-done
	}, nil
}
