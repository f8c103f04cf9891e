package web

import (
	"context"
	"crypto/tls"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/tether-net/tether/internal/httpguard"
)

//go:embed static
var static embed.FS

// Defaults of a Hub; tests in this package shorten some of them.
const (
	frameBuffer    = 4               // frame messages queued per page; older ones are dropped
	inputBuffer    = 32              // key states queued for Inputs; older ones are dropped
	maxInputBytes  = 512             // the largest message a page may send
	writeTimeout   = 5 * time.Second // a page that takes longer to take one message is dropped
	closeGraceTime = time.Second     // how long a closing page may take to answer the close
)

// HubConfig configures a Hub. The zero value gives the defaults noted.
type HubConfig struct {
	// Hosts are the host names (without port) a request's Host header may
	// name besides an IP address and "localhost", which are always
	// accepted. Any other Host is refused with 421 Misdirected Request: a
	// page on another site that re-points its own name at this address (DNS
	// rebinding) cannot load the view or open its WebSocket. Give the name
	// the view is reached by when it is not an IP address.
	Hosts []string
	// MaxPages caps the WebSockets open at once, and MaxPagesPerAddr those
	// from one IP address; more are refused with 503 (defaults 16 and 4,
	// ranges 1..4096).
	MaxPages, MaxPagesPerAddr int
	// MaxConns caps the HTTP connections Serve keeps open, WebSockets
	// included: past it a new connection closes the one idle longest, or
	// is closed itself when none is idle (default 256, range 1..65536).
	// Serve also times out a request's header after 5 s, its whole read
	// after 15 s and an idle keep-alive after 30 s, so that idle or slow
	// visitors cannot take the process's file descriptors.
	MaxConns int
	// Certificate, if set, makes Serve serve HTTPS with it.
	Certificate *tls.Certificate
	// MaxInputHz caps the messages a page may send per second, with a
	// burst of as many; beyond it messages are ignored and counted
	// (Stats.InputsLimited), and a page that sends twice that many in excess
	// is disconnected (default 120, range 1..10000; pages send a key state
	// when a key changes).
	MaxInputHz int
	// Play, if set, serves GET and POST under /play/ behind the same Host
	// check: a browser's own client (its connect token and its WebSocket,
	// a tether/transport/ws Listener, which caps its own connections and
	// message rate). The page offers "Play in this browser" when it is set;
	// a *Play also tells the page's client what it serves (playOptions).
	Play http.Handler
}

// playOptions returns what the page's client learns of Play.
func (c *HubConfig) playOptions() playOptions {
	if p, ok := c.Play.(*Play); ok {
		return p.options()
	}
	return playOptions{}
}

func (c *HubConfig) resolve() {
	if c.MaxPages <= 0 {
		c.MaxPages = 16
	}
	c.MaxPages = min(c.MaxPages, 4096)
	if c.MaxPagesPerAddr <= 0 {
		c.MaxPagesPerAddr = 4
	}
	c.MaxPagesPerAddr = min(c.MaxPagesPerAddr, 4096)
	if c.MaxConns <= 0 {
		c.MaxConns = 256
	}
	c.MaxConns = min(c.MaxConns, 65536)
	if c.MaxInputHz <= 0 {
		c.MaxInputHz = 120
	}
	c.MaxInputHz = min(c.MaxInputHz, 10000)
}

// Hub serves the live view and fans frames out to every connected page.
//
// Publish never waits for a page: each page has a queue of a few frames, and a
// page that falls behind loses its oldest queued frames, so it always catches up
// to the newest. A page that cannot take one message within 5 s is
// disconnected (the page reconnects by itself). Key states from pages arrive on
// Inputs.
//
// A Hub's methods may be called from any goroutine. Close disconnects every
// page and waits for the hub's goroutines to end; the http.Server serving
// Handler is the caller's to shut down.
type Hub struct {
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // one per connected page

	mu        sync.Mutex // guards the fields below and sends to pages' queues
	closed    bool
	pages     map[*page]struct{}
	pitch     []byte // the pitch message
	lastFrame []byte // the newest frame message, sent to a page on connect
	buf       []byte // spare encoding buffer, reused while no page holds it

	inMu     sync.Mutex // guards sends to inputs and its close
	inClosed bool
	inputs   chan KeyInput

	published, dropped, nInputs, inputsDropped, bad atomic.Uint64

	frameBuffer int
	closeGrace  time.Duration
	cfg         HubConfig
	slots       chan struct{} // one per open WebSocket, capacity MaxPages
	addrMu      sync.Mutex
	pagesByAddr map[netip.Addr]int // open WebSockets by IP address

	refusedHost, refusedPages, inputsLimited atomic.Uint64
}

