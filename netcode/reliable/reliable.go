package reliable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Protocol constants.
const (
	// MaxPacketSize is the largest packet AppendPacket produces: the
	// largest netcode payload.
	MaxPacketSize = 1200
	// FragmentSize is the data carried by every fragment of a reliable
	// message but the last.
	FragmentSize = 1024
	// MaxMessageSize is the largest reliable message (64 KiB = 64 fragments).
	MaxMessageSize = 64 * 1024
	// MaxUnreliableSize is the largest unreliable message: it must fit one packet.
	MaxUnreliableSize = MaxPacketSize - headerSize - unreliableOverhead
	// Window is how many reliable messages may be outstanding (sent but
	// not yet delivered in order) at once.
	Window = 256

	maxFragments       = MaxMessageSize / FragmentSize
	headerSize         = 1 + 2 + 2 + 4 + 2 // the largest: flags, sequence, ack, ack bits, next message expected
	noAckHeaderSize    = 1 + 2             // flags, sequence: no fragment to acknowledge
	allAckedHeaderSize = headerSize - 4    // the ack bits left out: all 32 set
	unreliableOverhead = 1 + 2             // tag, length
	reliableOverhead   = 1 + 2 + 1 + 1 + 2
	sentRingSize       = 256
	maxRefsPerPacket   = 32
	maxQueuedMessages  = 16384
	keptBuffers        = 8

	flagAck       = 1 // the acknowledgement fields follow (fragments received to acknowledge)
	flagAllAcked  = 2 // with flagAck: every one of the 32 packets before the newest arrived; no bit field
	tagUnreliable = 1
	tagLast       = 3 // an unreliable message that ends the packet: no length
	tagFragment   = 2
)

// Errors, usable with errors.Is.
var (
	ErrMalformed = errors.New("tether/netcode/reliable: malformed packet")
	ErrDuplicate = errors.New("tether/netcode/reliable: duplicate or stale packet")
	ErrTooLarge  = errors.New("tether/netcode/reliable: message too large")
	ErrQueueFull = errors.New("tether/netcode/reliable: send queue full")
	ErrConfig    = errors.New("tether/netcode/reliable: invalid config")
)

// Config tunes an Endpoint. Zero fields take the defaults shown.
type Config struct {
	// MaxInFlight caps the bytes of reliable fragments sent but not yet
	// acknowledged (default 128 KiB, range 1 KiB..16 MiB). Resends do not count twice.
	MaxInFlight int
	// MaxSendQueue caps the bytes of reliable messages queued and not yet
	// acknowledged; SendReliable returns ErrQueueFull beyond it
	// (default 1 MiB, range 64 KiB..64 MiB).
	MaxSendQueue int
	// MaxUnreliableQueue caps unreliable bytes waiting to be sent, and
	// received unreliable bytes waiting to be read (default 64 KiB, range 1200 B..16 MiB).
	MaxUnreliableQueue int
	// MaxReceiveBuffer caps the bytes held for reliable messages received
	// out of order (default 1 MiB, range 64 KiB..64 MiB). The next message
	// in order is always accepted.
	MaxReceiveBuffer int
	// InitialRTT is assumed until the first acknowledgement (default 100 ms).
	InitialRTT time.Duration
	// MinResend and MaxResend clamp the resend timeout, which is
	// smoothed RTT + 4 × RTT variance (defaults 20 ms and 1 s).
	MinResend, MaxResend time.Duration
}

