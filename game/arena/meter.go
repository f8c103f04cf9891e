package arena

import (
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
)

// Meter measures an arena match with package measure's meters: each
// client's clock, how it drew the projectiles against the server's flights
// (measure.ProjMeter), and how the server judged its hitscan shots against
// what the client saw (measure.HitMeter). The lab fills one in virtual time
// and tether demo -game arena live, so both report the same figures by one
// code path. The server's side (Flight, Shot) and each client's
// (MeteredClient's methods) may be fed from different goroutines, each side
// from one; read Figures once the match is over.
type Meter struct {
	flights map[shotKey]Flight // every projectile the server fired
	shots   []Shot             // every hitscan shot the server judged
	clients []*ClientMeter
}

// shotKey names a shot or a projectile: its shooter's entity and the move
// that fired it.
type shotKey struct{ shooter, move uint32 }

// MeterConfig configures a Meter.
type MeterConfig struct {
	// WarmUp is the true time before which nothing is measured.
	WarmUp time.Duration
	// Clients are the clients measured, by index.
	Clients []MeteredClient
}

// MeteredClient is one client a Meter measures.
type MeteredClient struct {
	Link measure.Link // its link (its blackouts are not left out)
	// Proj and Hits, if set, are the meters its projectiles and shots are
	// measured into, shared with other clients or runs to pool them; nil:
	// its own.
	Proj *measure.ProjMeter
	Hits *measure.HitMeter
}

// ClientMeter records what one client drew and claimed.
type ClientMeter struct {
	hasSelf bool
	id      uint32
	clock   measure.ClockMeter
	first   time.Duration // true time of the first frame with a clock sample
	replied bool
	proj    *measure.ProjMeter
	hits    *measure.HitMeter
	drawn   []drawnProj              // projectiles drawn, measured once the server's flights are known
	claims  map[uint32]ClientShot    // own hitscan shots by move, as this client judged them
	fired   map[uint32]time.Duration // and the true time each was fired
}

// drawnProj is a projectile as a client drew it at true time t.
type drawnProj struct {
	t         time.Duration
	key       shotKey
	pos       geom.Vec3
	predicted bool
}

// Figures are one client's measurements.
type Figures struct {
	Clock measure.ClockMetrics
	Proj  measure.ProjMetrics
	Hits  measure.HitMetrics
}

// NewMeter returns a meter of the clients cfg describes.
func NewMeter(cfg MeterConfig) *Meter {
	m := &Meter{flights: map[shotKey]Flight{}}
	for _, c := range cfg.Clients {
		cm := &ClientMeter{clock: measure.NewClockMeter(cfg.WarmUp, c.Link), proj: c.Proj, hits: c.Hits,
			claims: map[uint32]ClientShot{}, fired: map[uint32]time.Duration{}}
		if cm.proj == nil {
			cm.proj = &measure.ProjMeter{}
		}
		if cm.hits == nil {
			cm.hits = &measure.HitMeter{}
		}
		cm.proj.WarmUp, cm.hits.WarmUp = cfg.WarmUp, cfg.WarmUp
		m.clients = append(m.clients, cm)
	}
	return m
}

// Flight records a projectile the server's game ended (its
// Config.OnProjectile, and Game.Flights at the end).
func (m *Meter) Flight(f Flight) { m.flights[shotKey{f.Shooter, f.Move}] = f }

// Shot records a hitscan shot the server judged (its Config.OnShot).
func (m *Meter) Shot(s Shot) { m.shots = append(m.shots, s) }

// Client returns the meter of client i.
func (m *Meter) Client(i int) *ClientMeter { return m.clients[i] }

// Claim records a hitscan shot the client fired at true time t (its
// ClientConfig.OnShot).
func (c *ClientMeter) Claim(s ClientShot, t time.Duration) {
	c.claims[s.Move], c.fired[s.Move] = s, t
}

// Frame records frame f the client drew at true time t, with g its game;
// replied says its clock had had a reply by then.
func (c *ClientMeter) Frame(t time.Duration, f *client.Frame, g *ClientGame, replied bool) {
	if replied && !c.replied {
		c.first, c.replied = t, true
	}
	if f.HasSelf {
		c.id, c.hasSelf = f.Self, true
	}
	fr := measure.Frame{T: t, Est: f.Server, Ready: f.Ready, Bound: -1}
	if f.Ready {
		fr.Bound = f.Bound
	}
	c.clock.Add(fr)
	for _, d := range g.Projectiles() {
		c.drawn = append(c.drawn, drawnProj{t: t, key: shotKey{d.Shooter, d.Move}, pos: d.Pos, predicted: d.Predicted})
	}
}

// Measure measures every projectile drawn so far against the server's, and
// every hitscan shot judged so far against its client's claim. Figures
// calls it; call it yourself to measure into pooled meters.
func (m *Meter) Measure() {
	for _, c := range m.clients {
		for _, d := range c.drawn {
			f, ok := m.flights[d.key]
			if !ok || d.t < f.Spawn.Time || d.t > f.End {
				continue // the server's had not left yet, or had ended
			}
			c.proj.Add(d.t, d.pos, f.At(d.t), d.predicted)
		}
		c.drawn = nil
	}
	for _, sh := range m.shots {
		c := m.clientOf(sh.Shooter)
		if c == nil {
			continue
		}
		claim, ok := c.claims[sh.Move]
		if !ok {
			continue // fired before its client predicted
		}
		c.hits.Add(measure.Shot{T: c.fired[sh.Move], Claimed: claim.Target, Judged: sh.Target, Present: sh.Present,
			Rewind: sh.Arrival - sh.At, Clamped: sh.Clamped})
	}
	m.shots = nil
}

// clientOf returns the client that plays entity id, or nil.
func (m *Meter) clientOf(id uint32) *ClientMeter {
	for _, c := range m.clients {
		if c.hasSelf && c.id == id {
			return c
		}
	}
	return nil
}

// Figures measures what is left and returns client i's figures.
func (m *Meter) Figures(i int) Figures {
	m.Measure()
	c := m.clients[i]
	return Figures{Clock: c.clock.Metrics(c.first, c.replied), Proj: c.proj.Metrics(), Hits: c.hits.Metrics()}
}
