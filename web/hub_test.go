package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// message is any message a page receives.
type message struct {
	Type  string `json:"type"`
	Pitch *Pitch `json:"pitch"`
	Frame
}

// serve starts h on a loopback port and returns its address; both are closed
// when the test ends.
// serve serves h's page on a loopback port (Hub.Serve) until the test ends.
func serve(t *testing.T, h *Hub) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Serve(ln, func(err error) { t.Errorf("serve: %v", err) }))
	return ln.Addr().String()
}

func dial(t *testing.T, addr string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func read(t *testing.T, c *websocket.Conn) message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("message type %v, want text", typ)
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return m
}

func write(t *testing.T, c *websocket.Conn, s string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func recvInput(t *testing.T, h *Hub) KeyInput {
	t.Helper()
	select {
	case k, ok := <-h.Inputs():
		if !ok {
			t.Fatal("Inputs closed")
		}
		return k
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting for a key state")
	}
	return KeyInput{}
}

// round is f as a page decodes it: numbers rounded as on the wire.
func round(f Frame) Frame {
	r := func(x float64, places int) float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0 // null leaves the zero value
		}
		p := math.Pow(10, float64(places))
		return math.RoundToEven(x*p)/p + 0 // -0 is sent as 0
	}
	w := func(w World) World {
		out := World{Score: w.Score, Ball: w.Ball, Players: make([]Player, len(w.Players))}
		vec := func(v *[3]float64) {
			for i := range v {
				v[i] = r(v[i], posPlaces)
			}
		}
		vec(&out.Ball.Pos)
		for j, p := range w.Players {
			vec(&p.Pos)
			vec(&p.Facing)
			out.Players[j] = p
		}
		for _, p := range w.Projectiles {
			vec(&p.Pos)
			out.Projectiles = append(out.Projectiles, p)
		}
		for _, m := range w.Marks {
			m.T = r(m.T, timePlaces)
			vec(&m.From)
			vec(&m.To)
			out.Marks = append(out.Marks, m)
		}
		return out
	}
	out := Frame{ServerTime: r(f.ServerTime, timePlaces), Truth: w(f.Truth), Clients: make([]ClientView, len(f.Clients))}
	for i, c := range f.Clients {
		c.World = w(c.World)
		s := &c.Stats
		s.ClockErrMs, s.BallFidelityM, s.BallPresentM = r(s.ClockErrMs, statPlaces), r(s.BallFidelityM, posPlaces+1), r(s.BallPresentM, posPlaces)
		s.DelayMs = r(s.DelayMs, statPlaces)
		s.DownKbps, s.UpKbps = r(s.DownKbps, statPlaces), r(s.UpKbps, statPlaces)
		s.ProjErrM = r(s.ProjErrM, posPlaces+1)
		out.Clients[i] = c
	}
	return out
}

