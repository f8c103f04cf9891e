package movement

import (
	"errors"
	"time"
)

// ServerConfig configures a Server. The zero value gives the defaults noted.
type ServerConfig struct {
	// MaxMoveDelta is the longest a move may last: a longer one is
	// shortened (Stats.Clamped), and so is the first move after moves that
	// never arrived, which covers their time too. 0 means 125 ms. Range 1 ms
	// to 1 s.
	MaxMoveDelta time.Duration
	// TimeAllowance is how far past the server's clock a move may end. The
	// client stamps its moves with its estimate of server time, and a move
	// reaches the server a one-way delay after it ends, so an honest
	// client's moves end before the server's clock by about that delay; one
	// whose moves end later than the server's clock plus TimeAllowance runs
	// a fast clock (a speed hack) or a broken one. Such a move is shortened
	// to end at the server's clock plus TimeAllowance (to nothing, if the
	// moves before it already reached that), is counted in Stats.Ahead and
	// Stats.AheadTime, and flags the client (Flagged); the client's position
	// then disagrees and it is corrected. Over any span the character
	// therefore moves for no longer than the server's clock advanced plus
	// TimeAllowance plus one MaxMoveDelta. 0 means 100 ms; negative turns
	// the check off. Range up to 10 s.
	TimeAllowance time.Duration
	// MaxError is the distance, metres, between the client's reported
	// position and the server's beyond which the server sends an adjustment;
	// 0 means 0.02. Range (0, 1000].
	MaxError float64
	// AckInterval is the least time between two acknowledgements; 0 means
	// 50 ms. Range up to 1 s.
	AckInterval time.Duration
	// ResendInterval is how long the server waits for the client to
	// confirm an adjustment or a reset (Packet.Fix) before sending it again;
	// 0 means 150 ms. Range 1 ms to 10 s.
	ResendInterval time.Duration
	// MaxViewLag bounds how far before its end a move's View may be (and
	// View is never after the end, nor after the server's clock); 0 means
	// 1 s. Range up to 10 s.
	MaxViewLag time.Duration
	// GapWait is how long a packet whose moves do not follow those applied
	// (an earlier packet is late, overtaken on the way) is held back for the
	// missing moves to arrive, before it is applied over the gap; 0 means
	// 400 ms, negative none. Meanwhile the server acknowledges the moves it
	// has, at once and with Reply.Gap, so that the client sends the missing
	// ones again: the wait covers that resend and one more, should the
	// first be lost (a round trip each, a spike on the way up delaying a
	// run of packets by as much). Up to 32 packets are held; one more
	// releases the oldest. Range up to 1 s.
	GapWait time.Duration
}

func (c *ServerConfig) fill() error {
	if err := fillDelta(&c.MaxMoveDelta); err != nil {
		return err
	}
	if c.TimeAllowance == 0 {
		c.TimeAllowance = 100 * time.Millisecond
	}
	if c.TimeAllowance > 10*time.Second {
		return configErr("TimeAllowance", c.TimeAllowance, "up to 10s")
	}
	if c.MaxError == 0 {
		c.MaxError = 0.02
	}
	if !(c.MaxError > 0 && c.MaxError <= 1000) {
		return configErr("MaxError", c.MaxError, "(0, 1000]")
	}
	if c.AckInterval == 0 {
		c.AckInterval = 50 * time.Millisecond
	}
	if c.AckInterval < 0 || c.AckInterval > time.Second {
		return configErr("AckInterval", c.AckInterval, "0 to 1s")
	}
	if c.ResendInterval == 0 {
		c.ResendInterval = 150 * time.Millisecond
	}
	if c.ResendInterval < time.Millisecond || c.ResendInterval > 10*time.Second {
		return configErr("ResendInterval", c.ResendInterval, "1ms to 10s")
	}
	if c.MaxViewLag == 0 {
		c.MaxViewLag = time.Second
	}
	if c.MaxViewLag < 0 || c.MaxViewLag > 10*time.Second {
		return configErr("MaxViewLag", c.MaxViewLag, "0 to 10s")
	}
	if c.GapWait == 0 {
		c.GapWait = 400 * time.Millisecond
	}
	if c.GapWait > time.Second {
		return configErr("GapWait", c.GapWait, "up to 1s")
	}
	return nil
}

