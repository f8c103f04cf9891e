package measure

import (
	"strconv"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/replica"
)

// EntityMetrics measure how one client draws the entities of one kind, any
// game's: the kinds a game declares to the replication layer
// (replica.Kind), measured against the world the server replicated.
// Frames after the warm-up are measured; an entity drawn at a render time
// its truth does not cover (before the server had it, or while it had it
// not: despawned) is not, nor is the client's own predicted entity (OwnMetrics
// measure that), nor frames in a blackout of the link.
type EntityMetrics struct {
	// Kind is the kind's name (replica.Kind.Name).
	Kind string `json:"kind"`
	// FidelityM is |R(L) - X(RT)| over every entity of the kind drawn in
	// every frame: R the drawn position, X the entity's true trajectory
	// and RT the render time the client drew the entity at, metres.
	FidelityM Stat `json:"fidelity_m"`
	// MovingM is FidelityM over the entities moving at their render time:
	// that moved more than EntityConfig.MovingDist metres in the
	// EntityConfig.MovingSpan before it; nil (left out) unless MovingSpan
	// is set.
	MovingM *Stat `json:"moving_fidelity_m,omitempty"`
	// Pops counts the entity-frames where |ΔR - ΔX| > 5 cm (PopM), ΔX the
	// true motion over the frame's advance of the entity's render time;
	// across a teleport (a changed replica.Entity.Gen) or a despawn no motion
	// is true, so no frame across one is a pop. PopsPerMin is that per
	// minute of the run after the warm-up (for the kind's entities together).
	Pops       int     `json:"pops"`
	PopsPerMin float64 `json:"pops_per_min"`
	// RefreshMs is the server time between two snapshots the client received
	// that refreshed an entity (sent, or unchanged from its prediction),
	// milliseconds.
	RefreshMs Stat `json:"refresh_ms"`
	// Kbps is what the layer spent on the kind in the client's snapshots,
	// kilobits per second of the run after the warm-up: the kind's share
	// of the snapshots' bytes, no header counted (0 for a client whose
	// snapshots another codec encoded).
	Kbps float64 `json:"kbps"`
	// Samples counts the entity-frames measured; ExtrapFrames of them drawn
	// past the newest state received, FrozenFrames held still for lack of
	// data.
	Samples      int `json:"samples"`
	ExtrapFrames int `json:"extrap_frames"`
	FrozenFrames int `json:"frozen_frames"`
}

// EntityDrawn is an entity as one client frame drew it (a client.Entity).
type EntityDrawn struct {
	ID   uint32
	Kind uint8
	// Pos is where, RenderTime the server time the client claims to show
	// the entity at.
	Pos        geom.Vec3
	RenderTime time.Duration
	// Cut: the first frame after a teleport, drawn as a jump; Extrapolated:
	// drawn past the newest state received; Frozen: held still for lack of
	// data.
	Cut, Extrapolated, Frozen bool
}

// EntityConfig configures an EntityMeter.
type EntityConfig struct {
	// WarmUp is the true time before which nothing is measured.
	WarmUp time.Duration
	// Kinds names the kinds, in the schema's order (replica.Kind.Name); a
	// kind without a name is reported as "kind N".
	Kinds []string
	// Clients are the links of the clients measured, by index.
	Clients []Link
	// MovingSpan, if set, has EntityMetrics.MovingM measured: an entity is
	// moving at a moment if its truth moved more than MovingDist metres in
	// the MovingSpan before it.
	MovingSpan time.Duration
	MovingDist float64
}

// EntityMeter measures any game's entities by kind, for every client: it
// holds every entity's true trajectory, fed the server's world (World, or
// Truth for one entity), and per client the frames drawn (Frame), the
// snapshots received (Received) and the bits each snapshot spent per kind
// (Bits). A frame waits until the truth covers the render times it drew;
// Figures measures the rest. The truth between two samples is the cubic
// through their positions and velocities (Truth.At): fed at the snapshot
// rate, it rounds a bounce's corner, which a game that knows its contacts
// need not: it feeds Truth every tick's samples with them marked (package
// game/crowd's meter). Not safe for concurrent use.
type EntityMeter struct {
	warmUp    time.Duration
	names     []string
	movSpan   time.Duration
	movDist   float64
	ents      idTable[*entityTruth]
	now, prev time.Duration // the newest time fed, and the one before
	forgot    time.Duration
	clients   []*EntityClient
}

// entityTruth is one entity's true trajectory.
type entityTruth struct {
	kind uint8
	gen  uint8
	tr   Truth
	gaps Spans // server times it was not in the world, after it first was
}

// EntityClient measures one client's entities.
type EntityClient struct {
	m         *EntityMeter
	blackouts Spans
	kinds     []entityKind
	last      idTable[lastDrawn]
	recv      idTable[time.Duration] // the newest snapshot that refreshed an entity
	seq       int64                  // frames taken
	pending   []entityFrame
	free      [][]EntityDrawn
}

type entityKind struct {
	fid, moving, refresh          Series
	pops, samples, extrap, frozen int
	bits                          float64
}

