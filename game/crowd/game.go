package crowd

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"time"

	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/wire"
)

// NoSelf is the entity Join gives every client: the crowd's clients watch,
// and control none.
const NoSelf = ^uint32(0)

// KindBody is the client.EntityState Kind of a sphere; its ID is its index,
// from 0.
const KindBody uint8 = 0

// Encoded is the make-up of one per-client snapshot (Config.OnSnapshot).
type Encoded struct {
	Client int           // the client's slot
	Time   time.Duration // server time of the snapshot
	Bytes  int           // the game's bytes of it
	Delta  bool          // encoded against a baseline the client acknowledged
	// Rest is the spheres at rest on the server (no velocity, at VelUnit),
	// and RestBits the bits spent on them: one each once the client
	// knows them.
	Rest, RestBits int
	// Unchanged spheres cost their changed bit alone; Sent went with their
	// state (Whole of them without a baseline to delta-code against);
	// LeftOut were changed or unknown to the client but did not fit the
	// budget.
	Unchanged, Sent, Whole, LeftOut int
}

// Stats are a Game's counters.
type Stats struct {
	Ticks     uint64
	Kicks     uint64 // spheres kicked
	Snapshots uint64 // per-client snapshots encoded
	Deltas    uint64 // of which against a baseline
	LeftOut   uint64 // spheres left out of them by the byte budget
}

// body classes in a per-client snapshot.
const (
	unchanged uint8 = iota
	changed
	unknown
)

// view is what the server sent one client.
type view struct {
	sent wire.Baselines[table]
	acc  []uint32 // by sphere: priority accumulated while left out
}

// Game is the server side of the crowd (server.Game and server.PerClient):
// the spheres, stirred by the kicks, and every client's snapshot encoded
// against its acknowledged baseline within the byte budget.
type Game struct {
	cfg   Config
	w     *world
	tick  uint64
	now   time.Duration // the tick's time as the snapshot's header carries it
	kicks []kick        // the kicks of the last tick
	views []*view       // by client slot
	stats Stats

	// The last tick's spheres quantised, and scratch for one snapshot.
	cur   []qbody
	ref   []qbody
	class []uint8
	cost  []int32
	send  []bool
	order []int32
}

// NewGame returns a crowd of cfg, or an error wrapping ErrConfig.
func NewGame(cfg Config) (*Game, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	n := cfg.Bodies
	g := &Game{cfg: cfg, w: w, kicks: make([]kick, 0, cfg.Kicked),
		cur: make([]qbody, n), ref: make([]qbody, n), class: make([]uint8, n),
		cost: make([]int32, n), send: make([]bool, n), order: make([]int32, 0, n)}
	g.quantise()
	return g, nil
}

// Config returns the configuration in use, defaults filled in.
func (g *Game) Config() Config { return g.cfg }

// Stats returns the counters.
func (g *Game) Stats() Stats { return g.stats }

// Body returns sphere i as the server has it now.
func (g *Game) Body(i int) physics.BodyState { return g.w.phys.Body(physics.BodyID(i)) }

// Join implements server.Game: the client watches, controlling nothing.
func (g *Game) Join(client int) (uint32, error) {
	for client >= len(g.views) {
		g.views = append(g.views, nil)
	}
	g.views[client] = &view{sent: wire.NewBaselines[table](Ring), acc: make([]uint32, g.cfg.Bodies)}
	return NoSelf, nil
}

// Leave implements server.Game.
func (g *Game) Leave(client int) { g.views[client] = nil }

// Input implements server.Game: the crowd takes no input.
func (g *Game) Input(int, server.Input) {}

// Step implements server.Game: one physics step, then the kicks due.
func (g *Game) Step(t server.Tick, _ server.Emitter) bool {
	g.kicks = g.w.step(t.Time, g.kicks)
	g.tick, g.now = t.N, t.Time/wire.TimeUnit*wire.TimeUnit
	g.stats.Ticks++
	g.stats.Kicks += uint64(len(g.kicks))
	g.quantise()
	return false
}

func (g *Game) quantise() {
	for i := range g.cur {
		s := g.w.phys.Body(physics.BodyID(i))
		g.cur[i] = quantise(s.Pos, s.Vel)
	}
}

// AppendSnapshot implements server.Game: every sphere whole, for a caller
// that wants one snapshot for all. At about 50 bits a sphere, a crowd of
// more than about 180 does not fit one packet (the server drops such a
// snapshot as Oversize): the server calls AppendSnapshotFor instead.
func (g *Game) AppendSnapshot(dst []byte, _ bool) []byte {
	return g.encode(dst, nil, 0, 0, -1)
}

