package soccer

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/wire"
)

// Snapshot layout (after the session header, which carries the tick's time):
//
//	flags            byte: bit 0 players included, bit 1 paused after a goal
//	score            two unsigned varints, Home then Away
//	ball generation  byte
//	ball states      count byte (1 to 3), then that many states, oldest first:
//	                 possessor (unsigned varint: player entity id + 1, 0 for
//	                 a free ball), with a possessor the ball's place in its
//	                 frame (x, y, z in millimetres, signed varints), then the
//	                 ball's state (wire.AppendState), whose time is how long
//	                 before the snapshot's it is (0 for the last state, which
//	                 is the snapshot's): the header has the time
//	players          (if bit 0) unsigned varint count, then per player a
//	                 byte of marks (below), its id (unsigned varint) unless
//	                 it is the previous player's plus one (the first's:
//	                 FirstPlayerID), its generation (a byte) unless it is 1,
//	                 and its pose: x and z in millimetres (signed varints),
//	                 unless both are zero vx and vz in centimetres per second
//	                 (signed varints), yaw in 65536 steps of a turn (2 bytes;
//	                 a multiple of yawStep), unless zero the rate of turning
//	                 in milliradians per second (signed varint; a multiple of
//	                 turnStep), and unless it is the velocity
//	                 the velocity asked for, as its difference from the
//	                 velocity (two signed varints, centimetres per second)
//	carriers         (if bit 2) the previous tick's time, in microseconds
//	                 before the snapshot's (unsigned varint), a count byte
//	                 (1 or 2), then per player: id (unsigned varint), a byte
//	                 of marks (pose marks only) and its pose at that tick
//
// A player's marks: bit 0 team Away, bit 1 id sent, bit 2 generation sent,
// bit 3 velocity sent, bit 4 turning sent, bit 5 velocity asked for sent.
// The marks leave out only what is zero (or implied) once quantised, so a
// player decodes to the same numbers either way.

// The flags and score, the snapshot's Meta, come first.
const (
	snapPlayers  = 1 << 0
	snapPaused   = 1 << 1
	snapCarriers = 1 << 2
	snapMask     = snapPlayers | snapPaused | snapCarriers | snapDelta | snapSame
)

// A player's marks in a snapshot.
const (
	markAway  = 1 << 0
	markID    = 1 << 1
	markGen   = 1 << 2
	markVel   = 1 << 3
	markTurn  = 1 << 4
	markWant  = 1 << 5
	markPose  = markVel | markTurn | markWant
	marksMask = markAway | markID | markGen | markPose
)

// Score is the state of the match a frame shows.
type Score struct {
	Home, Away int
	Paused     bool // between a goal and the kickoff
}

// AppendSnapshot implements server.Game: the regular snapshot holds the score,
// the ball and every player; an extra one (sent at a kick, a contact) holds the
// ball only, plus every player at a kickoff. When the ball's motion jumped and
// the previous tick was not sent, the ball's state of the previous tick comes
// first, so a client's curve has the state before the jump as well as the one
// after, unless the ball was teleported; so it does in a regular snapshot
// while a ball just won moves to its carrier's feet (Rules.CarryBlend). For
// KnotRepeat after a jump that left the ball free (a kick, a bounce), each
// regular snapshot repeats the state at the jump first, so that a client that
// lost the snapshot of the jump still has it, and its curve still turns where
// the ball did.
//
// A regular snapshot also holds the state at the previous tick, when that was
// not sent, of the player who had the ball then or has it now: a carried
// ball is drawn at its carrier's drawn place, and the carrier, moved by its
// inputs, turns between ticks in ways no curve through every other tick can
// follow.
func (g *Game) AppendSnapshot(dst []byte, regular bool) []byte {
	o := g.prepare(regular)
	dst = appendBall(append(dst, o.head...), o.ballState, g.now)
	if !o.players {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(o.n))
	next := FirstPlayerID // the id a player need not send
	for j := range o.n {
		id := FirstPlayerID + uint32(o.slots[j])
		marks := o.q[j].marks()
		if o.team[j] == Away {
			marks |= markAway
		}
		if id != next {
			marks |= markID
		}
		if o.gen[j] != 1 {
			marks |= markGen
		}
		dst = append(dst, marks)
		if marks&markID != 0 {
			dst = binary.AppendUvarint(dst, uint64(id))
		}
		if marks&markGen != 0 {
			dst = append(dst, o.gen[j])
		}
		dst = appendPose(dst, marks, o.q[j])
		next = id + 1
	}
	return append(dst, o.tail...)
}

