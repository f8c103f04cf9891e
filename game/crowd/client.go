package crowd

import (
	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/timeline"
	"github.com/tether-net/tether/wire"
)

// ClientGame is the client side of the crowd (client.Game): it decodes
// every snapshot against the baseline it names and hands each sphere it
// refreshes to the client, which draws every sphere by snapshot
// interpolation on its timeline (package timeline) at the one render clock.
// The zero value is ready to use.
type ClientGame struct {
	// Timelines configures every sphere's timeline; its zero value is
	// timeline's defaults, but Capacity, 0 meaning 32 states (half a second
	// at 60 Hz).
	Timelines timeline.Config
	// Render configures the render clock (the render delay fields of a
	// timeline.Config); the zero value is timeline's defaults.
	Render timeline.Config

	kept    wire.Baselines[table]
	scratch table
	n       int // spheres, once a snapshot said
}

// DecodeSnapshot implements client.Game: the spheres the snapshot refreshes
// (those unchanged and those sent; not those the server's budget left out),
// KindBody, their ID their index. It keeps the snapshot as a baseline if it
// is newer than every one kept (s.Baseline), and sets s.Base. A snapshot
// against a baseline not kept is ErrNoBaseline; bad bytes are an error
// (wire.ErrTruncated, wire.ErrMalformed, ErrBodies) and change nothing.
func (g *ClientGame) DecodeSnapshot(s *client.Snapshot, b []byte) error {
	r := wire.NewReader(b)
	n := int(r.Uvarint(MaxBodies))
	dist := r.Uvarint(1 << 32)
	if r.Err() != nil {
		return r.Err()
	}
	if n == 0 || g.n != 0 && n != g.n {
		return ErrBodies
	}
	var base *table
	if dist > 0 {
		if dist >= s.Tick {
			return wire.ErrMalformed
		}
		if base = g.kept.Find(s.Tick - dist); base == nil {
			return ErrNoBaseline
		}
	}
	t := &g.scratch
	t.from(n, base)
	first := len(s.Entities)
	var zero qbody
	br := wire.NewBitReader(r.Remaining())
	for i := range n {
		k := &t.bodies[i]
		switch {
		case k.ok:
			ref := k.at(s.Time)
			if br.Bool() { // changed
				if !br.Bool() {
					continue // left out
				}
				ref = getBody(&br, &ref, &deltaOrders)
			}
			*k = known{q: ref, t: s.Time, ok: true}
		case br.Bool():
			*k = known{q: getBody(&br, &zero, &wholeOrders), t: s.Time, ok: true}
		default:
			continue // left out
		}
		if br.Err() != nil {
			break
		}
		s.Entities = append(s.Entities, client.EntityState{ID: uint32(i), Kind: KindBody, Parent: client.NoParent, State: k.q.state(s.Time)})
	}
	nb, err := br.End()
	r.Sub(nb, err, wire.ErrTruncated)
	if err := r.Done(); err != nil {
		s.Entities = s.Entities[:first]
		return err
	}
	g.n = n
	if base != nil {
		s.Base = s.Tick - dist
	}
	if s.Tick > g.kept.Newest() {
		if g.kept.Len() == 0 { // the zero ClientGame
			g.kept = wire.NewBaselines[table](Ring)
		}
		g.kept.Push(s.Tick).from(n, t)
		s.Baseline = true
	}
	return nil
}

// Timeline implements client.Game.
func (g *ClientGame) Timeline(uint8) timeline.Config {
	c := g.Timelines
	if c.Capacity == 0 {
		c.Capacity = 32
	}
	return c
}

// RenderClock implements client.Game.
func (g *ClientGame) RenderClock() timeline.Config { return g.Render }