// ServerStats are a Server's counters.
type ServerStats struct {
	Packets    uint64 // packets received
	BadPackets uint64 // packets that did not decode, dropped whole
	NoAnchor   uint64 // packets whose first input is coded against a move no longer held (late copies), dropped
	Moves      uint64 // moves applied
	Stale      uint64 // copies of moves already applied, ignored (redundancy at work)
	Lost       uint64 // moves that never arrived: gaps in the numbering
	Held       uint64 // packets held back for missing moves (see GapWait)
	BadTimes   uint64 // moves ending no later than the previous move's end as applied, skipped
	BadInputs  uint64 // moves whose input Clamp refused (NaN, Inf), applied with the zero input
	Clamped    uint64 // moves longer than MaxMoveDelta, shortened
	// Ahead counts moves that ended more than TimeAllowance past the
	// server's clock; AheadTime is the time cut from them.
	Ahead     uint64
	AheadTime time.Duration
	Compared  uint64 // client positions judged
	// MaxError is the largest distance between a client position and the
	// server's, metres, over the positions judged.
	MaxError    float64
	Acks        uint64 // acknowledgements sent
	Adjustments uint64 // adjustments sent (each once; see Resent)
	Resets      uint64 // resets sent (each once)
	Resent      uint64 // adjustments and resets sent again, unconfirmed
}

// Add adds o's counts to s; MaxError becomes the larger of the two.
func (s *ServerStats) Add(o ServerStats) {
	s.Packets += o.Packets
	s.BadPackets += o.BadPackets
	s.NoAnchor += o.NoAnchor
	s.Moves += o.Moves
	s.Stale += o.Stale
	s.Lost += o.Lost
	s.Held += o.Held
	s.BadTimes += o.BadTimes
	s.BadInputs += o.BadInputs
	s.Clamped += o.Clamped
	s.Ahead += o.Ahead
	s.AheadTime += o.AheadTime
	s.Compared += o.Compared
	s.MaxError = max(s.MaxError, o.MaxError)
	s.Acks += o.Acks
	s.Adjustments += o.Adjustments
	s.Resets += o.Resets
	s.Resent += o.Resent
}

// maxSeqJump is the furthest a packet's first move may be numbered past the
// newest move applied: more than an hour of moves at any sensible rate.
const maxSeqJump = 1 << 20

// Server is the authoritative side of one client's character: it applies the
// client's moves in order, each exactly once, checks them, compares the
// client's positions with its own and answers with acknowledgements and
// adjustments. It does no I/O and is not safe for concurrent use. Create it
// with NewServer.
type Server[S, I any] struct {
	cfg    ServerConfig
	g      Game[S, I]
	onMove func(m *Move[I], s S)

	state    S
	started  bool
	seq      uint32        // the newest move applied (or skipped)
	tClient  time.Duration // the newest applied move's end as the client stamped it
	tApplied time.Duration // its end as applied (at most the server's clock plus the allowance); the next move must end later

	fix     uint32 // the newest adjustment ID the client confirmed
	nextID  uint32
	pending bool
	adj     Reply[S]
	ack     Reply[S]
	adjSent bool
	adjAt   time.Duration
	ackDue  bool
	gapNew  bool // a packet was held with none held before: acknowledge at once, with Gap
	ackSent bool
	ackAt   time.Duration

	held   []held
	pkt    Packet[I]
	moves  [inputRing]heldMove // the moves applied lately, by Seq modulo inputRing
	lookup func(seq uint32) (time.Duration, []byte)
	stats  ServerStats
}

// inputRing is how many of the latest moves the server keeps for the
// packets coded against one (Packet.Anchor): twice MaxAnchorAge, so that a
// packet held for the moves before it finds its anchor.
const inputRing = 2 * MaxAnchorAge

type heldMove struct {
	seq uint32
	end time.Duration // as the client stamped it
	in  []byte
}

