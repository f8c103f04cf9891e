package client

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
	"github.com/tether-net/tether/timeline"
)

// testGame's snapshots are a count byte then, per entity: id, kind, gen,
// parent (255 for none), age, x and vx as float64 bits, the blend's start in
// milliseconds as a uint16 (0 for none) and its From.X as float64 bits; Meta
// is the first byte. An attached entity's place is 0.6 m along the parent's
// X; a blend to it takes blendSpan.
type testGame struct{}

type ent struct {
	id, kind, gen uint8
	parent        uint8 // entity id + 1; 0 for none
	ago           uint8 // the state is this many 1/60 s before the snapshot
	x, vx         float64
	sinceMs       uint16  // Blend.Since in milliseconds; 0 for no blend
	from          float64 // Blend.From.X
}

const (
	entSize   = 31
	blendSpan = 200 * time.Millisecond
)

func appendEnts(b []byte, meta byte, es ...ent) []byte {
	b = append(b, meta, byte(len(es)))
	for _, e := range es {
		b = append(b, e.id, e.kind, e.gen, e.parent, e.ago)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.x))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.vx))
		b = binary.LittleEndian.AppendUint16(b, e.sinceMs)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.from))
	}
	return b
}

func (testGame) DecodeSnapshot(s *Snapshot, b []byte) error {
	if len(b) < 2 || len(b) != 2+int(b[1])*entSize {
		return errors.New("bad test snapshot")
	}
	s.Meta = b[:1]
	for i := range int(b[1]) {
		p := b[2+entSize*i:]
		parent := NoParent
		if p[3] != 0 {
			parent = uint32(p[3]) - 1
		}
		t := s.Time - time.Duration(p[4])*time.Second/60
		x := math.Float64frombits(binary.LittleEndian.Uint64(p[5:]))
		vx := math.Float64frombits(binary.LittleEndian.Uint64(p[13:]))
		var blend Blend
		if ms := binary.LittleEndian.Uint16(p[21:]); ms != 0 {
			from := math.Float64frombits(binary.LittleEndian.Uint64(p[23:]))
			blend = Blend{From: geom.V(from, 0, 0), Since: time.Duration(ms) * time.Millisecond, Span: blendSpan}
		}
		s.Entities = append(s.Entities, EntityState{ID: uint32(p[0]), Kind: p[1], Tag: 7, Gen: p[2], Parent: parent,
			Offset: geom.V(0.6, 0, 0), Blend: blend, State: kinematic.State{Time: t, Pos: geom.V(x, 0, 0), Vel: geom.V(vx, 0, 0)}})
	}
	return nil
}

func (testGame) Timeline(kind uint8) timeline.Config {
	return timeline.Config{Extrapolate: timeline.Linear}
}

func (testGame) RenderClock() timeline.Config {
	return timeline.Config{SendInterval: time.Second / 30}
}

// rig connects a Client to a scripted server over a perfect, instant link; the
// client's local clock equals server time.
type rig struct {
	t   *testing.T
	c   *Client
	srv *reliable.Endpoint
	now time.Duration
	// inputs are the bodies of the Input messages the server received,
	// moves those of the Moves messages; acks the baselines acknowledged,
	// by an Ack message or in a Moves header.
	inputs, moves []string
	acks          []ackSeen
}

type ackSeen struct {
	at       time.Duration
	tick     uint64
	inMoves  bool
	withPing bool // an Ack message that came with a ping (in a packet that went anyway)
}

func newRig(t *testing.T) *rig {
	c, err := New(Config{}, testGame{})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := reliable.New(reliable.Config{})
	r := &rig{t: t, c: c, srv: srv}
	c.Connected(0)
	_ = srv.SendReliable(protocol.AppendWelcome(nil, protocol.Welcome{Self: 1, TickHz: 60, SnapshotHz: 30}))
	return r
}

