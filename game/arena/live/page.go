package live

import (
	"fmt"
	"math"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/web"
)

// Pitch is the arena as the page draws it: its floor, walls and pillars.
func Pitch() web.Pitch {
	p := web.Pitch{Length: 2 * arena.HalfX, Width: 2 * arena.HalfZ, Margin: 0.6, Arena: true}
	for _, b := range arena.Pillars {
		p.Pillars = append(p.Pillars, web.Pillar{X: b.X, Z: b.Z, Half: b.Half})
	}
	return p
}

// statsWindow is how long the page's figures are averaged over.
const statsWindow = time.Second

// Frame fills f with the match now, for the page: the server's truth (its
// players with their aim and health, its projectiles where they are now,
// and the shots it judged in the last second), and every bot's newest
// frame as it drew it, with its figures averaged over the last second:
// clock error (less the link's unobservable asymmetry), render delay,
// projectile error (how far it drew each projectile from the server's at
// the same true time) and traffic. f's slices are reused.
func (m *Match) Frame(f *web.Frame) {
	now := m.Now()
	truth := &f.Truth
	truth.Players, truth.Projectiles, truth.Marks = truth.Players[:0], truth.Projectiles[:0], truth.Marks[:0]
	truth.Ball = web.Ball{Pos: [3]float64{math.NaN(), math.NaN(), math.NaN()}, Owner: -1}
	m.srv.Do(func(*server.Server) {
		for id := range uint32(m.cfg.Bots) {
			if st, hp, ok := m.game.Player(id); ok {
				truth.Players = append(truth.Players, web.Player{ID: int(id), Pos: vec(st.Pos), Facing: vec(arena.AimDir(st.Aim)), Health: hp})
			}
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		clear(m.flights)
		for _, fl := range m.game.Flights() {
			m.flights[shot{fl.Shooter, fl.Move}] = fl
			truth.Projectiles = append(truth.Projectiles, web.Projectile{ID: int(fl.ID), Shooter: int(fl.Shooter), Pos: vec(fl.At(now))})
		}
	})
	f.ServerTime = now.Seconds()

	m.mu.Lock()
	defer m.mu.Unlock()
	human := m.steering && m.bots[0].hasSelf
	for i := range truth.Players {
		truth.Players[i].Human = human && uint32(truth.Players[i].ID) == m.bots[0].self
	}
	old := 0
	for old < len(m.marks) && m.marks[old].T < (now-markAge).Seconds() {
		old++
	}
	m.marks = append(m.marks[:0], m.marks[old:]...)
	truth.Marks = append(truth.Marks, m.marks...)
	if now >= m.nextWin {
		m.roll(now)
	}
	for len(f.Clients) < len(m.bots) {
		f.Clients = append(f.Clients, web.ClientView{})
	}
	f.Clients = f.Clients[:len(m.bots)]
	for i, b := range m.bots {
		c := &f.Clients[i]
		c.Name, c.Link, c.Ball = fmt.Sprintf("bot-%d", i+1), m.cfg.LinkName, "tether"
		if m.cfg.Naive != nil && m.cfg.Naive(i) {
			c.Ball = "seed"
		}
		c.World.Ball = b.world.Ball
		c.World.Players = append(c.World.Players[:0], b.world.Players...)
		c.World.Projectiles = append(c.World.Projectiles[:0], b.world.Projectiles...)
		c.Stats = b.shown
	}
}

// roll ends the page's window of figures at true time now.
func (m *Match) roll(now time.Duration) {
	secs := (statsWindow + now - m.nextWin).Seconds()
	mean := func(sum float64, n int) float64 {
		if n == 0 {
			return math.NaN()
		}
		return sum / float64(n)
	}
	for _, b := range m.bots {
		w := b.win
		b.shown = web.ClientStats{ClockErrMs: mean(w.clock, w.clockN), DelayMs: mean(w.delay, w.delayN), ProjErrM: mean(w.proj, w.projN),
			BallFidelityM: math.NaN(), BallPresentM: math.NaN(), DownKbps: math.NaN(), UpKbps: math.NaN()}
		if m.nextWin > 0 {
			b.shown.DownKbps = float64(b.traffic.WireDown-b.last.WireDown) * 8 / 1000 / secs
			b.shown.UpKbps = float64(b.traffic.WireUp-b.last.WireUp) * 8 / 1000 / secs
		}
		b.last, b.win = b.traffic, window{}
	}
	m.nextWin = now + statsWindow
}

// Steer lets a page's inputs (web.Hub.Inputs) play bot 0's player until in
// is closed: the first key or mouse button held takes it over from its
// bot, and idle with nothing held gives it back. W A S D run, the mouse
// aims (at the point of the ground it is over), its left button fires a
// projectile and its right button a hitscan shot, each as often as the
// weapon is ready while held; a tap fires once, as soon as the weapon is
// ready.
func (m *Match) Steer(in <-chan web.KeyInput, idle time.Duration) {
	web.Steer(in, idle, func(k web.KeyInput) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.steering = m.steering || k.Held()
		m.person.take(k)
	}, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.steering, m.person = false, person{}
	})
}

// person is the state of the page that steers bot 0.
type person struct {
	dir     geom.Vec3 // the keys' direction, length 1 or 0
	aiming  bool
	aim     geom.Vec3 // the point aimed at
	lastAim float64   // the aim angle of the last input
	held    [2]bool   // the mouse's buttons held: projectile, hitscan
	taps    [2]bool   // a press not fired yet
}

// take takes a page's input.
func (p *person) take(k web.KeyInput) {
	x, z := k.Axes()
	p.dir = geom.V(x, 0, z).Norm()
	if k.Aiming && !math.IsInf(k.Aim[0], 0) && !math.IsInf(k.Aim[1], 0) {
		p.aiming, p.aim = true, geom.V(k.Aim[0], 0, k.Aim[1])
	}
	for i, b := range [2]bool{k.Primary, k.Secondary} {
		p.taps[i] = p.taps[i] || b && !p.held[i]
		p.held[i] = b
	}
}

// input returns the input for frame f of the person's client, whose
// latest predicted move fired the weapon fired (or arena.NoWeapon).
func (p *person) input(f *client.Frame, fired arena.Weapon) arena.Input {
	in := arena.Input{Dir: p.dir, Aim: p.lastAim}
	if self := f.Find(f.Self); self != nil && f.HasSelf && p.aiming {
		in.Aim = arena.AimAt(self.Pos, p.aim)
	}
	p.lastAim = in.Aim
	for i, w := range [2]arena.Weapon{arena.Projectile, arena.Hitscan} {
		// A tap asks for a shot until a move fires one (the weapon may be
		// cooling down until then).
		p.taps[i] = p.taps[i] && fired != w
		if p.held[i] || p.taps[i] {
			in.Fire = w
			break
		}
	}
	return in
}