func (c *Config) resolve() error {
	ints := []struct {
		v           *int
		name        string
		def, lo, hi int
	}{
		{&c.MaxInFlight, "MaxInFlight", 128 << 10, 1 << 10, 16 << 20},
		{&c.MaxSendQueue, "MaxSendQueue", 1 << 20, 64 << 10, 64 << 20},
		{&c.MaxUnreliableQueue, "MaxUnreliableQueue", 64 << 10, MaxPacketSize, 16 << 20},
		{&c.MaxReceiveBuffer, "MaxReceiveBuffer", 1 << 20, 64 << 10, 64 << 20},
	}
	for _, f := range ints {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < f.lo || *f.v > f.hi {
			return fmt.Errorf("%w: %s = %d, allowed range [%d, %d]", ErrConfig, f.name, *f.v, f.lo, f.hi)
		}
	}
	durs := []struct {
		v           *time.Duration
		name        string
		def, lo, hi time.Duration
	}{
		{&c.InitialRTT, "InitialRTT", 100 * time.Millisecond, time.Millisecond, 10 * time.Second},
		{&c.MinResend, "MinResend", 20 * time.Millisecond, time.Millisecond, 10 * time.Second},
		{&c.MaxResend, "MaxResend", time.Second, time.Millisecond, time.Minute},
	}
	for _, f := range durs {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < f.lo || *f.v > f.hi {
			return fmt.Errorf("%w: %s = %v, allowed range [%v, %v]", ErrConfig, f.name, *f.v, f.lo, f.hi)
		}
	}
	if c.MinResend > c.MaxResend {
		return fmt.Errorf("%w: MinResend %v > MaxResend %v", ErrConfig, c.MinResend, c.MaxResend)
	}
	return nil
}

// Stats are cumulative counters of an Endpoint.
type Stats struct {
	PacketsSent, PacketsReceived       uint64
	Duplicates, Malformed              uint64 // packets dropped
	FragmentsSent, FragmentsResent     uint64
	MessagesSent, MessagesDelivered    uint64 // reliable messages queued / read
	UnreliableSent, UnreliableReceived uint64
	UnreliableDropped                  uint64 // received but the read queue was full
	FragmentsRefused                   uint64 // out-of-order fragments over MaxReceiveBuffer
	RTT                                time.Duration
}

type outMsg struct {
	id    uint64
	data  []byte
	nfrag int
	sent  uint64 // fragment bit set
	acked uint64
	times [maxFragments]time.Duration
}

type fragRef struct {
	id   uint16
	frag uint8
}

type sentPacket struct {
	valid bool
	seq   uint64
	time  time.Duration
	n     int
	refs  [maxRefsPerPacket]fragRef
}

type inMsg struct {
	used    bool
	id      uint64
	nfrag   int
	got     uint64
	lastLen int
	buf     []byte
}

// Endpoint is one side of a connection's reliable and unreliable channels.
// It is a sans-I/O state machine: the caller moves packets (for example as
// netcode payloads) and passes the current time, a monotonic duration since
// any fixed origin. It is not safe for concurrent use.
type Endpoint struct {
	cfg Config

	// Send side.
	txSeq    uint64
	sent     [sentRingSize]sentPacket
	out      []*outMsg // queue of unacknowledged messages, ids oldestID...
	outHead  int
	oldestID uint64
	nextID   uint64
	queued   int
	inflight int
	pool     []*outMsg
	srtt     time.Duration
	rttvar   time.Duration
	hasRTT   bool
	unrel    msgQueue // unreliable messages to send

	// Receive side.
	rxAny       bool
	rxLatest    uint64
	rxBits      [4]uint64
	ackOwed     bool // a packet with reliable fragments arrived since the last acknowledgement sent
	in          [Window]inMsg
	nextDeliver uint64
	rxBuffered  int
	release     *inMsg
	bufs        [][]byte
	urIn        msgQueue // unreliable messages received, to read

	stats Stats
}

// New returns an Endpoint with nothing sent or received.
func New(cfg Config) (*Endpoint, error) {
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	return &Endpoint{cfg: cfg}, nil
}

// Stats returns a snapshot of the counters.
func (e *Endpoint) Stats() Stats {
	s := e.stats
	s.RTT = e.RTT()
	return s
}

// RTT is the smoothed round-trip time (InitialRTT before any sample).
func (e *Endpoint) RTT() time.Duration {
	if !e.hasRTT {
		return e.cfg.InitialRTT
	}
	return e.srtt
}

