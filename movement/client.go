package movement

import (
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/wire"
)

// ClientConfig configures a Client. The zero value gives the defaults noted.
type ClientConfig struct {
	// MaxMoves is the number of saved moves held (sent, not yet
	// acknowledged); 0 means 256, over 4 s at 60 moves a second. When it is
	// full the oldest is forgotten. Range [8, 65536].
	MaxMoves int
	// Redundancy is how many packets after its first each move is sent in
	// again, so that that many consecutive lost packets lose no input; 0
	// means as many as SendIntervals cover 100 ms (6 at 60 packets a
	// second, 3 at 30), negative means none. Range up to 16. A move goes in at most
	// 1+Redundancy packets unless the server's acknowledgements show it lost
	// (then the client goes back to it), however long its acknowledgement
	// takes.
	Redundancy int
	// PacketMoves is the most moves one packet carries; 0 means 16. Range
	// [1, MaxPacketMoves]. With a backlog of moves not yet sent
	// 1+Redundancy times that does not fit (after an outage), a packet
	// carries the oldest of those, so that the backlog goes out over the
	// next packets.
	PacketMoves int
	// SendInterval is the least time between two packets (3/4 of it, so that
	// a frame rate equal to the send rate sends on every frame); moves made
	// in between are combined where Game.Combine allows. 0 means 1/60 s; a
	// game sets its own (each packet's headers outweigh its moves). Range up
	// to 1 s.
	SendInterval time.Duration
	// MaxMoveDelta is the longest move; a longer frame becomes several
	// moves. It must not exceed the server's. 0 means 125 ms. Range 1 ms to
	// 1 s.
	MaxMoveDelta time.Duration
	// MaxGap is the longest frame simulated at all: a longer one (the clock
	// jumped, the program was suspended) moves nothing. 0 means 1 s. Range
	// [MaxMoveDelta, 1 min].
	MaxGap time.Duration
	// Smoothing hides corrections.
	Smoothing Smoothing
	// OnCorrection, if set, is called with every adjustment and reset
	// applied.
	OnCorrection func(c Correction)
}

func (c *ClientConfig) fill() error {
	if c.MaxMoves == 0 {
		c.MaxMoves = 256
	}
	if c.MaxMoves < 8 || c.MaxMoves > 65536 {
		return configErr("MaxMoves", c.MaxMoves, "8 to 65536")
	}
	if c.SendInterval == 0 {
		c.SendInterval = time.Second / 60
	}
	if c.SendInterval < 0 || c.SendInterval > time.Second {
		return configErr("SendInterval", c.SendInterval, "0 to 1s")
	}
	switch {
	case c.Redundancy == 0:
		c.Redundancy = int(min(16, max(1, (redundancyTime+c.SendInterval-1)/max(c.SendInterval, 1))))
	case c.Redundancy < 0:
		c.Redundancy = 0
	case c.Redundancy > 16:
		return configErr("Redundancy", c.Redundancy, "up to 16")
	}
	if c.PacketMoves == 0 {
		c.PacketMoves = 16
	}
	if c.PacketMoves < 1 || c.PacketMoves > MaxPacketMoves {
		return configErr("PacketMoves", c.PacketMoves, "1 to 64")
	}
	if err := fillDelta(&c.MaxMoveDelta); err != nil {
		return err
	}
	if c.MaxGap == 0 {
		c.MaxGap = time.Second
	}
	if c.MaxGap < c.MaxMoveDelta || c.MaxGap > time.Minute {
		return configErr("MaxGap", c.MaxGap, "MaxMoveDelta to 1m")
	}
	return c.Smoothing.fill()
}

// redundancyTime is the span of packets that carry each move by default
// (ClientConfig.Redundancy): a burst of loss that long loses no input.
const redundancyTime = 100 * time.Millisecond

// Correction describes an adjustment or a reset the client applied.
type Correction struct {
	Kind ReplyKind     // Adjust or Reset
	Seq  uint32        // the move the server's state follows
	Time time.Duration // that move's end
	// Error is how far the client's prediction after move Seq was from the
	// server's, metres; 0 if the client no longer held that move.
	Error float64
	// Offset is the visual difference the correction made, metres: the
	// render offset it left to decay (0 for a reset, which is shown at
	// once).
	Offset   float64
	Snapped  bool // Offset was beyond Smoothing.Snap, so it was shown at once
	Replayed int  // moves replayed on top of the server's state
}