// prepared is what every client's snapshot of a tick shares: the bytes
// before the players, the players quantised, and the carriers after them.
type prepared struct {
	ok      bool // for tick and regular, and nothing changed since
	tick    uint64
	regular bool
	head    []byte // flags, score, ball states but the current one's state
	// The head's count of ball states is at head[count]; a repeated knot
	// (the state of tick repeat; 0: none) follows it, up to head[repeatEnd].
	count, repeatEnd int
	repeat           uint64
	// The ball's state at the tick (the head's last state), as it is and
	// quantised, and its generation.
	ballState kinematic.State
	ball      wire.QState
	ballGen   uint8
	score     [2]uint64
	// The repeated knot quantised, and how long before the tick it was
	// (wire.TimeUnits).
	knot      wire.QState
	knotAge   int64
	knotTicks uint64 // ticks before the tick
	// The previous tick's state in head[prevAt:prevEnd] (prevAt 0: none),
	// quantised, and how long before the tick it was.
	prevAt, prevEnd int
	prevQ           wire.QState
	prevAge         int64
	players         bool // the snapshot holds the players
	n               int  // active players
	slots           [maxSlots]uint8
	q               [maxSlots]qpose
	team            [maxSlots]uint8
	gen             [maxSlots]uint8
	forced          uint64 // slot bits of the carriers (the tail names them) and the possessor
	tail            []byte // the carriers section
}

// prepare fills and returns g.out for the snapshot of the tick just stepped.
func (g *Game) prepare(regular bool) *prepared {
	o := &g.out
	o.ok, o.tick, o.regular = true, g.tick, regular
	g.sent.tick = g.tick
	flags := byte(0)
	if regular || g.kickoff {
		flags |= snapPlayers
	}
	if g.paused {
		flags |= snapPaused
	}
	// The previous tick is worth sending when it was not, and the ball was
	// not teleported since (its state would go with the new generation, and
	// a client would cut at it, a tick early and where the ball was).
	between := !g.sent.prevSent && g.tick > 1 && !g.kickoff && !g.restart
	var carriers [2]int
	nc := 0
	if regular && between {
		for _, i := range [...]int{g.possessor, g.sent.prevPossessor} {
			if i >= 0 && (nc == 0 || carriers[0] != i) && g.players[i].active && g.players[i].prev.gen == g.players[i].gen {
				carriers[nc] = i
				nc++
			}
		}
	}
	if nc > 0 {
		flags |= snapCarriers
	}
	dst := append(o.head[:0], flags)
	dst = binary.AppendUvarint(dst, uint64(g.score[0]))
	dst = binary.AppendUvarint(dst, uint64(g.score[1]))
	dst = append(dst, g.ballGen)
	// Before a jump, and while a ball just won moves to the dribble spot
	// along a curve that its states a send interval apart do not follow.
	blending := g.possessor >= 0 && g.sent.prevPossessor == g.possessor && g.sent.prevTime-g.carrySince < g.rules.CarryBlend
	prev := between && (g.knot || regular && blending)
	repeat := regular && g.sent.repeat.ok && g.sent.repeat.gen == g.ballGen && g.sent.repeat.t < g.now && g.now-g.sent.repeat.t <= KnotRepeat &&
		!(prev && g.sent.repeat.t >= g.sent.prevTime)
	o.count, o.repeat, o.repeatEnd, o.prevAt = len(dst), 0, 0, 0
	dst = append(dst, 1+b2i(prev)+b2i(repeat))
	if repeat {
		o.repeat = g.sent.repeat.tick
		dst = appendCarry(dst, -1, geom.Vec3{}, client.Blend{}, g.sent.repeat.t)
		dst = appendBall(dst, bodyOf(g.sent.repeat.t, g.sent.repeat.ball, true, g.sent.repeat.cut), g.now)
		o.repeatEnd = len(dst)
	}
	if prev {
		if g.sent.prevPossessor == g.possessor && g.carrySince <= g.sent.prevTime {
			dst = appendCarry(dst, g.possessor, g.rules.dribbleSpot(), g.carryBlend(), g.sent.prevTime)
		} else {
			dst = appendCarry(dst, g.sent.prevPossessor, g.sent.prevCarryOff, client.Blend{}, g.sent.prevTime)
		}
		o.prevAt = len(dst)
		p := bodyOf(g.sent.prevTime, g.prevBall, false, false)
		dst = appendBall(dst, p, g.now)
		o.prevEnd, o.prevQ, o.prevAge = len(dst), wire.QuantiseState(p), int64(g.now/wire.TimeUnit-p.Time/wire.TimeUnit)
	}
	dst = appendCarry(dst, g.possessor, g.rules.dribbleSpot(), g.carryBlend(), g.now)
	o.head = dst
	o.ballState = bodyOf(g.now, g.world.Body(g.ball), g.knot && !g.kickoff, g.jumped)
	o.ball, o.ballGen, o.score = wire.QuantiseState(o.ballState), g.ballGen, [2]uint64{uint64(g.score[0]), uint64(g.score[1])}
	if repeat {
		k := bodyOf(g.sent.repeat.t, g.sent.repeat.ball, true, g.sent.repeat.cut)
		o.knot, o.knotAge, o.knotTicks = wire.QuantiseState(k), int64(g.now/wire.TimeUnit-k.Time/wire.TimeUnit), g.tick-g.sent.repeat.tick
	}
	o.players, o.n, o.forced, o.tail = flags&snapPlayers != 0, 0, 0, o.tail[:0]
	if !o.players {
		return o
	}
	if g.possessor >= 0 {
		o.forced |= 1 << uint(g.possessor)
	}
	for i := range g.players {
		p := &g.players[i]
		if !p.active {
			continue
		}
		o.slots[o.n], o.q[o.n], o.team[o.n], o.gen[o.n] = uint8(i), quantPose(g.pose(i)), p.team, p.gen
		o.n++
	}
	if nc == 0 {
		return o
	}
	tail := binary.AppendUvarint(o.tail, uint64((g.now-g.sent.prevTime+time.Microsecond/2)/time.Microsecond))
	tail = append(tail, byte(nc))
	for _, i := range carriers[:nc] {
		o.forced |= 1 << uint(i)
		tail = binary.AppendUvarint(tail, uint64(FirstPlayerID)+uint64(i))
		q := quantPose(g.players[i].prev)
		marks := q.marks()
		tail = appendPose(append(tail, marks), marks, q)
	}
	o.tail = tail
	return o
}

