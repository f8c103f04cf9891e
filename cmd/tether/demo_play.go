package main

import (
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
func playHandler(live *match.Live, addr net.Addr, link netsim.LinkConfig, seed uint64, noWT bool) (*web.Play, error) {
	client := webClient()
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
	})
}

// webClient is the soccer match's browser client, built on first use.
func webClient() *web.WasmBuild {
	return &web.WasmBuild{Module: "github.com/tether-net/tether", Package: "./game/soccer/webclient"}
}
