package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/transport/ws"
)

// playHandler lets a browser join live's match as a player from the page
// served on addr: POST /play/token mints its connect token (2048 bytes;
// the place a real matchmaker plugs in) and GET /play/ws is its WebSocket,
// over which its client speaks netcode as a UDP client does; GET
// /play/client.wasm and /play/wasm_exec.js are the client (built on first
// use, see wasmClient). The Hub puts them all behind its Host check.
//
// A browser plays through the demo's link, as the bots do: its datagrams
// go through link.Up and the server's to it through link.Down, on the
// server's side of its WebSocket (its clock is its own: link.Clock is not
// emulated).
func playHandler(live *match.Live, addr net.Addr, link netsim.LinkConfig, seed uint64) (http.Handler, error) {
	ap := addr.(*net.TCPAddr).AddrPort()
	if ap.Addr().IsUnspecified() {
		// The address only names the match in tokens: any IP will do.
		ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	}
	ln, err := ws.NewListener(ws.ListenerConfig{Addr: ap, MaxConns: 2 * match.BrowserSlots, Link: &link, Seed: seed ^ 0x62726f77,
		OnClose: func(a net.Addr) { live.BrowserLeft(a) }}) // a closed tab's player leaves at once
	if err != nil {
		return nil, err
	}
	if err := live.ServeBrowsers(ln); err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /play/ws", ln)
	var client wasmClient
	// built returns the client's files, or answers the request with why not.
	built := func(w http.ResponseWriter) (gz, js []byte, ok bool) {
		gz, js, err := client.get()
		if err != nil {
			http.Error(w, "tether demo: building the browser client: "+err.Error(), http.StatusInternalServerError)
		}
		return gz, js, err == nil
	}
	mux.HandleFunc("GET /play/client.wasm", func(w http.ResponseWriter, r *http.Request) {
		gz, _, ok := built(w)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Cache-Control", "no-cache")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err == nil {
				io.Copy(w, zr)
			}
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
		w.Write(gz)
	})
	mux.HandleFunc("GET /play/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		_, js, ok := built(w)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(js)
	})
	mux.HandleFunc("POST /play/token", func(w http.ResponseWriter, r *http.Request) {
		tok, err := live.BrowserToken()
		var b []byte
		if err == nil {
			b, err = tok.MarshalBinary()
		}
		if err != nil {
			http.Error(w, "tether demo: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
	return mux, nil
}
