package page

import (
	"math"
	"sync"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/web"
)

// Page is a live match as tether demo's web page (package web) shows it:
// the server's truth, every bot's newest frame with its figures averaged
// over the last second (clock error less the link's unobservable
// asymmetry, the ball's fidelity and present error against the Meter's
// truth, render delay, traffic), and a person's keys steering the first
// bot's player (Steer). Feed it Tick from the match's OnTick and Frame from
// OnFrame, after the Meter it reads the ball's truth from; call Fill at the
// page's rate. It is safe for concurrent use.
type Page struct {
	meter *match.Meter

	mu       sync.Mutex
	steering bool         // the person's keys drive bots[0]
	truth    soccer.Truth // after the newest tick
	clients  []*pageClient
	window   time.Duration       // server time the figures' window ends
	traffic  []match.NetCounters // at the window's start
}

// Client names a bot on the page: what it is called, its link and how
// it shows the ball.
type Client struct {
	Name, Ball string
	LinkName   string
	Link       netsim.LinkConfig
}

// pageClient is what the page shows of one bot.
type pageClient struct {
	Client
	asym    time.Duration // (up - down base latency)/2: what no round trip can see
	self    uint32
	hasSelf bool
	view    web.World                   // its newest frame
	win     [4]struct{ n, sum float64 } // clock, fidelity, present, delay since the window began
	shown   web.ClientStats
}

// pageWindow is how long the page's figures are averaged over.
const pageWindow = time.Second

// New returns the page of a live match's bots, described by clients in
// the bots' order, whose ball is measured by meter.
func New(meter *match.Meter, clients []Client) *Page {
	p := &Page{meter: meter}
	for _, c := range clients {
		l := c.Link
		nan := math.NaN()
		p.clients = append(p.clients, &pageClient{Client: c,
			asym:  l.Asymmetry(),
			shown: web.ClientStats{ClockErrMs: nan, BallFidelityM: nan, BallPresentM: nan, DelayMs: nan, DownKbps: nan, UpKbps: nan}})
	}
	return p
}

// Pitch is the pitch as the page draws it.
func Pitch(rules soccer.Rules) web.Pitch {
	p := rules.WithDefaults().Pitch
	return web.Pitch{Length: p.Length, Width: p.Width, GoalWidth: p.GoalWidth, GoalHeight: p.GoalHeight, GoalDepth: p.GoalDepth, Margin: p.Margin}
}

// Tick keeps the server's match after a tick.
func (p *Page) Tick(t *soccer.Truth) {
	p.mu.Lock()
	defer p.mu.Unlock()
	players := append(p.truth.Players[:0], t.Players...)
	p.truth = *t
	p.truth.Players = players
}