func sameFrame(a, b Frame) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestFrameEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	num := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*rng.IntN(2))
		case 2:
			return -0.0001 // rounds to -0, sent as 0
		case 3:
			return 0
		default:
			return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(8)-2))
		}
	}
	for range 200 {
		f := synthFrame(rng.Float64()*100, rng.IntN(5), rng.IntN(23))
		f.ServerTime = num()
		f.Truth.Ball.Pos = [3]float64{num(), num(), num()}
		for i := range f.Clients {
			c := &f.Clients[i]
			c.Name = string([]byte{byte(rng.IntN(256)), '"', '<', byte(rng.IntN(32))}) + "é\u2028"
			c.Stats = ClientStats{num(), num(), num(), num(), num(), num(), num()}
			for j := range c.World.Players {
				c.World.Players[j].Pos[0] = num()
			}
			// A game that shoots: facing, health, projectiles and marks.
			for j := range rng.IntN(3) {
				if len(c.World.Players) > 0 {
					c.World.Players[j%len(c.World.Players)].Facing = [3]float64{num(), 0, num()}
				}
				c.World.Projectiles = append(c.World.Projectiles, Projectile{ID: j, Shooter: rng.IntN(16), Pos: [3]float64{num(), 0.5, num()}, Predicted: j == 0})
				c.World.Marks = append(c.World.Marks, Mark{T: num(), Shooter: j, From: [3]float64{num(), 0, num()}, To: [3]float64{num(), 0, num()}, Hit: rng.IntN(3) - 1})
			}
			for j := range c.World.Players {
				c.World.Players[j].Health = rng.IntN(101)
			}
		}
		b := appendFrame(nil, &f)
		if !json.Valid(b) {
			t.Fatalf("not JSON: %s", b)
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		want := round(f)
		for i := range want.Clients {
			var s string // as encoding/json cleans it
			js, _ := json.Marshal(f.Clients[i].Name)
			json.Unmarshal(js, &s)
			want.Clients[i].Name = s
		}
		if m.Type != "frame" || !sameFrame(m.Frame, want) {
			t.Fatalf("decoded\n%+v\nwant\n%+v\nfrom %s", m.Frame, want, b)
		}
	}
	// The empty frame has lists, not nulls.
	if got := string(appendFrame(nil, &Frame{})); got != `{"type":"frame","t":0,"truth":{"ball":{"pos":[0,0,0],"owner":0},"players":[],"score":[0,0]},"clients":[]}` {
		t.Errorf("empty frame: %s", got)
	}
}

func TestAppendNum(t *testing.T) {
	for _, c := range []struct {
		x      float64
		places int
		want   string
	}{
		{1.5, 3, "1.5"}, {2, 3, "2"}, {-0.0004, 3, "0"}, {-1.2345, 3, "-1.234"}, {1.2346, 3, "1.235"},
		{100, 2, "100"}, {0.1, 0, "0"}, {250, 0, "250"}, {math.NaN(), 3, "null"}, {math.Inf(-1), 2, "null"},
	} {
		if got := string(appendNum(nil, c.x, c.places)); got != c.want {
			t.Errorf("appendNum(%v, %d) = %s, want %s", c.x, c.places, got, c.want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "bot-1", `a"b\c`, "\x00\x1f\x7f", "<&>", "é☃\u2028", "\xff\xfe", "ok\xc3", "\b\f"} {
		f.Add(s)
	}
	// Two valid encodings may differ in bytes (encoding/json writes \b
	// where appendString writes \u0008), so compare what they decode to,
	// and check the escaping appendString promises: valid UTF-8 with no raw
	// control character, <, >, &, U+2028 or U+2029.
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got, want string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q encoded as %s: %v", s, b, err)
		}
		ref, _ := json.Marshal(s)
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%q encoded as %s decodes to %q; encoding/json's %s to %q", s, b, got, ref, want)
		}
		if !utf8.Valid(b) || strings.ContainsAny(string(b), "<>&\u2028\u2029") || strings.ContainsFunc(string(b), func(r rune) bool { return r < 0x20 }) {
			t.Fatalf("%q encoded as %q: not escaped for embedding", s, b)
		}
	})
}

func TestPitchValidate(t *testing.T) {
	if err := DefaultPitch().Validate(); err != nil {
		t.Fatal(err)
	}
	// An arena has no goals.
	arena := Pitch{Length: 40, Width: 24, Margin: 0.5, Arena: true, Pillars: []Pillar{{X: -8, Z: 5, Half: 1}}}
	if err := arena.Validate(); err != nil {
		t.Fatal(err)
	}
	if arena.Arena = false; arena.Validate() == nil {
		t.Error("a pitch without goals is valid")
	}
	for field, mut := range map[string]func(*Pitch){
		"Length":     func(p *Pitch) { p.Length = 0 },
		"Width":      func(p *Pitch) { p.Width = math.NaN() },
		"GoalWidth":  func(p *Pitch) { p.GoalWidth = 70 },
		"GoalHeight": func(p *Pitch) { p.GoalHeight = -1 },
		"GoalDepth":  func(p *Pitch) { p.GoalDepth = math.Inf(1) },
		"Margin":     func(p *Pitch) { p.Margin = -0.5 },
		"Pillars[1]": func(p *Pitch) { p.Pillars = []Pillar{{X: 1, Z: 2, Half: 1}, {X: math.NaN(), Half: 1}} },
	} {
		p := DefaultPitch()
		mut(&p)
		err := NewHub().SetPitch(p)
		if !errors.Is(err, ErrInvalidPitch) || !strings.Contains(err.Error(), "Pitch."+field) {
			t.Errorf("%s: error %v, want ErrInvalidPitch naming the field", field, err)
		}
	}
}

