package movement

import (
	"bytes"
	"encoding/binary"
	"errors"
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
	// end of the last move, metres. It is sent in steps of PosUnit, each
	// coordinate modulo PosWrap: decoded, each coordinate is the one of
	// its residue nearest zero, and PosError measures it against the
	// server's position.
	HasPos bool
	Pos    geom.Vec3
	// Anchor, if not 0, is a move before the first that the server
	// acknowledged, at most MaxAnchorAge before it, with AnchorEnd its end
	// and AnchorInput its input's encoding (the game's AppendInput): the
	// first move's start is sent as its difference from AnchorEnd and the
	// frames between, and its input as its change from AnchorInput, as
	// later moves' are from the move before (the server keeps the moves it
	// applied lately; see Ref.Held). Decoded, AnchorInput is Ref.Held's,
	// valid as long as that is.
	Anchor      uint32
	AnchorEnd   time.Duration
	AnchorInput []byte

	in     [2][]byte              // scratch: the encodings of the current and the previous input
	mask   uint64                 // the bytes the last input coded as a change changed
	raw    []byte                 // decoded: the moves' inputs as sent, one after the other
	rawEnd [MaxPacketMoves]uint16 // decoded: where each move's input ends in raw
}

// input returns the encoding of decoded move k's input as it was sent,
// valid until the next decoding into p.
func (p *Packet[I]) input(k int) []byte {
	from := uint16(0)
	if k > 0 {
		from = p.rawEnd[k-1]
	}
	return p.raw[from:p.rawEnd[k]]
}

// MaxAnchorAge is how many moves before a packet's first its Anchor may be.
const MaxAnchorAge = 32

// ErrNoAnchor is returned by DecodePacket for a packet whose Anchor
// Ref.Held does not hold (a late copy, after the server moved on).
var ErrNoAnchor = errors.New("tether/movement: the packet's anchor move is not held")

// PosUnit is the step, metres, of the positions in packets, and PosWrap the
// span their residues cover on each axis: a client's position is compared
// with the server's (within ServerConfig.MaxError, centimetres) to the
// millimetre, and a prediction over PosWrap/2 (2 m) astray on an axis reads
// as its residue.
const (
	PosUnit = 1e-3
	PosWrap = PosUnit * (1 << posBits)
)

// PosError returns the distance, metres, between the position the packet
// carries and at, each coordinate read as the one of its residue (modulo
// PosWrap) nearest at's.
func (p *Packet[I]) PosError(at geom.Vec3) float64 {
	wrap := func(d float64) float64 { return d - PosWrap*math.Round(d/PosWrap) }
	d := p.Pos.Sub(at)
	return geom.V(wrap(d.X), wrap(d.Y), wrap(d.Z)).Len()
}

// LagUnit is the step of a packet's lag: how far its newest move's View is
// before that move's end, rounded to it. (The server looks the world up at
// View; a tenth of a millisecond is well within what it tolerates.)
const LagUnit = 100 * time.Microsecond

// Ref is what the server knows that a packet is coded against: the first
// move's sequence and Fix are sent as residues (12 and 5 bits; DecodePacket
// reads each as the value with that residue nearest Seq, Fix), the first
// move's start and input against the Anchor's, which Held looks up.
type Ref struct {
	Seq uint32 // the newest move applied
	Fix uint32 // the newest adjustment ID sent
	// Held returns move seq's end as the client stamped it and the
	// encoding of its input as it arrived, or a nil input if the move is
	// not held. Nil holds none.
	Held func(seq uint32) (end time.Duration, input []byte)
}

