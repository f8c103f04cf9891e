package crowd

import (
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/server"
)

// Meter measures a crowd's clients with package measure's definitions:
// every sphere's true trajectory, its contacts marked, and per client how
// far from it every sphere is drawn and how often each is refreshed (a
// measure.EntityMeter), and what the snapshots cost. Feed it the server's
// ticks (Tick), the snapshots encoded (Encoded, from Config.OnSnapshot) and
// each client's snapshots and frames (ClientMeter); read Figures at the
// end. Not safe for concurrent use.
type Meter struct {
	warmUp  time.Duration
	ents    *measure.EntityMeter
	contact []time.Duration // scratch: by sphere, its first contact in the last step, or -1
	velIn   []geom.Vec3     // scratch: by sphere, its velocity arriving at the last tick
	clients []*ClientMeter
}

// MeterConfig configures a Meter.
type MeterConfig struct {
	// WarmUp is the true time before which nothing is measured.
	WarmUp time.Duration
	// Clients are the links of the clients measured, by index: frames in
	// a link's blackouts are not measured for fidelity, as the ball's are
	// not (measure.BallMeter).
	Clients []measure.Link
}

// ClientMeter measures one client.
type ClientMeter struct {
	m         *Meter
	ents      *measure.EntityClient
	drawn     []measure.EntityDrawn // scratch
	blackouts measure.Spans
	clock     measure.ClockMeter
	first     time.Duration // true time of the first frame with a clock sample
	replied   bool
	last      []time.Duration // by sphere, the newest snapshot that refreshed it, or -1
	// The recovery from blackout k (the next to end): spheres refreshed
	// since its end, and the longest recovery so far.
	k, since int
	recovery time.Duration

	frames, undrawn int64 // sphere-frames measured, and of them not drawn
	snapshots       int64
	rest            int64
	restBits        float64
	leftOut, bytes  int64
}

// Figures are one client's measurements.
type Figures struct {
	// FidelityM is the distance between where a sphere is drawn and where
	// it was on the server at the moment drawn (its render time), metres,
	// over every sphere drawn in every frame after the warm-up but those in
	// a blackout of the link.
	FidelityM measure.Stat `json:"fidelity_m"`
	// MovingM is FidelityM over the spheres moving at the moment drawn:
	// that moved more than 1 mm in the 1/60 s before it.
	MovingM measure.Stat `json:"moving_fidelity_m"`
	// RefreshMs is the server time between two snapshots the client
	// received that refreshed a sphere (unchanged or sent), milliseconds.
	RefreshMs measure.Stat `json:"refresh_ms"`
	// RecoveryS is how long after a blackout of the link every sphere was
	// refreshed again: the server time of the snapshot that completed them
	// less the blackout's end, seconds, the longest over the blackouts
	// (0 without one; until the end of the run if they never were). During and after one the server sends the spheres
	// whole once the baseline the client acknowledged has left its Ring,
	// as many as the budget holds in each snapshot.
	RecoveryS float64 `json:"recovery_s"`
	// Undrawn is the share of spheres not drawn in the frames after the
	// warm-up (not yet known to the client, or forgotten).
	Undrawn float64 `json:"undrawn"`
	// RestBits is the bits a snapshot spent on a sphere at rest, on average
	// over every sphere at rest in every snapshot encoded after the
	// warm-up; SnapshotBytes the game's bytes of a snapshot and LeftOut the
	// spheres the budget left out of one, on average.
	RestBits      float64 `json:"rest_bits"`
	SnapshotBytes float64 `json:"snapshot_bytes"`
	LeftOut       float64 `json:"left_out"`
	// Clock is the client's clock, and Net its traffic on the wire,
	// headers included: the figures every game reports beside its own.
	Clock measure.ClockMetrics `json:"-"`
	Net   measure.NetMetrics   `json:"-"`
}

// A sphere drawn at a moment is moving if it moved more than movingDist
// metres in the movingSpan before.
const (
	movingDist = 0.001
	movingSpan = time.Second / 60
)

// contactSpeed is the approach speed, m/s, above which a contact inside a
// step is marked on the truth (a sphere resting on the floor touches it
// every step at about 0).
const contactSpeed = 0.05

// NewMeter returns a meter of a crowd of n spheres and the clients cfg
// describes.
func NewMeter(n int, cfg MeterConfig) *Meter {
	m := &Meter{warmUp: cfg.WarmUp, contact: make([]time.Duration, n), velIn: make([]geom.Vec3, n),
		ents: measure.NewEntityMeter(measure.EntityConfig{WarmUp: cfg.WarmUp, Kinds: Schema.Names(), Clients: cfg.Clients,
			MovingSpan: movingSpan, MovingDist: movingDist})}
	for i, c := range cfg.Clients {
		last := make([]time.Duration, n)
		for i := range last {
			last[i] = -1
		}
		m.clients = append(m.clients, &ClientMeter{m: m, ents: m.ents.Client(i), blackouts: c.Blackouts, last: last,
			clock: measure.NewClockMeter(cfg.WarmUp, c)})
	}
	return m
}