func (e *Endpoint) rto() time.Duration {
	r := e.cfg.InitialRTT * 2
	if e.hasRTT {
		r = e.srtt + 4*e.rttvar
	}
	return min(max(r, e.cfg.MinResend), e.cfg.MaxResend)
}

// AckOwed reports whether packets with reliable fragments arrived since the
// last packet sent: the next AppendPacket then carries the acknowledgements,
// in a packet of its own if nothing else is due.
func (e *Endpoint) AckOwed() bool { return e.ackOwed }

// Pending is the number of reliable messages queued and not yet acknowledged.
func (e *Endpoint) Pending() int { return len(e.out) - e.outHead }

// Due reports whether a packet built at now would carry a reliable
// fragment: one never sent that the in-flight limit lets go, or one whose
// resend timeout expired. A driver that holds its unreliable messages and
// acknowledgements for a packet going anyway sends one of their own now only
// if so.
func (e *Endpoint) Due(now time.Duration) bool {
	rto := e.rto()
	blockNew := false
	for _, m := range e.out[e.outHead:] {
		if m.id-e.oldestID >= Window {
			break
		}
		for f := range m.nfrag {
			if m.acked&(1<<f) == 0 && e.due(m, f, now, rto, &blockNew) {
				return true
			}
		}
	}
	return false
}

// due reports whether fragment f of m, not acknowledged, goes in a packet
// built at now: a resend once rto has passed since it was last sent, a first
// send unless the in-flight limit blocks it. Once one first send is blocked,
// *blockNew blocks every later one (messages go in order).
func (e *Endpoint) due(m *outMsg, f int, now, rto time.Duration, blockNew *bool) bool {
	if m.sent&(1<<f) != 0 {
		return now-m.times[f] >= rto
	}
	if *blockNew || e.inflight > 0 && e.inflight+m.fragLen(f) > e.cfg.MaxInFlight {
		*blockNew = true
		return false
	}
	return true
}

// SendReliable queues a copy of msg (0 to MaxMessageSize bytes) for reliable,
// in-order delivery. It is sent by later AppendPacket calls and resent until
// acknowledged.
func (e *Endpoint) SendReliable(msg []byte) error {
	if len(msg) > MaxMessageSize {
		return ErrTooLarge
	}
	if e.queued+len(msg) > e.cfg.MaxSendQueue || e.nextID-e.oldestID >= maxQueuedMessages {
		return ErrQueueFull
	}
	var m *outMsg
	if n := len(e.pool); n > 0 {
		m = e.pool[n-1]
		e.pool = e.pool[:n-1]
	} else {
		m = new(outMsg)
	}
	m.id = e.nextID
	m.data = append(m.data[:0], msg...)
	m.nfrag = max(1, (len(msg)+FragmentSize-1)/FragmentSize)
	m.sent, m.acked = 0, 0
	e.nextID++
	e.queued += len(msg)
	e.out = append(e.out, m)
	e.stats.MessagesSent++
	return nil
}

// SendUnreliable queues a copy of msg (0 to MaxUnreliableSize bytes) for the
// next AppendPacket. It is sent once; it may be lost or arrive out of order,
// and is never delivered twice.
func (e *Endpoint) SendUnreliable(msg []byte) error {
	if len(msg) > MaxUnreliableSize {
		return ErrTooLarge
	}
	if e.unrel.unread()+len(msg) > e.cfg.MaxUnreliableQueue {
		return ErrQueueFull
	}
	e.unrel.push(msg)
	return nil
}

func fullMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

func (m *outMsg) fragLen(f int) int {
	if f < m.nfrag-1 {
		return FragmentSize
	}
	return len(m.data) - f*FragmentSize
}