// exchange moves packets both ways at r.now, answering pings.
func (r *rig) exchange() {
	r.c.Update(r.now)
	for {
		p, ok := r.c.Transmit()
		if !ok {
			break
		}
		if err := r.srv.Receive(r.now, p); err != nil {
			r.t.Fatal(err)
		}
	}
	acks, pinged := len(r.acks), false
	for {
		m, _, ok := r.srv.Read()
		if !ok {
			break
		}
		msg, err := protocol.Decode(m)
		if err != nil {
			r.t.Fatal(err)
		}
		switch msg.Tag {
		case protocol.TagPing:
			pinged = true
			_ = r.srv.SendUnreliable(protocol.AppendPong(nil, clock.Responder{}.Pong(msg.Ping, r.now, r.now)))
		case protocol.TagInput:
			r.inputs = append(r.inputs, string(msg.Body))
		case protocol.TagMoves:
			r.moves = append(r.moves, string(msg.Body))
			if msg.Ack > 0 {
				r.acks = append(r.acks, ackSeen{r.now, msg.Ack, true, false})
			}
		case protocol.TagAck:
			r.acks = append(r.acks, ackSeen{r.now, msg.Ack, false, false})
		}
	}
	for i := acks; i < len(r.acks); i++ {
		r.acks[i].withPing = !r.acks[i].inMoves && pinged
	}
	r.flush()
}

func (r *rig) flush() {
	for {
		p, ok := r.srv.AppendPacket(nil, r.now)
		if !ok {
			return
		}
		if err := r.c.Receive(r.now, p); err != nil {
			r.t.Fatal(err)
		}
	}
}

// tickAt returns the tick of server time t at 60 Hz, the rigs' welcome's
// rate: a snapshot's header carries its tick, not its time.
func tickAt(t time.Duration) uint64 { return uint64((t*60 + time.Second/2) / time.Second) }

func (r *rig) snapshot(t time.Duration, meta byte, es ...ent) {
	msg := appendEnts(protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: tickAt(t), Regular: true}), meta, es...)
	if err := r.srv.SendUnreliable(msg); err != nil {
		r.t.Fatal(err)
	}
}

// run advances time to end in 1/60 s frames; every frame, states(t) are sent
// if it returns any, and frame is called with the rendered frame.
func (r *rig) run(end time.Duration, states func(t time.Duration) ([]ent, bool), frame func(f *Frame)) {
	for r.now < end {
		r.now += time.Second / 60
		if states != nil {
			if es, ok := states(r.now); ok {
				r.snapshot(r.now, byte(r.now/time.Second), es...)
			}
		}
		r.exchange()
		f := r.c.Frame(r.now)
		if frame != nil {
			frame(f)
		}
	}
}

func every30Hz(t time.Duration) bool { return (t/(time.Second/60))%2 == 0 }

// TestAttachedDrawnWithParent: an entity with a parent is drawn at the
// parent's drawn position plus its offset, not on its own.
func TestAttachedDrawnWithParent(t *testing.T) {
	r := newRig(t)
	frames := 0
	r.run(3*time.Second, func(t time.Duration) ([]ent, bool) {
		x := 5 * t.Seconds()
		// The ball's own states lag a little behind where the player carries it.
		return []ent{{id: 0, parent: 2, x: x + 0.3, vx: 5}, {id: 1, kind: 1, x: x, vx: 5}}, every30Hz(t)
	}, func(f *Frame) {
		if !f.Ready || len(f.Entities) < 2 {
			return
		}
		frames++
		ball, player := f.Find(0), f.Find(1)
		if ball.Parent != 1 || ball.Pos.Dist(player.Pos.Add(geom.V(0.6, 0, 0))) > 1e-9 || ball.Tag != 7 {
			t.Fatalf("ball %+v, player at %v", ball, player.Pos)
		}
	})
	if frames < 100 {
		t.Fatalf("only %d frames drawn", frames)
	}
	if s, ok := r.c.Self(); !ok || s != 1 {
		t.Fatal("no welcome")
	}
}

