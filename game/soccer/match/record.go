package match

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/server"
)

// FrameRecord is one frame of a client that is not a Bot (a browser's), as
// the Meter measures it (Meter.Record): what a bot's frame hands the Meter,
// in a form that travels as JSON. Times are durations on the clock
// FrameBatch.Origin says.
type FrameRecord struct {
	T       time.Duration `json:"t"`                 // the frame's time
	Replied bool          `json:"replied,omitempty"` // the client's clock had its first reply
	Ready   bool          `json:"ready,omitempty"`   // client.Frame.Ready
	Server  time.Duration `json:"server"`            // the clock's estimate of server time
	Bound   time.Duration `json:"bound"`             // the clock's error bound
	Self    uint32        `json:"self"`              // the own player, if HasSelf
	HasSelf bool          `json:"hasSelf,omitempty"`
	// OwnSeq is the sequence number of the own player's newest move
	// (movement.Client.Seq), -1 if the client does not predict it.
	OwnSeq int `json:"ownSeq"`
	// Action and ActionSeq are those of the input decided at the frame.
	Action    soccer.Action `json:"action,omitempty"`
	ActionSeq uint8         `json:"actionSeq,omitempty"`
	// Entities are the ball and the players as the frame draws them.
	Entities []RecordedEntity `json:"entities,omitempty"`
	// Corrections are the own player's adjustments the client applied
	// since the frame before.
	Corrections []RecordedCorrection `json:"corrections,omitempty"`
}

// RecordedEntity is an entity as a frame draws it (client.Entity).
type RecordedEntity struct {
	ID           uint32        `json:"id"`
	Kind         uint8         `json:"kind"`
	Pos          geom.Vec3     `json:"pos"` // metres
	RenderTime   time.Duration `json:"rt"`  // server time drawn
	Cut          bool          `json:"cut,omitempty"`
	Extrapolated bool          `json:"ex,omitempty"`
	Frozen       bool          `json:"fr,omitempty"`
	Predicted    bool          `json:"pr,omitempty"`
}

// RecordedCorrection is an adjustment of the own player's prediction
// (movement.Correction of kind Adjust): when, and its error in metres.
type RecordedCorrection struct {
	T     time.Duration `json:"t"`
	Error float64       `json:"error"`
}

// FrameBatch is a client's frames as it posts them to be measured (the
// browser client to the demo: web.PlayConfig.Frames).
type FrameBatch struct {
	// Session names the client's session, a number it draws at random
	// when it starts: the Meter gives each session a row of its own, so
	// a client that later plays the same player (a slot given again)
	// does not continue another's row.
	Session uint64 `json:"session"`
	// Origin is the wall-clock time (Unix, ns) at which the records'
	// clock read zero.
	Origin int64         `json:"origin"`
	Frames []FrameRecord `json:"frames"`
}

// NewFrameRecord returns the record of client frame f, at time t on the
// clock of the batch it goes in: what g, the client's game, drew and
// predicted, in the input decided at the frame, and whether the client's
// clock had its first reply. It shares nothing with f.
func NewFrameRecord(t time.Duration, f *client.Frame, g *soccer.ClientGame, in soccer.Input, replied bool) FrameRecord {
	r := FrameRecord{T: t, Replied: replied, Ready: f.Ready, Server: f.Server, Bound: f.Bound, Self: f.Self, HasSelf: f.HasSelf,
		OwnSeq: -1, Action: in.Action, ActionSeq: in.ActionSeq}
	if o := g.Own(); o != nil {
		r.OwnSeq = int(o.Seq())
	}
	for _, e := range f.Entities {
		if e.ID == soccer.BallID || e.Kind == soccer.KindPlayer {
			r.Entities = append(r.Entities, RecordedEntity{ID: e.ID, Kind: e.Kind, Pos: e.Pos, RenderTime: e.RenderTime,
				Cut: e.Cut, Extrapolated: e.Extrapolated, Frozen: e.Frozen, Predicted: e.Predicted})
		}
	}
	return r
}

// Correction returns the record of an adjustment c applied at time t, and
// false for a correction the Meter does not count (a reset).
func Correction(t time.Duration, c movement.Correction) (RecordedCorrection, bool) {
	return RecordedCorrection{T: t, Error: c.Error}, c.Kind == movement.Adjust
}

// frame fills f with the frame r recorded.
func (r *FrameRecord) frame(f *client.Frame) {
	*f = client.Frame{Ready: r.Ready, Server: r.Server, Bound: r.Bound, Self: r.Self, HasSelf: r.HasSelf, Entities: f.Entities[:0]}
	for _, e := range r.Entities {
		f.Entities = append(f.Entities, client.Entity{ID: e.ID, Kind: e.Kind, Pos: e.Pos, RenderTime: e.RenderTime,
			Cut: e.Cut, Extrapolated: e.Extrapolated, Frozen: e.Frozen, Predicted: e.Predicted})
	}
}