// AppendSnapshotFor implements server.PerClient: the snapshot against the
// newest one the client acknowledged that the server still holds (or
// whole), within budget bytes. When not every changed sphere fits, those
// that would be drawn furthest from the truth, and those left out longest,
// go first (a priority accumulated per client and sphere while it is left
// out, reset when it is sent), so every sphere is sent within a few
// snapshots. The changed bits themselves always go, one per sphere: the
// budget must hold Bodies/8 bytes and a few more.
func (g *Game) AppendSnapshotFor(dst []byte, client int, _ bool, acked uint64, budget int) []byte {
	return g.encode(dst, g.views[client], acked, client, budget)
}

// encode appends the snapshot for the client of view v (nil: everyone,
// whole) against the snapshot of tick acked if v still holds it (else
// whole), within budget bytes (negative: no budget).
func (g *Game) encode(dst []byte, v *view, acked uint64, client, budget int) []byte {
	var base *table
	if v != nil {
		base = v.sent.Find(acked)
	}
	start := len(dst)
	dst = binary.AppendUvarint(dst, uint64(g.cfg.Bodies))
	if base != nil {
		dst = binary.AppendUvarint(dst, g.tick-acked)
	} else {
		dst = append(dst, 0)
	}
	// Every sphere's class, and the bits it costs if sent.
	var zero qbody
	mandatory, total := 0, 0
	for i := range g.cur {
		cur := &g.cur[i]
		if base != nil && base.bodies[i].ok {
			g.ref[i] = base.bodies[i].at(g.now)
			if g.ref[i] == *cur {
				g.class[i], g.cost[i] = unchanged, 0
				mandatory++
				continue
			}
			g.class[i], g.cost[i] = changed, int32(bodyBits(cur, &g.ref[i], &deltaOrders))
			mandatory += 2
		} else {
			g.class[i], g.cost[i] = unknown, int32(bodyBits(cur, &zero, &wholeOrders))
			mandatory++
		}
		total += int(g.cost[i])
	}
	room := (budget-(len(dst)-start))*8 - mandatory
	if budget < 0 || total <= room {
		for i := range g.send {
			g.send[i] = g.class[i] != unchanged
		}
	} else {
		g.choose(v, room)
	}
	e := Encoded{Client: client, Time: g.now, Delta: base != nil}
	var t *table // the snapshot as the client will rebuild it
	if v != nil {
		t = v.sent.Push(g.tick)
		t.from(len(g.cur), base)
	}
	w := wire.NewBitWriter(dst)
	for i := range g.cur {
		cur := &g.cur[i]
		bits := w.Len()
		switch g.class[i] {
		case unchanged:
			w.Bool(false)
			e.Unchanged++
		case changed:
			w.Bool(true)
			w.Bool(g.send[i])
			if g.send[i] {
				putBody(&w, cur, &g.ref[i], &deltaOrders)
			}
		default:
			w.Bool(g.send[i])
			if g.send[i] {
				putBody(&w, cur, &zero, &wholeOrders)
				e.Whole++
			}
		}
		refreshed := g.class[i] == unchanged || g.send[i]
		switch {
		case g.send[i]:
			e.Sent++
		case !refreshed:
			e.LeftOut++
		}
		if cur[3] == 0 && cur[4] == 0 && cur[5] == 0 {
			e.Rest++
			e.RestBits += w.Len() - bits
		}
		if v != nil && refreshed {
			t.bodies[i] = known{q: *cur, t: g.now, ok: true}
			v.acc[i] = 0
		}
	}
	dst = w.Append()
	if v != nil {
		e.Bytes = len(dst) - start
		g.stats.Snapshots++
		g.stats.LeftOut += uint64(e.LeftOut)
		if e.Delta {
			g.stats.Deltas++
		}
		if g.cfg.OnSnapshot != nil {
			g.cfg.OnSnapshot(e)
		}
	}
	return dst
}

// The priority a sphere gains each snapshot it is left out of: unknownWeight
// if the client does not know it (it is not drawn at all), otherwise one
// plus the number of binary digits of how far off the client would draw it,
// in steps of position and velocity summed (2 for a step off, 11 for a
// metre): the worse first, but no sphere waits more than a few times longer
// than another.
const unknownWeight = 64

// choose marks in g.send the spheres that fit room bits: by priority, the
// accumulated one of v plus what each gains now.
func (g *Game) choose(v *view, room int) {
	g.order = g.order[:0]
	for i := range g.cur {
		g.send[i] = false
		switch g.class[i] {
		case unchanged:
			continue
		case changed:
			off := int64(0)
			for _, d := range diffs(&g.cur[i], &g.ref[i]) {
				off += max(d, -d)
			}
			v.acc[i] += uint32(1 + bits.Len64(uint64(off)))
		default:
			v.acc[i] += unknownWeight
		}
		g.order = append(g.order, int32(i))
	}
	slices.SortFunc(g.order, func(a, b int32) int {
		if v.acc[a] != v.acc[b] {
			return int(v.acc[b]) - int(v.acc[a])
		}
		return int(a - b)
	})
	for _, i := range g.order {
		if c := int(g.cost[i]); c <= room {
			g.send[i] = true
			room -= c
		}
	}
}