// AppendPacket appends the next packet to send at time now to dst: the
// header (with the acknowledgements, if fragments arrived since the last
// sent), queued unreliable messages, then reliable fragments that were never
// sent or whose resend timeout expired. ok is false (and dst unchanged) when
// there is nothing to send, not even an acknowledgement owed. Call it
// repeatedly to drain everything that is due; each packet is at most
// MaxPacketSize bytes.
func (e *Endpoint) AppendPacket(dst []byte, now time.Duration) (packet []byte, ok bool) {
	start := len(dst)
	limit := start + MaxPacketSize
	dst = e.appendHeader(dst)
	hs := len(dst) - start
	sp := &e.sent[e.txSeq%sentRingSize]
	refs := 0

	// Unreliable messages first, in order.
	lastUnrel := -1 // where the last unreliable message's chunk starts
	for {
		l, ok := e.unrel.peek()
		if !ok || len(dst)+unreliableOverhead+l > limit {
			break
		}
		lastUnrel = len(dst)
		dst = append(dst, tagUnreliable)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(l))
		dst = append(dst, e.unrel.pop()...)
		e.stats.UnreliableSent++
	}

	// Reliable fragments, oldest message first.
	rto := e.rto()
	blockNew := false
scan:
	for _, m := range e.out[e.outHead:] {
		if m.id-e.oldestID >= Window {
			break
		}
		if m.acked == fullMask(m.nfrag) {
			continue
		}
		for f := 0; f < m.nfrag; f++ {
			bit := uint64(1) << f
			if m.acked&bit != 0 {
				continue
			}
			first := m.sent&bit == 0
			if !e.due(m, f, now, rto, &blockNew) {
				continue
			}
			fl := m.fragLen(f)
			if len(dst)+reliableOverhead+fl > limit || refs == maxRefsPerPacket {
				break scan
			}
			dst = append(dst, tagFragment)
			dst = binary.LittleEndian.AppendUint16(dst, uint16(m.id))
			dst = append(dst, byte(f), byte(m.nfrag-1))
			dst = binary.LittleEndian.AppendUint16(dst, uint16(fl))
			dst = append(dst, m.data[f*FragmentSize:f*FragmentSize+fl]...)
			m.times[f] = now
			if first {
				m.sent |= bit
				e.inflight += fl
				e.stats.FragmentsSent++
			} else {
				e.stats.FragmentsResent++
			}
			sp.refs[refs] = fragRef{id: uint16(m.id), frag: uint8(f)}
			refs++
		}
	}
	if len(dst) == start+hs && !e.ackOwed {
		return dst[:start], false
	}
	if lastUnrel >= 0 && refs == 0 {
		// The packet ends with an unreliable message: its length is the
		// rest of the packet.
		dst[lastUnrel] = tagLast
		dst = append(dst[:lastUnrel+1], dst[lastUnrel+unreliableOverhead:]...)
	}
	sp.valid, sp.seq, sp.time, sp.n = true, e.txSeq, now, refs
	e.txSeq++
	e.ackOwed = false
	e.stats.PacketsSent++
	return dst, true
}

// appendHeader appends the next packet's header: the flags and the
// sequence, then, if packets with reliable fragments arrived since the last
// acknowledgement sent, the acknowledgements, their bit field left out when
// all 32 bits are set (the usual case: nothing lost).
func (e *Endpoint) appendHeader(dst []byte) []byte {
	if !e.ackOwed {
		dst = append(dst, 0)
		return binary.LittleEndian.AppendUint16(dst, uint16(e.txSeq))
	}
	var bits uint32
	for i := uint64(0); i < 32; i++ {
		if e.rxLatest >= i+1 && e.rxHas(e.rxLatest-1-i) {
			bits |= 1 << i
		}
	}
	flags := byte(flagAck)
	if bits == ^uint32(0) {
		flags |= flagAllAcked
	}
	dst = append(dst, flags)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(e.txSeq))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(e.rxLatest))
	if flags&flagAllAcked == 0 {
		dst = binary.LittleEndian.AppendUint32(dst, bits)
	}
	return binary.LittleEndian.AppendUint16(dst, uint16(e.nextDeliver))
}

