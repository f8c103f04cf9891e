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

// Decoding errors, the wire package's; test with errors.Is.
var (
	ErrTruncated = wire.ErrTruncated
	ErrMalformed = wire.ErrMalformed
)

// MaxInputSize is the largest encoding of an Input.
const MaxInputSize = 18

const (
	inSprint = 1 << 0
	inAim    = 1 << 1
	inAge    = 1 << 2
	inFrom   = 1 << 3
	inMask   = inSprint | inAim | inAge | inFrom
)

// AppendInput appends the encoding of in to b: Dir as two signed bytes (steps
// of 1/127), the action and its sequence, the aim as an angle in 65536 steps
// of a turn (when set), the action's age in milliseconds as a byte (when
// between 1 and 255), the kick's claimed origin as three signed 24-bit
// millimetre counts (when set), the power in 255 steps. It does not allocate
// when b has MaxInputSize bytes of room.
func AppendInput(b []byte, in Input) []byte {
	flags := byte(0)
	if in.Sprint {
		flags |= inSprint
	}
	aim := geom.V(in.Aim.X, 0, in.Aim.Z)
	if aim.Len2() > 1e-12 && aim.IsFinite() {
		flags |= inAim
	}
	age := (in.ActionAge + time.Millisecond/2) / time.Millisecond
	if age > 0 && in.ActionAge <= MaxActionAge {
		flags |= inAge
	}
	from := in.KickFrom
	if from != (geom.Vec3{}) && from.IsFinite() && math.Abs(from.X) <= MaxKickFrom && math.Abs(from.Y) <= MaxKickFrom && math.Abs(from.Z) <= MaxKickFrom {
		flags |= inFrom
	}
	dir := geom.V(in.Dir.X, 0, in.Dir.Z)
	if l := dir.Len(); l > 1 {
		dir = dir.Scale(1 / l)
	} else if !(l >= 0) {
		dir = geom.Vec3{}
	}
	b = append(b, flags, byte(int8(math.Round(dir.X*127))), byte(int8(math.Round(dir.Z*127))), byte(in.Action), in.ActionSeq)
	if flags&inAim != 0 {
		a := uint16(int64(math.Round(yawOf(aim)/(2*math.Pi)*65536)) & 0xffff)
		b = binary.LittleEndian.AppendUint16(b, a)
	}
	if flags&inAge != 0 {
		b = append(b, byte(age))
	}
	if flags&inFrom != 0 {
		for _, x := range [3]float64{from.X, from.Y, from.Z} {
			mm := int32(math.Round(x * 1000))
			b = append(b, byte(mm), byte(mm>>8), byte(mm>>16))
		}
	}
	p := in.Power
	if !(p >= 0) {
		p = 0
	}
	return append(b, byte(math.Round(math.Min(1, p)*255)))
}

// DecodeInput decodes an Input from the start of b into in and returns the
// number of bytes it took.
func DecodeInput(in *Input, b []byte) (int, error) {
	if len(b) < 6 {
		return 0, ErrTruncated
	}
	flags := b[0]
	if flags&^inMask != 0 || Action(b[3]) >= numActions || int8(b[1]) == -128 || int8(b[2]) == -128 {
		return 0, ErrMalformed
	}
	*in = Input{Sprint: flags&inSprint != 0, Action: Action(b[3]), ActionSeq: b[4]}
	in.Dir = geom.V(float64(int8(b[1]))/127, 0, float64(int8(b[2]))/127)
	if l := in.Dir.Len(); l > 1 {
		in.Dir = in.Dir.Scale(1 / l)
	}
	n := 5
	if flags&inAim != 0 {
		if len(b) < n+2 {
			return 0, ErrTruncated
		}
		a := float64(binary.LittleEndian.Uint16(b[n:])) / 65536 * 2 * math.Pi
		in.Aim = forward(a)
		n += 2
	}
	if flags&inAge != 0 {
		if len(b) < n+1 {
			return 0, ErrTruncated
		}
		in.ActionAge = time.Duration(b[n]) * time.Millisecond
		n++
	}
	if flags&inFrom != 0 {
		if len(b) < n+9 {
			return 0, ErrTruncated
		}
		var c [3]float64
		for i := range c {
			mm := int32(uint32(b[n])|uint32(b[n+1])<<8|uint32(b[n+2])<<16) << 8 >> 8 // sign-extended
			c[i] = float64(mm) / 1000
			n += 3
		}
		in.KickFrom = geom.V(c[0], c[1], c[2])
	}
	if len(b) < n+1 {
		return 0, ErrTruncated
	}
	in.Power = float64(b[n]) / 255
	return n + 1, nil
}

