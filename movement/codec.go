package movement

import (
	"bytes"
	"encoding/binary"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/wire"
)

// Packet is what one input packet carries from the client to the server: a
// run of consecutive moves, oldest first, and where the client's character
// ended after the last of them.
type Packet[I any] struct {
	// Fix is the ID of the newest adjustment the client has applied (0
	// before any): until it reaches the one the server sent last, the server
	// does not judge the client's positions.
	Fix uint32
	// Moves are consecutive: Moves[k].Seq = Moves[0].Seq + k, and each
	// starts where the one before ended (Time - Dt of one is the Time of the
	// one before). At least 1, at most MaxPacketMoves.
	Moves []Move[I]
	// HasPos is set when Pos holds the client's predicted position at the
	// end of the last move, metres (sent in steps of PosUnit).
	HasPos bool
	Pos    geom.Vec3

	in [2][]byte // scratch: the encodings of the current and the previous input
}

// PosUnit is the step, metres, of the positions in packets.
const PosUnit = 1e-4

// LagUnit is the step of a packet's lag: how far its newest move's View is
// before that move's end, rounded to it. (The server looks the world up at
// View; a tenth of a millisecond is well within what it tolerates.)
const LagUnit = 100 * time.Microsecond

// A packet's first byte holds its flags and its count of moves: bit 0 says a
// position follows the moves, bits 1-6 hold the number of moves less one (1
// to MaxPacketMoves), bit 7 is zero. (A packet travels in a message of its
// own kind, protocol's Moves, so nothing in it tells it from a plain input.)
const (
	packetPos   = 0x01
	packetCount = 1                // the shift of the count of moves less one
	packetBad   = 1 << 7           // the bit that must be zero
	maxMoveDt   = 10 * time.Second // the longest Dt a packet may carry
	maxLag      = 60 * time.Second // the furthest View may be before Time
)

// A packet has one lag, its newest move's: every move's View is its end less
// the lag (the render delay a client draws the world at changes little over
// the moves of a packet, and the server's look-up at View tolerates
// centimetres). Per move, a byte of flags says what follows: its length (the
// first move's in full, a later one's as the change from the move before) and
// its input: in full, or as the change from the input before, when both encode
// to the same number of bytes (at most maxDelta): a mask of the bytes that
// differ (an unsigned varint, bit k for byte k) and those bytes. A move whose
// length or input is the previous move's sends none of it (moveSame: the input
// is the previous one), so a move that only continues the one before costs its
// flags byte alone, and a run of such moves shares one: a flags byte of
// moveSame alone counts in its high five bits the moves after it that repeat
// it (up to 31), so a run of 32 unchanged moves costs a byte, a quarter of a
// bit each. In any other flags byte of a move after the first, the high five
// bits hold a small change of length (moveDt, from -16 to 15 wire.TimeUnits,
// zigzag-coded: 1 for -1, 2 for 1, ...), so a length that only wavers around
// the frame time (16.7 ms is 166 or 167 units) costs nothing beyond the flags
// byte; they are zero when the change follows as a varint.
const (
	moveDt    = 1 << 0
	moveWhole = 1 << 1
	moveSame  = 1 << 2
	moveMask  = moveDt | moveWhole | moveSame
	moveHigh  = 3      // the high bits' shift: a run's count, a small change of length
	moveRun   = 1 << 3 // the unit of a run's count, in a flags byte of moveSame alone
	maxRun    = 31
	maxDelta  = 63
)

