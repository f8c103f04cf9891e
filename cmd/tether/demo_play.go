package main

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/web"
)

// playHandler lets browsers join live's match as players from the page on
// addr (web.Play: tokens, WebTransport on addr's UDP port unless noWT, the
// WebSocket, the client built on first use) through the demo's link, on the
// server's side (their clocks are their own); rec measures them if it reports.
// The client's first build is told on stderr.
func playHandler(live *match.Live, rec *recorder, addr net.Addr, link netsim.LinkConfig, seed uint64, noWT bool, stderr io.Writer) (*web.Play, error) {
	wc := webClient()
	wc.OnBuild = func(done bool, took time.Duration, err error) {
		switch {
		case !done:
			fmt.Fprintln(stderr, "tether demo: building the browser's client with the Go toolchain (the first Play only; later runs take it from the cache)…")
		case err != nil:
			fmt.Fprintf(stderr, "tether demo: building the browser's client failed after %v: %v\n", took.Round(time.Second), err)
		default:
			fmt.Fprintf(stderr, "tether demo: built the browser's client in %v\n", took.Round(time.Second))
		}
	}
	pc := web.PlayConfig{
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
		Established:    live.BrowserConnected,
		Client:         wc.Get,
		MaxConns:       2 * match.BrowserSlots,
		Link:           &link,
		Seed:           seed ^ 0x62726f77,
		NoWebTransport: noWT,
	}
	if rec.report {
		pc.Frames = live.MeterBrowsers(rec.meter, link)
	}
	return web.NewPlay(pc)
}

// webClient is the soccer match's browser client, built on first use.
func webClient() *web.WasmBuild {
	return &web.WasmBuild{Module: "github.com/tether-net/tether", Package: "./game/soccer/webclient"}
}