// page is one connected page's queues.
type page struct {
	pitch  chan []byte // capacity 1: the newest pitch message, sent before any frame
	frames chan []byte // capacity frameBuffer
}

// Stats are a Hub's counters since NewHub.
type Stats struct {
	Pages         int    // pages connected now
	Published     uint64 // calls to Publish
	Dropped       uint64 // frame messages dropped for pages that fell behind, over all pages
	Inputs        uint64 // key states received from pages
	InputsDropped uint64 // key states dropped because Inputs was not read in time
	BadMessages   uint64 // messages from pages that were not a key state, ignored
	InputsLimited uint64 // messages from pages beyond MaxInputHz, ignored
	RefusedHost   uint64 // requests refused for their Host header
	RefusedPages  uint64 // WebSockets refused because MaxPages were open
}

// NewHub returns a Hub with the default HubConfig.
func NewHub() *Hub { return NewHubConfig(HubConfig{}) }

// NewHubConfig returns a Hub showing DefaultPitch, with no page connected.
func NewHubConfig(cfg HubConfig) *Hub {
	cfg.resolve()
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{
		ctx: ctx, cancel: cancel,
		pages:       make(map[*page]struct{}),
		pitch:       pitchMessage(DefaultPitch(), cfg.Play != nil, cfg.playOptions()),
		inputs:      make(chan KeyInput, inputBuffer),
		frameBuffer: frameBuffer,
		closeGrace:  closeGraceTime,
		cfg:         cfg,
		slots:       make(chan struct{}, cfg.MaxPages),
		pagesByAddr: make(map[netip.Addr]int),
	}
}

// Handler returns the handler of the live view: GET / is the page (with its
// script and style sheet beside it) and GET /ws is the page's WebSocket. Mount
// it at the root or, with http.StripPrefix, under a path ending in a slash.
// WebSocket connections from another origin, requests whose Host header is
// not allowed (HubConfig.Hosts) and WebSockets beyond HubConfig.MaxPages (or
// MaxPagesPerAddr from one address) are refused.
func (h *Hub) Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.FileServerFS(sub)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", h.serveWS)
	if h.cfg.Play != nil {
		mux.Handle("GET /play/", h.cfg.Play)
		mux.Handle("POST /play/", h.cfg.Play)
	}
	mux.Handle("GET /", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpguard.HostAllowed(r.Host, h.cfg.Hosts) {
			h.refusedHost.Add(1)
			http.Error(w, "tether/web: unknown host "+r.Host, http.StatusMisdirectedRequest)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// SetPitch sets the pitch that pages draw. Pages connected now get it at once,
// before any later frame; pages connecting later get it first.
func (h *Hub) SetPitch(p Pitch) error {
	if err := p.Validate(); err != nil {
		return err
	}
	m := pitchMessage(p, h.cfg.Play != nil, h.cfg.playOptions())
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pitch = m
	for pg := range h.pages {
		replace(pg.pitch, m)
	}
	return nil
}

// Publish sends f to every connected page, without waiting for any of them.
// It encodes f before returning, so the caller may reuse f's slices. Positions
// are sent to the millimetre and times to the millisecond; a NaN or infinite
// number is sent as unknown. Publish after Close does nothing.
func (h *Hub) Publish(f Frame) {
	h.published.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if len(h.pages) == 0 {
		// Encoded only for the next page to connect; reuse the buffer.
		h.lastFrame = appendFrame(h.buf[:0], &f)
		h.buf = h.lastFrame
		return
	}
	m := appendFrame(make([]byte, 0, len(h.lastFrame)+64), &f)
	h.lastFrame, h.buf = m, nil // pages' queues hold m now
	for pg := range h.pages {
		if !offer(pg.frames, m) {
			h.dropped.Add(1)
		}
	}
}

// Inputs returns the key states that pages send, in the order they arrive. If
// the channel is not read, the oldest unread states are dropped (counted in
// Stats), so the newest state is never lost. All pages share the one channel.
// When a page that holds a key down disconnects, a KeyInput with no key
// follows. The channel is closed by Close.
func (h *Hub) Inputs() <-chan KeyInput { return h.inputs }

// Stats returns the Hub's counters.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	n := len(h.pages)
	h.mu.Unlock()
	return Stats{
		Pages: n, Published: h.published.Load(), Dropped: h.dropped.Load(),
		Inputs: h.nInputs.Load(), InputsDropped: h.inputsDropped.Load(), BadMessages: h.bad.Load(),
		InputsLimited: h.inputsLimited.Load(), RefusedHost: h.refusedHost.Load(), RefusedPages: h.refusedPages.Load(),
	}
}

// Serve serves the hub's page (Handler) on ln until the returned stop is
// called, which closes the hub, so that its Inputs end, and shuts the server
// down, waiting up to 2 s for requests in flight. A failure to serve is
// handed to onError.
func (h *Hub) Serve(ln net.Listener, onError func(error)) (stop func()) {
	capped := httpguard.NewListener(ln, h.cfg.MaxConns)
	hs := &http.Server{Handler: h.Handler(), ConnState: capped.ConnState,
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 15 * time.Second, IdleTimeout: 30 * time.Second,
		ErrorLog: log.New(errorWriter(onError), "", 0)}
	serve := func() error { return hs.Serve(capped) }
	if h.cfg.Certificate != nil {
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*h.cfg.Certificate}}
		serve = func() error { return hs.ServeTLS(capped, "", "") }
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			onError(err)
		}
	}()
	return func() {
		h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		<-done
	}
}

