//go:build js && wasm

// Command webclient is the soccer match's client in a browser: package
// client with soccer's client side (prediction of the player's own
// character, the ball by the tether method), built with GOOS=js
// GOARCH=wasm and started by the demo page's "Play in this browser" button.
//
// It asks the page's server for a connect token (POST play/token, where a
// real matchmaker plugs in), opens a WebTransport session where GET play/wt
// says (package tether/transport/wt; the browser's API through syscall/js)
// or, if the browser or the server has none or it fails within 3 s, the
// WebSocket play/ws (package tether/transport/ws), and speaks netcode over
// it as a UDP client does. Every
// requestAnimationFrame it renders a client frame at performance.now(),
// turns the keys the page holds into an input (soccer.Human), sends it, and
// hands the page its view to draw on the canvas (window.tetherPlay.draw, a
// frame in the web view's JSON, the client's own view in the place of the
// truth). It keeps window.tetherStats.play up to date: the transport
// ("webtransport" or "websocket"), the
// netcode state, frames drawn, the client's time per frame (frameMsP99: its
// p99 over the last 600 frames in ms, from reading the clock to the view
// encoded for the page; totalMsP99 with the page's drawing too), the
// clock's error bound, the render delay, the time from the page's start to
// the first drawn frame, and its player; and clockLog, a flat array of the
// last 10,000 frames' pairs (the frame's time on the page's wall clock,
// performance.timeOrigin + now, and the clock's estimate of server time,
// both in ms), to measure the clock against a server on the same machine.
//
// It posts its frames' records (match.FrameRecord: the frame's time on
// the page's clock, what it drew, its own player's moves and corrections)
// to POST play/frames, 30 frames a batch named by a session id it draws at
// random when it starts, for the server's meter
// (match.Live.MeterBrowsers: tether demo -json reports the browser's row
// beside its bots'), if the page says the server takes them
// (window.tetherPlay.records), and stops when the server does not. With
// ?bot=SEED in the page's URL the soccer bot the native clients run
// (soccer.Bot, deciding from match.BotView) plays instead of the keys:
// the same inputs, for like-for-like figures. When the page is hidden for
// good (pagehide) it disconnects as netcode does, with its disconnect
// packets, so its player leaves at once.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/transport/udp"
	"github.com/tether-net/tether/transport/ws"
	"github.com/tether-net/tether/transport/wt"
)

// frameWindow is how many frames the frame time's p99 is taken over.
const frameWindow = 600

type player struct {
	mu    sync.Mutex
	core  *client.Client
	game  *soccer.ClientGame
	conn  *udp.Client
	perf  js.Value
	start float64 // performance.now() when the client started, ms

	human soccer.Human
	bot   *soccer.Bot // plays instead of the keys (?bot=SEED in the page's URL)
	view  soccer.View
	bview soccer.View // the bot's view (match.BotView)
	in    []byte
	json  []byte
	stats js.Value
	draw  js.Value
	keys  js.Value

	frames    int
	calls     int       // animation frames so far
	frameMs   []float64 // the client's time (Go) in the last frameWindow frames, ms
	totalMs   []float64 // the same with the page's drawing
	sorted    []float64
	clockLog  js.Value // stats.clockLog: wall-clock ms, estimated server ms, per frame
	firstDraw float64  // performance.now() of the first frame drawn with the match, ms; 0 before
	state     netcode.ClientState

	// records are the frames not yet posted to play/frames, corrs the
	// corrections since the last frame; posting stops when the server
	// does not take them.
	records  []match.FrameRecord
	corrs    []match.RecordedCorrection
	noRecord bool
	posting  bool
	session  uint64 // FrameBatch.Session: drawn at random at the start
}

func (p *player) local() time.Duration {
	return time.Duration((p.perf.Call("now").Float() - p.start) * float64(time.Millisecond))
}

