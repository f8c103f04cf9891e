package web

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromium returns the path of a Chromium or Chrome binary: $TETHER_CHROMIUM
// if set, else the first of the usual names on PATH, else "".
func chromium() string {
	if p := os.Getenv("TETHER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageStats is window.tetherStats.
type pageStats struct {
	FramesDrawn    int        `json:"framesDrawn"`
	ClientsShown   int        `json:"clientsShown"`
	LastUpdate     float64    `json:"lastUpdate"`
	FramesReceived int        `json:"framesReceived"`
	Connected      bool       `json:"connected"`
	Ball           [3]float64 `json:"ball"`
}

// TestBrowser opens the page in headless Chromium while synthetic frames (a
// moving ball, 4 clients, 10 players) stream at 30 Hz, and checks what a
// person would: frames are drawn with every client shown, the table fills,
// the keys reach Inputs, the side-by-side view draws, the page reconnects
// after its hub goes, and a screenshot is a real picture.
//
// It skips when no Chromium is found, unless TETHER_REQUIRE_BROWSER=1. With
// TETHER_SCREENSHOT_DIR set, it keeps its screenshots there.
func TestBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" {
		if os.Getenv("TETHER_REQUIRE_BROWSER") == "1" {
			t.Fatal("no Chromium found (install Debian's chromium, or set TETHER_CHROMIUM) and TETHER_REQUIRE_BROWSER=1")
		}
		t.Skip("no Chromium found on PATH: install Debian's chromium (or set TETHER_CHROMIUM) to run the browser test")
	}

	// The handler is swappable so that the page can lose its hub and find a
	// new one at the same address.
	var current atomic.Pointer[Hub]
	current.Store(NewHub())
	var handler atomic.Pointer[http.Handler]
	hd := current.Load().Handler()
	handler.Store(&hd)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*handler.Load()).ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer func() { current.Load().Close() }()

	// Publish at 30 Hz until the test ends.
	pubCtx, stopPub := context.WithCancel(context.Background())
	var pubWG sync.WaitGroup
	pubWG.Add(1)
	go func() {
		defer pubWG.Done()
		tick := time.NewTicker(time.Second / 30)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-pubCtx.Done():
				return
			case <-tick.C:
				current.Load().Publish(synthFrame(float64(i)/30, 4, 10))
			}
		}
	}()
	defer pubWG.Wait()
	defer stopPub()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()

	// Collect the page's errors and exceptions.
	var (
		consoleMu sync.Mutex
		problems  []string
		consoleWG sync.WaitGroup
	)
	messages := chromedp.Console(ctx)
	consoleWG.Add(1)
	go func() {
		defer consoleWG.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				consoleMu.Lock()
				problems = append(problems, m.String())
				consoleMu.Unlock()
			}
		}
	}()
	defer consoleWG.Wait()
	defer cancelTab()

	startMs := float64(time.Now().UnixMilli())
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	stats := func() pageStats {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[pageStats](`window.tetherStats`))
		if err != nil {
			t.Fatalf("read tetherStats: %v", err)
		}
		return s
	}
	waitUntil := func(what, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("waiting for %s (%s): %v; tetherStats %+v", what, expr, err, stats())
		}
	}

	waitUntil("60 frames drawn with 4 clients", `window.tetherStats && tetherStats.framesDrawn > 60 && tetherStats.frames === tetherStats.framesDrawn && tetherStats.clientsShown === 4`)
	s1 := stats()
	waitUntil("more frames", `tetherStats.framesReceived > `+itoa(s1.FramesReceived+10))
	s2 := stats()
	if s2.Ball == s1.Ball {
		t.Errorf("ball still at %v", s2.Ball)
	}
	if !s2.Connected || s2.FramesDrawn <= s1.FramesDrawn {
		t.Errorf("stats %+v after %+v", s2, s1)
	}
	if now := float64(time.Now().UnixMilli()); s2.LastUpdate < startMs || s2.LastUpdate > now+1000 {
		t.Errorf("lastUpdate %.0f, want a time in ms since the epoch between %.0f and %.0f", s2.LastUpdate, startMs, now)
	}
	waitUntil("the table", `document.querySelectorAll('#rows tr').length === 4 && document.querySelector('#rows tr td:nth-child(4)').textContent !== '–ms'`)
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#rows').innerText + ' | ' + document.getElementById('you').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("table: %q", text)
	shoot(t, ctx, "ghosts.png")

	// On a laptop's screen and a full HD one, in both views, everything fits.
	for _, size := range [][2]int64{{1366, 768}, {1920, 1080}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size[0], size[1])); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"ghosts", "tiles"} {
			if err := chromedp.Do(ctx, chromedp.Click(`#mode-`+mode)); err != nil {
				t.Fatal(err)
			}
			waitUntil("a resized page", fmt.Sprintf(`innerWidth === %d && innerHeight === %d && tetherStats.framesDrawn > %d`,
				size[0], size[1], stats().FramesDrawn+30))
			checkLayout(t, ctx, fmt.Sprintf("%s-%dx%d.png", mode, size[0], size[1]))
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Click(`#mode-ghosts`)); err != nil {
		t.Fatal(err)
	}

	// Keys: a tap of W, of Space and of the left arrow, then Shift+D held.
	for len(current.Load().Inputs()) > 0 {
		<-current.Load().Inputs()
	}
	expect := func(want KeyInput) {
		t.Helper()
		select {
		case got := <-current.Load().Inputs():
			if got != want {
				t.Fatalf("key state %+v, want %+v", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no key state; want %+v", want)
		}
	}
	for _, c := range []struct {
		keys string
		want KeyInput
	}{{"w", KeyInput{Up: true}}, {" ", KeyInput{Kick: true}}, {kb.ArrowLeft, KeyInput{Left: true}}} {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(c.keys)); err != nil {
			t.Fatal(err)
		}
		expect(c.want)
		expect(KeyInput{})
	}
	key := func(typ input.DispatchKeyEventType, code, key string, vk int64, mods int64) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: typ, Code: code, Key: key, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk, Modifiers: mods,
			})
			return err
		})
	}
	const shift = 8
	if err := chromedp.Do(ctx, key(input.DispatchKeyEventTypeRawKeyDown, "ShiftLeft", "Shift", 16, shift)); err != nil {
		t.Fatal(err)
	}
	expect(KeyInput{Sprint: true})
	if err := chromedp.Do(ctx, key(input.DispatchKeyEventTypeRawKeyDown, "KeyD", "D", 68, shift)); err != nil {
		t.Fatal(err)
	}
	expect(KeyInput{Sprint: true, Right: true})
	held, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.keys kbd.on').length`))
	if err != nil || held != 2 {
		t.Errorf("%d keys lit, want 2 (%v)", held, err)
	}
	if err := chromedp.Do(ctx,
		key(input.DispatchKeyEventTypeKeyUp, "KeyD", "D", 68, shift),
		key(input.DispatchKeyEventTypeKeyUp, "ShiftLeft", "Shift", 16, 0),
	); err != nil {
		t.Fatal(err)
	}
	expect(KeyInput{Sprint: true})
	expect(KeyInput{})

	// The side-by-side view: the truth and every client on a pitch each.
	before := stats().FramesDrawn
	if err := chromedp.Do(ctx, chromedp.Click(`#mode-tiles`)); err != nil {
		t.Fatal(err)
	}
	waitUntil("tiles drawn", `tetherStats.framesDrawn > `+itoa(before+30)+` && tetherStats.clientsShown === 4`)
	shoot(t, ctx, "tiles.png")
	// Hiding a client by its row.
	if err := chromedp.Do(ctx, chromedp.Click(`#rows tr:first-child`)); err != nil {
		t.Fatal(err)
	}
	waitUntil("3 clients shown", `tetherStats.clientsShown === 3`)

	// The hub goes away and a new one takes its place: the page reconnects.
	old := current.Load()
	next := NewHub()
	nh := next.Handler()
	handler.Store(&nh)
	current.Store(next)
	old.Close()
	waitUntil("a reconnection", `tetherStats.connected && tetherStats.framesReceived > `+itoa(stats().FramesReceived+30))
	if next.Stats().Pages != 1 {
		t.Errorf("%d pages on the new hub, want 1", next.Stats().Pages)
	}

	cancelTab()
	consoleWG.Wait()
	consoleMu.Lock()
	defer consoleMu.Unlock()
	for _, p := range problems {
		t.Errorf("page console: %s", p)
	}
}