// ClientStats are a Client's counters.
type ClientStats struct {
	Moves       uint64 // moves made
	Combined    uint64 // frames folded into the move before them
	Packets     uint64 // packets built
	Resends     uint64 // times the client went back to resend moves the server did not acknowledge
	Acks        uint64 // acknowledgements that freed moves
	Corrections uint64 // adjustments applied
	Resets      uint64 // resets applied
	Snaps       uint64 // adjustments shown at once, being beyond Smoothing.Snap
	Duplicates  uint64 // replies ignored as already applied
	BadReplies  uint64 // replies that did not decode or named a move not made
	Replayed    uint64 // moves replayed after an adjustment or a reset
	Dropped     uint64 // saved moves forgotten to a full buffer, never acknowledged
	Gaps        uint64 // frames longer than MaxGap, not simulated
	Saved       int    // moves held now
}

type saved[S, I any] struct {
	m      Move[I]
	end    S
	sent   bool          // sent at least once: never combined into again
	sends  int           // packets it went in since it was made, or since the client went back
	sentAt time.Duration // estimated server time of its first send
	resent bool          // sent again after the client went back: its acknowledgement times no round trip
}

// Client predicts the player's own character: every frame's input becomes a
// move, simulated at once and saved until the server acknowledges it; it
// builds the packets that carry the moves, applies the server's replies, and
// says where to draw the character. Times are the client's estimate of server
// time. It does no I/O and is not safe for concurrent use. Create it with
// NewClient.
type Client[S, I any] struct {
	cfg ClientConfig
	g   Game[S, I]

	ring    []saved[S, I]
	head, n int
	base    S // the state before the oldest saved move
	state   S // the state after the newest move

	started bool
	last    time.Duration // end of the newest move (the time base before any)
	seq     uint32        // the newest move's number
	acked   uint32
	fix     uint32 // ID of the newest adjustment or reset applied
	synced  bool

	sentAny    bool
	lastSend   time.Duration
	progressAt time.Duration // when the server last acknowledged something (or the first send)
	srtt       time.Duration // smoothed time from a move's first send to its acknowledgement
	stalled    bool          // the client went back for want of acknowledgements, which still do not come
	goBack     bool          // an acknowledgement showed the oldest move lost
	backAt     time.Duration // when the client last went back to resend

	off Offset
	cut bool

	anchor    uint32        // the newest move the server acknowledged that the client held
	anchorEnd time.Duration // its end
	anchorIn  []byte        // its input's encoding

	pkt     Packet[I]
	reply   Reply[S]
	scratch []byte
	stats   ClientStats
}

// NewClient returns a Client for game g predicting from state initial until
// the server's first reset, or an error wrapping ErrConfig.
func NewClient[S, I any](cfg ClientConfig, g Game[S, I], initial S) (*Client[S, I], error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	return &Client[S, I]{cfg: cfg, g: g, ring: make([]saved[S, I], cfg.MaxMoves), base: initial, state: initial,
		srtt: 200 * time.Millisecond, pkt: Packet[I]{Moves: make([]Move[I], 0, cfg.PacketMoves)}}, nil
}

// Config returns the configuration in use, defaults filled in.
func (c *Client[S, I]) Config() ClientConfig { return c.cfg }

func (c *Client[S, I]) at(i int) *saved[S, I] { return &c.ring[(c.head+i)%len(c.ring)] }

// Move makes the move of a frame at estimated server time now, with input in,
// while the frame shows the world at server time view, and simulates it at
// once; it returns the predicted state. The move covers the time since the
// previous call (the first call only starts the clock): a frame longer than
// MaxMoveDelta becomes several moves, one longer than MaxGap moves nothing,
// and a clock that did not advance makes no move. The input is simulated as
// the server will decode it.
func (c *Client[S, I]) Move(now, view time.Duration, in I) S {
	t := now - now%wire.TimeUnit
	if !c.started {
		c.started, c.last = true, t
		return c.state
	}
	dt := t - c.last
	if dt <= 0 {
		return c.state
	}
	if dt > c.cfg.MaxGap {
		c.last = t
		c.stats.Gaps++
		return c.state
	}
	in = c.wire(in)
	view = min(view, t)
	for dt > 0 {
		d := min(dt, c.cfg.MaxMoveDelta)
		end := c.last + d
		if c.n > 0 {
			if p := c.at(c.n - 1); !p.sent && p.m.Time == c.last && p.m.Dt+d <= c.cfg.MaxMoveDelta && c.g.Combine(p.m.Input, in) {
				start := c.base
				if c.n > 1 {
					start = c.at(c.n - 2).end
				}
				p.m.Dt += d
				p.m.Time = end
				p.end = c.g.Move(start, &p.m)
				c.state, c.last = p.end, end
				c.stats.Combined++
				dt -= d
				continue
			}
		}
		if c.n == len(c.ring) {
			c.base = c.at(0).end
			c.head = (c.head + 1) % len(c.ring)
			c.n--
			c.stats.Dropped++
		}
		c.seq++
		s := c.at(c.n)
		*s = saved[S, I]{m: Move[I]{Seq: c.seq, Time: end, Dt: d, View: view, Input: in}}
		s.end = c.g.Move(c.state, &s.m)
		c.n++
		c.state, c.last = s.end, end
		c.stats.Moves++
		dt -= d
	}
	return c.state
}

