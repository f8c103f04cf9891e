package gaffer

import (
	"errors"
	"time"

	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// ErrNoBaseline is returned for a snapshot coded against a baseline the
// decoder does not keep (it never decoded it, or has overwritten it since).
var ErrNoBaseline = errors.New("tether/gaffer: snapshot against a baseline not kept")

// Decoder is the client half: it keeps the snapshots it decoded, the newest
// so far each time, as baselines (the last Ring). It is not safe for
// concurrent use.
type Decoder struct {
	f       format
	snaps   [Ring]snapshot
	newest  uint64 // tick of the newest snapshot kept
	any     bool   // a snapshot is kept
	scratch []body
}

// NewDecoder returns a Decoder of the format cfg describes, which must be
// the encoder's. It panics with Check's error if cfg is invalid.
func NewDecoder(cfg Config) *Decoder {
	if err := cfg.Check(); err != nil {
		panic(err)
	}
	return &Decoder{f: newFormat(cfg.withDefaults())}
}

// Decode decodes b, the snapshot of tick at server time t, appending its
// bodies to out as entities (ID the body's index, Kind Config.Kind, State's
// Time t, Pos and Rot; the rest zero) and returning it, with the tick of the
// baseline it was coded against (0 for the initial state) and whether the
// decoder kept it as a baseline: it keeps a snapshot newer than any it kept
// before. A snapshot against a baseline not kept is ErrNoBaseline; bad bytes
// are wire.ErrMalformed or wire.ErrTruncated. On error out is returned as it
// was and the decoder is unchanged.
func (d *Decoder) Decode(out []replica.Entity, tick uint64, t time.Duration, b []byte) (ents []replica.Entity, base uint64, keep bool, err error) {
	f := &d.f
	r := wire.NewBitReader(b)
	from := f.initial
	if !r.Bool() {
		diff := uint64(uint16(tick) - uint16(r.Bits(16)))
		if err := r.Err(); err != nil {
			return out, 0, false, err
		}
		if diff == 0 || diff > tick {
			return out, 0, false, wire.ErrMalformed
		}
		base = tick - diff
		s := &d.snaps[base%Ring]
		if !s.ok || s.tick != base {
			return out, base, false, ErrNoBaseline
		}
		from = s.bodies
	}
	if cap(d.scratch) < f.n {
		d.scratch = make([]body, f.n)
	}
	cur := d.scratch[:f.n]
	copy(cur, from)
	// The layout must be the one the encoder chooses: indices if they take
	// no more bits than a changed bit per body.
	cost, prev := f.cntBits, -1
	if r.Bool() { // a changed bit per body
		for i := range cur {
			if r.Bool() {
				f.getBody(&r, &cur[i], &from[i])
				cost += f.indexBits(i, prev)
				prev = i
			}
		}
		if cost <= f.n {
			r.Fail(wire.ErrMalformed)
		}
	} else { // the changed bodies by index
		n := int(r.Bits(f.cntBits))
		if n > f.n {
			r.Fail(wire.ErrMalformed)
		}
		for k := 0; k < n && r.Err() == nil; k++ {
			i := 0
			if prev < 0 {
				i = int(r.Bits(f.idxBits))
			} else {
				i = prev + f.getOffset(&r)
			}
			if i >= f.n {
				r.Fail(wire.ErrMalformed)
				break
			}
			f.getBody(&r, &cur[i], &from[i])
			cost += f.indexBits(i, prev)
			prev = i
		}
		if cost > f.n {
			r.Fail(wire.ErrMalformed)
		}
	}
	if n, err := r.End(); err != nil {
		return out, base, false, err
	} else if n != len(b) {
		return out, base, false, wire.ErrMalformed
	}
	for i := range cur {
		out = append(out, replica.Entity{ID: uint32(i), Kind: f.kind,
			State: kinematic.State{Time: t, Pos: f.position(&cur[i]), Rot: cur[i].rotation()}})
	}
	keep = !d.any || tick > d.newest
	if keep {
		s := &d.snaps[tick%Ring]
		d.scratch, s.bodies = s.bodies, cur
		s.tick, s.ok = tick, true
		d.newest, d.any = tick, true
	}
	return out, base, keep, nil
}