func (e *Endpoint) rxHas(seq uint64) bool {
	if !e.rxAny || seq > e.rxLatest || e.rxLatest-seq >= 256 {
		return false
	}
	i := seq % 256
	return e.rxBits[i/64]&(1<<(i%64)) != 0
}

func (e *Endpoint) rxMark(seq uint64) {
	if !e.rxAny {
		e.rxAny, e.rxLatest = true, seq
	} else if seq > e.rxLatest {
		if seq-e.rxLatest >= 256 {
			e.rxBits = [4]uint64{}
		} else {
			for s := e.rxLatest + 1; s != seq; s++ {
				i := s % 256
				e.rxBits[i/64] &^= 1 << (i % 64)
			}
		}
		e.rxLatest = seq
	}
	i := seq % 256
	e.rxBits[i/64] |= 1 << (i % 64)
}

// header is a decoded packet header.
type header struct {
	flags byte
	seq   uint16
	ack   uint16
	bits  uint32
	next  uint16 // the peer delivered every reliable message before this id
	size  int    // the header's bytes
}

// parse validates a whole packet without changing any state. It returns the
// header; the chunks follow at p[h.size:].
func parse(p []byte) (header, error) {
	if len(p) < noAckHeaderSize || len(p) > MaxPacketSize {
		return header{}, ErrMalformed
	}
	h := header{flags: p[0], seq: binary.LittleEndian.Uint16(p[1:]), size: noAckHeaderSize}
	switch h.flags {
	case 0:
	case flagAck | flagAllAcked:
		h.size = allAckedHeaderSize
	case flagAck:
		h.size = headerSize
	default:
		return header{}, ErrMalformed
	}
	if len(p) < h.size {
		return header{}, ErrMalformed
	}
	if h.flags&flagAck != 0 {
		h.ack, h.bits = binary.LittleEndian.Uint16(p[3:]), ^uint32(0)
		if h.flags&flagAllAcked == 0 {
			h.bits = binary.LittleEndian.Uint32(p[5:])
		}
		h.next = binary.LittleEndian.Uint16(p[h.size-2:])
	}
	for q := p[h.size:]; len(q) > 0; {
		switch q[0] {
		case tagLast:
			q = nil
		case tagUnreliable:
			if len(q) < unreliableOverhead {
				return header{}, ErrMalformed
			}
			l := int(binary.LittleEndian.Uint16(q[1:]))
			if len(q) < unreliableOverhead+l {
				return header{}, ErrMalformed
			}
			q = q[unreliableOverhead+l:]
		case tagFragment:
			if len(q) < reliableOverhead {
				return header{}, ErrMalformed
			}
			f, nfrag := int(q[3]), int(q[4])+1
			l := int(binary.LittleEndian.Uint16(q[5:]))
			if nfrag > maxFragments || f >= nfrag || len(q) < reliableOverhead+l || l > FragmentSize {
				return header{}, ErrMalformed
			}
			if f < nfrag-1 && l != FragmentSize || f == nfrag-1 && nfrag > 1 && l == 0 {
				return header{}, ErrMalformed
			}
			q = q[reliableOverhead+l:]
		default:
			return header{}, ErrMalformed
		}
	}
	return h, nil
}

