package client

import (
	"github.com/tether-net/tether/replica"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
)

// Entity is one entity as a frame draws it.
type Entity struct {
	ID   uint32
	Kind uint8 // as the game decoded it
	Tag  uint8 // as the game decoded it (a team)
	// Ints are the game's integers of the newest state received.
	Ints [replica.MaxInts]int32

	Pos geom.Vec3 // metres
	Vel geom.Vec3 // metres per second
	Rot geom.Quat

	RenderTime   time.Duration // server time drawn
	Delay        time.Duration // the entity's render delay
	Parent       uint32        // the entity it is drawn relative to, or NoParent
	Cut          bool          // first frame after a teleport: do not smooth into it
	Extrapolated bool          // drawn past the newest state received (its parent's, if attached)
	Frozen       bool          // held still for lack of data (its parent, if attached)
	// Predicted is set on the client's own entity when the game predicts
	// it (a Predictor): drawn at the present (RenderTime is the frame's
	// Server time, Delay 0) from the player's own inputs, this frame's
	// included. Entities attached to it stay drawn relative to where its
	// timeline puts it, the server's picture of it, like everything else.
	Predicted bool
	// Holder is the entity the snapshots attach this one to at the frame's
	// RenderTime (a ball's possessor), or NoParent: Parent when it is drawn
	// attached, and the same for an entity a view draws on its own at its
	// own moment (Viewer). What a game's rules depend on (does my player
	// have the ball?) is read here, not from how the entity is drawn.
	Holder uint32
}

// Frame is what to draw at one moment.
type Frame struct {
	Local time.Duration // the client's local time of the frame
	// Ready is false until the clock estimate is ready; nothing else but Local,
	// Bound and the byte counts is meaningful then.
	Ready  bool
	Server time.Duration // the clock's estimate of server time now
	Bound  time.Duration // the clock's error bound
	Epoch  uint32        // the clock's output epoch

	// RenderTime and Delay are those of the first entity drawn from a
	// timeline (the lowest id; every timeline is drawn at the one render
	// clock): the moment of the match the frame shows, and how far behind
	// now. Both are zero when no entity is.
	RenderTime time.Duration
	Delay      time.Duration

	Self     uint32   // the entity this client controls
	HasSelf  bool     // the welcome has arrived
	Entities []Entity // sorted by ID; reused by the next Frame call
	// Meta is the game's match state (a score) of the newest snapshot not
	// after RenderTime; valid until the next Receive.
	Meta []byte
	// Events are the events received since the previous frame, in order;
	// reused by the next Frame call.
	Events []event.Event

	PacketsIn, BytesIn   uint64 // payloads received so far
	PacketsOut, BytesOut uint64 // payloads sent so far
}