// errorWriter passes each line an http.Server logs (ErrorLog) to a
// function as an error.
type errorWriter func(error)

func (f errorWriter) Write(p []byte) (int, error) {
	f(errors.New(strings.TrimSpace(string(p))))
	return len(p), nil
}

// Close disconnects every page, refuses new ones, waits until the goroutines
// serving pages have ended (at most about a second for a page that does not
// answer the close), then closes Inputs. It returns nil; later calls do
// nothing.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
	h.inMu.Lock()
	h.inClosed = true
	close(h.inputs)
	h.inMu.Unlock()
	return nil
}

// join registers a new page, queueing the pitch and the newest frame for it. It
// returns nil once the hub is closed.
func (h *Hub) join() *page {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	pg := &page{pitch: make(chan []byte, 1), frames: make(chan []byte, h.frameBuffer)}
	pg.pitch <- h.pitch
	if h.lastFrame != nil {
		pg.frames <- h.lastFrame
		h.buf = nil // lastFrame is shared now
	}
	h.pages[pg] = struct{}{}
	h.wg.Add(1)
	return pg
}

func (h *Hub) leave(pg *page) {
	h.mu.Lock()
	delete(h.pages, pg)
	h.mu.Unlock()
}

// offer queues m on q, dropping the oldest queued message if q is full, and
// reports whether nothing was dropped. Callers hold the hub's lock, so they are
// q's only sender.
func offer(q chan []byte, m []byte) bool {
	select {
	case q <- m:
		return true
	default:
	}
	select {
	case <-q:
	default: // the reader took one meanwhile
	}
	q <- m // there is room: only the caller sends
	return false
}

// replace puts m in the one-slot queue q, discarding what it held.
func replace(q chan []byte, m []byte) {
	select {
	case <-q:
	default:
	}
	q <- m
}

// input passes k to Inputs, dropping the oldest unread state if it is full.
func (h *Hub) input(k KeyInput) {
	h.inMu.Lock()
	defer h.inMu.Unlock()
	if h.inClosed {
		return
	}
	h.nInputs.Add(1)
	select {
	case h.inputs <- k:
		return
	default:
	}
	select {
	case <-h.inputs:
		h.inputsDropped.Add(1)
	default:
	}
	select {
	case h.inputs <- k:
	default: // a reader cannot add to the channel, so there is room; be safe anyway
		h.inputsDropped.Add(1)
	}
}

// serveWS serves one page's WebSocket: frames out, key states in.
// takeAddr counts a page of r's remote IP address, reporting false (and
// counting nothing) if it has MaxPagesPerAddr open.
func (h *Hub) takeAddr(r *http.Request) bool {
	a := remoteIP(r)
	h.addrMu.Lock()
	defer h.addrMu.Unlock()
	if h.pagesByAddr[a] >= h.cfg.MaxPagesPerAddr {
		return false
	}
	h.pagesByAddr[a]++
	return true
}