// Receive processes one packet received at time now: acknowledgements,
// unreliable messages and reliable fragments. Messages are then available
// from Read. A malformed packet changes no state; a duplicate or a packet
// older than the last 256 is ignored (ErrDuplicate), so no unreliable
// message is ever delivered twice.
func (e *Endpoint) Receive(now time.Duration, p []byte) error {
	e.releaseDelivered()
	h, err := parse(p)
	if err != nil {
		e.stats.Malformed++
		return err
	}
	seq := uint64(h.seq)
	if e.rxAny {
		d := int64(int16(h.seq - uint16(e.rxLatest)))
		if d < 0 && uint64(-d) > e.rxLatest {
			e.stats.Duplicates++
			return ErrDuplicate
		}
		seq = uint64(int64(e.rxLatest) + d)
		if seq <= e.rxLatest && (e.rxLatest-seq >= 256 || e.rxHas(seq)) {
			e.stats.Duplicates++
			return ErrDuplicate
		}
	}
	e.rxMark(seq)
	e.stats.PacketsReceived++
	if h.flags&flagAck != 0 {
		e.processAcks(now, h.ack, h.bits)
		e.processDelivered(h.next)
	}
	for q := p[h.size:]; len(q) > 0; {
		switch q[0] {
		case tagLast:
			e.queueUnreliable(q[1:])
			q = nil
			continue
		case tagUnreliable:
			l := int(binary.LittleEndian.Uint16(q[1:]))
			e.queueUnreliable(q[unreliableOverhead : unreliableOverhead+l])
			q = q[unreliableOverhead+l:]
			continue
		}
		e.ackOwed = true // a fragment, new or resent (our acknowledgement may have been lost)
		id := binary.LittleEndian.Uint16(q[1:])
		f, nfrag := int(q[3]), int(q[4])+1
		l := int(binary.LittleEndian.Uint16(q[5:]))
		e.receiveFragment(id, f, nfrag, q[reliableOverhead:reliableOverhead+l])
		q = q[reliableOverhead+l:]
	}
	return nil
}

func (e *Endpoint) queueUnreliable(msg []byte) {
	if e.urIn.unread()+len(msg) > e.cfg.MaxUnreliableQueue {
		e.stats.UnreliableDropped++
		return
	}
	e.urIn.push(msg)
	e.stats.UnreliableReceived++
}

func (e *Endpoint) processAcks(now time.Duration, ack uint16, bits uint32) {
	if e.txSeq == 0 {
		return
	}
	latest := e.txSeq - 1
	d := uint64(uint16(uint16(latest) - ack))
	if d > latest {
		return
	}
	base := latest - d
	// Only the newest packet named times a round trip: the peer sent this
	// acknowledgement soon after it arrived, while the packets before it
	// may have arrived long ago and waited for a fragment to acknowledge.
	e.ackPacket(now, base, true)
	for i := uint64(0); i < 32; i++ {
		if bits&(1<<i) != 0 && base >= i+1 {
			e.ackPacket(now, base-1-i, false)
		}
	}
	e.popAcked()
}

// processDelivered applies the peer's cumulative acknowledgement: every
// message before next was delivered, so all its fragments are acknowledged.
func (e *Endpoint) processDelivered(next uint16) {
	d := uint64(next - uint16(e.oldestID))
	if d == 0 || d > e.nextID-e.oldestID {
		return // nothing new, or a claim about messages never sent
	}
	for _, m := range e.out[e.outHead : e.outHead+int(d)] {
		for f := 0; f < m.nfrag; f++ {
			bit := uint64(1) << f
			if m.acked&bit == 0 && m.sent&bit != 0 {
				e.inflight -= m.fragLen(f)
			}
		}
		m.acked = fullMask(m.nfrag)
	}
	e.popAcked()
}

// popAcked drops fully acknowledged messages from the front of the queue.
func (e *Endpoint) popAcked() {
	for e.outHead < len(e.out) {
		m := e.out[e.outHead]
		if m.acked != fullMask(m.nfrag) {
			break
		}
		e.queued -= len(m.data)
		e.out[e.outHead] = nil
		e.outHead++
		e.oldestID++
		e.pool = append(e.pool, m)
	}
	if e.outHead == len(e.out) {
		e.out, e.outHead = e.out[:0], 0
	} else if e.outHead > 64 && e.outHead > len(e.out)/2 {
		n := copy(e.out, e.out[e.outHead:])
		clear(e.out[n:])
		e.out, e.outHead = e.out[:n], 0
	}
}