// TestAttachedBlend: an entity won behind its parent blends to its place
// along the Blend its states give, between states and past the newest one,
// while the snapshots of the blend are lost.
func TestAttachedBlend(t *testing.T) {
	r := newRig(t)
	const won = 1999 * time.Millisecond // the state of the rig's 120th frame is the first attached
	lost := func(t time.Duration) bool { return t > won+20*time.Millisecond && t < won+250*time.Millisecond }
	blend := Blend{From: geom.V(-0.4, 0, 0), Since: won, Span: blendSpan}
	frames, extrapolated := 0, 0
	r.run(3*time.Second, func(t time.Duration) ([]ent, bool) {
		x := 5 * t.Seconds()
		player := ent{id: 1, kind: 1, x: x, vx: 5}
		if t < won {
			return []ent{{id: 0, x: x + 1, vx: 4}, player}, every30Hz(t)
		}
		ball := ent{id: 0, parent: 2, x: x + blend.At(geom.V(0.6, 0, 0), t).X, vx: 5, sinceMs: uint16(won / time.Millisecond), from: -0.4}
		return []ent{ball, player}, every30Hz(t) && !lost(t)
	}, func(f *Frame) {
		ball, player := f.Find(0), f.Find(1)
		if !f.Ready || ball == nil || ball.RenderTime < won {
			return
		}
		frames++
		if ball.Extrapolated {
			extrapolated++
		}
		want := player.Pos.Add(blend.At(geom.V(0.6, 0, 0), ball.RenderTime))
		if ball.Parent != 1 || ball.Pos.Dist(want) > 1e-9 {
			t.Fatalf("render time %v: ball at %v (parent %d), want %v (player at %v)", ball.RenderTime, ball.Pos, ball.Parent, want, player.Pos)
		}
	})
	if frames < 30 || extrapolated < 5 {
		t.Fatalf("%d frames after the win, %d of them extrapolated", frames, extrapolated)
	}
}

// TestGenerationChangeIsCut: a teleport (a new generation) shows as a cut and is
// never interpolated through.
func TestGenerationChangeIsCut(t *testing.T) {
	r := newRig(t)
	cuts, between := 0, 0
	r.run(4*time.Second, func(t time.Duration) ([]ent, bool) {
		if t < 2*time.Second {
			return []ent{{id: 2, x: 30, gen: 1}}, every30Hz(t)
		}
		return []ent{{id: 2, x: -30, gen: 2}}, every30Hz(t)
	}, func(f *Frame) {
		if e := f.Find(2); e != nil {
			if e.Cut {
				cuts++
			}
			if e.Pos.X > -29 && e.Pos.X < 29 {
				between++
			}
		}
	})
	if cuts != 1 || between != 0 {
		t.Fatalf("%d cuts, %d frames between the two places", cuts, between)
	}
}

// TestGenerationChangeBeforeNewest: when a snapshot holds, after an entity's
// state, an earlier state of it that already has the new generation (a game
// sending the tick before as well), the cut is at the earlier one: the jump
// is never interpolated through.
func TestGenerationChangeBeforeNewest(t *testing.T) {
	r := newRig(t)
	cuts, early := 0, 0
	tick := time.Second / 60
	jumpAt := 2 * time.Second
	r.run(4*time.Second, func(t time.Duration) ([]ent, bool) {
		switch n := t / tick; {
		case n < jumpAt/tick:
			return []ent{{id: 2, x: 30, gen: 1}}, true
		case n == jumpAt/tick+3:
			// The jump was at jumpAt, whose snapshots were lost; this one
			// holds the tick of the jump after its own.
			return []ent{{id: 2, x: -30, gen: 2}, {id: 2, x: -30, gen: 2, ago: 3}}, true
		}
		return []ent{{id: 2, x: -30, gen: 2}}, t/tick > jumpAt/tick+3
	}, func(f *Frame) {
		e := f.Find(2)
		if e == nil {
			return
		}
		if e.Cut {
			cuts++
		}
		if e.Pos.X < 29 && cuts == 0 || e.Pos.X > -29 && cuts > 0 || e.Cut && e.RenderTime < jumpAt {
			early++ // moved before the cut, not there after it, or cut early
		}
	})
	if cuts != 1 || early != 0 {
		t.Fatalf("%d cuts, %d frames moved before the cut or not there after it", cuts, early)
	}
}