// rect is an element's place in the viewport, CSS pixels.
type rect struct{ Top, Bottom, Left, Right float64 }

func (r rect) String() string {
	return fmt.Sprintf("x %.0f–%.0f y %.0f–%.0f", r.Left, r.Right, r.Top, r.Bottom)
}

// pageLayout is where the page put its parts, and what it drew last.
type pageLayout struct {
	ViewW, ViewH          float64
	Canvas, Table, Legend rect
	Rows                  []rect
	NumberPx              float64
	Colours               []string
}

const layoutJS = `(() => {
  const b = (el) => { const r = el.getBoundingClientRect(); return {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right}; };
  return {ViewW: innerWidth, ViewH: innerHeight, Canvas: b(document.getElementById('pitch')),
    Table: b(document.querySelector('.clients table')), Legend: b(document.getElementById('legend')),
    Rows: [...document.querySelectorAll('#rows tr')].map(b), NumberPx: tetherStats.numberPx, Colours: tetherStats.colours};
})()`

// checkLayout checks, on the page as the viewport now shows it without
// scrolling, that the pitch, every row of the table and the legend are in
// view, one below the other without overlapping; that the players' numbers
// are at least 11 px; and, in a screenshot saved as name, that every
// client's colour shows on the pitch.
func checkLayout(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	l, err := chromedp.Run(ctx, chromedp.Evaluate[pageLayout](layoutJS))
	if err != nil {
		t.Fatal(err)
	}
	in := func(what string, r rect) {
		if r.Top < 0 || r.Left < 0 || r.Bottom > l.ViewH || r.Right > l.ViewW {
			t.Errorf("%s: %s at %s, out of the %.0f×%.0f view", name, what, r, l.ViewW, l.ViewH)
		}
	}
	in("the pitch", l.Canvas)
	in("the legend", l.Legend)
	if len(l.Rows) != 4 {
		t.Errorf("%s: %d rows, want 4", name, len(l.Rows))
	}
	for i, r := range l.Rows {
		in(fmt.Sprintf("row %d", i+1), r)
	}
	if l.Canvas.Bottom > l.Table.Top || l.Table.Bottom > l.Legend.Top {
		t.Errorf("%s: overlap: pitch %s, table %s, legend %s", name, l.Canvas, l.Table, l.Legend)
	}
	if l.NumberPx < 11 {
		t.Errorf("%s: players' numbers %.0f px, want 11 or more", name, l.NumberPx)
	}
	png := shoot(t, ctx, name)
	if len(l.Colours) != 4 {
		t.Fatalf("%s: %d clients' colours drawn, want 4", name, len(l.Colours))
	}
	for _, hex := range l.Colours {
		var want [3]int
		if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &want[0], &want[1], &want[2]); err != nil {
			t.Fatalf("colour %q: %v", hex, err)
		}
		n := 0
		for y := int(l.Canvas.Top); y < int(l.Canvas.Bottom); y++ {
			for x := int(l.Canvas.Left); x < int(l.Canvas.Right); x++ {
				r, g, b, _ := png.At(x, y).RGBA()
				d := abs(int(r>>8)-want[0]) + abs(int(g>>8)-want[1]) + abs(int(b>>8)-want[2])
				if d <= 24 {
					n++
				}
			}
		}
		if n < 200 {
			t.Errorf("%s: colour %s on %d pixels of the pitch, want 200 or more", name, hex, n)
		}
	}
	t.Logf("%s: pitch %s, table %s, legend %s, numbers %.0f px", name, l.Canvas, l.Table, l.Legend, l.NumberPx)
}

func abs(x int) int { return max(x, -x) }

// shoot takes a screenshot of the page, checks it is a PNG that shows a
// picture (a green pitch and many colours), and saves it in a temporary
// directory or in $TETHER_SCREENSHOT_DIR.
func shoot(t *testing.T, ctx context.Context, name string) image.Image {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("TETHER_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", path, err)
	}
	colours, green := map[[3]uint32]bool{}, 0
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			colours[[3]uint32{cr >> 8, cg >> 8, cb >> 8}] = true
			if cg > cr+cr/2 && cg > cb+cb/2 {
				green++
			}
		}
	}
	t.Logf("%s: %dx%d, %d bytes, %d colours, %d green samples", path, r.Dx(), r.Dy(), len(b), len(colours), green)
	if r.Dx() < 100 || r.Dy() < 100 || len(colours) < 50 || green < 1000 {
		t.Errorf("screenshot %s looks blank: %v, %d colours, %d green samples", path, r.Size(), len(colours), green)
	}
	return img
}

func itoa(n int) string { return strconv.Itoa(n) }