// AppendPacket appends the encoding of p to dst: a byte of flags and the
// number of moves, the first move's sequence, Fix, the first move's start time, the lag of
// the last move (Time - View, in LagUnits), the moves (lengths in
// wire.TimeUnits, inputs in the game's encoding, each as a change from the
// move before where that is shorter), then the position. It panics if p has
// no moves, more than MaxPacketMoves, or moves that do not follow each other.
func AppendPacket[S, I any](dst []byte, g Game[S, I], p *Packet[I]) []byte {
	n := len(p.Moves)
	if n == 0 || n > MaxPacketMoves {
		panic("tether/movement: packet with no moves or too many")
	}
	flags := byte(0)
	if p.HasPos {
		flags |= packetPos
	}
	first := &p.Moves[0]
	dst = append(dst, flags|byte(n-1)<<packetCount)
	dst = binary.AppendUvarint(dst, uint64(first.Seq))
	dst = binary.AppendUvarint(dst, uint64(p.Fix))
	dst = wire.AppendTime(dst, first.Time-first.Dt)
	last := &p.Moves[n-1]
	dst = binary.AppendUvarint(dst, uint64((min(max(0, last.Time-last.View), maxLag)+LagUnit/2)/LagUnit))
	var prevDt int64
	run := -1 // the index in dst of the flags byte of a run of unchanged moves going on
	for i := range p.Moves {
		m := &p.Moves[i]
		if i > 0 && (m.Seq != p.Moves[i-1].Seq+1 || m.Time-m.Dt != p.Moves[i-1].Time) {
			panic("tether/movement: packet moves do not follow each other")
		}
		dt := int64(m.Dt / wire.TimeUnit)
		cur, prev := p.in[i%2][:0], p.in[(i+1)%2]
		cur = g.AppendInput(cur, m.Input)
		p.in[i%2] = cur
		flags := byte(moveDt | moveWhole)
		var mask uint64
		small := false // the change of length fits the flags byte
		if i > 0 {
			flags = 0
			if d := dt - prevDt; d != 0 {
				flags |= moveDt
				if d >= -16 && d <= 15 {
					flags |= byte((d<<1)^(d>>63)) << moveHigh
					small = true
				}
			}
			switch {
			case bytes.Equal(cur, prev):
				flags |= moveSame
			case len(cur) != len(prev) || len(cur) > maxDelta:
				flags |= moveWhole
			default:
				changed := 0
				for k := range cur {
					if cur[k] != prev[k] {
						mask |= 1 << k
						changed++
					}
				}
				if changed+uvarintLen(mask) >= len(cur) {
					flags |= moveWhole
				}
			}
		}
		if flags == moveSame && run >= 0 && dst[run]>>moveHigh < maxRun {
			dst[run] += moveRun // one more move repeating the one before
			continue
		}
		run = -1
		if flags == moveSame {
			run = len(dst)
		}
		dst = append(dst, flags)
		switch {
		case flags&moveDt != 0 && i == 0:
			dst = binary.AppendUvarint(dst, uint64(dt))
		case flags&moveDt != 0 && !small:
			dst = binary.AppendVarint(dst, dt-prevDt)
		}
		switch {
		case flags&moveSame != 0:
		case flags&moveWhole != 0:
			dst = append(dst, cur...)
		default:
			dst = binary.AppendUvarint(dst, mask)
			for k := range cur {
				if mask&(1<<k) != 0 {
					dst = append(dst, cur[k])
				}
			}
		}
		prevDt = dt
	}
	if p.HasPos {
		dst = wire.AppendVec(dst, p.Pos, PosUnit)
	}
	return dst
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// DecodePacket decodes a packet into p, reusing p.Moves. Every field is
// checked: sequences and times must not overflow, each move lasts from one
// wire.TimeUnit to 10 s and its View is at most 60 s before its end, a change
// of input names only bytes the previous input has, and the game decodes each
// input to its last byte. On error p is left partly filled.
func DecodePacket[S, I any](p *Packet[I], b []byte, g Game[S, I]) error {
	p.Moves = p.Moves[:0]
	p.HasPos = false
	r := wire.NewReader(b)
	flags := r.Byte()
	if r.Err() == nil && flags&packetBad != 0 {
		return ErrMalformed
	}
	n := int(flags>>packetCount) + 1
	flags &= packetPos
	first := r.Uvarint(math.MaxUint32)
	p.Fix = uint32(r.Uvarint(math.MaxUint32))
	t := r.Time()
	lag := int64(r.Uvarint(uint64(maxLag / LagUnit)))
	if err := r.Err(); err != nil {
		return err
	}
	if first == 0 || n == 0 || n > MaxPacketMoves || first+uint64(n)-1 > math.MaxUint32 {
		return ErrMalformed
	}
	const (
		limit  = int64(math.MaxInt64 / 2)
		maxDtU = int64(maxMoveDt / wire.TimeUnit)
	)
	var dt int64
	repeat := 0 // moves still to come of a run of unchanged ones
	for k := range n {
		var flags, small byte
		if repeat > 0 {
			flags = moveSame
			repeat--
		} else {
			flags = r.Byte()
			if k > 0 && flags&moveMask == moveSame {
				repeat = int(flags >> moveHigh)
				flags = moveSame
			}
			if k > 0 && flags&moveDt != 0 {
				small, flags = flags>>moveHigh, flags&moveMask
			}
		}
		if flags&^moveMask != 0 || (k == 0 && flags != moveMask&^moveSame) || flags&(moveWhole|moveSame) == moveWhole|moveSame || k+repeat >= n {
			r.Fail(ErrMalformed)
		}
		switch {
		case flags&moveDt != 0 && k == 0:
			dt = int64(r.Uvarint(uint64(maxDtU)))
		case flags&moveDt != 0 && small != 0:
			dt += int64(small>>1) ^ -int64(small&1)
		case flags&moveDt != 0:
			dt += r.Varint(maxDtU)
		}
		if err := r.Err(); err != nil {
			return err
		}
		if dt <= 0 || dt > maxDtU || int64(t) > limit || int64(t) < -limit {
			return ErrMalformed
		}
		t += time.Duration(dt) * wire.TimeUnit
		cur, prev := p.in[k%2][:0], p.in[(k+1)%2]
		switch {
		case flags&moveSame != 0:
			cur = append(cur, prev...)
		case flags&moveWhole != 0:
			var in I
			rem := r.Remaining()
			m, err := g.DecodeInput(&in, rem)
			if err == nil && (m <= 0 || m > len(rem)) {
				err = ErrMalformed
			}
			if err == nil {
				cur = append(cur, rem[:m]...)
			}
			r.Sub(m, err, ErrTruncated)
		default:
			mask := r.Uvarint(math.MaxUint64)
			if r.Err() == nil && (len(prev) > maxDelta || mask>>len(prev) != 0) {
				r.Fail(ErrMalformed)
			}
			cur = append(cur, prev...)
			for j := range cur {
				if mask&(1<<j) != 0 {
					cur[j] = r.Byte()
				}
			}
		}
		p.in[k%2] = cur
		if err := r.Err(); err != nil {
			return err
		}
		var in I
		if m, err := g.DecodeInput(&in, cur); err != nil || m != len(cur) {
			return ErrMalformed
		}
		p.Moves = append(p.Moves, Move[I]{Seq: uint32(first) + uint32(k), Time: t, Dt: time.Duration(dt) * wire.TimeUnit,
			View: t - time.Duration(lag)*LagUnit, Input: in})
	}
	if flags&packetPos != 0 {
		p.HasPos, p.Pos = true, r.Vec(PosUnit)
	}
	return r.Done()
}

// replyGap marks an Ack's Gap in its kind byte.
const replyGap = 0x80

// ReplyKind says what a Reply is.
type ReplyKind uint8

// The kinds of reply.
const (
	// Ack: every move up to Seq was applied and the client's position at the
	// newest compared one was right; the client may forget them.
	Ack ReplyKind = 1
	// Adjust: the client's position was wrong; State is the server's state
	// after move Seq. The client restores it, replays its later moves, and
	// smooths the difference out.
	Adjust ReplyKind = 2
	// Reset: the character was moved by the game (a teleport, a kickoff, the
	// first contact); State is its state after move Seq (0: before the
	// client's first move). Shown at once, not smoothed, and not a
	// correction.
	Reset ReplyKind = 3
)

func (k ReplyKind) String() string {
	switch k {
	case Ack:
		return "ack"
	case Adjust:
		return "adjust"
	case Reset:
		return "reset"
	}
	return "invalid"
}

// Reply is what the server sends back to a client about its moves.
type Reply[S any] struct {
	Kind ReplyKind
	Seq  uint32 // the newest move applied (Ack), or the move State follows
	// Gap, on an Ack, says the server holds later moves than Seq+1: the
	// move after Seq was lost on the way, and the client should send again
	// from it without waiting for its usual acknowledgement time.
	Gap bool
	// ID numbers the adjustments and resets of one client, from 1; the
	// client echoes the newest it applied in Packet.Fix. Zero for an Ack.
	ID uint32
	// Time is move Seq's end, as the client stamped it (Adjust and Reset; 0
	// for a Reset before any move).
	Time  time.Duration
	State S
}

// AppendReply appends the encoding of r: the kind (with bit 7 for an Ack's
// Gap), Seq, and for an Adjust or a Reset the ID, the time and the game's
// encoding of the state.
func AppendReply[S, I any](dst []byte, g Game[S, I], r *Reply[S]) []byte {
	k := byte(r.Kind)
	if r.Gap && r.Kind == Ack {
		k |= replyGap
	}
	dst = append(dst, k)
	dst = binary.AppendUvarint(dst, uint64(r.Seq))
	if r.Kind == Ack {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(r.ID))
	dst = wire.AppendTime(dst, r.Time)
	return g.AppendState(dst, r.State)
}

// DecodeReply decodes a reply into r.
func DecodeReply[S, I any](r *Reply[S], b []byte, g Game[S, I]) error {
	*r = Reply[S]{}
	rd := wire.NewReader(b)
	k := rd.Byte()
	r.Kind, r.Gap = ReplyKind(k&^replyGap), k&replyGap != 0
	if r.Gap && r.Kind != Ack {
		return ErrMalformed
	}
	r.Seq = uint32(rd.Uvarint(math.MaxUint32))
	if err := rd.Err(); err != nil {
		return err
	}
	switch r.Kind {
	case Ack:
	case Adjust, Reset:
		r.ID = uint32(rd.Uvarint(math.MaxUint32))
		r.Time = rd.Time()
		if rd.Err() == nil && r.ID == 0 {
			return ErrMalformed
		}
		if rd.Err() == nil {
			n, err := g.DecodeState(&r.State, rd.Remaining())
			rd.Sub(n, err, ErrTruncated)
		}
	default:
		return ErrMalformed
	}
	return rd.Done()
}
