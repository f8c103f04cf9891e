package web

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/transport/ws"
	"github.com/tether-net/tether/transport/wt"
)

// PlayConfig configures a Play. Token, Serve and Client are required.
type PlayConfig struct {
	// Addr is the address of the page's HTTP server (TCP). Browsers'
	// connect tokens name it, whichever carrier they use; WebTransport is
	// served on the same port over UDP (so the page's own origin covers it).
	// An unspecified IP stands for 127.0.0.1 in tokens: the address only
	// names the match there.
	Addr netip.AddrPort
	// Token mints a connect token for one browser, in netcode's binary
	// form: the place a real matchmaker plugs in.
	Token func() ([]byte, error)
	// Serve serves the browsers' datagrams: a netcode server over conn
	// (tether/game/soccer/match.Live.ServeBrowsers), which owns conn from
	// then on.
	Serve func(conn net.PacketConn) error
	// Left, if set, is told of a browser whose connection closed, so its
	// slot is freed at once (match.Live.BrowserLeft).
	Left func(addr net.Addr)
	// Established, if set, reports whether the browser at addr holds a
	// client slot (match.Live.BrowserConnected); a connection that does
	// not within 5 s is closed (ws.ListenerConfig.Established), so that
	// connections without a token cannot take MaxConns' places. Each IP
	// address holds at most 4 connections.
	Established func(addr net.Addr) bool
	// Client returns the browser client's files: its WebAssembly,
	// gzipped, and the wasm_exec.js of the toolchain that built it.
	Client func() (wasmGz, wasmExec []byte, err error)
	// MaxConns caps the browsers connected at once, both carriers together
	// (default 16).
	MaxConns int
	// Link, if set, emulates a network between the server and each browser
	// (ws.ListenerConfig.Link), seeded from Seed.
	Link *netsim.LinkConfig
	Seed uint64
	// NoWebTransport serves the WebSocket alone.
	NoWebTransport bool
	// Frames, if set, takes the frame records a page's client posts to
	// POST /play/frames (the body, for a meter: the demo measures its
	// browser players with it, match.Live.MeterBrowsers); without it the
	// endpoint is not served and the client posts none. Only the page's
	// own posts reach it: a request whose Origin is not the page's is
	// refused (403, so another site's page cannot post there), one whose
	// body is not application/json (415) or over 1 MiB (413).
	Frames func(body io.Reader) error
	// Certificate is WebTransport's certificate; nil makes a self-signed
	// one that pages accept by its hash (wt.Config.Certificate).
	Certificate *tls.Certificate
}

// Play serves the endpoints through which the page's "Play in this
// browser" joins the match as a player, under /play/ (mount it as
// HubConfig.Play): POST /play/token (a connect token), GET /play/ws (the
// WebSocket), GET /play/wt (where and how to open a WebTransport session:
// wt.Info, 404 without WebTransport), POST /play/frames (the client's frame
// records, for a meter: 404 without PlayConfig.Frames), GET /play/client.wasm and
// /play/wasm_exec.js (the client). The client prefers WebTransport and
// falls back to the WebSocket; both carry the same netcode datagrams into
// one ws.Listener, so a browser's token works over either, once.
type Play struct {
	ln      *ws.Listener
	wt      *wt.Server // nil without WebTransport
	mux     *http.ServeMux
	records bool // POST /play/frames is served
}

// playOptions is what the page's client learns of the Play from the hub's
// pitch message, so that it asks for nothing the server does not serve:
// whether it posts its frame records (POST /play/frames) and whether it may
// open WebTransport (GET /play/wt).
type playOptions struct {
	Records      bool `json:"records,omitempty"`
	WebTransport bool `json:"webtransport,omitempty"`
}

// options returns p's playOptions.
func (p *Play) options() playOptions {
	return playOptions{Records: p.records, WebTransport: p.wt != nil}
}