// sendState is what snapshots need of the ticks before the newest.
type sendState struct {
	prevSent      bool          // the previous tick was sent
	tick          uint64        // the tick last sent
	prevTime      time.Duration // the previous tick's server time
	prevPossessor int           // who had the ball at the previous tick (player slot, -1: free)
	prevCarryOff  geom.Vec3     // where, in its frame, metres
	repeat        knotState     // repeated in regular snapshots for KnotRepeat
}

// keepPrevious notes, before a tick is stepped, what its snapshots need of
// the tick before: whether it was sent, its time, who had the ball and
// where, and every player's pose.
func (g *Game) keepPrevious() {
	g.sent.prevSent = g.tick > 0 && g.sent.tick == g.tick
	g.sent.prevTime = g.now
	g.sent.prevPossessor, g.sent.prevCarryOff = g.possessor, g.carryOff
	for i := range g.players {
		p := &g.players[i]
		p.prev = g.pose(i)
	}
}

// keepKnot keeps the ball's state of a tick whose jump left it free (a
// kick, a bounce), not teleported, for regular snapshots to repeat.
func (g *Game) keepKnot() {
	if g.knot && g.possessor < 0 && !g.kickoff && !g.restart {
		g.sent.repeat = knotState{ok: true, tick: g.tick, t: g.now, gen: g.ballGen, ball: g.world.Body(g.ball), cut: g.jumped}
	}
}

// sentPose is a player's state as snapshots send it.
type sentPose struct {
	gen  uint8
	st   PlayerState
	vel  geom.Vec3 // the motion of the tick before
	turn float64   // rad/s
	want geom.Vec3 // the velocity it runs toward (Game.wants; kinematic.State.Input)
}

// pose returns the pose of the player in slot i as the last tick left it.
func (g *Game) pose(i int) sentPose {
	p := &g.players[i]
	return sentPose{gen: p.gen, st: p.st, vel: p.vel, turn: p.turn, want: p.want}
}

// qpose is a player's pose as snapshots quantise it.
type qpose struct {
	x, z   int64  // position, millimetres
	vx, vz int64  // velocity, centimetres per second
	yaw    uint16 // 65536ths of a turn, a multiple of yawStep
	turn   int64  // rate of turning, milliradians per second, a multiple of turnStep
	wx, wz int64  // the velocity asked for less the velocity, centimetres per second
}