// Frame keeps bot b's frame f, with v its view, and adds it to the figures.
func (p *Page) Frame(b *match.Bot, f *client.Frame, v *soccer.View) {
	t := b.TrueTime(f.Local)
	ball := match.FrameBall(t, f)
	shown, okShown := p.meter.BallAt(ball.RenderTime)
	now, okNow := p.meter.BallAt(t)

	p.mu.Lock()
	defer p.mu.Unlock()
	if b.Index >= len(p.clients) {
		return
	}
	c := p.clients[b.Index]
	c.self, c.hasSelf = f.Self, f.HasSelf
	add := func(i int, x float64, ok bool) {
		if ok {
			c.win[i].sum += x
			c.win[i].n++
		}
	}
	add(0, math.Abs(millis(f.Server-t-c.asym)), f.Ready)
	add(1, ball.Pos.Dist(shown), ball.OK && okShown)
	add(2, ball.Pos.Dist(now), ball.OK && okNow)
	add(3, millis(t-ball.RenderTime), ball.OK)
	w := &c.view
	w.Players = w.Players[:0]
	w.Ball = web.Ball{Pos: [3]float64{math.NaN(), math.NaN(), math.NaN()}, Owner: -1}
	if v.Ready {
		w.Ball = web.Ball{Pos: vec(v.Ball), Owner: owner(v.Possessor)}
	}
	for _, pl := range v.Players {
		w.Players = append(w.Players, web.Player{ID: int(pl.ID), Team: int(pl.Team), Pos: vec(pl.Pos)})
	}
	w.Score = [2]int{v.Score.Home, v.Score.Away}
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func vec(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }

func owner(id uint32) int {
	if id == soccer.NoPlayer {
		return -1
	}
	return int(id)
}

// Fill fills f with the match at server time now for bots, the live
// match's: the truth, and every bot's newest frame with its figures over the
// last whole second. f's slices are reused.
func (p *Page) Fill(f *web.Frame, bots []*match.Bot, now time.Duration) {
	if now >= p.window {
		p.roll(bots, now)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	human, hasHuman := uint32(0), false
	if p.steering && len(p.clients) > 0 && p.clients[0].hasSelf {
		human, hasHuman = p.clients[0].self, true
	}
	fillTruth(f, &p.truth, human, hasHuman)
	for len(f.Clients) < len(p.clients) {
		f.Clients = append(f.Clients, web.ClientView{})
	}
	f.Clients = f.Clients[:len(p.clients)]
	for i, c := range p.clients {
		cv := &f.Clients[i]
		cv.Name, cv.Link, cv.Ball, cv.Stats = c.Name, c.LinkName, c.Ball, c.shown
		cv.World.Ball, cv.World.Score = c.view.Ball, c.view.Score
		cv.World.Players = append(cv.World.Players[:0], c.view.Players...)
		for j := range cv.World.Players {
			cv.World.Players[j].Human = hasHuman && uint32(cv.World.Players[j].ID) == human
		}
	}
}

// fillTruth fills f's server time and truth with t's; player human, if
// hasHuman, is the person's.
func fillTruth(f *web.Frame, t *soccer.Truth, human uint32, hasHuman bool) {
	f.ServerTime = t.Time.Seconds()
	f.Truth.Ball = web.Ball{Pos: vec(t.Ball.Pos), Owner: owner(t.Possessor)}
	f.Truth.Players = f.Truth.Players[:0]
	for _, pl := range t.Players {
		f.Truth.Players = append(f.Truth.Players, web.Player{ID: int(pl.ID), Team: int(pl.Team), Pos: vec(pl.Pos), Human: hasHuman && pl.ID == human})
	}
	f.Truth.Score = t.Score
}

// Publish publishes the match g plays on srv to hub, its truth alone (a
// dedicated server has no bots' views to show), every interval until the
// function it returns is called: the page of tether serve -http shows the
// match before a visitor presses Play.
func Publish(hub *web.Hub, srv *server.UDP, g *soccer.Game, every time.Duration) (stop func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(every)
		defer tick.Stop()
		var t soccer.Truth
		var f web.Frame
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			srv.Do(func(*server.Server) { g.Truth(&t) }) // the game is the server's goroutine's
			fillTruth(&f, &t, 0, false)
			hub.Publish(f)
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// roll ends the window of figures at server time now.
func (p *Page) roll(bots []*match.Bot, now time.Duration) {
	traffic := make([]match.NetCounters, len(bots))
	for i, b := range bots {
		traffic[i] = b.NetCounters(now)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	mean := func(w struct{ n, sum float64 }) float64 {
		if w.n == 0 {
			return math.NaN()
		}
		return w.sum / w.n
	}
	for i, c := range p.clients {
		c.shown.ClockErrMs, c.shown.BallFidelityM, c.shown.BallPresentM, c.shown.DelayMs = mean(c.win[0]), mean(c.win[1]), mean(c.win[2]), mean(c.win[3])
		if p.traffic != nil && i < len(traffic) {
			k := match.NetBetween(p.traffic[i], traffic[i])
			c.shown.DownKbps, c.shown.UpKbps = k.DownKbps, k.UpKbps
		}
		c.win = [4]struct{ n, sum float64 }{}
	}
	p.traffic, p.window = traffic, now+pageWindow
}

// Steer drives bot b's player with the page's keys: the first key pressed
// takes it over, and idle with no key held gives it back to its bot. It
// returns when in is closed.
func (p *Page) Steer(b *match.Bot, in <-chan web.KeyInput, idle time.Duration) {
	var k soccer.Keys
	kick := false
	web.Steer(in, idle, func(ki web.KeyInput) {
		x, z := ki.Axes()
		k.Dir = geom.V(x, 0, z)
		k.Sprint = ki.Sprint
		if ki.Kick && !kick {
			k.Kicks++
		}
		kick = ki.Kick
		p.mu.Lock()
		p.steering = p.steering || ki.Held()
		steering := p.steering
		p.mu.Unlock()
		if steering {
			b.Steer(&k)
		}
	}, func() {
		p.mu.Lock()
		p.steering = false
		p.mu.Unlock()
		b.Steer(nil)
	})
}