// ackPacket applies the acknowledgement of packet seq: its fragments are
// acknowledged, and, with sample set and if this is its first
// acknowledgement, its age is a round-trip sample.
func (e *Endpoint) ackPacket(now time.Duration, seq uint64, sample bool) {
	sp := &e.sent[seq%sentRingSize]
	if !sp.valid || sp.seq != seq {
		return
	}
	sp.valid = false
	r := now - sp.time
	if sample && r >= 0 {
		if !e.hasRTT {
			e.srtt, e.rttvar, e.hasRTT = r, r/2, true
		} else {
			diff := e.srtt - r
			if diff < 0 {
				diff = -diff
			}
			e.rttvar = (3*e.rttvar + diff) / 4
			e.srtt = (7*e.srtt + r) / 8
		}
	}
	for _, ref := range sp.refs[:sp.n] {
		m := e.lookup(ref.id)
		if m == nil {
			continue
		}
		bit := uint64(1) << ref.frag
		if m.acked&bit == 0 && m.sent&bit != 0 {
			m.acked |= bit
			e.inflight -= m.fragLen(int(ref.frag))
		}
	}
}

func (e *Endpoint) lookup(id uint16) *outMsg {
	ext := e.oldestID + uint64(id-uint16(e.oldestID))
	if ext >= e.nextID {
		return nil
	}
	return e.out[e.outHead+int(ext-e.oldestID)]
}

func (e *Endpoint) receiveFragment(id16 uint16, f, nfrag int, data []byte) {
	d := uint64(id16 - uint16(e.nextDeliver))
	if d >= Window {
		return // already delivered (a resend whose ack was lost) or beyond the window
	}
	id := e.nextDeliver + d
	slot := &e.in[id%Window]
	if !slot.used {
		need := nfrag * FragmentSize
		if id != e.nextDeliver && e.rxBuffered+need > e.cfg.MaxReceiveBuffer {
			e.stats.FragmentsRefused++
			return
		}
		*slot = inMsg{used: true, id: id, nfrag: nfrag, buf: e.getBuf(need)}
		e.rxBuffered += cap(slot.buf)
	} else if slot.id != id || slot.nfrag != nfrag {
		e.stats.Malformed++
		return
	}
	bit := uint64(1) << f
	if slot.got&bit != 0 {
		return
	}
	copy(slot.buf[f*FragmentSize:], data)
	slot.got |= bit
	if f == nfrag-1 {
		slot.lastLen = len(data)
	}
}

func (e *Endpoint) getBuf(n int) []byte {
	for i, b := range e.bufs {
		if cap(b) >= n {
			last := len(e.bufs) - 1
			e.bufs[i] = e.bufs[last]
			e.bufs[last] = nil
			e.bufs = e.bufs[:last]
			return b[:n]
		}
	}
	return make([]byte, n)
}

func (e *Endpoint) releaseDelivered() {
	if e.release == nil {
		return
	}
	slot := e.release
	e.release = nil
	e.rxBuffered -= cap(slot.buf)
	if len(e.bufs) < keptBuffers {
		e.bufs = append(e.bufs, slot.buf)
	} else {
		// Keep the largest buffers.
		for i, b := range e.bufs {
			if cap(b) < cap(slot.buf) {
				e.bufs[i] = slot.buf
				break
			}
		}
	}
	*slot = inMsg{}
}

// Read returns the next received message: unreliable messages in arrival
// order, then reliable messages in the order they were sent, each exactly
// once. The slice is valid until the next call of Read or Receive.
func (e *Endpoint) Read() (msg []byte, reliable bool, ok bool) {
	e.releaseDelivered()
	if _, ok := e.urIn.peek(); ok {
		// Valid until the next Receive, which may reuse the buffer.
		return e.urIn.pop(), false, true
	}
	slot := &e.in[e.nextDeliver%Window]
	if !slot.used || slot.id != e.nextDeliver || slot.got != fullMask(slot.nfrag) {
		return nil, false, false
	}
	e.nextDeliver++
	e.release = slot
	e.stats.MessagesDelivered++
	return slot.buf[:(slot.nfrag-1)*FragmentSize+slot.lastLen], true, true
}