// NewServer returns the Server of one client's character, starting from state
// s, or an error wrapping ErrConfig. onMove, if not nil, is called after every
// move applied, with the move as applied (Time its accepted end, Dt the time
// simulated, Input clamped, View bounded) and the state after it.
func NewServer[S, I any](cfg ServerConfig, g Game[S, I], s S, onMove func(m *Move[I], s S)) (*Server[S, I], error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	v := &Server[S, I]{cfg: cfg, g: g, onMove: onMove, state: s, pkt: Packet[I]{Moves: make([]Move[I], 0, MaxPacketMoves)}}
	v.lookup = v.heldMove
	return v, nil
}

// heldMove returns move seq's end as the client stamped it and its input's
// encoding as it arrived, if it is among the latest applied or the anchors
// of the packets held, or a nil input.
func (v *Server[S, I]) heldMove(seq uint32) (time.Duration, []byte) {
	if seq == 0 {
		return 0, nil
	}
	if h := &v.moves[seq%inputRing]; h.seq == seq {
		return h.end, h.in
	}
	for i := range v.held {
		if h := &v.held[i].anchor; h.seq == seq {
			return h.end, h.in
		}
	}
	return 0, nil
}

// Config returns the configuration in use, defaults filled in.
func (v *Server[S, I]) Config() ServerConfig { return v.cfg }

// Receive applies the moves of a packet received at server time now: those
// not applied before, in order (a packet whose moves do not follow those
// applied is held back for up to GapWait for the missing ones); then, if the packet's last move was among
// them and the client has seen the server's latest adjustment, it judges the
// client's position: within MaxError it owes an acknowledgement, beyond it an
// adjustment (take both with AppendReply). The first packet sets the time
// base — its first move's start, but not before the packet's arrival less
// MaxMoveDelta — and owes a reset of the state after its moves as applied,
// so that the client learns the true starting state and how its first moves
// went.
// A packet that does not decode, or whose first move is numbered more than
// 2^20 past the newest applied, is dropped whole and ErrMalformed (or
// ErrTruncated) returned.
func (v *Server[S, I]) Receive(now time.Duration, b []byte) error {
	p := &v.pkt
	if err := DecodePacket(p, b, v.g, v.ref()); err != nil {
		if errors.Is(err, ErrNoAnchor) {
			v.stats.NoAnchor++
			return nil
		}
		v.stats.BadPackets++
		return err
	}
	if v.started && p.Moves[0].Seq-v.seq > maxSeqJump && p.Moves[0].Seq > v.seq {
		v.stats.BadPackets++
		return ErrMalformed
	}
	v.stats.Packets++
	if p.Fix > v.fix && p.Fix <= v.nextID {
		v.fix = p.Fix
	}
	if !v.started {
		v.started = true
		first := &p.Moves[0]
		v.seq = first.Seq - 1
		v.tClient = first.Time - first.Dt
		// Not before the packet arrived, less one move: a client that
		// stamps its first moves in the past would otherwise run all
		// that time at once (its first moves then count as late; the
		// reset owed puts it where the server has it anyway).
		v.tApplied = max(v.tClient, now-v.cfg.MaxMoveDelta)
		if v.cfg.TimeAllowance >= 0 {
			v.tApplied = min(v.tApplied, now+v.cfg.TimeAllowance)
		}
		v.queue(Reset)
		v.apply(now, p)
		// The reset is of the state after the first moves as applied: the
		// first may have been shortened (see above), and the client then
		// replays only its later moves.
		v.adj.Seq, v.adj.Time, v.adj.State = v.seq, v.tClient, v.state
		return nil
	}
	if p.Moves[0].Seq > v.seq+1 && v.cfg.GapWait > 0 {
		// Moves are missing before these: they may be on their way in a
		// packet overtaken by this one.
		if len(v.held) == maxHeld {
			v.releaseAt(now, v.lowest()) // no room: the oldest wait is over
			v.release(now)
			if err := DecodePacket(p, b, v.g, v.ref()); err != nil || p.Moves[0].Seq <= v.seq+1 {
				v.apply(now, p)
				v.release(now)
				return nil
			}
		}
		if len(v.held) < cap(v.held) {
			v.held = v.held[:len(v.held)+1] // reuse the buffer left there
		} else {
			v.held = append(v.held, held{})
		}
		h := &v.held[len(v.held)-1]
		h.at, h.b = now, append(h.b[:0], b...)
		h.anchor = heldMove{seq: p.Anchor, end: p.AnchorEnd, in: append(h.anchor.in[:0], p.AnchorInput...)}
		v.stats.Held++
		if !v.pending {
			// Tell the client where the moves stop, at once: it resends
			// from there.
			v.ackDue, v.gapNew = true, v.gapNew || len(v.held) == 1
		}
		return nil
	}
	v.apply(now, p)
	v.release(now)
	return nil
}