// leaveAddr uncounts a page takeAddr counted.
func (h *Hub) leaveAddr(r *http.Request) {
	a := remoteIP(r)
	h.addrMu.Lock()
	defer h.addrMu.Unlock()
	if h.pagesByAddr[a]--; h.pagesByAddr[a] <= 0 {
		delete(h.pagesByAddr, a)
	}
}

// remoteIP is the IP address r came from (the zero Addr if unknown).
func remoteIP(r *http.Request) netip.Addr {
	ap, _ := netip.ParseAddrPort(r.RemoteAddr)
	return ap.Addr().Unmap()
}

func (h *Hub) serveWS(w http.ResponseWriter, r *http.Request) {
	if h.ctx.Err() != nil {
		http.Error(w, "tether/web: hub closed", http.StatusServiceUnavailable)
		return
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		h.refusedPages.Add(1)
		http.Error(w, "tether/web: too many pages open", http.StatusServiceUnavailable)
		return
	}
	if !h.takeAddr(r) {
		h.refusedPages.Add(1)
		http.Error(w, "tether/web: too many pages open from your address", http.StatusServiceUnavailable)
		return
	}
	defer h.leaveAddr(r)
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered the request
	}
	pg := h.join()
	if pg == nil {
		conn.Close(websocket.StatusGoingAway, "hub closed")
		return
	}
	defer h.wg.Done()
	conn.SetReadLimit(maxInputBytes)

	// Cancelling either context cuts the connection (the websocket package
	// closes a connection whose read or write context ends mid-call), so they
	// are cancelled only to force an end: never while a call might complete.
	readCtx, cancelRead := context.WithCancel(context.Background())
	writeCtx, cancelWrite := context.WithCancel(context.Background())
	force := func() { cancelRead(); cancelWrite() }
	defer force()

	// When the hub closes, a page gets closeGrace to take the close before it
	// is cut off, even if it is stuck mid-message.
	finished, forced := make(chan struct{}), make(chan struct{})
	stopForce := context.AfterFunc(h.ctx, func() {
		defer close(forced)
		t := time.NewTimer(h.closeGrace)
		defer t.Stop()
		select {
		case <-t.C:
			force()
		case <-finished:
		}
	})
	defer func() {
		close(finished)
		if !stopForce() {
			<-forced
		}
	}()

	gone := make(chan struct{}) // closed when the page stops sending
	held := false               // whether the page's last key state had a key down
	go func() {
		defer close(gone)
		// A token bucket of MaxInputHz messages a second, MaxInputHz deep.
		rate := time.Second / time.Duration(h.cfg.MaxInputHz)
		depth := time.Duration(h.cfg.MaxInputHz) * rate
		var tat time.Time
		excess := 0
		for {
			typ, b, err := conn.Read(readCtx)
			if err != nil {
				return
			}
			now := time.Now()
			if tat.Sub(now) >= depth {
				h.inputsLimited.Add(1)
				if excess++; excess > 2*h.cfg.MaxInputHz {
					conn.Close(websocket.StatusPolicyViolation, "too many messages")
					return
				}
				continue
			}
			tat = later(tat, now).Add(rate)
			var m keysMessage
			if typ != websocket.MessageText || json.Unmarshal(b, &m) != nil || m.Type != "keys" {
				h.bad.Add(1)
				continue
			}
			held = m.KeyInput.Held()
			h.input(m.KeyInput)
		}
	}()

	h.send(writeCtx, conn, pg, gone)
	h.leave(pg)
	// Say goodbye; a page that does not answer within closeGrace is cut off.
	t := time.AfterFunc(h.closeGrace, force)
	conn.Close(websocket.StatusGoingAway, "")
	t.Stop()
	<-gone
	if held {
		h.input(KeyInput{}) // nothing held, and no aim
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// send writes pg's queued messages to conn, the pitch before any frame, until
// the hub closes, the page goes or a write fails.
func (h *Hub) send(ctx context.Context, conn *websocket.Conn, pg *page, gone <-chan struct{}) {
	write := func(m []byte) bool {
		ctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return conn.Write(ctx, websocket.MessageText, m) == nil
	}
	for {
		var m []byte
		select {
		case <-h.ctx.Done():
			return
		case <-gone:
			return
		case m = <-pg.pitch:
		case m = <-pg.frames:
			select {
			case p := <-pg.pitch:
				if !write(p) {
					return
				}
			default:
			}
		}
		if !write(m) {
			return
		}
	}
}
