package protocol

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/wire"
)

// Tag is the first byte of every message.
type Tag uint8

// The message tags.
const (
	TagWelcome  Tag = 1
	TagSnapshot Tag = 2
	TagEvent    Tag = 3
	TagPong     Tag = 4
	TagPing     Tag = 5
	TagInput    Tag = 6
	TagReply    Tag = 7
	TagMoves    Tag = 8
	TagAck      Tag = 9
)

// Decoding errors, the wire package's; test with errors.Is.
var (
	ErrTruncated = wire.ErrTruncated
	ErrMalformed = wire.ErrMalformed
)

// Welcome tells a client, once it joined, which entity it controls and the
// server's rates.
type Welcome struct {
	Self       uint32 // the entity the client's inputs move
	TickHz     uint16 // simulation ticks per second
	SnapshotHz uint16 // regular snapshots per second
}

// TickTime returns the server time of tick at the welcome's TickHz, as a
// snapshot of that tick stands for it: tick·(1 s/TickHz), the server's tick
// time (server.Tick.Time), in whole wire.TimeUnits. A snapshot's header
// carries its tick alone.
func (w Welcome) TickTime(tick uint64) time.Duration {
	if w.TickHz == 0 {
		return 0
	}
	return time.Duration(tick) * (time.Second / time.Duration(w.TickHz)) / wire.TimeUnit * wire.TimeUnit
}

// Snapshot is the header of a snapshot message; the game's bytes follow it.
// Its server time is not sent: Welcome.TickTime gives it from the tick.
type Snapshot struct {
	Tick uint64 // the server tick the snapshot was taken after, below 2^63
	// Regular is set on snapshots sent on the regular schedule, which hold the
	// whole state; extra ones sent between them (at a kick, a bounce) hold only
	// what the game chose.
	Regular bool
}

// Input is the header of an Input message, and its Seq that of a Moves
// message; the game's bytes follow it.
type Input struct {
	Seq uint32 // increases by one per input sent
	// Sent is the client's estimate of server time when it sent the input;
	// View is the server time of what it was showing then (Sent minus its
	// render delay), for rewinding hit checks. Both 0 before its clock is
	// ready, and in a Moves message, whose moves carry their own times.
	Sent, View time.Duration
}

// Message is a decoded message. Only the fields of its Tag are set (Input for
// TagInput and TagMoves); Body is the game's bytes of a Snapshot, an Input, a
// Moves or a Reply, a sub-slice of the decoded buffer.
type Message struct {
	Tag      Tag
	Welcome  Welcome
	Snapshot Snapshot
	Event    event.Event
	Pong     clock.Pong
	Ping     clock.Ping
	Input    Input
	// Ack is the tick of a TagAck, or of a TagMoves that carries one (0:
	// none): the newest snapshot the client keeps as a baseline for
	// snapshots encoded against it (see server.Replicated).
	Ack  uint64
	Body []byte
}

// MaxHeaderSize bounds the bytes a header takes before the game's bytes.
const MaxHeaderSize = 1 + 3*binary.MaxVarintLen64 + 1

// AppendWelcome appends a Welcome message.
func AppendWelcome(b []byte, w Welcome) []byte {
	b = append(b, byte(TagWelcome))
	b = binary.AppendUvarint(b, uint64(w.Self))
	b = binary.AppendUvarint(b, uint64(w.TickHz))
	return binary.AppendUvarint(b, uint64(w.SnapshotHz))
}

// AppendSnapshot appends a snapshot header; the caller appends the game's bytes.
func AppendSnapshot(b []byte, s Snapshot) []byte {
	b = append(b, byte(TagSnapshot))
	regular := uint64(0)
	if s.Regular {
		regular = 1
	}
	return binary.AppendUvarint(b, s.Tick<<1|regular)
}

// AppendEvent appends an Event message.
func AppendEvent(b []byte, e event.Event) []byte {
	return event.Append(append(b, byte(TagEvent)), e)
}