// maxHeld bounds the packets held back waiting for missing moves: GapWait of
// them at 60 a second, with room.
const maxHeld = 32

type held struct {
	at     time.Duration
	b      []byte
	anchor heldMove // the packet's anchor, which the server may no longer hold when it is released
}

// release applies the held packets that can go: one whose moves follow those
// applied, or, once GapWait has passed since the oldest arrived, the one with
// the lowest moves, over the gap.
func (v *Server[S, I]) release(now time.Duration) {
	for len(v.held) > 0 {
		best := v.lowest()
		oldest := v.held[0].at
		for i := range v.held {
			oldest = min(oldest, v.held[i].at)
		}
		if DecodePacket(&v.pkt, v.held[best].b, v.g, v.ref()) == nil && v.pkt.Moves[0].Seq > v.seq+1 && now-oldest < v.cfg.GapWait {
			return
		}
		v.releaseAt(now, best)
	}
}

// lowest returns the index of the held packet with the lowest moves.
func (v *Server[S, I]) lowest() int {
	best, bestSeq := 0, uint32(0)
	for i := range v.held {
		if err := DecodePacket(&v.pkt, v.held[i].b, v.g, v.ref()); err != nil {
			continue // decoded before; cannot happen
		}
		if first := v.pkt.Moves[0].Seq; i == 0 || first < bestSeq {
			best, bestSeq = i, first
		}
	}
	return best
}

// releaseAt applies held packet i.
func (v *Server[S, I]) releaseAt(now time.Duration, i int) {
	err := DecodePacket(&v.pkt, v.held[i].b, v.g, v.ref()) // while its anchor is held with it
	last := len(v.held) - 1
	v.held[i], v.held[last] = v.held[last], v.held[i] // keep the buffer for reuse
	v.held = v.held[:last]
	if err == nil {
		v.apply(now, &v.pkt)
	}
}

// apply applies the moves of a decoded packet received at server time now.
func (v *Server[S, I]) apply(now time.Duration, p *Packet[I]) {
	last := false
	for i := range p.Moves {
		m := p.Moves[i]
		last = false
		if m.Seq <= v.seq {
			v.stats.Stale++
			continue
		}
		if m.Seq > v.seq+1 {
			v.stats.Lost += uint64(m.Seq - v.seq - 1)
		}
		v.seq = m.Seq
		h := &v.moves[m.Seq%inputRing]
		h.seq, h.end, h.in = m.Seq, m.Time, append(h.in[:0], p.input(i)...)
		if m.Time <= v.tApplied {
			v.stats.BadTimes++
			continue
		}
		v.tClient = m.Time
		end := m.Time
		if v.cfg.TimeAllowance >= 0 {
			if lim := now + v.cfg.TimeAllowance; end > lim {
				v.stats.Ahead++
				v.stats.AheadTime += end - max(lim, v.tApplied)
				end = lim
			}
		}
		if end <= v.tApplied {
			// Ahead, and the moves before it already reached the limit:
			// nothing left to simulate, but the input counts.
			end = v.tApplied
		}
		dt := end - v.tApplied
		if dt > v.cfg.MaxMoveDelta {
			v.stats.Clamped++
			dt = v.cfg.MaxMoveDelta
		}
		v.tApplied = max(v.tApplied, end)
		in, ok := v.g.Clamp(m.Input)
		if !ok {
			v.stats.BadInputs++
			var zero I
			in = zero
		}
		m.Input, m.Dt, m.Time = in, dt, v.tApplied
		m.View = max(min(m.View, m.Time, now), m.Time-v.cfg.MaxViewLag)
		if dt > 0 {
			v.state = v.g.Move(v.state, &m)
		}
		v.stats.Moves++
		if v.onMove != nil {
			v.onMove(&m, v.state)
		}
		last = i == len(p.Moves)-1
	}
	if v.pending && v.fix >= v.adj.ID {
		v.pending = false
	}
	switch {
	case v.pending:
	case last && p.HasPos:
		v.stats.Compared++
		d := p.PosError(v.g.Pos(v.state))
		if !(d <= v.stats.MaxError) {
			v.stats.MaxError = d
		}
		if d <= v.cfg.MaxError {
			v.ackDue = true
		} else {
			v.queue(Adjust)
		}
	default:
		// Nothing new to judge (copies of moves applied): acknowledge
		// them again, so a client resending after an outage moves on.
		v.ackDue = true
	}
}