func main() {
	g := js.Global()
	stats := g.Get("tetherStats")
	if stats.IsUndefined() {
		stats = g.Get("Object").New()
		g.Set("tetherStats", stats)
	}
	play := g.Get("Object").New()
	play.Set("transport", "none")
	play.Set("state", "starting")
	stats.Set("play", play)
	if err := run(play); err != nil {
		play.Set("state", "failed")
		play.Set("error", err.Error())
		g.Get("console").Call("error", "tether play: "+err.Error())
	}
	select {} // the frames go on from requestAnimationFrame
}

func run(stats js.Value) error {
	g := js.Global()
	loc := g.Get("location")
	base := loc.Get("origin").String() + "/play/"
	wsBase := "ws" + base[len("http"):]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	token, err := fetchToken(ctx, base+"token")
	if err != nil {
		return err
	}
	game := soccer.NewClientGame(soccer.DefaultRules())
	game.Prediction = true
	core, err := client.New(client.Config{}, game)
	if err != nil {
		return err
	}
	p := &player{core: core, game: game, perf: g.Get("performance"), stats: stats,
		draw: g.Get("tetherPlay").Get("draw"), keys: g.Get("tetherPlay").Get("keys"),
		frameMs: make([]float64, 0, frameWindow), totalMs: make([]float64, 0, frameWindow),
		noRecord: !g.Get("tetherPlay").Get("records").Truthy()}
	p.start = p.perf.Call("now").Float()
	var session [8]byte
	rand.Read(session[:])
	p.session = binary.LittleEndian.Uint64(session[:])
	game.Movement.OnCorrection = func(c movement.Correction) {
		if rc, ok := match.Correction(p.local(), c); ok {
			p.corrs = append(p.corrs, rc) // under p.mu: in Receive or Frame
		}
	}
	if q, err := url.ParseQuery(strings.TrimPrefix(loc.Get("search").String(), "?")); err == nil && q.Has("bot") {
		seed, _ := strconv.ParseUint(q.Get("bot"), 10, 64)
		p.bot = soccer.NewBot(soccer.DefaultRules(), seed)
		stats.Set("bot", true)
	}
	p.clockLog = g.Get("Array").New()
	stats.Set("clockLog", p.clockLog)
	conn, transport, err := dial(ctx, base, wsBase+"ws")
	if err != nil {
		return err
	}
	stats.Set("transport", transport)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conn, err = udp.Dial(conn, token, udp.ClientConfig{
		Netcode: netcode.ClientConfig{ProtocolID: match.ProtocolID},
		OnState: func(s netcode.ClientState) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.state = s
			if s == netcode.StateConnected {
				p.core.Connected(p.local())
			}
		},
		OnPayload: func(b []byte) {
			p.mu.Lock()
			_ = p.core.Receive(p.local(), b)
			p.mu.Unlock()
		},
	})
	if err != nil {
		conn.Close()
		return err
	}
	// A closed tab's WebTransport session is not closed (headless
	// Chromium), so the client says goodbye as netcode does: its
	// disconnect packets, written into the transport before pagehide
	// returns (Close's first part runs before the goroutine blocks, and
	// the Go side runs until every goroutine has).
	g.Call("addEventListener", "pagehide", js.FuncOf(func(js.Value, []js.Value) any {
		go p.conn.Close()
		return nil
	}))
	var frame js.Func
	frame = js.FuncOf(func(js.Value, []js.Value) any {
		p.frame()
		g.Call("requestAnimationFrame", frame)
		return nil
	})
	g.Call("requestAnimationFrame", frame)
	return nil
}

// dial opens the server's WebTransport when the browser and the server
// both have it (the page says whether the server does,
// window.tetherPlay.webtransport; GET play/wt says where, and the
// self-signed certificate's hash), and otherwise, or if that fails, the
// WebSocket at wsURL. It returns the connection and which transport it is.
func dial(ctx context.Context, base, wsURL string) (net.PacketConn, string, error) {
	if !js.Global().Get("WebTransport").IsUndefined() && js.Global().Get("tetherPlay").Get("webtransport").Truthy() {
		conn, err := dialWT(ctx, base)
		if err == nil {
			return conn, "webtransport", nil
		}
		js.Global().Get("console").Call("warn", "tether play: WebTransport: "+err.Error()+"; using the WebSocket")
	}
	conn, err := ws.Dial(ctx, wsURL)
	return conn, "websocket", err
}