// Bounds on what MeterBrowsers takes: the largest FrameBatch in bytes, its
// most frames (the browser client posts 30 at a time), and the most frames
// of one session's row (an hour at 60 Hz). Rows are at most BrowserSlots.
const (
	maxBatch       = 1 << 20
	maxBatchFrames = 300
	maxRowFrames   = 60 * 60 * 60
)

// errBatch reports a FrameBatch that MeterBrowsers refused.
var errBatch = errors.New("tether/match: frame batch")

// MeterBrowsers measures the match's browser players (ServeBrowsers) with
// m as the bots are measured: it returns the function that takes a
// browser's frame records, a FrameBatch in JSON (at most 1 MiB and 300
// frames), as the browser client posts them (web.PlayConfig.Frames), from
// its first frame on once it knows its player (a batch's frames are its
// first frame's player's), which a browser connected to the match's
// browser slots must play. A browser's session (FrameBatch.Session) gets a
// row of m of its own (Meter.Add, predicting its player, over link) at its
// first batch, for at most BrowserSlots sessions and 216,000 frames (an
// hour at 60 Hz) each, and the server's moves of that player are fed to m
// as a bot's are; its traffic is BrowserNet's. The records' wall clock is taken as
// the server's, so the rows are right only for browsers on the server's
// machine.
func (l *Live) MeterBrowsers(m *Meter, link netsim.LinkConfig) func(body io.Reader) error {
	rm := newRecordMeter(m, MeteredBot{Link: measure.LinkOf(link), Predicts: true}, l.core.Config().MaxClients, l.epoch, l.browserCounters)
	l.mu.Lock()
	l.records = rm
	l.mu.Unlock()
	return rm.take
}