// The packet's fields and their codes (see AppendPacket).
const (
	countOrder  = 2  // moves less one
	seqBits     = 12 // the first move's sequence, a residue
	fixBits     = 5  // Fix, a residue
	timeOrder   = 20 // the first move's start, wire.TimeUnits, without an anchor
	gapOrder    = 8  // with one: how far it is from the anchor's end and the frames between
	posBits     = 12 // each coordinate of the position, PosUnits, a residue
	lagOrder    = 10 // the lag in LagUnits: about 100 ms of them
	anchorOrder = 3  // how many moves the anchor is before the first, less one
	dtOrder     = 5  // the first move's length less frameDt
	ddtOrder    = 0  // a later move's change of length
	lenOrder    = 2  // an input's length less one
	byteOrder   = 3  // the change of one byte of an input
	maxInput    = 255
	maxMask     = 56               // the longest input sent as a change: its mask is one field of a BitWriter
	maxMoveDt   = 10 * time.Second // the longest Dt a packet may carry
	maxLag      = 60 * time.Second // the furthest View may be before Time
	// frameDt is the length the first move's is coded against, in
	// wire.TimeUnits: a frame at 60 a second.
	frameDt = int64(time.Second / 60 / wire.TimeUnit)
)

// AppendPacket appends the encoding of p to dst, bit-packed: the number of
// moves, whether a position follows, the first move's sequence and Fix as
// residues (see Ref), the lag of the last move (Time - View, in LagUnits),
// the anchor if any (how many moves before the first) and the first move's
// start (without an anchor whole; with one as its difference from the
// anchor's end and a frame at 60 a second per move between); then per move
// its length (the first's against a frame at 60 a second, a later one's as
// a change from the one before) and its input (in the game's
// encoding: whole, or the bytes that changed from the input before or the
// anchor's, each as its difference, with which ones as a mask unless they are
// the ones that changed last): a move that only continues the one before
// costs two bits; then the position, each coordinate a residue (a bit when it
// is zero). It panics if p has no moves, more than MaxPacketMoves, or moves
// that do not follow each other.
func AppendPacket[S, I any](dst []byte, g Game[S, I], p *Packet[I]) []byte {
	n := len(p.Moves)
	if n == 0 || n > MaxPacketMoves {
		panic("tether/movement: packet with no moves or too many")
	}
	w := wire.NewBitWriter(dst)
	first, last := &p.Moves[0], &p.Moves[n-1]
	w.Uint(uint64(n-1), countOrder)
	w.Bool(p.HasPos)
	w.Bits(uint64(first.Seq), seqBits)
	w.Bits(uint64(p.Fix), fixBits)
	w.Uint(uint64((min(max(0, last.Time-last.View), maxLag)+LagUnit/2)/LagUnit), lagOrder)
	anchor := p.Anchor != 0 && p.Anchor < first.Seq && first.Seq-p.Anchor <= MaxAnchorAge && len(p.AnchorInput) > 0
	start := int64((first.Time - first.Dt) / wire.TimeUnit)
	w.Bool(anchor)
	if anchor {
		between := int64(first.Seq - p.Anchor - 1)
		w.Uint(uint64(between), anchorOrder)
		w.Int(start-int64(p.AnchorEnd/wire.TimeUnit)-between*frameDt, gapOrder)
	} else {
		w.Int(start, timeOrder)
	}
	var prevDt int64
	p.mask = 0
	for i := range p.Moves {
		m := &p.Moves[i]
		if i > 0 && (m.Seq != p.Moves[i-1].Seq+1 || m.Time-m.Dt != p.Moves[i-1].Time) {
			panic("tether/movement: packet moves do not follow each other")
		}
		dt := int64(m.Dt / wire.TimeUnit)
		cur, prev := g.AppendInput(p.in[i%2][:0], m.Input), p.in[(i+1)%2]
		p.in[i%2] = cur
		if i == 0 {
			w.Int(dt-frameDt, dtOrder)
			prevDt = dt
			switch {
			case !anchor:
				appendWhole(&w, cur)
			case bytes.Equal(cur, p.AnchorInput):
				w.Bool(false)
			default:
				w.Bool(true)
				p.appendChange(&w, cur, p.AnchorInput)
			}
			continue
		}
		same := bytes.Equal(cur, prev)
		w.Int(dt-prevDt, ddtOrder)
		w.Bool(!same)
		prevDt = dt
		if !same {
			p.appendChange(&w, cur, prev)
		}
	}
	if p.HasPos {
		for _, x := range [3]float64{p.Pos.X, p.Pos.Y, p.Pos.Z} {
			r := uint64(int64(math.Round(x/PosUnit))) & (1<<posBits - 1)
			w.Bool(r != 0)
			if r != 0 {
				w.Bits(r, posBits)
			}
		}
	}
	return w.Append()
}