// Snapshot layout (after the session header, which carries the tick's time):
//
//	flags            byte: bit 0 players included, bit 1 paused after a goal
//	score            two unsigned varints, Home then Away
//	ball generation  byte
//	ball states      count byte (1 to 3), then that many states, oldest first:
//	                 possessor (unsigned varint: player entity id + 1, 0 for
//	                 a free ball), with a possessor the ball's place in its
//	                 frame (x, y, z in millimetres, signed varints), then the
//	                 ball's state (wire.AppendState)
//	players          (if bit 0) unsigned varint count, then per player:
//	                 id (unsigned varint), team, generation, x and z in
//	                 millimetres, vx and vz in centimetres per second (signed
//	                 varints), yaw in 65536 steps of a turn (2 bytes), and
//	                 the rate of turning in milliradians per second (signed
//	                 varint)
//	carriers         (if bit 2) the previous tick's time, in microseconds
//	                 before the snapshot's (unsigned varint), a count byte
//	                 (1 or 2), then per player: id (unsigned varint) and its
//	                 state at that tick as above, from x on
//
// The flags and score, the snapshot's Meta, come first.
const (
	snapPlayers  = 1 << 0
	snapPaused   = 1 << 1
	snapCarriers = 1 << 2
	snapMask     = snapPlayers | snapPaused | snapCarriers
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
	g.sentTick = g.tick
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
	between := !g.prevSent && g.tick > 1 && !g.kickoff && !g.restart
	var carriers [2]int
	nc := 0
	if regular && between {
		for _, i := range [...]int{g.possessor, g.prevPossessor} {
			if i >= 0 && (nc == 0 || carriers[0] != i) && g.players[i].active && g.players[i].prev.gen == g.players[i].gen {
				carriers[nc] = i
				nc++
			}
		}
	}
	if nc > 0 {
		flags |= snapCarriers
	}
	dst = append(dst, flags)
	dst = binary.AppendUvarint(dst, uint64(g.score[0]))
	dst = binary.AppendUvarint(dst, uint64(g.score[1]))
	dst = append(dst, g.ballGen)
	// Before a jump, and while a ball just won moves to the dribble spot
	// along a curve that its states a send interval apart do not follow.
	blending := g.possessor >= 0 && g.prevPossessor == g.possessor && g.prevTime-g.carrySince < g.rules.CarryBlend
	prev := between && (g.knot || regular && blending)
	repeat := regular && g.repeat.ok && g.repeat.gen == g.ballGen && g.repeat.t < g.now && g.now-g.repeat.t <= KnotRepeat &&
		!(prev && g.repeat.t >= g.prevTime)
	dst = append(dst, 1+b2i(prev)+b2i(repeat))
	if repeat {
		dst = appendCarry(dst, -1, geom.Vec3{}, client.Blend{}, g.repeat.t)
		dst = wire.AppendState(dst, bodyOf(g.repeat.t, g.repeat.ball, true, g.repeat.cut))
	}
	if prev {
		if g.prevPossessor == g.possessor && g.carrySince <= g.prevTime {
			dst = appendCarry(dst, g.possessor, g.rules.dribbleSpot(), g.carryBlend(), g.prevTime)
		} else {
			dst = appendCarry(dst, g.prevPossessor, g.prevCarryOff, client.Blend{}, g.prevTime)
		}
		dst = wire.AppendState(dst, bodyOf(g.prevTime, g.prevBall, false, false))
	}
	dst = appendCarry(dst, g.possessor, g.rules.dribbleSpot(), g.carryBlend(), g.now)
	dst = wire.AppendState(dst, bodyOf(g.now, g.world.Body(g.ball), g.knot && !g.kickoff, g.jumped))
	if flags&snapPlayers == 0 {
		return dst
	}
	n := 0
	for i := range g.players {
		if g.players[i].active {
			n++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for i := range g.players {
		p := &g.players[i]
		if !p.active {
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(FirstPlayerID)+uint64(i))
		dst = append(dst, p.team, p.gen)
		dst = appendPose(dst, g.pose(i))
	}
	if nc == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64((g.now-g.prevTime+time.Microsecond/2)/time.Microsecond))
	dst = append(dst, byte(nc))
	for _, i := range carriers[:nc] {
		dst = binary.AppendUvarint(dst, uint64(FirstPlayerID)+uint64(i))
		dst = appendPose(dst, g.players[i].prev)
	}
	return dst
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

func appendPose(dst []byte, p sentPose) []byte {
	dst = binary.AppendVarint(dst, wire.Quantise(p.st.Pos.X, 0.001))
	dst = binary.AppendVarint(dst, wire.Quantise(p.st.Pos.Z, 0.001))
	dst = binary.AppendVarint(dst, wire.Quantise(p.vel.X, 0.01))
	dst = binary.AppendVarint(dst, wire.Quantise(p.vel.Z, 0.01))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(int64(math.Round(p.st.Yaw/(2*math.Pi)*65536))&0xffff))
	dst = binary.AppendVarint(dst, wire.Quantise(p.turn, 0.001))
	// The wanted velocity as its difference from the velocity, which is
	// mostly zero (running at the speed asked for, or standing).
	dst = binary.AppendVarint(dst, wire.Quantise(p.want.X, 0.01)-wire.Quantise(p.vel.X, 0.01))
	return binary.AppendVarint(dst, wire.Quantise(p.want.Z, 0.01)-wire.Quantise(p.vel.Z, 0.01))
}

// KnotRepeat is how long after a jump of the ball's motion regular snapshots
// repeat its state at the jump: beyond a burst of a few lost snapshots.
const KnotRepeat = 300 * time.Millisecond

// knotState is the ball's state at its newest jump that left it free.
type knotState struct {
	ok   bool
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

// bodyOf is b as the state at server time t, its zero rotation read as
// geom.Identity, with the marks given.
func bodyOf(t time.Duration, b physics.BodyState, knot, cut bool) kinematic.State {
	s := b.State(t)
	s.Rot, s.Knot, s.Cut = unit(s.Rot), knot, cut
	return s
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