// Frame renders the frame for local time local. The returned Frame is owned by
// the Client and overwritten by the next call.
func (c *Client) Frame(local time.Duration) *Frame {
	f := &c.frame
	f.Local = local
	f.Bound = c.clk.Bound(local)
	f.PacketsIn, f.BytesIn, f.PacketsOut, f.BytesOut = c.stats.PacketsIn, c.stats.BytesIn, c.stats.PacketsOut, c.stats.BytesOut
	f.Self, f.HasSelf = c.welcome.Self, c.welcomed
	f.Entities = f.Entities[:0]
	f.Events = append(f.Events[:0], c.newEvents...)
	c.newEvents = c.newEvents[:0]
	f.Meta = nil
	f.RenderTime, f.Delay = 0, 0
	est, ok := c.now(local)
	f.Ready, f.Server = ok, est
	if !ok {
		return f
	}
	if ep := c.clk.Epoch(); ep != c.epoch {
		c.epoch = ep
		c.rc.Reset()
		for _, e := range c.order {
			e.tl.Reset()
			c.stats.Resets++
		}
	}
	f.Epoch = c.epoch
	if c.hasEarly {
		c.hasEarly = false
		a, _ := c.now(c.earlyLocal)
		c.place(a, &c.early)
	}
	c.forget()
	timed := -1 // the first entity drawn from a timeline
	for _, e := range c.order {
		if e.view != nil {
			vf := e.view.Render(est)
			if vf.Valid {
				f.Entities = append(f.Entities, Entity{
					ID: e.id, Kind: e.kind, Tag: e.tag,
					Pos: vf.Pos, Vel: vf.Vel, Rot: unitRot(vf.Rot),
					RenderTime: vf.Time, Delay: vf.Delay, Parent: NoParent, Holder: NoParent,
					Cut: vf.Cut, Extrapolated: vf.Extrapolated, Frozen: vf.Frozen,
				})
			}
			continue
		}
		tf := e.tl.Sample(est)
		if !tf.Valid {
			continue
		}
		if e.goneAt != 0 && tf.Time >= e.goneAt {
			e.gone = true // left the world by now: forgotten next frame
			continue
		}
		if timed < 0 {
			timed = len(f.Entities)
		}
		f.Entities = append(f.Entities, Entity{
			ID: e.id, Kind: e.kind, Tag: e.tag, Ints: e.ints,
			Pos: tf.Pos, Vel: tf.Vel, Rot: unitRot(tf.Rot),
			RenderTime: tf.Time, Delay: tf.Delay, Parent: NoParent, Holder: NoParent,
			Cut: tf.Cut, Extrapolated: tf.Extrapolated, Frozen: tf.Frozen,
		})
	}
	if timed >= 0 {
		f.RenderTime, f.Delay = f.Entities[timed].RenderTime, f.Entities[timed].Delay
		f.Meta = c.metaAt(f.RenderTime)
	}
	// Attached entities are drawn where their parents are drawn; one a view
	// draws is not, and has its holder at the moment the timelines show.
	for i := range f.Entities {
		fe := &f.Entities[i]
		e := c.entities[fe.ID]
		if e.view != nil {
			at := fe.RenderTime
			if timed >= 0 {
				at = f.RenderTime
			}
			if h, _ := e.parentAt(at); h != fe.ID {
				fe.Holder = h
			}
			continue
		}
		parent, off := e.parentAt(fe.RenderTime)
		if parent == NoParent || parent == fe.ID {
			continue
		}
		fe.Holder = parent
		p := f.find(parent)
		if p == nil || p.Parent != NoParent {
			continue
		}
		fe.Parent = parent
		// Its own curve's corrections meanwhile are never seen.
		e.tl.Settle()
		fe.Pos = p.Pos.Add(p.Rot.Rotate(off))
		fe.Vel = p.Vel
		fe.Extrapolated, fe.Frozen = p.Extrapolated, p.Frozen
	}
	if c.pred != nil && c.welcomed {
		if self := f.find(c.welcome.Self); self != nil {
			var in []byte
			if c.hasInput {
				in = c.input
			}
			if e, ok := c.pred.Predict(est, in, f); ok {
				self.Pos, self.Vel, self.Rot = e.Pos, e.Vel, unitRot(e.Rot)
				self.RenderTime, self.Delay, self.Parent = est, 0, NoParent
				self.Cut, self.Extrapolated, self.Frozen, self.Predicted = e.Cut, false, false, true
			}
		}
	}
	return f
}

// find returns the drawn entity id, or nil.
func (f *Frame) find(id uint32) *Entity {
	lo, hi := 0, len(f.Entities)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case f.Entities[m].ID < id:
			lo = m + 1
		case f.Entities[m].ID > id:
			hi = m
		default:
			return &f.Entities[m]
		}
	}
	return nil
}

// Find returns the entity id as drawn in the frame, or nil.
func (f *Frame) Find(id uint32) *Entity { return f.find(id) }

// forget drops entities missing from snapshots for longer than
// Config.Forget, and those a frame drew past the snapshot that said they
// left.
func (c *Client) forget() {
	kept := c.order[:0]
	for _, e := range c.order {
		if c.newest-e.lastSeen > c.cfg.Forget || e.gone {
			delete(c.entities, e.id)
			continue
		}
		kept = append(kept, e)
	}
	clear(c.order[len(kept):])
	c.order = kept
}

func unitRot(q geom.Quat) geom.Quat {
	if q == (geom.Quat{}) {
		return geom.Identity
	}
	return q
}