// AppendPong appends a Pong message.
func AppendPong(b []byte, p clock.Pong) []byte {
	return clock.AppendPong(append(b, byte(TagPong)), p)
}

// AppendPing appends a Ping message.
func AppendPing(b []byte, p clock.Ping) []byte {
	return clock.AppendPing(append(b, byte(TagPing)), p)
}

// AppendInput appends an Input header; the caller appends the game's bytes.
func AppendInput(b []byte, in Input) []byte {
	b = append(b, byte(TagInput))
	b = binary.AppendUvarint(b, uint64(in.Seq))
	b = wire.AppendTime(b, in.Sent)
	return wire.AppendTime(b, in.View)
}

// AppendMoves appends a Moves header: the message's sequence number (Moves
// and Inputs share one sequence), then ack, the tick of the newest snapshot
// the client keeps as a baseline when it has not acknowledged it yet, as an
// Ack message would carry it (0: nothing new; a byte, where an Ack message
// beside it costs its own tag and framing); the caller appends the game's
// packet of moves, which carries each move's times itself, relative to one
// time per packet (package movement).
func AppendMoves(b []byte, seq uint32, ack uint64) []byte {
	b = binary.AppendUvarint(append(b, byte(TagMoves)), uint64(seq))
	return binary.AppendUvarint(b, ack)
}

// AppendAck appends an Ack message: the tick of the newest snapshot the
// client decoded and keeps as a baseline.
func AppendAck(b []byte, tick uint64) []byte {
	return binary.AppendUvarint(append(b, byte(TagAck)), tick)
}

// AppendReply appends a Reply header (its tag); the caller appends the game's
// bytes.
func AppendReply(b []byte) []byte { return append(b, byte(TagReply)) }

// Decode decodes one message. Trailing bytes are an error except for the
// game's bytes of a Snapshot, an Input, a Moves or a Reply, returned in Body.
func Decode(b []byte) (Message, error) {
	var m Message
	if len(b) == 0 {
		return m, ErrTruncated
	}
	m.Tag = Tag(b[0])
	r := wire.NewReader(b[1:])
	switch m.Tag {
	case TagWelcome:
		m.Welcome.Self = uint32(r.Uvarint(math.MaxUint32))
		m.Welcome.TickHz = uint16(r.Uvarint(math.MaxUint16))
		if m.Welcome.TickHz == 0 {
			r.Fail(ErrMalformed)
		}
		m.Welcome.SnapshotHz = uint16(r.Uvarint(math.MaxUint16))
	case TagSnapshot:
		v := r.Uvarint(math.MaxUint64)
		m.Snapshot.Tick, m.Snapshot.Regular = v>>1, v&1 == 1
		m.Body = r.Rest()
	case TagInput:
		m.Input.Seq = uint32(r.Uvarint(math.MaxUint32))
		m.Input.Sent = r.Time()
		m.Input.View = r.Time()
		m.Body = r.Rest()
	case TagMoves:
		m.Input.Seq = uint32(r.Uvarint(math.MaxUint32))
		m.Ack = r.Uvarint(math.MaxUint64)
		m.Body = r.Rest()
	case TagReply:
		m.Body = r.Rest()
	case TagAck:
		m.Ack = r.Uvarint(math.MaxUint64)
	case TagEvent:
		e, n, err := event.Decode(r.Remaining())
		m.Event = e
		r.Sub(n, err, event.ErrTruncated)
	case TagPong:
		p, n, err := clock.DecodePong(r.Remaining())
		m.Pong = p
		r.Sub(n, err, clock.ErrTruncated)
	case TagPing:
		p, n, err := clock.DecodePing(r.Remaining())
		m.Ping = p
		r.Sub(n, err, clock.ErrTruncated)
	default:
		return Message{}, ErrMalformed
	}
	if err := r.Done(); err != nil {
		return Message{}, err
	}
	return m, nil
}