// wire returns in as the server will simulate it: clamped, encoded, decoded
// and clamped again.
func (c *Client[S, I]) wire(in I) I {
	var zero I
	in, ok := c.g.Clamp(in)
	if !ok {
		in = zero
	}
	c.scratch = c.g.AppendInput(c.scratch[:0], in)
	dec := in // what the encoding does not carry stays
	if _, err := c.g.DecodeInput(&dec, c.scratch); err != nil {
		return in
	}
	if dec, ok = c.g.Clamp(dec); !ok {
		return zero
	}
	return dec
}

// AppendPacket appends to dst the packet to send at estimated server time now,
// if one is due: the saved moves sent in fewer than 1+Redundancy packets,
// oldest first, at most PacketMoves of them, and the predicted position after
// the last. None is due within 3/4 SendInterval of the previous one, nor when
// there is nothing to send. When the server has acknowledged nothing for a while
// (twice the usual time to an acknowledgement, plus 50 ms, at least 150 ms),
// or acknowledged the moves before one sent longer ago than the usual time
// to an acknowledgement plus 50 ms, the client sends again from the oldest
// move not acknowledged.
func (c *Client[S, I]) AppendPacket(dst []byte, now time.Duration) ([]byte, bool) {
	// Until the server's first reset every move goes at once: the
	// prediction starts (and is drawn) when that reset arrives.
	if c.n == 0 || (c.synced && now-c.lastSend < c.cfg.SendInterval*3/4) {
		return dst, false
	}
	full := c.cfg.Redundancy + 1
	stall := now-c.progressAt > max(150*time.Millisecond, 2*c.srtt+50*time.Millisecond)
	if c.sentAny && c.at(0).sent && (c.goBack || stall && (!c.stalled || now-c.backAt > c.srtt)) {
		// An acknowledgement showed the oldest move lost, or nothing was
		// acknowledged for a while (what was sent may be lost): send every
		// move not acknowledged once more, oldest first, and again after a
		// round trip if the server still acknowledges nothing.
		c.goBack, c.stalled, c.backAt = false, stall, now
		c.stats.Resends++
		for i := range c.n {
			if s := c.at(i); s.sent {
				s.sends, s.resent = min(s.sends, full-1), true
			}
		}
	}
	c.stalled = c.stalled && stall
	lo := 0 // from the first move sent fewer than 1+Redundancy times
	for lo < c.n && c.at(lo).sends >= full {
		lo++
	}
	if lo == c.n {
		return dst, false // every move sent often enough: wait for the server
	}
	c.pkt.Moves = c.pkt.Moves[:0]
	for i := lo; i < c.n && len(c.pkt.Moves) < c.cfg.PacketMoves; i++ {
		s := c.at(i)
		if i > lo && s.m.Time-s.m.Dt != c.at(i-1).m.Time {
			break // after a gap in time: in a packet of its own, later
		}
		if !s.sent {
			s.sent, s.sentAt = true, now
		}
		s.sends++
		c.pkt.Moves = append(c.pkt.Moves, s.m)
	}
	hi := lo + len(c.pkt.Moves)
	c.pkt.Fix = c.fix
	c.pkt.Anchor, c.pkt.AnchorEnd, c.pkt.AnchorInput = c.anchor, c.anchorEnd, c.anchorIn
	c.pkt.HasPos, c.pkt.Pos = true, c.g.Pos(c.at(hi-1).end)
	if !c.sentAny {
		c.progressAt = now
	}
	c.sentAny, c.lastSend = true, now
	c.stats.Packets++
	return AppendPacket(dst, c.g, &c.pkt), true
}