func dialWT(ctx context.Context, base string) (net.PacketConn, error) {
	b, err := fetch(ctx, "GET", base+"wt", 4096)
	if err != nil {
		return nil, err
	}
	var info struct {
		Port            int    `json:"port"`
		Path            string `json:"path"`
		CertificateHash []byte `json:"certificateHash"`
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, err
	}
	host := js.Global().Get("location").Get("hostname").String()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second) // then the WebSocket
	defer cancel()
	return wt.Dial(ctx, "https://"+net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(info.Port))+info.Path, info.CertificateHash)
}

// fetchToken asks the page's server for a connect token.
func fetchToken(ctx context.Context, url string) (*netcode.ConnectToken, error) {
	b, err := fetch(ctx, "POST", url, netcode.ConnectTokenSize+1)
	if err != nil {
		return nil, err
	}
	var t netcode.ConnectToken
	return &t, t.UnmarshalBinary(b)
}

// fetch returns the body, at most max bytes, of a request with no body.
func fetch(ctx context.Context, method, url string, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, max))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New(method + " " + url + ": " + resp.Status + ": " + string(bytes.TrimSpace(b)))
	}
	return b, nil
}

// frame renders, sends and draws one frame.
func (p *player) frame() {
	t0 := p.perf.Call("now").Float()
	p.calls++
	p.mu.Lock()
	local := p.local()
	f := p.core.Frame(local)
	p.view.FromFrame(f)
	var in soccer.Input
	if p.bot != nil {
		in = p.bot.Decide(match.BotView(p.game, &p.view, &p.bview))
	} else {
		in = p.human.Input(p.readKeys(), &p.view)
	}
	p.record(local, f, in)
	p.game.PrepareInput(&in, f)
	p.in = soccer.AppendInput(p.in[:0], in)
	p.core.SetInput(p.in)
	p.core.Update(local)
	for {
		b, ok := p.core.Transmit()
		if !ok {
			break
		}
		_ = p.conn.Send(b) // a lost payload is loss
	}
	bound, delay := f.Bound, f.Delay
	if f.Ready {
		p.logClock(local, f.Server)
	}
	state := p.state
	p.json = appendView(p.json[:0], &p.view)
	p.mu.Unlock()
	goMs := p.perf.Call("now").Float() - t0
	if p.view.Ready {
		p.draw.Invoke(string(p.json))
		if p.firstDraw == 0 {
			p.firstDraw = p.perf.Call("now").Float()
			p.stats.Set("firstFrameMs", p.firstDraw)
		}
		p.frames++
	}
	p.keep(&p.frameMs, goMs)
	p.keep(&p.totalMs, p.perf.Call("now").Float()-t0)
	s := p.stats
	s.Set("state", state.String())
	s.Set("framesDrawn", p.frames)
	s.Set("clockBoundMs", float64(bound)/1e6)
	s.Set("delayMs", float64(delay)/1e6)
	s.Set("self", int(p.view.Self))
	if p.frames%30 == 0 {
		s.Set("frameMsP99", p.p99(p.frameMs))
		s.Set("frameMsMax", slices.Max(p.frameMs))
		s.Set("totalMsP99", p.p99(p.totalMs))
	}
}

// postFrames is how many frames' records go in one POST play/frames.
const postFrames = 30