func TestHandlerServesPage(t *testing.T) {
	addr := serve(t, NewHub())
	for _, c := range []struct{ path, ctype, contains string }{
		{"/", "text/html", `<canvas id="pitch"`},
		{"/app.js", "javascript", "window.tetherStats"},
		{"/style.css", "text/css", "canvas"},
	} {
		res, err := http.Get("http://" + addr + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), c.ctype) || !strings.Contains(string(body), c.contains) {
			t.Errorf("GET %s: %d %q, body has %q: %v", c.path, res.StatusCode, res.Header.Get("Content-Type"), c.contains, strings.Contains(string(body), c.contains))
		}
		if !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("GET %s: no content security policy", c.path)
		}
	}
	res, err := http.Get("http://" + addr + "/missing.js")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("GET /missing.js: %d, want 404", res.StatusCode)
	}
	// Another site's page may not open the socket.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, res, err := websocket.Dial(ctx, "ws://"+addr+"/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Origin": []string{"http://elsewhere.example"}},
	})
	if err == nil {
		c.CloseNow()
		t.Fatal("cross-origin socket accepted")
	}
	if res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin socket: %v, want 403", res)
	}
}

func TestFanOut(t *testing.T) {
	h := NewHub()
	addr := serve(t, h)
	var pages []*websocket.Conn
	for range 3 {
		c := dial(t, addr)
		if m := read(t, c); m.Type != "pitch" || !reflect.DeepEqual(*m.Pitch, DefaultPitch()) {
			t.Fatalf("first message %+v, want the default pitch", m)
		}
		pages = append(pages, c)
	}
	waitFor(t, "3 pages", func() bool { return h.Stats().Pages == 3 })
	for i := range 10 {
		f := synthFrame(float64(i)/30, 4, 10)
		h.Publish(f)
		for _, c := range pages {
			m := read(t, c)
			if m.Type != "frame" || !sameFrame(m.Frame, round(f)) {
				t.Fatalf("frame %d: got %+v", i, m)
			}
		}
	}
	if s := h.Stats(); s.Published != 10 || s.Dropped != 0 || s.Pages != 3 {
		t.Errorf("stats %+v", s)
	}
	// A page that leaves is forgotten.
	pages[0].Close(websocket.StatusNormalClosure, "")
	waitFor(t, "2 pages", func() bool { return h.Stats().Pages == 2 })
}

func TestLateJoinerGetsPitchThenNewestFrame(t *testing.T) {
	h := NewHub()
	addr := serve(t, h)
	p := Pitch{Length: 40, Width: 20, GoalWidth: 3, GoalHeight: 1, GoalDepth: 1, Margin: 2}
	if err := h.SetPitch(p); err != nil {
		t.Fatal(err)
	}
	h.Publish(synthFrame(1, 2, 4))
	h.Publish(synthFrame(2, 2, 4))
	c := dial(t, addr)
	if m := read(t, c); m.Type != "pitch" || !reflect.DeepEqual(*m.Pitch, p) {
		t.Fatalf("got %+v, want pitch %+v", m, p)
	}
	if m := read(t, c); m.Type != "frame" || m.ServerTime != 2 {
		t.Fatalf("got %+v, want the frame at t = 2", m)
	}
	// A new pitch reaches a connected page before the next frame.
	p.Length = 50
	if err := h.SetPitch(p); err != nil {
		t.Fatal(err)
	}
	h.Publish(synthFrame(3, 2, 4))
	if m := read(t, c); m.Type != "pitch" || m.Pitch.Length != 50 {
		t.Fatalf("got %+v, want the new pitch", m)
	}
	if m := read(t, c); m.Type != "frame" || m.ServerTime != 3 {
		t.Fatalf("got %+v, want the frame at t = 3", m)
	}
}

