package clock

import (
	"encoding/binary"
	"errors"
	"math"
	"time"
)

// Ping is a client's request for the server's time. The client remembers when
// it sent each ping; only the id travels.
type Ping struct {
	ID uint32 // chosen by the Estimator; echoed in the Pong
}

// Pong is the server's reply to a Ping.
type Pong struct {
	ID    uint32        // the Ping's id
	Epoch uint32        // the server's clock epoch; changes when the server restarts its clock
	Recv  time.Duration // server time the ping arrived
	Send  time.Duration // server time the pong left; not before Recv
}

// Encoded sizes. A Ping takes 1 to MaxPingSize bytes, a Pong 4 to MaxPongSize
// bytes; small ids, epochs and holds take fewer.
const (
	MaxPingSize = binary.MaxVarintLen32
	MaxPongSize = 2*binary.MaxVarintLen32 + 2*binary.MaxVarintLen64
)

// Wire resolution: times travel as whole microseconds.
const wireUnit = time.Microsecond

// Decoding errors. Decoders return them (possibly wrapped); test with errors.Is.
var (
	// ErrTruncated: the buffer ends inside a message.
	ErrTruncated = errors.New("tether/clock: truncated message")
	// ErrMalformed: a field is not in canonical form or is out of range.
	ErrMalformed = errors.New("tether/clock: malformed message")
)

// AppendPing appends the encoding of p to b and returns the extended buffer:
// the id as an unsigned varint. It does not allocate when b has room.
func AppendPing(b []byte, p Ping) []byte {
	return binary.AppendUvarint(b, uint64(p.ID))
}

// DecodePing decodes a Ping from the start of b and returns it with the number
// of bytes it took. Bytes after the message are left to the caller.
func DecodePing(b []byte) (Ping, int, error) {
	id, n, err := readUvarint(b, math.MaxUint32)
	if err != nil {
		return Ping{}, 0, err
	}
	return Ping{ID: uint32(id)}, n, nil
}

// AppendPong appends the encoding of p to b and returns the extended buffer:
// id and epoch as unsigned varints, Recv in microseconds as a signed varint,
// then Send-Recv in microseconds as an unsigned varint. Times are truncated
// to whole microseconds; a Send before Recv is encoded as equal to Recv. It
// does not allocate when b has room.
func AppendPong(b []byte, p Pong) []byte {
	recv := int64(p.Recv / wireUnit)
	hold := max(int64(p.Send/wireUnit)-recv, 0)
	b = binary.AppendUvarint(b, uint64(p.ID))
	b = binary.AppendUvarint(b, uint64(p.Epoch))
	b = binary.AppendVarint(b, recv)
	return binary.AppendUvarint(b, uint64(hold))
}

// maxWireUnits is the largest magnitude, in wire units, that fits a Duration.
const maxWireUnits = math.MaxInt64 / int64(wireUnit)

// DecodePong decodes a Pong from the start of b and returns it with the number
// of bytes it took. Bytes after the message are left to the caller.
func DecodePong(b []byte) (Pong, int, error) {
	var p Pong
	id, n, err := readUvarint(b, math.MaxUint32)
	if err != nil {
		return Pong{}, 0, err
	}
	epoch, m, err := readUvarint(b[n:], math.MaxUint32)
	if err != nil {
		return Pong{}, 0, err
	}
	n += m
	recv, m, err := readVarint(b[n:], maxWireUnits)
	if err != nil {
		return Pong{}, 0, err
	}
	n += m
	hold, m, err := readUvarint(b[n:], uint64(maxWireUnits-recv))
	if err != nil {
		return Pong{}, 0, err
	}
	n += m
	p.ID = uint32(id)
	p.Epoch = uint32(epoch)
	p.Recv = time.Duration(recv) * wireUnit
	p.Send = time.Duration(recv+int64(hold)) * wireUnit
	return p, n, nil
}

// readUvarint reads a canonical unsigned varint no larger than limit.
func readUvarint(b []byte, limit uint64) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	switch {
	case n == 0:
		return 0, 0, ErrTruncated
	case n < 0:
		return 0, 0, ErrMalformed
	case n > 1 && b[n-1] == 0: // a redundant zero group: not canonical
		return 0, 0, ErrMalformed
	case v > limit:
		return 0, 0, ErrMalformed
	}
	return v, n, nil
}

// readVarint reads a canonical signed (zig-zag) varint with |v| <= limit.
func readVarint(b []byte, limit int64) (int64, int, error) {
	u, n, err := readUvarint(b, math.MaxUint64)
	if err != nil {
		return 0, 0, err
	}
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	if v > limit || v < -limit {
		return 0, 0, ErrMalformed
	}
	return v, n, nil
}