// TestKickFastForward: a kick whose event arrives after the render time passed
// it (its snapshots lost) is drawn as far along its path as its age.
func TestKickFastForward(t *testing.T) {
	r := newRig(t)
	kickAt := 2 * time.Second
	r.run(kickAt, func(t time.Duration) ([]ent, bool) {
		return []ent{{id: 0, x: 0}}, every30Hz(t) && t < kickAt
	}, nil)
	// The kick's snapshots are lost; its event arrives 150 ms late.
	r.run(kickAt+150*time.Millisecond, nil, nil)
	f := r.c.Frame(r.now)
	before := f.Find(0).Pos.X
	_ = r.srv.SendReliable(protocol.AppendEvent(nil, event.Event{ID: 1, Kind: 1, Time: kickAt, Entity: 0, HasState: true,
		State: kinematic.State{Time: kickAt, Vel: geom.V(20, 0, 0), Knot: true}}))
	r.flush()
	r.now += time.Second / 60
	f = r.c.Frame(r.now)
	ball := f.Find(0)
	want := 20 * (ball.RenderTime - kickAt).Seconds()
	if before != 0 || ball.RenderTime <= kickAt || math.Abs(ball.Pos.X-want) > 1e-3 {
		t.Fatalf("before the event x=%v; after: x=%v at render time %v, want %v", before, ball.Pos.X, ball.RenderTime, want)
	}
	if len(f.Events) != 1 || f.Events[0].ID != 1 {
		t.Fatalf("frame events %+v", f.Events)
	}
}

// TestEventCut: an event whose state is a Cut (a kick that moved the ball,
// brought to the present) is drawn as a jump at its time even when it arrives
// before the snapshot with the same state, never as a curve through it.
func TestEventCut(t *testing.T) {
	r := newRig(t)
	kickAt := 2 * time.Second
	r.run(kickAt, func(t time.Duration) ([]ent, bool) {
		return []ent{{id: 0, x: 0}}, every30Hz(t) && t < kickAt
	}, nil)
	_ = r.srv.SendReliable(protocol.AppendEvent(nil, event.Event{ID: 1, Kind: 1, Time: kickAt, Entity: 0, HasState: true,
		State: kinematic.State{Time: kickAt, Pos: geom.V(5, 0, 0), Knot: true, Cut: true}}))
	r.flush()
	cuts, between := 0, 0
	r.run(kickAt+time.Second, func(time.Duration) ([]ent, bool) {
		return []ent{{id: 0, x: 5}}, true
	}, func(f *Frame) {
		if e := f.Find(0); e != nil {
			if e.Cut {
				cuts++
			}
			if e.Pos.X > 0.01 && e.Pos.X < 4.99 {
				between++
			}
		}
	})
	if cuts != 1 || between != 0 {
		t.Fatalf("%d cuts, %d frames between the two places", cuts, between)
	}
}

// TestForgetAndMeta: an entity missing from snapshots for a second is dropped;
// the frame's Meta is that of the snapshot at its render time.
func TestForgetAndMeta(t *testing.T) {
	r := newRig(t)
	var last *Frame
	r.run(5*time.Second, func(t time.Duration) ([]ent, bool) {
		if t < 2*time.Second {
			return []ent{{id: 0}, {id: 5, kind: 1}}, every30Hz(t)
		}
		return []ent{{id: 0}}, every30Hz(t)
	}, func(f *Frame) {
		last = f
		if f.Ready && len(f.Meta) == 1 && time.Duration(f.Meta[0]) != f.RenderTime/time.Second {
			// Meta is the render time's second, give or take a snapshot.
			if d := f.RenderTime - time.Duration(f.Meta[0])*time.Second; d < 0 || d > time.Second+time.Second/30 {
				t.Fatalf("meta %d at render time %v", f.Meta[0], f.RenderTime)
			}
		}
	})
	if len(last.Entities) != 1 || r.c.Stats().Entities != 1 {
		t.Fatalf("%d entities drawn after entity 5 left", len(last.Entities))
	}
	if last.BytesIn == 0 || last.BytesOut == 0 || last.Bound <= 0 || last.Delay <= 0 {
		t.Fatalf("frame stats %+v", last)
	}
}