// A page whose queue is full loses its oldest frames; Publish never waits.
func TestFullQueueDropsOldest(t *testing.T) {
	h := NewHub()
	defer h.Close()
	pg := h.join() // a page whose writer never runs
	for i := range 10 {
		h.Publish(Frame{ServerTime: float64(i)})
	}
	if s := h.Stats(); s.Dropped != 10-frameBuffer || s.Published != 10 {
		t.Errorf("stats %+v, want %d dropped", s, 10-frameBuffer)
	}
	for i := 10 - frameBuffer; i < 10; i++ {
		var m message
		if err := json.Unmarshal(<-pg.frames, &m); err != nil || m.ServerTime != float64(i) {
			t.Fatalf("queued frame %+v (%v), want t = %d", m, err, i)
		}
	}
	h.leave(pg)
	h.wg.Done()
}

// A page that never reads neither blocks Publish nor holds back other pages,
// and Close still ends it.
func TestStuckPage(t *testing.T) {
	h := NewHub()
	h.closeGrace = 100 * time.Millisecond
	addr := serve(t, h)
	stuck := dial(t, addr) // never read
	_ = stuck
	waitFor(t, "the stuck page", func() bool { return h.Stats().Pages == 1 })
	// Enough frames to fill the stuck page's socket buffers several times.
	f := synthFrame(0, 4, 22)
	for i := range 1500 {
		f.ServerTime = float64(i)
		h.Publish(f)
	}
	if h.Stats().Dropped == 0 {
		t.Error("no frame dropped for a page that never reads")
	}
	live := dial(t, addr)
	read(t, live) // pitch
	read(t, live) // newest frame
	f.ServerTime = -1
	h.Publish(f)
	if m := read(t, live); m.ServerTime != -1 {
		t.Fatalf("live page got t = %v, want the newest frame", m.ServerTime)
	}
	h.Close()
	if n := h.Stats().Pages; n != 0 {
		t.Errorf("%d pages after Close", n)
	}
}