// appendWhole writes an input whole: its length less one, its bytes.
func appendWhole(w *wire.BitWriter, in []byte) {
	if len(in) == 0 || len(in) > maxInput {
		panic("tether/movement: an input of no bytes or over 255")
	}
	w.Uint(uint64(len(in)-1), lenOrder)
	for _, c := range in {
		w.Bits(uint64(c), 8)
	}
}

// appendChange writes an input that differs from the one before: a bit
// saying whether it goes whole, else a bit saying whether the bytes that
// changed are those that changed last (p.mask), the mask of them if not, and
// each one's difference, whichever is shorter.
func (p *Packet[I]) appendChange(w *wire.BitWriter, cur, prev []byte) {
	var mask uint64
	bits := 1
	delta := len(cur) == len(prev) && len(cur) <= maxMask
	if delta {
		for k := range cur {
			if cur[k] != prev[k] {
				mask |= 1 << k
				bits += wire.IntBits(int64(int8(cur[k]-prev[k])), byteOrder)
			}
		}
		if mask != p.mask {
			bits += len(cur)
		}
	}
	if !delta || bits >= wire.UintBits(uint64(len(cur)-1), lenOrder)+8*len(cur) {
		w.Bool(true)
		appendWhole(w, cur)
		return
	}
	w.Bool(false)
	w.Bool(mask == p.mask)
	if mask != p.mask {
		w.Bits(mask, len(cur))
		p.mask = mask
	}
	for k := range cur {
		if mask&(1<<k) != 0 {
			w.Int(int64(int8(cur[k]-prev[k])), byteOrder)
		}
	}
}