// The precision snapshots declare for a player's facing: yaw in steps of
// yawStep 65536ths of a turn (4096 steps, 0.09°), turning in steps of
// turnStep mrad/s (0.46°/s). Finer steps cost the per-client deltas about 7
// bits per player that moved (22 bots: 208 bytes a delta snapshot instead
// of 189) for a difference no one sees.
const (
	yawStep  = 16
	turnStep = 8
)

// quantPose returns p quantised.
func quantPose(p sentPose) qpose {
	vx, vz := wire.Quantise(p.vel.X, 0.01), wire.Quantise(p.vel.Z, 0.01)
	return qpose{
		x: wire.Quantise(p.st.Pos.X, 0.001), z: wire.Quantise(p.st.Pos.Z, 0.001), vx: vx, vz: vz,
		yaw:  uint16(int64(math.Round(p.st.Yaw/(2*math.Pi)*65536/yawStep))*yawStep) & 0xffff,
		turn: wire.Quantise(p.turn, 0.001*turnStep) * turnStep,
		// The wanted velocity goes as its difference from the velocity,
		// which is mostly zero (running at the speed asked for, or standing).
		wx: wire.Quantise(p.want.X, 0.01) - vx, wz: wire.Quantise(p.want.Z, 0.01) - vz,
	}
}

// state is the pose as a state at server time t.
func (q qpose) state(t time.Duration) kinematic.State {
	yaw := float64(q.yaw) / 65536 * 2 * math.Pi
	return kinematic.State{Time: t, Pos: geom.V(float64(q.x)/1000, 0, float64(q.z)/1000),
		Vel: geom.V(float64(q.vx)/100, 0, float64(q.vz)/100), Rot: yawRot(yaw), AngVel: geom.V(0, float64(q.turn)/1000, 0),
		Input: geom.V(float64(q.vx+q.wx)/100, 0, float64(q.vz+q.wz)/100)}
}

// marks returns the pose's marks: which of its parts are not zero.
func (q qpose) marks() byte {
	m := byte(0)
	if q.vx != 0 || q.vz != 0 {
		m |= markVel
	}
	if q.turn != 0 {
		m |= markTurn
	}
	if q.wx != 0 || q.wz != 0 {
		m |= markWant
	}
	return m
}

// appendPose appends the parts of q that marks (its marks()) say are sent.
func appendPose(dst []byte, marks byte, q qpose) []byte {
	dst = binary.AppendVarint(dst, q.x)
	dst = binary.AppendVarint(dst, q.z)
	if marks&markVel != 0 {
		dst = binary.AppendVarint(dst, q.vx)
		dst = binary.AppendVarint(dst, q.vz)
	}
	dst = binary.LittleEndian.AppendUint16(dst, q.yaw)
	if marks&markTurn != 0 {
		dst = binary.AppendVarint(dst, q.turn)
	}
	if marks&markWant != 0 {
		dst = binary.AppendVarint(dst, q.wx)
		dst = binary.AppendVarint(dst, q.wz)
	}
	return dst
}

// KnotRepeat is how long after a jump of the ball's motion regular snapshots
// repeat its state at the jump: beyond a burst of a few lost snapshots.
const KnotRepeat = 300 * time.Millisecond

// knotState is the ball's state at its newest jump that left it free.
type knotState struct {
	ok   bool
	tick uint64
	t    time.Duration
	gen  uint8
	ball physics.BodyState
	cut  bool // the ball's position jumped at it (Game.jumped)
}