// TestEarlySnapshotPlaced: a snapshot that arrived before the clock was ready
// is drawn as soon as it is.
func TestEarlySnapshotPlaced(t *testing.T) {
	r := newRig(t)
	seen := 0
	r.c.cfg.OnSnapshot = func(local time.Duration, s *Snapshot) {
		if seen++; seen == 1 && (local != 10*time.Millisecond || len(s.Entities) != 1 || s.Entities[0].ID != 3) {
			t.Fatalf("OnSnapshot at %v: %+v", local, s)
		}
	}
	r.snapshot(10*time.Millisecond, 0, ent{id: 3, x: 7})
	r.now = 10 * time.Millisecond
	r.flush()
	if f := r.c.Frame(r.now); f.Ready || len(f.Entities) != 0 {
		t.Fatal("drawn before the clock was ready")
	}
	var f *Frame
	r.run(time.Second, nil, func(fr *Frame) { f = fr })
	if !f.Ready || len(f.Entities) != 1 || f.Entities[0].Pos.X != 7 || seen != 1 {
		t.Fatalf("frame %+v, %d snapshots seen", f, seen)
	}
}

// TestSnapshotBeforeWelcome: a snapshot's header carries its tick, dated
// by the welcome's tick rate; snapshots that come before the welcome (its
// packet lost) are held, the newest decoded at its tick's time once the
// welcome comes, and so is one that shares the welcome's packet (the channel
// reads unreliable messages first).
func TestSnapshotBeforeWelcome(t *testing.T) {
	r := newRig(t)
	var times []time.Duration
	r.c.cfg.OnSnapshot = func(_ time.Duration, s *Snapshot) { times = append(times, s.Time) }
	if _, ok := r.srv.AppendPacket(nil, r.now); !ok { // the welcome's packet, lost
		t.Fatal("no welcome sent")
	}
	for _, tick := range []time.Duration{2, 4, 3} {
		at := tick * time.Second / 60
		r.now = at
		r.snapshot(at, 0, ent{id: 3, x: at.Seconds()})
		r.flush()
	}
	if len(times) != 0 || r.c.Stats().Unwelcomed != 3 {
		t.Fatalf("snapshots before the welcome: %v decoded, %d held", times, r.c.Stats().Unwelcomed)
	}
	for len(times) == 0 && r.now < 2*time.Second { // the channel sends the welcome again
		r.now += 10 * time.Millisecond
		r.flush()
	}
	if _, ok := r.c.Welcome(); !ok || len(times) != 1 || times[0] != 66666*time.Microsecond {
		t.Fatalf("after the welcome: snapshots at %v, want the newest held, at 66.666 ms (tick 4 at 60 Hz)", times)
	}
	r.now += 10 * time.Millisecond
	r.snapshot(r.now, 0, ent{id: 3, x: 1})
	r.flush()
	if want := (protocol.Welcome{TickHz: 60}).TickTime(tickAt(r.now)); len(times) != 2 || times[1] != want {
		t.Fatalf("snapshots at %v, want %v last", times, want)
	}
}

func TestConfig(t *testing.T) {
	if _, err := New(Config{}, nil); !errors.Is(err, ErrConfig) {
		t.Fatal("nil game")
	}
	if _, err := New(Config{EventLog: -1}, testGame{}); !errors.Is(err, ErrConfig) {
		t.Fatal("EventLog")
	}
	if _, err := New(Config{Clock: clock.Config{Window: 1}}, testGame{}); !errors.Is(err, ErrConfig) {
		t.Fatal("clock config")
	}
}