func TestInputs(t *testing.T) {
	h := NewHub()
	addr := serve(t, h)
	c := dial(t, addr)
	read(t, c) // pitch
	write(t, c, `{"type":"keys","up":true,"left":false}`)
	if k := recvInput(t, h); k != (KeyInput{Up: true}) {
		t.Fatalf("got %+v, want up", k)
	}
	write(t, c, `not json`)
	write(t, c, `{"type":"hello"}`)
	write(t, c, `{"type":"keys","right":true,"sprint":true,"kick":true}`)
	if k := recvInput(t, h); k != (KeyInput{Right: true, Sprint: true, Kick: true}) {
		t.Fatalf("got %+v, want right, sprint and kick", k)
	}
	// The mouse: where it aims, and its buttons.
	write(t, c, `{"type":"keys","primary":true,"aiming":true,"aim":[3.5,-2]}`)
	if k := recvInput(t, h); k != (KeyInput{Primary: true, Aiming: true, Aim: [2]float64{3.5, -2}}) || !k.Held() {
		t.Fatalf("got %+v, want the primary button held aiming at (3.5, -2)", k)
	}
	write(t, c, `{"type":"keys","aiming":true,"aim":[1,1]}`)
	if k := recvInput(t, h); k.Held() || k.Aim != [2]float64{1, 1} {
		t.Fatalf("got %+v (held %v), want aim alone", k, k.Held())
	}
	write(t, c, `{"type":"keys","secondary":true}`)
	if k := recvInput(t, h); k != (KeyInput{Secondary: true}) {
		t.Fatalf("got %+v, want the secondary button", k)
	}
	if s := h.Stats(); s.BadMessages != 2 || s.Inputs != 5 {
		t.Errorf("stats %+v, want 2 bad messages and 5 inputs", s)
	}
	// A page that goes with keys held releases them.
	c.Close(websocket.StatusNormalClosure, "")
	if k := recvInput(t, h); k != (KeyInput{}) {
		t.Fatalf("got %+v after the page left, want no key", k)
	}
	// An oversized message ends the connection.
	c2 := dial(t, addr)
	read(t, c2)
	write(t, c2, `{"type":"keys","pad":"`+strings.Repeat("x", maxInputBytes)+`"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c2.Read(ctx); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Errorf("after an oversized message: %v, want close status %v", err, websocket.StatusMessageTooBig)
	}
	h.Close()
	if _, ok := <-h.Inputs(); ok {
		t.Error("Inputs open after Close")
	}
}

func TestInputsKeepNewest(t *testing.T) {
	h := NewHub()
	n := inputBuffer + 8
	for i := range n {
		h.input(KeyInput{Up: i%2 == 0, Kick: i == n-1})
	}
	if s := h.Stats(); s.Inputs != uint64(n) || s.InputsDropped != 8 {
		t.Errorf("stats %+v, want %d inputs, 8 dropped", s, n)
	}
	h.Close()
	var last KeyInput
	count := 0
	for k := range h.Inputs() {
		last = k
		count++
	}
	if count != inputBuffer || !last.Kick {
		t.Errorf("read %d states ending %+v, want %d ending with the newest", count, last, inputBuffer)
	}
	h.input(KeyInput{Up: true}) // after Close: ignored, no panic
}

func TestClose(t *testing.T) {
	h := NewHub()
	addr := serve(t, h)
	var pages []*websocket.Conn
	for range 2 {
		c := dial(t, addr)
		read(t, c)
		pages = append(pages, c)
	}
	waitFor(t, "2 pages", func() bool { return h.Stats().Pages == 2 })
	done := make(chan struct{})
	go func() {
		for i, c := range pages { // answer the close, as a browser does
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _, err := c.Read(ctx)
			cancel()
			if websocket.CloseStatus(err) != websocket.StatusGoingAway {
				t.Errorf("page %d read after Close: %v, want going away", i, err)
			}
		}
		close(done)
	}()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	<-done
	if err := h.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	h.Publish(synthFrame(0, 1, 2)) // no-op
	if err := h.SetPitch(DefaultPitch()); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, res, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err == nil {
		c.CloseNow()
		t.Fatal("socket accepted after Close")
	}
	if res == nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("dial after Close: %v, want 503", res)
	}
}

func TestPublishWithoutPagesAllocatesNothing(t *testing.T) {
	h := NewHub()
	defer h.Close()
	f := synthFrame(1, 4, 22)
	h.Publish(f)
	if n := testing.AllocsPerRun(100, func() { h.Publish(f) }); n != 0 {
		t.Errorf("Publish with no page: %v allocations, want 0", n)
	}
}

func BenchmarkPublish(b *testing.B) {
	h := NewHub()
	defer h.Close()
	pg := h.join() // one page, drained so nothing is dropped
	defer func() { h.leave(pg); h.wg.Done() }()
	f := synthFrame(1, 4, 22)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		h.Publish(f)
		n = len(<-pg.frames)
	}
	b.ReportMetric(float64(n), "bytes/frame")
}

// Steer passes every input on, in order, and releases after an input with
// nothing held once idle has passed; it returns when the inputs end.
func TestSteer(t *testing.T) {
	in := make(chan KeyInput)
	took := make(chan KeyInput, 4)
	released := make(chan struct{}, 4)
	done := make(chan struct{})
	go func() {
		Steer(in, time.Millisecond, func(k KeyInput) { took <- k }, func() { released <- struct{}{} })
		close(done)
	}()
	in <- KeyInput{Up: true}
	in <- KeyInput{Aiming: true, Aim: [2]float64{1, 2}}
	if k := <-took; k != (KeyInput{Up: true}) {
		t.Fatalf("took %+v first", k)
	}
	if k := <-took; k.Held() || k.Aim != [2]float64{1, 2} {
		t.Fatalf("took %+v second", k)
	}
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("not released after an input with nothing held")
	}
	close(in)
	<-done
}