func b2i(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendCarry appends who has the ball in a state at server time t (player
// index, -1 for none) and its place in the player's frame; and, while b still
// moves it there, where it was won and how long before t.
func appendCarry(dst []byte, possessor int, place geom.Vec3, b client.Blend, t time.Duration) []byte {
	if possessor < 0 {
		return append(dst, 0)
	}
	blending := b.Span > 0 && t < b.Since+b.Span
	dst = binary.AppendUvarint(dst, (uint64(FirstPlayerID)+uint64(possessor)+1)<<1|uint64(b2i(blending)))
	dst = wire.AppendVec(dst, place, 0.001)
	if !blending {
		return dst
	}
	dst = wire.AppendVec(dst, b.From, 0.001)
	return binary.AppendUvarint(dst, uint64(max(t-b.Since, 0)/time.Microsecond))
}

// appendBall appends s, a ball state in the snapshot at server time now, as
// wire.AppendState does, but for its time: how long before now it is, in
// wire.TimeUnits (the state's time decodes to the very same as an absolute
// one would).
func appendBall(dst []byte, s kinematic.State, now time.Duration) []byte {
	s.Time = (now/wire.TimeUnit - s.Time/wire.TimeUnit) * wire.TimeUnit
	return wire.AppendState(dst, s)
}

// bodyOf is b as the state at server time t, its zero rotation read as
// geom.Identity, with the marks given.
func bodyOf(t time.Duration, b physics.BodyState, knot, cut bool) kinematic.State {
	s := b.State(t)
	s.Rot, s.Knot, s.Cut = unit(s.Rot), knot, cut
	return s
}

// decodeSnapshot decodes a snapshot into s, a per-client one against the
// baselines of rc, which keeps it as one if it is newer than those it has
// (rc nil: none kept).
func decodeSnapshot(s *client.Snapshot, b []byte, rules Rules, rc *received) error {
	r := wire.NewReader(b)
	flags := r.Byte()
	delta := flags&snapDelta != 0
	if flags&^snapMask != 0 || delta && (flags&snapPlayers == 0 || rc == nil) || flags&snapSame != 0 && !delta {
		r.Fail(ErrMalformed)
	}
	// A per-client snapshot names its baseline first, whose score and ball
	// generation it may leave out (snapSame).
	var base *playerTable
	if r.Err() == nil && delta {
		base, s.Base = readBase(&r, s.Tick, &rc.kept)
		if r.Err() == nil && flags&snapSame != 0 && base == nil {
			r.Fail(ErrMalformed)
		}
	}
	var score [2]uint64
	var gen byte
	meta := b[:0]
	if r.Err() == nil && flags&snapSame != 0 {
		score, gen = base.score, base.ballGen
	} else {
		score[0], score[1] = r.Uvarint(1<<20), r.Uvarint(1<<20)
		meta = b[:r.Offset()]
		gen = r.Byte()
	}
	if delta && r.Err() == nil {
		// The Meta as a shared snapshot's: the flags, then the score.
		m := append(rc.meta[:0], flags&^snapSame)
		m = binary.AppendUvarint(m, score[0])
		meta = binary.AppendUvarint(m, score[1])
	}
	nb := r.Byte()
	// A per-client snapshot's repeated knot, its first state, goes with its
	// current ball (countKnot).
	knotted, prevBits := nb&countKnot != 0, nb&countPrev != 0
	nb &^= countKnot | countPrev
	if nb < 1 || nb > 3 || (knotted || prevBits) && !delta || nb < 1+b2i(knotted)+b2i(prevBits) {
		r.Fail(ErrMalformed)
	}
	var ballAge time.Duration // of the blend of a per-client snapshot's current ball
	var prevAge time.Duration // of the blend of its previous tick's, in the bit-packed section
	for k := range nb {
		if k == 0 && knotted {
			s.Entities = append(s.Entities, client.EntityState{ID: BallID, Kind: KindBall, Gen: gen, Parent: client.NoParent})
			continue
		}
		parent, off := client.NoParent, geom.Vec3{}
		var blend client.Blend
		var age time.Duration // of the blend, at the state
		if pos := r.Uvarint(1 << 33); pos > 1 {
			parent = uint32(pos>>1 - 1)
			off = r.Vec(0.001)
			if pos&1 != 0 {
				blend.From, blend.Span = r.Vec(0.001), rules.CarryBlend
				age = time.Duration(r.Uvarint(uint64(time.Hour/time.Microsecond))) * time.Microsecond
			}
		} else if pos == 1 {
			r.Fail(ErrMalformed)
		}
		// A per-client snapshot's current ball goes with its players.
		current := k == nb-1 && flags&snapDelta != 0
		prevK := k == nb-2 && prevBits
		var w kinematic.State
		if !current && !prevK {
			w = r.State()
			if w.Time < 0 {
				r.Fail(ErrMalformed)
			}
			w.Time = s.Time - w.Time
		}
		if r.Err() != nil {
			break
		}
		switch {
		case current:
			ballAge = age
		case prevK:
			prevAge = age
		case blend.Span > 0:
			blend.Since = w.Time - age
		}
		s.Entities = append(s.Entities, client.EntityState{
			ID: BallID, Kind: KindBall, Gen: gen, Parent: parent, Offset: off, Blend: blend,
			State: w,
		})
	}
	players := len(s.Entities)
	if r.Err() == nil && flags&snapDelta != 0 {
		var ball wire.QState
		var kn, pv *knotRead
		if knotted {
			kn = &knotRead{}
		}
		if prevBits {
			pv = &knotRead{}
		}
		readDelta(&r, s, base, &rc.scratch, gen, &ball, kn, pv, radiusMicro(rules), leanOf(rules))
		rc.scratch.score = score
		if kn != nil && r.Err() == nil {
			s.Entities[players-int(nb)].State = kn.q.State(s.Time - time.Duration(kn.age)*wire.TimeUnit)
		}
		if pv != nil && r.Err() == nil {
			e := &s.Entities[players-2]
			e.State = pv.q.State(s.Time - time.Duration(pv.age)*wire.TimeUnit)
			if e.Blend.Span > 0 {
				e.Blend.Since = e.State.Time - prevAge
			}
		}
		if e := &s.Entities[players-1]; r.Err() == nil {
			e.State = ball.State(s.Time)
			if e.Blend.Span > 0 {
				e.Blend.Since = e.State.Time - ballAge
			}
		}
	} else if r.Err() == nil && flags&snapPlayers != 0 {
		n := r.Uvarint(64)
		id := uint64(FirstPlayerID)
		for range n {
			marks := r.Byte()
			if marks&markID != 0 {
				id = r.Uvarint(math.MaxUint32)
			}
			team, pgen := Home, byte(1)
			if marks&markAway != 0 {
				team = Away
			}
			if marks&markGen != 0 {
				pgen = r.Byte()
			}
			st := readPose(&r, marks).state(s.Time)
			if r.Err() != nil {
				break
			}
			if marks&^marksMask != 0 || id > math.MaxUint32 || id == uint64(BallID) || marks&markGen != 0 && pgen == 1 {
				r.Fail(ErrMalformed)
				break
			}
			s.Entities = append(s.Entities, client.EntityState{
				ID: uint32(id), Kind: KindPlayer, Tag: team, Gen: pgen, Parent: client.NoParent, State: st,
			})
			id++
		}
	}
	if r.Err() == nil && flags&snapCarriers != 0 {
		age := time.Duration(r.Uvarint(uint64(time.Second/time.Microsecond))) * time.Microsecond
		n := int(r.Byte())
		if flags&snapPlayers == 0 || n < 1 || n > 2 {
			r.Fail(ErrMalformed)
		}
		for range n {
			id := r.Uvarint(math.MaxUint32)
			marks := r.Byte()
			st := readPose(&r, marks).state(s.Time - age)
			if r.Err() != nil {
				break
			}
			if marks&^markPose != 0 {
				r.Fail(ErrMalformed)
				break
			}
			// The carrier is one of the players above, whose team and
			// generation it has.
			k := players
			for k < len(s.Entities) && s.Entities[k].ID != uint32(id) {
				k++
			}
			if k == len(s.Entities) || age == 0 {
				r.Fail(ErrMalformed)
				break
			}
			e := s.Entities[k]
			e.State = st
			s.Entities = append(s.Entities, e)
		}
	}
	if err := r.Done(); err != nil {
		s.Base = 0
		return err
	}
	s.Meta = meta
	if flags&snapDelta != 0 && s.Tick > rc.kept.Newest() {
		*rc.kept.Push(s.Tick) = rc.scratch
		s.Baseline = true
	}
	return nil
}

// readPose reads a pose appendPose wrote with marks.
func readPose(r *wire.Reader, marks byte) qpose {
	var q qpose
	q.x, q.z = r.Varint(maxQuant), r.Varint(maxQuant)
	if marks&markVel != 0 {
		q.vx, q.vz = r.Varint(maxQuant), r.Varint(maxQuant)
	}
	q.yaw = u16(r)
	if marks&markTurn != 0 {
		q.turn = r.Varint(maxQuant)
	}
	if marks&markWant != 0 {
		q.wx, q.wz = r.Varint(maxQuant), r.Varint(maxQuant)
	}
	return q
}

// maxQuant bounds decoded integers.
const maxQuant = 1 << 40

// DecodeScore decodes the Meta of a soccer snapshot (client.Frame.Meta).
func DecodeScore(meta []byte) (Score, error) {
	r := wire.NewReader(meta)
	flags := r.Byte()
	s := Score{Home: int(r.Uvarint(1 << 20)), Away: int(r.Uvarint(1 << 20)), Paused: flags&snapPaused != 0}
	if flags&^snapMask != 0 {
		r.Fail(ErrMalformed)
	}
	return s, r.Err()
}

// u16 reads a little-endian uint16.
func u16(r *wire.Reader) uint16 {
	lo, hi := r.Byte(), r.Byte()
	return uint16(lo) | uint16(hi)<<8
}