// lastDrawn is an entity as the client's frame seq drew it, measured.
type lastDrawn struct {
	seq        int64
	at         time.Duration
	pos, truth geom.Vec3
	hint       int // its truth's index there (Truth.atNear)
}

type entityFrame struct {
	t    time.Duration
	seq  int64
	ents []EntityDrawn
}

// entityKeep is how much of the truth behind the newest tick the meter
// holds: more than any render delay.
const entityKeep = 3 * time.Second

// NewEntityMeter returns a meter of the clients cfg describes.
func NewEntityMeter(cfg EntityConfig) *EntityMeter {
	m := &EntityMeter{warmUp: cfg.WarmUp, names: cfg.Kinds, movSpan: cfg.MovingSpan, movDist: cfg.MovingDist}
	for _, l := range cfg.Clients {
		m.clients = append(m.clients, &EntityClient{m: m, blackouts: l.Blackouts, kinds: make([]entityKind, len(cfg.Kinds))})
	}
	return m
}

// Client returns the meter of client i.
func (m *EntityMeter) Client(i int) *EntityClient { return m.clients[i] }

// World records every entity of w, the world the server replicated at
// server time t (its tick's), as the truth at t; each entity's Earlier
// samples before it. Feed it the worlds in order of time.
func (m *EntityMeter) World(t time.Duration, w *replica.World) {
	m.advance(t)
	for i := range w.Len() {
		e := w.Entity(i)
		for _, s := range e.Earlier {
			m.Truth(e.ID, e.Kind, e.Gen, Sample{T: s.Time, Pos: s.Pos, Vel: s.Vel, VelIn: s.Vel, Jump: s.Cut})
		}
		s := &e.State
		m.Truth(e.ID, e.Kind, e.Gen, Sample{T: t, Pos: s.Pos, Vel: s.Vel, VelIn: s.Vel, Jump: s.Cut})
	}
}

// Truth records entity id, of kind, at server time s.T: gen is its teleport
// generation (replica.Entity.Gen), whose change marks s as a jump. An
// entity missing from the server's world at the times fed between its
// samples was not there: s is then a jump too, and frames drawing it at a
// render time in between are not measured. A sample not later than the
// entity's newest is ignored.
func (m *EntityMeter) Truth(id uint32, kind uint8, gen uint8, s Sample) {
	m.advance(s.T)
	e, _ := m.ents.get(id)
	if e == nil {
		e = &entityTruth{kind: kind, gen: gen}
		m.ents.put(id, e)
	}
	if e.tr.Len() > 0 {
		last := e.tr.Newest().T
		if s.T <= last {
			return
		}
		if last < m.prev && s.T == m.now {
			e.gaps = append(e.gaps, Span{From: last + 1, To: s.T})
			s.Jump = true
		}
		if gen != e.gen {
			s.Jump = true
		}
	}
	e.kind, e.gen = kind, gen
	e.tr.Add(s)
	if m.now-m.forgot >= time.Second {
		m.forget()
	}
}

// advance makes t the newest time fed, if it is later.
func (m *EntityMeter) advance(t time.Duration) {
	if t > m.now {
		m.prev, m.now = m.now, t
	}
}

// forget drops what no frame can still ask for: the truth more than
// entityKeep behind the newest time, and the entities gone since.
func (m *EntityMeter) forget() {
	m.forgot = m.now
	keep := m.now - entityKeep
	m.ents.each(func(id uint32, e *entityTruth) {
		if e.tr.Newest().T < keep {
			m.ents.del(id)
			return
		}
		e.tr.Forget(keep)
		n := 0
		for ; n < len(e.gaps) && e.gaps[n].To < keep; n++ {
		}
		e.gaps = e.gaps[:copy(e.gaps, e.gaps[n:])]
	})
}

// Received records a snapshot of server time t the client received that
// refreshed entity id of kind (every entity of a client.Snapshot).
func (c *EntityClient) Received(t time.Duration, id uint32, kind uint8) {
	last, ok := c.recv.get(id)
	if ok && t > last && t >= c.m.warmUp {
		c.kind(kind).refresh.Add(ms(t - last))
	}
	if !ok || t > last {
		c.recv.put(id, t)
	}
}

// Bits records the bits a snapshot of server time t spent on the client's
// entities of kind (replica.Encoded.KindBits).
func (c *EntityClient) Bits(t time.Duration, kind uint8, bits float64) {
	if t >= c.m.warmUp {
		c.kind(kind).bits += bits
	}
}

// Frame records the entities the client drew in its frame at true time t,
// its own predicted one left out; ents is copied.
func (c *EntityClient) Frame(t time.Duration, ents []EntityDrawn) {
	c.seq++
	if t < c.m.warmUp {
		return
	}
	var cp []EntityDrawn
	if n := len(c.free); n > 0 {
		cp, c.free = c.free[n-1][:0], c.free[:n-1]
	}
	c.pending = append(c.pending, entityFrame{t: t, seq: c.seq, ents: append(cp, ents...)})
	c.measure(false)
}