// HandleReply applies a reply from the server received at estimated server
// time now. An acknowledgement forgets the moves it covers. An adjustment or a
// reset restores the server's state after the move it names, forgets that
// move and the older ones, and replays the newer ones on top; an adjustment's
// visual difference becomes a decaying render offset (or a jump beyond
// Smoothing.Snap), a reset's is shown at once. A reply already applied is
// ignored. A reply that does not decode returns its error and changes
// nothing.
func (c *Client[S, I]) HandleReply(b []byte, now time.Duration) error {
	r := &c.reply
	if err := DecodeReply(r, b, c.g); err != nil {
		c.stats.BadReplies++
		return err
	}
	if r.Seq > c.seq {
		c.stats.BadReplies++
		return ErrMalformed
	}
	if r.Kind == Ack {
		if r.Seq > c.acked {
			c.forget(r.Seq, now)
			c.acked = r.Seq
			c.progressAt = now
			c.stats.Acks++
		}
		// The server has applied up to r.Seq; the move after it was lost
		// on the way if the server says it holds later ones (Gap; unless
		// the client sent it again less than a round trip ago: it is on its
		// way), or if it was sent well over a round trip ago: send again
		// from it.
		first := c.at(0)
		if c.n > 0 && first.sent && (r.Gap && !(first.resent && now-c.backAt <= c.srtt) || now-first.sentAt > c.srtt+50*time.Millisecond) {
			c.goBack = true
		}
		return nil
	}
	if c.synced && r.ID <= c.fix {
		c.stats.Duplicates++
		return nil
	}
	drawn := c.g.Pos(c.state).Add(c.off.At(now, &c.cfg.Smoothing))
	corr := Correction{Kind: r.Kind, Seq: r.Seq, Time: r.Time}
	for i := range c.n {
		if s := c.at(i); s.m.Seq == r.Seq {
			corr.Error = c.g.Pos(s.end).Dist(c.g.Pos(r.State))
			break
		}
	}
	c.forget(r.Seq, now)
	c.base = r.State
	s := r.State
	for i := range c.n {
		p := c.at(i)
		s = c.g.Move(s, &p.m)
		p.end = s
	}
	c.state = s
	corr.Replayed = c.n
	c.stats.Replayed += uint64(c.n)
	c.fix = r.ID
	c.acked = max(c.acked, r.Seq)
	c.progressAt = now
	first := !c.synced
	c.synced = true
	if r.Kind == Reset || first {
		c.off.Clear()
		c.cut = true
		c.stats.Resets++
	} else {
		c.stats.Corrections++
		d := drawn.Sub(c.g.Pos(c.state))
		c.off.Clear()
		if l := d.Len(); l > c.cfg.Smoothing.Snap {
			corr.Snapped = true
			c.stats.Snaps++
		} else {
			c.off.Add(d, now, &c.cfg.Smoothing)
			corr.Offset = l
		}
	}
	if c.cfg.OnCorrection != nil {
		c.cfg.OnCorrection(corr)
	}
	return nil
}

// forget drops the saved moves up to seq, keeping the state after the last
// dropped as the base, and learns from their first sending how long
// acknowledgements take (not from moves sent again, whose acknowledgement
// may answer either sending: Karn's rule).
func (c *Client[S, I]) forget(seq uint32, now time.Duration) {
	var sample time.Duration = -1
	for c.n > 0 && c.at(0).m.Seq <= seq {
		s := c.at(0)
		if s.sent && !s.resent {
			sample = now - s.sentAt
		}
		if s.m.Seq == seq {
			// The server holds the move a while: later packets code
			// their first move against it (Packet.Anchor).
			c.anchor, c.anchorEnd, c.anchorIn = seq, s.m.Time, c.g.AppendInput(c.anchorIn[:0], s.m.Input)
		}
		c.base = s.end
		c.head = (c.head + 1) % len(c.ring)
		c.n--
	}
	if sample >= 0 {
		c.srtt += (sample - c.srtt) / 8
	}
}

// State returns the predicted state: after the newest move.
func (c *Client[S, I]) State() S { return c.state }

// Synced reports whether the server's first reset has arrived: before it the
// prediction started from a guess.
func (c *Client[S, I]) Synced() bool { return c.synced }

// Draw returns the predicted state and where to draw the character at
// estimated server time now: its position plus the decaying correction
// offset. cut is set once after a reset (and the first sync), when the
// drawing jumps on purpose and should not be smoothed by the caller.
func (c *Client[S, I]) Draw(now time.Duration) (s S, pos geom.Vec3, cut bool) {
	cut, c.cut = c.cut, false
	return c.state, c.g.Pos(c.state).Add(c.off.At(now, &c.cfg.Smoothing)), cut
}

// Offset returns the render offset still being blended out at now, metres.
func (c *Client[S, I]) Offset(now time.Duration) geom.Vec3 {
	return c.off.At(now, &c.cfg.Smoothing)
}

// Acked returns the newest move the server acknowledged (or adjusted).
func (c *Client[S, I]) Acked() uint32 { return c.acked }

// Seq returns the newest move's number.
func (c *Client[S, I]) Seq() uint32 { return c.seq }

// Stats returns the counters.
func (c *Client[S, I]) Stats() ClientStats {
	st := c.stats
	st.Saved = c.n
	return st
}
