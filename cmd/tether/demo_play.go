package main

import (
	"io"
	"net"

	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/web"
)

// playHandler lets a browser join live's match as a player from the page
// served on addr (package web's Play: a connect token from POST /play/token,
// WebTransport on addr's UDP port unless noWT, the WebSocket GET /play/ws,
// the client built on first use: web.WasmBuild).
//
// A browser plays through the demo's link, as the bots do: its datagrams
// go through link.Up and the server's to it through link.Down, on the
// server's side of its connection (its clock is its own: link.Clock is not
// emulated).
//
// A recorder that measures for a report measures the browsers too, from the
// frame records their pages post (match.Live.MeterBrowsers).
func playHandler(live *match.Live, rec *recorder, addr net.Addr, link netsim.LinkConfig, seed uint64, noWT bool) (*web.Play, error) {
	client := webClient()
	var frames func(io.Reader) error
	if up, down := link.Latency(); rec.report {
		frames = live.MeterBrowsers(rec.meter, match.MeteredBot{Up: up, Down: down, Spikes: link.Spiky(), Predicts: true})
	}
	return web.NewPlay(web.PlayConfig{
		Addr: addr.(*net.TCPAddr).AddrPort(),
		Token: func() ([]byte, error) {
			tok, err := live.BrowserToken()
			if err != nil {
				return nil, err
			}
			return tok.MarshalBinary()
		},
		Serve:          live.ServeBrowsers,
		Left:           func(a net.Addr) { live.BrowserLeft(a) }, // a closed tab's player leaves at once
		Client:         client.Get,
		MaxConns:       2 * match.BrowserSlots,
		Link:           &link,
		Seed:           seed ^ 0x62726f77,
		NoWebTransport: noWT,
		Frames:         frames,
	})
}

// webClient is the soccer match's browser client, built on first use.
func webClient() *web.WasmBuild {
	return &web.WasmBuild{Module: "github.com/tether-net/tether", Package: "./game/soccer/webclient"}
}