func (c *EntityClient) kind(k uint8) *entityKind {
	for int(k) >= len(c.kinds) {
		c.kinds = append(c.kinds, entityKind{})
	}
	return &c.kinds[k]
}

// measure measures the frames the truth covers (all, if over).
func (c *EntityClient) measure(over bool) {
	n := 0
	for ; n < len(c.pending); n++ {
		f := &c.pending[n]
		if !over && !c.covered(f) {
			break
		}
		c.measureFrame(f)
		c.free = append(c.free, f.ents)
	}
	c.pending = c.pending[:copy(c.pending, c.pending[n:])]
}

func (c *EntityClient) covered(f *entityFrame) bool {
	for i := range f.ents {
		if f.ents[i].RenderTime > c.m.now {
			return false
		}
	}
	return true
}

func (c *EntityClient) measureFrame(f *entityFrame) {
	for i := range f.ents {
		d := &f.ents[i]
		e, _ := c.m.ents.get(d.ID)
		if e == nil || !e.tr.Covers(d.RenderTime) || e.gaps.In(d.RenderTime) ||
			c.blackouts.In(f.t) || c.blackouts.In(d.RenderTime) {
			continue
		}
		k := c.kind(e.kind)
		p, ok := c.last.get(d.ID)
		hint := p.hint
		x := e.tr.atNear(&hint, d.RenderTime)
		k.samples++
		k.fid.Add(d.Pos.Dist(x))
		if c.m.movSpan > 0 && x.Dist(e.tr.At(d.RenderTime-c.m.movSpan)) > c.m.movDist {
			k.moving.Add(d.Pos.Dist(x))
		}
		if d.Extrapolated {
			k.extrap++
		}
		if d.Frozen {
			k.frozen++
		}
		if ok && p.seq == f.seq-1 && !d.Cut && d.RenderTime >= p.at &&
			!e.tr.CutBetween(p.at, d.RenderTime) && !e.tr.JumpBetween(p.at, d.RenderTime) &&
			Pop(p.pos, d.Pos, p.truth, x) {
			k.pops++
		}
		c.last.put(d.ID, lastDrawn{seq: f.seq, at: d.RenderTime, pos: d.Pos, truth: x, hint: hint})
	}
}

// Figures measures the frames still waiting against the truth as it is,
// and returns client i's figures, one per kind in the schema's order, over
// a run that ended at true time end.
func (m *EntityMeter) Figures(i int, end time.Duration) []EntityMetrics {
	c := m.clients[i]
	c.measure(true)
	span := max(end-m.warmUp, 0)
	out := make([]EntityMetrics, 0, max(len(m.names), len(c.kinds)))
	for k := range max(len(m.names), len(c.kinds)) {
		km := c.kind(uint8(k))
		em := EntityMetrics{Kind: m.name(k), FidelityM: km.fid.Stat(), Pops: km.pops, RefreshMs: km.refresh.Stat(),
			Samples: km.samples, ExtrapFrames: km.extrap, FrozenFrames: km.frozen}
		if m.movSpan > 0 {
			st := km.moving.Stat()
			em.MovingM = &st
		}
		if span > 0 {
			em.PopsPerMin = Round(float64(km.pops) / span.Minutes())
			em.Kbps = Round(km.bits / span.Seconds() / 1000)
		}
		out = append(out, em)
	}
	return out
}

func (m *EntityMeter) name(k int) string {
	if k < len(m.names) && m.names[k] != "" {
		return m.names[k]
	}
	return "kind " + strconv.Itoa(k)
}

// idTable holds a value per entity id: in slices for the small ids games
// number their entities with, in a map for the others.
type idTable[V any] struct {
	dense  []V
	has    []bool
	sparse map[uint32]V
}

// denseIDs bounds the ids an idTable holds in its slices.
const denseIDs = 1 << 16

func (t *idTable[V]) get(id uint32) (V, bool) {
	if id < denseIDs {
		if int(id) < len(t.dense) && t.has[id] {
			return t.dense[id], true
		}
		var zero V
		return zero, false
	}
	v, ok := t.sparse[id]
	return v, ok
}

func (t *idTable[V]) put(id uint32, v V) {
	if id >= denseIDs {
		if t.sparse == nil {
			t.sparse = map[uint32]V{}
		}
		t.sparse[id] = v
		return
	}
	for int(id) >= len(t.dense) {
		var zero V
		t.dense, t.has = append(t.dense, zero), append(t.has, false)
	}
	t.dense[id], t.has[id] = v, true
}

func (t *idTable[V]) del(id uint32) {
	if id >= denseIDs {
		delete(t.sparse, id)
		return
	}
	if int(id) < len(t.dense) {
		var zero V
		t.dense[id], t.has[id] = zero, false
	}
}

// each calls f with every id held and its value; f may delete it.
func (t *idTable[V]) each(f func(id uint32, v V)) {
	for id := range t.dense {
		if t.has[id] {
			f(uint32(id), t.dense[id])
		}
	}
	for id, v := range t.sparse {
		f(id, v)
	}
}