// TestFrameAllocs: placing a snapshot and drawing a frame allocate nothing in
// steady state, and neither does sending an input.
func TestFrameAllocs(t *testing.T) {
	r := newRig(t)
	r.run(2*time.Second, func(t time.Duration) ([]ent, bool) {
		return []ent{{id: 0, parent: 2}, {id: 1, kind: 1, x: t.Seconds()}}, every30Hz(t)
	}, nil)
	body := appendEnts(nil, 1, ent{id: 0, parent: 2}, ent{id: 1, kind: 1})
	if n := testing.AllocsPerRun(100, func() {
		r.now += time.Second / 60
		r.c.snapshot(r.now, protocol.Snapshot{Tick: tickAt(r.now)}, body)
		r.c.Frame(r.now)
	}); n != 0 {
		t.Fatalf("%v allocations per frame", n)
	}
	in := []byte{1, 2, 3}
	if n := testing.AllocsPerRun(100, func() {
		r.now += time.Second / 60
		r.c.SetInput(in)
		r.c.Update(r.now)
		for {
			if _, ok := r.c.Transmit(); !ok {
				break
			}
		}
	}); n != 0 {
		t.Fatalf("%v allocations per input", n)
	}
}

// TestOneRenderTime: every entity of a frame is drawn at the same render
// time, though the ball also gets extra states between the regular
// snapshots (as a server sends at contacts) and a player joins later.
func TestOneRenderTime(t *testing.T) {
	r := newRig(t)
	frames := 0
	r.run(4*time.Second, func(now time.Duration) ([]ent, bool) {
		x := now.Seconds()
		es := []ent{{id: 0, x: x, vx: 1}, {id: 1, kind: 1, x: -x, vx: -1}}
		if now > 2*time.Second {
			es = append(es, ent{id: 2, kind: 1, x: 2 * x, vx: 2})
		}
		if !every30Hz(now) {
			extra := appendEnts(protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: tickAt(now)}), 0, es[0])
			if err := r.srv.SendUnreliable(extra); err != nil {
				t.Fatal(err)
			}
		}
		return es, every30Hz(now)
	}, func(f *Frame) {
		if !f.Ready || len(f.Entities) < 2 {
			return
		}
		frames++
		for _, e := range f.Entities {
			if e.RenderTime != f.RenderTime {
				t.Fatalf("at %v: entity %d drawn at %v, entity 0 at %v", f.Server, e.ID, e.RenderTime, f.RenderTime)
			}
		}
	})
	if frames < 200 {
		t.Fatalf("only %d frames drawn", frames)
	}
}

// TestReleasedDrawnOnItsOwn: between its last state with a parent and the
// next state without one (a kick), an entity is drawn on its own curve
// through the two, not at an offset from its parent held since the last.
func TestReleasedDrawnOnItsOwn(t *testing.T) {
	r := newRig(t)
	const release = 120 * (time.Second / 60) // a frame's time, and a regular snapshot's
	var lastAttached time.Duration
	between := 0
	r.run(3*time.Second, func(now time.Duration) ([]ent, bool) {
		x := 5 * now.Seconds()
		if now < release {
			if every30Hz(now) {
				lastAttached = now
			}
			// The ball's own states are 0.3 m from where the player's
			// offset puts it, so the frames tell which is drawn.
			return []ent{{id: 0, parent: 2, x: x + 0.3, vx: 5}, {id: 1, kind: 1, x: x, vx: 5}}, every30Hz(now)
		}
		bx := 5*release.Seconds() + 0.3 + 20*(now-release).Seconds()
		return []ent{{id: 0, x: bx, vx: 20}, {id: 1, kind: 1, x: x, vx: 5}}, now == release || every30Hz(now)
	}, func(f *Frame) {
		ball, player := f.Find(0), f.Find(1)
		if !f.Ready || ball == nil || player == nil || f.RenderTime <= lastAttached || f.RenderTime >= release {
			return
		}
		between++
		if ball.Parent != NoParent || ball.Pos.Dist(player.Pos.Add(geom.V(0.6, 0, 0))) < 0.2 {
			t.Fatalf("render time %v, between the last carried state and the kick: ball %+v drawn with the player at %v", f.RenderTime, ball, player.Pos)
		}
	})
	if between == 0 {
		t.Fatal("no frame drawn between the last carried state and the kick")
	}
}

