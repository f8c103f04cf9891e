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
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netsim"
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

// maxBatch is the largest FrameBatch, in bytes, MeterBrowsers takes.
const maxBatch = 4 << 20

// errBatch reports a FrameBatch that MeterBrowsers refused.
var errBatch = errors.New("tether/match: frame batch")

// MeterBrowsers measures the match's browser players (ServeBrowsers) with
// m as the bots are measured: it returns the function that takes a
// browser's frame records, a FrameBatch in JSON (at most 4 MiB), as the
// browser client posts them (web.PlayConfig.Frames), from its first frame
// on once it knows its player (a batch's frames are its first frame's
// player's). A browser gets a row of m of its own (Meter.Add, predicting
// its player, over link) at its first batch, and the server's moves of that player are fed to m as a bot's
// are. The records' wall clock is taken as the server's, so the rows are
// right only for browsers on the server's machine.
func (l *Live) MeterBrowsers(m *Meter, link netsim.LinkConfig) func(body io.Reader) error {
	up, down := link.Latency()
	rm := newRecordMeter(m, MeteredBot{Up: up, Down: down, Spikes: link.Spiky(), Predicts: true}, l.core.Config().MaxClients, l.epoch)
	l.mu.Lock()
	l.records = rm
	l.mu.Unlock()
	return rm.take
}

// recordMeter feeds a Meter the frames of clients that post FrameRecords,
// a row each, by player.
type recordMeter struct {
	m       *Meter
	link    MeteredBot
	max     uint32    // players' slots
	epoch   time.Time // the wall-clock time at which true time was zero
	mu      sync.Mutex
	rows    map[uint32]int // by player
	scratch client.Frame
}

func newRecordMeter(m *Meter, link MeteredBot, maxClients int, epoch time.Time) *recordMeter {
	return &recordMeter{m: m, link: link, max: uint32(maxClients), epoch: epoch, rows: map[uint32]int{}}
}

// take measures the frames of a FrameBatch in JSON read from body, all of
// them in the row of the player its first frame that knows one names.
func (rm *recordMeter) take(body io.Reader) error {
	var b FrameBatch
	if err := json.NewDecoder(io.LimitReader(body, maxBatch)).Decode(&b); err != nil {
		return fmt.Errorf("%w: %w", errBatch, err)
	}
	origin := time.Unix(0, b.Origin)
	i := slices.IndexFunc(b.Frames, func(r FrameRecord) bool { return r.HasSelf })
	if i < 0 {
		return fmt.Errorf("%w: no frame knows its player", errBatch)
	}
	self := b.Frames[i].Self
	rm.mu.Lock()
	defer rm.mu.Unlock()
	row, ok := rm.rows[self]
	if !ok {
		if self < soccer.FirstPlayerID || self-soccer.FirstPlayerID >= rm.max {
			return fmt.Errorf("%w: player %d", errBatch, self)
		}
		row = rm.m.Add(rm.link)
		rm.rows[self] = row
	}
	for i := range b.Frames {
		r := &b.Frames[i]
		r.T = origin.Add(r.T).Sub(rm.epoch)
		for j := range r.Corrections {
			r.Corrections[j].T = origin.Add(r.Corrections[j].T).Sub(rm.epoch)
		}
		rm.m.Record(row, r, &rm.scratch)
	}
	return nil
}

// moved feeds a move of player id's predicted player to its row, if it
// has one.
func (rm *recordMeter) moved(id uint32, mv *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	rm.mu.Lock()
	row, ok := rm.rows[id]
	rm.mu.Unlock()
	if ok {
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