// Client returns the meter of client i.
func (m *Meter) Client(i int) *ClientMeter { return m.clients[i] }

// Tick records the spheres of g after its tick t (the server's OnTick).
func (m *Meter) Tick(g *Game, t server.Tick) {
	for i := range m.contact {
		m.contact[i] = -1
	}
	for _, c := range g.w.phys.Contacts() {
		for _, id := range [2]physics.BodyID{c.Body, c.Other} {
			if c.Speed > contactSpeed && id >= 0 && int(id) < len(m.contact) && m.contact[id] < 0 {
				m.contact[id] = t.Time - t.Dt + c.At
			}
		}
	}
	for i := range m.velIn {
		m.velIn[i] = g.Body(i).Vel
	}
	for j := len(g.kicks) - 1; j >= 0; j-- { // a sphere kicked twice arrived at its first kick's
		m.velIn[g.kicks[j].id] = g.kicks[j].velIn
	}
	for i := range m.velIn {
		b := g.Body(i)
		m.ents.Truth(uint32(i), KindBody, 0, measure.Sample{T: t.Time, Pos: b.Pos, Vel: b.Vel, VelIn: m.velIn[i],
			Contact: m.contact[i] >= 0, ContactAt: m.contact[i]})
	}
}

// Encoded records a snapshot encoded for client c (Config.OnSnapshot).
func (c *ClientMeter) Encoded(e Encoded) {
	if e.Time < c.m.warmUp {
		return
	}
	c.snapshots++
	c.rest += int64(e.Rest)
	c.restBits += e.RestBits
	c.leftOut += int64(e.LeftOut)
	c.bytes += int64(e.Bytes)
}

// Received records a snapshot the client decoded (client.Config.OnSnapshot).
func (c *ClientMeter) Received(s *client.Snapshot) {
	for i := range s.Entities {
		id := s.Entities[i].ID
		if int(id) >= len(c.last) {
			continue
		}
		c.ents.Received(s.Time, id, KindBody)
		if c.k < len(c.blackouts) && c.last[id] < c.blackouts[c.k].To && s.Time >= c.blackouts[c.k].To {
			c.since++
		}
		c.last[id] = max(c.last[id], s.Time)
	}
	if c.k < len(c.blackouts) && c.since == len(c.last) {
		c.recovery = max(c.recovery, s.Time-c.blackouts[c.k].To)
		c.k, c.since = c.k+1, 0
	}
}

// Frame records frame f the client drew at true time t; replied says its
// clock had had a reply by then.
func (c *ClientMeter) Frame(t time.Duration, f *client.Frame, replied bool) {
	if replied && !c.replied {
		c.first, c.replied = t, true
	}
	fr := measure.Frame{T: t, Est: f.Server, Ready: f.Ready, Bound: -1}
	if f.Ready {
		fr.Bound = f.Bound
	}
	c.clock.Add(fr)
	if !f.Ready || t < c.m.warmUp {
		return
	}
	c.frames += int64(len(c.last))
	c.undrawn += int64(len(c.last))
	ents := c.drawn[:0]
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.Kind != KindBody || int(e.ID) >= len(c.last) {
			continue
		}
		c.undrawn--
		ents = append(ents, measure.EntityDrawn{ID: e.ID, Kind: e.Kind, Pos: e.Pos, RenderTime: e.RenderTime})
	}
	c.drawn = ents
	c.ents.Frame(t, ents)
}

// Figures returns client i's figures, its traffic tr over a run of d.
func (m *Meter) Figures(i int, tr harness.Traffic, d time.Duration) Figures {
	c := m.clients[i]
	ents := m.ents.Figures(i, d)[KindBody]
	recovery := c.recovery
	if c.k < len(c.blackouts) && c.blackouts[c.k].To < d {
		recovery = max(recovery, d-c.blackouts[c.k].To)
	}
	perBit := func(x float64, n int64) float64 {
		if n == 0 {
			return 0
		}
		return measure.Round(x / float64(n))
	}
	per := func(x, n int64) float64 { return perBit(float64(x), n) }
	kbps := func(bytes int64) float64 { return measure.Round(float64(bytes) * 8 / d.Seconds() / 1000) }
	return Figures{
		FidelityM: ents.FidelityM, MovingM: *ents.MovingM, RefreshMs: ents.RefreshMs, Undrawn: per(c.undrawn, c.frames),
		RecoveryS: measure.Round(recovery.Seconds()),
		RestBits:  perBit(c.restBits, c.rest), SnapshotBytes: per(c.bytes, c.snapshots), LeftOut: per(c.leftOut, c.snapshots),
		Clock: c.clock.Metrics(c.first, c.replied),
		Net:   measure.NetMetrics{DownKbps: kbps(tr.WireDown), UpKbps: kbps(tr.WireUp)},
	}
}