// TestReleasedWithoutUnseenCorrections: corrections the ball's own curve
// makes while it is drawn at its carrier's place (here, its states resume
// 0.8 m from where its own extrapolation through a loss had it) are never
// seen, and are not blended out once it is released: from then on it is
// drawn on its own curve.
func TestReleasedWithoutUnseenCorrections(t *testing.T) {
	r := newRig(t)
	const frame = time.Second / 60
	const lostFrom, lostTo, release = 90 * frame, 108 * frame, 114 * frame
	own := func(now time.Duration) float64 { // the ball's own states while carried
		x := 5*now.Seconds() + 0.3
		if now >= lostTo {
			x += 0.8
		}
		return x
	}
	kicked := func(at time.Duration) float64 { return own(release) + 20*(at-release).Seconds() }
	after := 0
	r.run(3*time.Second, func(now time.Duration) ([]ent, bool) {
		send := every30Hz(now) && (now < lostFrom || now >= lostTo)
		x := 5 * now.Seconds()
		if now < release {
			return []ent{{id: 0, parent: 2, x: own(now), vx: 5}, {id: 1, kind: 1, x: x, vx: 5}}, send
		}
		return []ent{{id: 0, x: kicked(now), vx: 20}, {id: 1, kind: 1, x: x, vx: 5}}, now == release || send
	}, func(f *Frame) {
		ball := f.Find(0)
		if !f.Ready || ball == nil || ball.RenderTime <= release || ball.RenderTime > release+100*time.Millisecond {
			return
		}
		after++
		if want := kicked(ball.RenderTime); ball.Parent != NoParent || math.Abs(ball.Pos.X-want) > 1e-3 {
			t.Fatalf("render time %v after the release: ball at x=%.6f, want %.6f on its own curve", ball.RenderTime, ball.Pos.X, want)
		}
	})
	if after == 0 {
		t.Fatal("no frame drawn after the release")
	}
}

// TestHolder: a frame says which entity the snapshots attach an entity to
// at its render time, whether it is drawn attached (a timeline: Holder is
// Parent) or on its own by a view (a Viewer game: Parent is NoParent, Holder
// the player all the same), and nothing once it is let go.
func TestHolder(t *testing.T) {
	for _, viewed := range []bool{false, true} {
		var game Game = testGame{}
		if viewed {
			game = seedGame{kind: 0}
		}
		c, err := New(Config{}, game)
		if err != nil {
			t.Fatal(err)
		}
		r := newRig(t)
		r.c = c
		c.Connected(0)
		const release = 120 * (time.Second / 60)
		var held, free int
		var lastAttached time.Duration
		r.run(3*time.Second, func(now time.Duration) ([]ent, bool) {
			x := 5 * now.Seconds()
			if now < release {
				if every30Hz(now) {
					lastAttached = now
				}
				return []ent{{id: 0, parent: 2, x: x + 0.6, vx: 5}, {id: 1, kind: 1, x: x, vx: 5}}, every30Hz(now)
			}
			return []ent{{id: 0, x: 5*release.Seconds() + 0.6 + 20*(now-release).Seconds(), vx: 20}, {id: 1, kind: 1, x: x, vx: 5}},
				now == release || every30Hz(now)
		}, func(f *Frame) {
			ball := f.Find(0)
			if !f.Ready || ball == nil || f.Find(1) == nil {
				return
			}
			// Between the last held state and the release, the ball is on
			// its own curve: held by nobody.
			want := uint32(NoParent)
			if f.RenderTime <= lastAttached {
				want = 1
				held++
			} else {
				free++
			}
			if ball.Holder != want {
				t.Fatalf("viewed %v, render time %v: holder %d, want %d", viewed, f.RenderTime, ball.Holder, want)
			}
			if viewed && ball.Parent != NoParent || !viewed && ball.Parent != want {
				t.Fatalf("viewed %v, render time %v: parent %d", viewed, f.RenderTime, ball.Parent)
			}
		})
		if held < 30 || free < 30 {
			t.Fatalf("viewed %v: %d frames held, %d free", viewed, held, free)
		}
	}
}