// record keeps the record of frame f at local time local, with in the
// input decided at it, and posts the records every postFrames frames.
// Call it under p.mu.
func (p *player) record(local time.Duration, f *client.Frame, in soccer.Input) {
	if p.noRecord {
		return
	}
	r := match.NewFrameRecord(local, f, p.game, in, p.core.Clock().Stats().Samples > 0)
	r.Corrections, p.corrs = p.corrs, nil
	p.records = append(p.records, r)
	if len(p.records) < postFrames || p.posting || !f.HasSelf {
		return // the server names a batch's row by its player
	}
	batch := match.FrameBatch{Session: p.session, Origin: int64((p.perf.Get("timeOrigin").Float() + p.start) * 1e6), Frames: p.records}
	p.records, p.posting = nil, true
	go func() {
		status := 0
		if b, err := json.Marshal(&batch); err == nil {
			if resp, err := http.Post(js.Global().Get("location").Get("origin").String()+"/play/frames", "application/json", bytes.NewReader(b)); err == nil {
				status = resp.StatusCode
				resp.Body.Close()
			}
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.posting = false
		if status != http.StatusNoContent {
			p.noRecord, p.records = true, nil // the server does not measure the page (404), or failed to
			js.Global().Get("console").Call("info", "tether play: frame records not taken ("+strconv.Itoa(status)+"): not posting them")
		}
	}()
}

// clockLogFrames is how many frames clockLog keeps.
const clockLogFrames = 10000

// logClock appends a frame's local time, as the page's wall clock, and the
// clock's estimate of server time to clockLog, both in ms.
func (p *player) logClock(local, server time.Duration) {
	if p.clockLog.Get("length").Int() >= 2*clockLogFrames {
		p.clockLog.Call("splice", 0, 2)
	}
	wall := p.perf.Get("timeOrigin").Float() + p.start + float64(local)/1e6
	p.clockLog.Call("push", wall, float64(server)/1e6)
}

// readKeys reads the keys the page holds (window.tetherPlay.keys()).
func (p *player) readKeys() soccer.Keys {
	k := p.keys.Invoke()
	held := func(name string) bool { return k.Get(name).Truthy() }
	axis := func(pos, neg string) float64 {
		switch a, b := held(pos), held(neg); {
		case a && !b:
			return 1
		case b && !a:
			return -1
		}
		return 0
	}
	return soccer.Keys{Dir: geom.V(axis("right", "left"), 0, axis("down", "up")), Sprint: held("sprint"),
		Kicks: uint32(k.Get("kicks").Int())}
}

// keep keeps ms, a frame's time, in ring, the last frameWindow frames'.
func (p *player) keep(ring *[]float64, ms float64) {
	if len(*ring) < frameWindow {
		*ring = append(*ring, ms)
	} else {
		(*ring)[p.calls%frameWindow] = ms
	}
}

// p99 returns the 99th percentile of the frame times in ring, ms.
func (p *player) p99(ring []float64) float64 {
	p.sorted = append(p.sorted[:0], ring...)
	slices.Sort(p.sorted)
	return p.sorted[int(math.Ceil(0.99*float64(len(p.sorted))))-1]
}

// appendView appends v as a frame of the web view's JSON, the view in the
// place of the truth.
func appendView(b []byte, v *soccer.View) []byte {
	b = append(b, `{"t":`...)
	b = strconv.AppendFloat(b, v.Time.Seconds(), 'f', 3, 64)
	b = append(b, `,"truth":{"ball":{"pos":`...)
	b = appendVec(b, v.Ball)
	b = append(b, `,"owner":`...)
	owner := -1
	if v.Possessor != soccer.NoPlayer {
		owner = int(v.Possessor)
	}
	b = strconv.AppendInt(b, int64(owner), 10)
	b = append(b, `},"players":[`...)
	for i, pl := range v.Players {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(pl.ID), 10)
		b = append(b, `,"team":`...)
		b = strconv.AppendInt(b, int64(pl.Team), 10)
		b = append(b, `,"pos":`...)
		b = appendVec(b, pl.Pos)
		b = append(b, `,"human":`...)
		b = strconv.AppendBool(b, pl.ID == v.Self)
		b = append(b, '}')
	}
	b = append(b, `],"score":[`...)
	b = strconv.AppendInt(b, int64(v.Score.Home), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(v.Score.Away), 10)
	return append(b, `]},"clients":[]}`...)
}

func appendVec(b []byte, p geom.Vec3) []byte {
	b = append(b, '[')
	for i, x := range [3]float64{p.X, p.Y, p.Z} {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, x, 'f', 3, 64)
	}
	return append(b, ']')
}