// DecodePacket decodes a packet into p, reusing p.Moves, its residues read
// against ref. Every field is checked: sequences and times must not
// overflow, each move lasts from one wire.TimeUnit to 10 s and its View is
// at most 60 s before its end, a change of input names only bytes the
// previous input has and changes each, and the game decodes each input to its
// last byte. On error p is left partly filled.
func DecodePacket[S, I any](p *Packet[I], b []byte, g Game[S, I], ref Ref) error {
	p.Moves = p.Moves[:0]
	p.HasPos, p.Pos, p.mask = false, geom.Vec3{}, 0
	r := wire.NewBitReader(b)
	n := int(r.Uint(countOrder, MaxPacketMoves-1)) + 1
	hasPos := r.Bool()
	first := resolve(r.Bits(seqBits), seqBits, int64(ref.Seq))
	fix := resolve(r.Bits(fixBits), fixBits, int64(ref.Fix))
	lag := int64(r.Uint(lagOrder, uint64(maxLag/LagUnit)))
	const (
		limit  = int64(math.MaxInt64/2) / int64(wire.TimeUnit)
		maxDtU = int64(maxMoveDt / wire.TimeUnit)
	)
	p.Anchor, p.AnchorEnd, p.AnchorInput = 0, 0, nil
	anchor := first
	var t int64 // the first move's start, or its difference from the anchor's end
	if r.Bool() {
		anchor = first - 1 - int64(r.Uint(anchorOrder, MaxAnchorAge-1))
		t = r.Int(gapOrder, limit) + (first-1-anchor)*frameDt
	} else {
		t = r.Int(timeOrder, limit)
	}
	if err := r.Err(); err != nil {
		return err
	}
	if first < 1 || first+int64(n)-1 > math.MaxUint32 || fix < 0 || fix > math.MaxUint32 || t > limit || t < -limit {
		return ErrMalformed
	}
	p.Fix = uint32(fix)
	if anchor < first {
		if anchor < 1 {
			return ErrMalformed
		}
		if ref.Held != nil {
			p.AnchorEnd, p.AnchorInput = ref.Held(uint32(anchor))
		}
		if len(p.AnchorInput) == 0 {
			return ErrNoAnchor
		}
		p.Anchor = uint32(anchor)
		if t += int64(p.AnchorEnd / wire.TimeUnit); t > limit || t < -limit {
			return ErrMalformed
		}
	}
	p.raw = p.raw[:0]
	var dt int64
	for k := range n {
		cur, prev := p.in[k%2][:0], p.in[(k+1)%2]
		switch {
		case k == 0:
			dt = frameDt + r.Int(dtOrder, maxDtU)
			switch {
			case p.Anchor == 0:
				cur = readWhole(&r, cur)
			case !r.Bool():
				cur = append(cur, p.AnchorInput...)
			case r.Bool():
				cur = readWhole(&r, cur)
			default:
				cur = p.readChange(&r, cur, p.AnchorInput)
			}
		default:
			dt += r.Int(ddtOrder, maxDtU)
			switch {
			case !r.Bool(): // the input before, continued
				cur = append(cur, prev...)
			case r.Bool():
				cur = readWhole(&r, cur)
			default:
				cur = p.readChange(&r, cur, prev)
			}
		}
		p.in[k%2] = cur
		if err := r.Err(); err != nil {
			return err
		}
		if dt <= 0 || dt > maxDtU || t > limit {
			return ErrMalformed
		}
		t += dt
		var in I
		if m, err := g.DecodeInput(&in, cur); err != nil || m != len(cur) {
			return ErrMalformed
		}
		p.raw = append(p.raw, cur...)
		p.rawEnd[k] = uint16(len(p.raw))
		end := time.Duration(t) * wire.TimeUnit
		p.Moves = append(p.Moves, Move[I]{Seq: uint32(first) + uint32(k), Time: end, Dt: time.Duration(dt) * wire.TimeUnit,
			View: end - time.Duration(lag)*LagUnit, Input: in})
	}
	if hasPos {
		var c [3]float64
		for i := range c {
			if r.Bool() {
				v := r.Bits(posBits)
				if r.Err() == nil && v == 0 {
					r.Fail(ErrMalformed)
				}
				c[i] = float64(int64(v<<(64-posBits))>>(64-posBits)) * PosUnit // sign-extended
			}
		}
		p.HasPos, p.Pos = true, geom.V(c[0], c[1], c[2])
	}
	m, err := r.End()
	if err == nil && m != len(b) {
		err = ErrMalformed
	}
	return err
}

// readWhole reads an input written whole into cur.
func readWhole(r *wire.BitReader, cur []byte) []byte {
	n := int(r.Uint(lenOrder, maxInput-1)) + 1
	for range n {
		if r.Err() != nil {
			break
		}
		cur = append(cur, byte(r.Bits(8)))
	}
	return cur
}

// readChange reads an input written as a change from prev into cur.
func (p *Packet[I]) readChange(r *wire.BitReader, cur, prev []byte) []byte {
	if len(prev) > maxMask {
		r.Fail(ErrMalformed)
		return cur
	}
	if !r.Bool() {
		p.mask = r.Bits(len(prev))
	}
	if r.Err() == nil && (p.mask == 0 || p.mask>>len(prev) != 0) {
		r.Fail(ErrMalformed)
	}
	cur = append(cur, prev...)
	for k := range cur {
		if p.mask&(1<<k) != 0 {
			d := r.Int(byteOrder, 128)
			if r.Err() == nil && (d == 0 || d > 127) {
				r.Fail(ErrMalformed)
			}
			cur[k] += byte(d)
		}
	}
	return cur
}

// resolve returns the value nearest ref whose low bits are res.
func resolve(res uint64, bits int, ref int64) int64 {
	m := int64(1) << bits
	d := (int64(res) - ref) & (m - 1)
	if d >= m/2 {
		d -= m
	}
	return ref + d
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