// NewPlay starts the browsers' transports and hands them to cfg.Serve.
func NewPlay(cfg PlayConfig) (*Play, error) {
	if cfg.Token == nil || cfg.Serve == nil || cfg.Client == nil {
		return nil, errors.New("tether/web: PlayConfig needs Token, Serve and Client")
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 16
	}
	ap := cfg.Addr
	if ap.Addr().IsUnspecified() {
		ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	}
	ln, err := ws.NewListener(ws.ListenerConfig{Addr: ap, MaxConns: cfg.MaxConns, Link: cfg.Link, Seed: cfg.Seed, OnClose: cfg.Left,
		Established: cfg.Established})
	if err != nil {
		return nil, err
	}
	p := &Play{ln: ln, mux: http.NewServeMux(), records: cfg.Frames != nil}
	if !cfg.NoWebTransport {
		udp, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(cfg.Addr))
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("tether/web: WebTransport on UDP %v: %w", cfg.Addr, err)
		}
		if p.wt, err = wt.NewServer(udp, ln, wt.Config{Certificate: cfg.Certificate}); err != nil {
			udp.Close()
			ln.Close()
			return nil, err
		}
		p.mux.Handle("GET /play/wt", p.wt)
	}
	if err := cfg.Serve(ln); err != nil {
		p.Close()
		ln.Close()
		return nil, err
	}
	p.mux.Handle("GET /play/ws", ln)
	p.mux.HandleFunc("POST /play/token", func(w http.ResponseWriter, r *http.Request) {
		b, err := cfg.Token()
		if errors.Is(err, ErrNoAnonymousPlay) {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		if err != nil {
			http.Error(w, "tether/web: token: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
	if cfg.Frames != nil {
		p.mux.HandleFunc("POST /play/frames", func(w http.ResponseWriter, r *http.Request) {
			if !sameOrigin(r) {
				http.Error(w, "tether/web: frames: only the page's own origin may post them", http.StatusForbidden)
				return
			}
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				http.Error(w, "tether/web: frames: want application/json", http.StatusUnsupportedMediaType)
				return
			}
			if r.ContentLength > maxFramesBody {
				http.Error(w, "tether/web: frames: body over 1 MiB", http.StatusRequestEntityTooLarge)
				return
			}
			if err := cfg.Frames(http.MaxBytesReader(w, r.Body, maxFramesBody)); err != nil {
				code := http.StatusBadRequest
				if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
					code = http.StatusRequestEntityTooLarge
				}
				http.Error(w, "tether/web: frames: "+err.Error(), code)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
	}
	// built returns the client's files, or answers the request with why not.
	built := func(w http.ResponseWriter) (gz, js []byte, ok bool) {
		gz, js, err := cfg.Client()
		if err != nil {
			http.Error(w, "tether/web: the browser client: "+err.Error(), http.StatusInternalServerError)
		}
		return gz, js, err == nil
	}
	p.mux.HandleFunc("GET /play/client.wasm", func(w http.ResponseWriter, r *http.Request) {
		gz, _, ok := built(w)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Cache-Control", "no-cache")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			if zr, err := gzip.NewReader(bytes.NewReader(gz)); err == nil {
				io.Copy(w, zr)
			}
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
		w.Write(gz)
	})
	p.mux.HandleFunc("GET /play/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		if _, js, ok := built(w); ok {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			w.Write(js)
		}
	})
	return p, nil
}

// maxFramesBody is the largest body POST /play/frames takes, in bytes.
const maxFramesBody = 1 << 20

// sameOrigin reports whether r's Origin is the origin of the page it is
// sent to (r's scheme and Host): browsers send it with every POST.
func sameOrigin(r *http.Request) bool {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return r.Header.Get("Origin") == scheme+r.Host
}

// ServeHTTP serves the endpoints.
func (p *Play) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.mux.ServeHTTP(w, r) }

// Listener returns the Listener both carriers' browsers are peers of.
func (p *Play) Listener() *ws.Listener { return p.ln }

// WebTransport returns the WebTransport server, nil without one.
func (p *Play) WebTransport() *wt.Server { return p.wt }

// Close stops WebTransport; the Listener belongs to whoever cfg.Serve gave
// it to.
func (p *Play) Close() error {
	if p.wt != nil {
		return p.wt.Close()
	}
	return nil
}