// BrowserNet returns the traffic of the browser measured in row i of the
// Meter MeterBrowsers measures with, from its first batch to its last, as
// NetBetween measures a bot's, but from the server's counters of its slot
// (server.ClientStats): the payloads the server sent it (down: before the
// link's loss) and took from it (up: after it), each in netcode's packet
// (its header and tag, by netcode.PayloadOverhead) plus 28 bytes of IPv4
// and UDP header, so that it compares with a UDP client's. The carrier's
// own headers are not in it (a WebSocket's framing, 2 bytes a message
// down and 6 up, and TCP's segments; WebTransport's QUIC packet and
// DATAGRAM frame headers and AEAD tag, 25 to 29 bytes a datagram, and
// QUIC's acknowledgements): the row's net.* is the client's traffic as
// it would be over UDP. Both directions are split by kind, and the clock's
// messages counted each way, from the server's counts (up: the messages it
// read from the client's payloads, server.ClientStats.InputBytes, AckBytes
// and PingBytes), as a bot's are from its client's. It reports false for a
// row that is not a browser's.
func (l *Live) BrowserNet(i int) (measure.NetMetrics, bool) {
	l.mu.Lock()
	rm := l.records
	l.mu.Unlock()
	if rm == nil {
		return measure.NetMetrics{}, false
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	for _, r := range rm.rows {
		if r.row == i {
			return NetBetween(r.first, r.last), true
		}
	}
	return measure.NetMetrics{}, false
}

// browserCounters reads the server's counters of the slot of browser
// player id now, from the client's side (In is what the server sent), and
// false if no client of the browser slots plays id.
func (l *Live) browserCounters(id uint32) (NetCounters, bool) {
	slot := -1
	l.mu.Lock()
	for _, p := range l.truth.Players {
		if p.ID == id && p.Client >= udpSlots(l.core.Config().MaxClients) {
			slot = p.Client
		}
	}
	l.mu.Unlock()
	var cs server.ClientStats
	ok := false
	l.srv.Do(func(s *server.Server) {
		if slot >= 0 {
			cs, ok = s.ClientStats(slot)
		}
	})
	if !ok {
		return NetCounters{}, false
	}
	// The sequence numbers of a slot's packets grow with its packets: the
	// header of the newest is taken for all (2 bytes of sequence from the
	// 256th packet to the 65,535th).
	in, out := uint64(netcode.PayloadOverhead(cs.PacketsOut)), uint64(netcode.PayloadOverhead(cs.PacketsIn))
	return NetCounters{At: l.srv.Now(),
		PacketsIn: cs.PacketsOut, BytesIn: cs.BytesOut + cs.PacketsOut*in,
		PacketsOut: cs.PacketsIn, BytesOut: cs.BytesIn + cs.PacketsIn*out,
		In: measure.NetKinds{Snapshots: float64(cs.SnapshotBytes), Replies: float64(cs.ReplyBytes),
			Clock: float64(cs.PongBytes), Events: float64(cs.EventBytes)},
		Out: measure.NetKinds{Inputs: float64(cs.InputBytes), Acks: float64(cs.AckBytes), Clock: float64(cs.PingBytes)},
	}, true
}

// recordMeter feeds a Meter the frames of clients that post FrameRecords,
// a row each, by session.
type recordMeter struct {
	m        *Meter
	link     MeteredBot
	max      uint32    // players' slots
	epoch    time.Time // the wall-clock time at which true time was zero
	counters func(id uint32) (NetCounters, bool)
	mu       sync.Mutex
	rows     map[uint64]*recordRow // by session
	scratch  client.Frame
}

// newRecordMeter returns the recordMeter of m's rows of clients over link,
// in a match of maxClients slots whose true time was zero at epoch;
// counters, if not nil, reads the traffic of player id's slot.
func newRecordMeter(m *Meter, link MeteredBot, maxClients int, epoch time.Time, counters func(id uint32) (NetCounters, bool)) *recordMeter {
	return &recordMeter{m: m, link: link, max: uint32(maxClients), epoch: epoch, counters: counters, rows: map[uint64]*recordRow{}}
}

// recordRow is a session's row of the Meter.
type recordRow struct {
	row         int
	self        uint32      // its player
	frames      int         // frames taken
	first, last NetCounters // its slot's traffic at its first batch and at its last
}

// take measures the frames of a FrameBatch in JSON read from body, all of
// them in its session's row, whose player the first frame that knows one
// names and, with counters, a browser plays now.
func (rm *recordMeter) take(body io.Reader) error {
	var b FrameBatch
	if err := json.NewDecoder(io.LimitReader(body, maxBatch)).Decode(&b); err != nil {
		return fmt.Errorf("%w: %w", errBatch, err)
	}
	if len(b.Frames) > maxBatchFrames {
		return fmt.Errorf("%w: %d frames, more than %d", errBatch, len(b.Frames), maxBatchFrames)
	}
	origin := time.Unix(0, b.Origin)
	i := slices.IndexFunc(b.Frames, func(r FrameRecord) bool { return r.HasSelf })
	if i < 0 {
		return fmt.Errorf("%w: no frame knows its player", errBatch)
	}
	self := b.Frames[i].Self
	if self < soccer.FirstPlayerID || self-soccer.FirstPlayerID >= rm.max {
		return fmt.Errorf("%w: player %d", errBatch, self)
	}
	var net NetCounters
	counted := false
	if rm.counters != nil {
		net, counted = rm.counters(self) // not under rm.mu: the server's goroutine takes it (moved)
		if !counted {
			return fmt.Errorf("%w: player %d is not a connected browser's", errBatch, self)
		}
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	r, ok := rm.rows[b.Session]
	if !ok {
		if len(rm.rows) >= BrowserSlots {
			return fmt.Errorf("%w: %d sessions measured already", errBatch, len(rm.rows))
		}
		r = &recordRow{row: rm.m.Add(rm.link), self: self}
		rm.rows[b.Session] = r
	}
	if r.self != self {
		return fmt.Errorf("%w: session %d plays player %d, not %d", errBatch, b.Session, r.self, self)
	}
	if r.frames+len(b.Frames) > maxRowFrames {
		return fmt.Errorf("%w: session %d has %d frames, at most %d", errBatch, b.Session, r.frames, maxRowFrames)
	}
	r.frames += len(b.Frames)
	if counted {
		if r.first.At == 0 {
			r.first = net
		}
		r.last = net
	}
	for i := range b.Frames {
		f := &b.Frames[i]
		f.T = origin.Add(f.T).Sub(rm.epoch)
		for j := range f.Corrections {
			f.Corrections[j].T = origin.Add(f.Corrections[j].T).Sub(rm.epoch)
		}
		rm.m.Record(r.row, f, &rm.scratch)
	}
	return nil
}

// moved feeds a move of player id's predicted player to the row of the
// session that plays it, if one does.
func (rm *recordMeter) moved(id uint32, mv *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	rm.mu.Lock()
	row := -1
	for _, r := range rm.rows {
		if r.self == id {
			row = max(row, r.row) // the newest session playing id
		}
	}
	rm.mu.Unlock()
	if row >= 0 {
		rm.m.moved(row, mv, s)
	}
}

// browserMoved feeds a move of client's predicted player to the Meter of
// MeterBrowsers, if client is a browser it measures. It runs on the
// server's goroutine, which alone writes l.truth.
func (l *Live) browserMoved(client int, mv *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	l.mu.Lock()
	rm := l.records
	var id uint32
	for _, p := range l.truth.Players {
		if p.Client == client {
			id = p.ID
		}
	}
	l.mu.Unlock()
	if rm != nil && id != 0 {
		rm.moved(id, mv, s)
	}
}