// ref returns what packets are decoded against.
func (v *Server[S, I]) ref() Ref {
	return Ref{Seq: v.seq, Fix: v.nextID, Held: v.lookup}
}

// queue makes an adjustment or a reset of the current state the reply owed.
func (v *Server[S, I]) queue(k ReplyKind) {
	v.nextID++
	v.adj = Reply[S]{Kind: k, Seq: v.seq, ID: v.nextID, Time: v.tClient, State: v.state}
	v.pending, v.adjSent, v.ackDue = true, false, false
}

// Teleport sets the character's state (the game moved it: a respawn, a
// kickoff); the client is sent a reset after the newest move applied.
func (v *Server[S, I]) Teleport(s S) {
	v.state = s
	v.queue(Reset)
}

// Resetting reports whether a reset (Teleport) awaits the client's
// confirmation: the moves arriving meanwhile were made before the client
// knew of it (a game may void what they do, such as shots fired by a player
// who was respawned).
func (v *Server[S, I]) Resetting() bool { return v.pending && v.adj.Kind == Reset }

// AppendReply appends to dst the reply owed at server time now, if any: an
// adjustment or a reset not yet confirmed by the client (again every
// ResendInterval until it is), otherwise an acknowledgement of the newest move
// applied, at most one per AckInterval. It returns dst unchanged when nothing
// is owed.
func (v *Server[S, I]) AppendReply(dst []byte, now time.Duration) []byte {
	v.release(now)
	if v.pending {
		if v.adjSent && now-v.adjAt < v.cfg.ResendInterval {
			return dst
		}
		switch {
		case v.adjSent:
			v.stats.Resent++
		case v.adj.Kind == Reset:
			v.stats.Resets++
		default:
			v.stats.Adjustments++
		}
		v.adjSent, v.adjAt = true, now
		return AppendReply(dst, v.g, &v.adj)
	}
	if v.ackDue && (!v.ackSent || now-v.ackAt >= v.cfg.AckInterval || v.gapNew) {
		v.ackDue, v.ackSent, v.ackAt, v.gapNew = false, true, now, false
		v.stats.Acks++
		v.ack = Reply[S]{Kind: Ack, Seq: v.seq, Gap: len(v.held) > 0}
		return AppendReply(dst, v.g, &v.ack)
	}
	return dst
}

// State returns the character's authoritative state: after the newest move
// applied.
func (v *Server[S, I]) State() S { return v.state }

// Seq returns the newest move applied or skipped.
func (v *Server[S, I]) Seq() uint32 { return v.seq }

// Time returns the end of the newest move applied, as accepted.
func (v *Server[S, I]) Time() time.Duration { return v.tApplied }

// Started reports whether a packet has arrived.
func (v *Server[S, I]) Started() bool { return v.started }

// Flagged reports whether a move of this client ended more than
// TimeAllowance past the server's clock: its clock runs fast or jumped ahead.
func (v *Server[S, I]) Flagged() bool { return v.stats.Ahead > 0 }

// Stats returns the counters.
func (v *Server[S, I]) Stats() ServerStats { return v.stats }
