package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/replica"
)

// EntityTap measures any replicated game's entities by kind
// (measure.EntityMeter) from the hooks every run of one has, in virtual
// time or live: the server's Encode hook (server.Config.Encode), which is
// handed the world the game replicated before each client's snapshot is
// encoded, is its truth and, by the layer's counters read between two
// snapshots, each snapshot's bits per kind; each client's frames and the
// snapshots it decoded are what it drew and when it was refreshed. Its
// server side (Encoding) and its clients' (Frame, Received) may be called
// from different goroutines only if the caller serialises them.
type EntityTap struct {
	meter *measure.EntityMeter
	enc   func() *replica.Encoder
	index map[int]int // client index by server slot

	tick    uint64 // the tick of the newest world fed
	fed     bool
	pending int           // the slot of the last snapshot, whose bits are not yet counted; -1: none
	at      time.Duration // its server time
	base    [replica.MaxKinds]float64
	drawn   []measure.EntityDrawn // scratch
}

// NewEntityTap returns a tap measuring the entity kinds named kinds
// (replica.Schema.Names) for clients on links; enc
// returns the server's encoder (server.Server.Replica), once there is one.
func NewEntityTap(kinds []string, links []measure.Link, enc func() *replica.Encoder) *EntityTap {
	return &EntityTap{meter: measure.NewEntityMeter(measure.EntityConfig{WarmUp: warmUp, Kinds: kinds, Clients: links}),
		enc: enc, index: map[int]int{}, pending: -1}
}

// Encode is a server.Config.Encode that encodes nothing: it only taps the
// world (Encoding) and leaves every client to the layer.
func (t *EntityTap) Encode(dst []byte, slot int, tick uint64, at time.Duration, w *replica.World, _ uint64) ([]byte, bool) {
	t.Encoding(slot, tick, at, w)
	return dst, false
}

// Encoding takes the world w of tick at server time at, before the
// snapshot of the client in slot is encoded (by the layer or not).
func (t *EntityTap) Encoding(slot int, tick uint64, at time.Duration, w *replica.World) {
	t.count()
	if !t.fed || tick != t.tick {
		t.tick, t.fed = tick, true
		t.meter.World(at, w)
	}
	t.pending, t.at = slot, at
}

// count gives the bits the layer spent since the last snapshot began to its
// client.
func (t *EntityTap) count() {
	enc := t.enc()
	if enc == nil {
		return
	}
	bits := enc.Stats().KindBits
	if i, ok := t.index[t.pending]; ok && t.pending >= 0 {
		c := t.meter.Client(i)
		for k := range bits {
			if d := bits[k] - t.base[k]; d > 0 {
				c.Bits(t.at, uint8(k), d)
			}
		}
	}
	t.base, t.pending = bits, -1
}

// Frame takes frame f of client i, in server slot slot (-1 if unknown),
// drawn at true time now. Its own entity, if predicted, is left out.
func (t *EntityTap) Frame(i, slot int, now time.Duration, f *tclient.Frame) {
	if slot >= 0 {
		t.index[slot] = i
	}
	if !f.Ready {
		return
	}
	ents := t.drawn[:0]
	for k := range f.Entities {
		e := &f.Entities[k]
		if e.Predicted {
			continue
		}
		ents = append(ents, measure.EntityDrawn{ID: e.ID, Kind: e.Kind, Pos: e.Pos, RenderTime: e.RenderTime,
			Cut: e.Cut, Extrapolated: e.Extrapolated, Frozen: e.Frozen})
	}
	t.drawn = ents
	t.meter.Client(i).Frame(now, ents)
}

// Received takes a snapshot client i decoded (client.Config.OnSnapshot).
func (t *EntityTap) Received(i int, s *tclient.Snapshot) {
	c := t.meter.Client(i)
	for k := range s.Entities {
		c.Received(s.Time, s.Entities[k].ID, s.Entities[k].Kind)
	}
}

// Report adds every client's figures to r, one result per client in
// order, over a run that ended at true time end.
func (t *EntityTap) Report(r *Report, end time.Duration) {
	t.count()
	for i := range r.Results {
		r.Results[i].Entities = t.meter.Figures(i, end)
	}
}
