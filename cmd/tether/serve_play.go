package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/game/soccer/match/page"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/web"
)

// servePlay serves the demo's page on httpAddr, showing srv's match of game
// (page.Publish), so that people on other machines can open it and join as
// players, in the match.BrowserSlots slots from first (web.PlayOn), with
// ncfg's key and protocol id: with tokens its POST /play/token mints for
// anyone if anonymous, else with tokens from the game's backend. It returns a function that stops it.
//
// With certFile and keyFile the page is served over HTTPS and WebTransport
// with the same certificate; without them over HTTP, with a self-signed
// certificate for WebTransport, which a browser uses only for a page on
// its own loopback address (elsewhere the page plays over the WebSocket).
func servePlay(srv *server.UDP, game *soccer.Game, first int, httpAddr, certFile, keyFile string, anonymous bool, ncfg netcode.ServerConfig, log *slog.Logger) (func(), error) {
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
	client := webClient()
	client.OnBuild = func(done bool, took time.Duration, err error) {
		switch {
		case !done:
			log.Info("building the browser's client with the Go toolchain (the first Play only; later runs take it from the cache)")
		case err != nil:
			log.Error("building the browser's client failed", "took", took.Round(time.Second).String(), "err", err)
		default:
			log.Info("built the browser's client", "took", took.Round(time.Second).String())
		}
	}
	play, err := web.PlayOn(srv, web.ServerPlay{First: first, Slots: match.BrowserSlots, Anonymous: anonymous, Transport: udp.ServerConfig{Netcode: ncfg,
		OnConnect: func(slot int, id uint64) { log.Info("browser connected", "client_id", id, "slot", slot) },
		OnDisconnect: func(slot int, id uint64, reason error) {
			log.Info("browser left", "client_id", id, "slot", slot, "reason", reason.Error())
		}}},
		web.PlayConfig{Addr: tcp.Addr().(*net.TCPAddr).AddrPort(), Client: client.Get, MaxConns: 2 * match.BrowserSlots, Certificate: cert})
	if err != nil {
		tcp.Close()
		return nil, err
	}
	wc := webConfig(httpAddr)
	wc.Play, wc.Certificate = play, cert
	hub := web.NewHubConfig(wc)
	if err := hub.SetPitch(page.Pitch(soccer.Rules{})); err != nil {
		tcp.Close()
		play.Close()
		return nil, err
	}
	scheme := "http"
	if cert != nil {
		scheme = "https"
	}
	stop, publish := hub.Serve(tcp, func(err error) { log.Error("web", "err", err) }), page.Publish(hub, srv, game, demoPublish)
	log.Info("serving the page", "url", scheme+"://"+tcp.Addr().String()+"/", "browser_slots", match.BrowserSlots, "anonymous_play", anonymous)
	return func() {
		publish()
		stop()
		play.Close()
	}, nil
}
