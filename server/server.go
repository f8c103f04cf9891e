package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// Game is what a game provides to the server. Its methods are called from one
// goroutine, never concurrently. A game's snapshots are encoded by the
// replication layer if it is Replicated (every shipped game is); otherwise it
// encodes them itself, as a Snapshotter.
type Game interface {
	// Join adds a player for a client that connected and returns the entity
	// the client controls. An error refuses the client.
	Join(client int) (self uint32, err error)
	// Leave removes the client's player.
	Leave(client int)
	// Input hands the game an input from a client. Inputs older than one
	// already handed over are dropped before this; in.Data is only valid
	// during the call.
	Input(client int, in Input)
	// Step advances the world by one tick to server time t.Time. Events the
	// game emits are sent to every client on the reliable channel. It returns
	// true to have an extra snapshot sent after this tick (a kick, a contact,
	// a teleport), besides the regular ones.
	Step(t Tick, events Emitter) (extra bool)
}

// Replicated is implemented by a Game whose snapshots the replication layer
// (package replica) encodes: it declares its entity kinds once and fills the
// world of every tick a snapshot follows; the layer codes each client's
// snapshot against the newest baseline that client acknowledged, within
// Config.SnapshotBudget, and the client's half (client.Replicated) decodes
// it. The game writes no bits.
type Replicated interface {
	// Replication returns the game's schema and the layer's configuration
	// (relevance, observers); New calls it once.
	Replication() (*replica.Schema, replica.Config)
	// Replicate fills w, emptied, with the world of the tick just stepped:
	// every entity and the match's meta. It is called once per tick a
	// snapshot follows, after Step.
	Replicate(w *replica.World)
}

// Snapshotter is implemented by a Game that encodes its snapshots itself,
// the escape hatch for a game the replication layer does not serve (no
// shipped game uses it). The client's side then implements
// client.SnapshotDecoder.
type Snapshotter interface {
	// AppendSnapshot appends the game's part of the snapshot of the tick just
	// stepped: everything a client needs if regular is set, and what the game
	// chose to send between regular ones otherwise. It is called at most once
	// per tick, after Step.
	AppendSnapshot(dst []byte, regular bool) []byte
}

// PerClient is implemented by a Snapshotter that encodes every client's snapshot on
// its own: against a baseline that client acknowledged (a delta), and within
// a byte budget (the most important entities first, never a snapshot dropped
// whole), holding only what is relevant to that client if the game so
// chooses. The server then calls AppendSnapshotFor once per client and tick
// in place of AppendSnapshot, which such a game still implements for callers
// that want the same snapshot for everyone. A game opts in by implementing
// it; one that does not gets the shared snapshot as before.
//
// The client side of such a game marks the snapshots it keeps as baselines
// (client.Snapshot.Baseline); the client then sends the server the newest
// one's tick (a protocol Ack message), and the server passes the newest tick
// acknowledged to AppendSnapshotFor.
type PerClient interface {
	// AppendSnapshotFor appends the game's part of the snapshot of the tick
	// just stepped for one client, as AppendSnapshot does for all. acked is
	// the tick of the newest snapshot the client acknowledged keeping (0:
	// none yet). A snapshot encoded against a baseline the game is not sure
	// the client holds would not decode: without one (a joining client, one
	// whose acknowledgements stopped coming, or fell behind the game's
	// history) the game encodes it whole. What it appends must fit in budget
	// bytes (Config.SnapshotBudget less the header); a longer snapshot is
	// counted as Oversize and not sent.
	AppendSnapshotFor(dst []byte, client int, regular bool, acked uint64, budget int) []byte
}

// Emitter takes the events a game emits during Step.
type Emitter interface {
	// Emit sends e to every joined client, reliably and in order. The server
	// sets e.ID.
	Emit(e event.Event)
}

// Tick describes one simulation tick.
type Tick struct {
	N    uint64        // 1 for the first tick
	Time time.Duration // server time the tick simulates up to: N·Dt
	Dt   time.Duration // the tick's length, 1/TickHz
}

// Input is one input message from a client.
type Input struct {
	Seq uint32 // increases by one per input the client sent
	// Sent is the client's estimate of server time when it sent the input,
	// View the server time of what it was showing then; both 0 for Moves
	// (each move carries its own) and before the client's clock is ready.
	Sent time.Duration
	View time.Duration
	Data []byte // the game's bytes; only valid during Game.Input
	// Moves says Data is a packet of the moves a predicting client made
	// (what its client.Predictor appended, sent as a protocol Moves
	// message), not a plain input.
	Moves bool
	// Arrival is the server time the input arrived (Receive's now), which
	// may be later than the last tick's time.
	Arrival time.Duration
}

// Replier is implemented by a Game that answers a client's inputs itself: a
// predicted character's acknowledgements and adjustments (package movement).
// The server asks for the reply after every Input of that client and after
// every tick, and sends what is appended as a Reply message on the
// unreliable channel, with the client's next packets.
type Replier interface {
	// AppendReply appends to dst the game's reply owed to client at server
	// time now, or returns dst unchanged if none is.
	AppendReply(dst []byte, client int, now time.Duration) []byte
}

// Config configures a Server. The zero value gives the defaults noted.
type Config struct {
	// TickHz is the simulation rate; 0 means 60. Range [1, 1000].
	TickHz int
	// SnapshotHz is the rate of regular snapshots; 0 means 30. Range
	// [1, TickHz]; a regular snapshot is sent every round(TickHz/SnapshotHz)
	// ticks.
	SnapshotHz int
	// MaxCatchUp is the most ticks one Tick call runs; 0 means 5. Range
	// [1, 1000].
	MaxCatchUp int
	// MaxClients bounds client slot numbers to [0, MaxClients); 0 means 64.
	// Range [1, 4096].
	MaxClients int
	// ClockEpoch identifies this server's clock origin in pongs; pick a new
	// value per process (see clock.Responder).
	ClockEpoch uint32
	// PongHz caps the clock pongs sent to each client per second, with a
	// burst of PongHz/4 (at least 1); 0 means 20, twice the fastest ping
	// rate of clock's defaults. Range [1, 1000]. A packet gets at most one
	// pong whatever it carries, so replies never outgrow the pings.
	PongHz int
	// SnapshotBudget is the most bytes of one snapshot message (header
	// included) a Replicated or PerClient game's snapshots may fill; 0
	// means reliable.MaxUnreliableSize, one MTU-safe packet. Range [64,
	// reliable.MaxUnreliableSize]. Another Snapshotter has the whole
	// message.
	SnapshotBudget int
	// Hold is how long a clock pong may be held for a packet that goes to
	// the client anyway (a snapshot's, an event's, a reply's) rather than go
	// in one of its own; 0 means one snapshot interval, 1/SnapshotHz, so at
	// the default rates pongs ride on the client's next snapshot. A held
	// pong is built when its packet leaves: it says when the ping arrived
	// and when the pong left, so the client's clock takes the wait as the
	// server's hold and its samples stay unbiased. A client's first pongs
	// (its clock's first burst) are never held. Negative holds none: pongs
	// go on receipt. Range up to 1 s.
	Hold time.Duration
	// ReplyHold is how long a Replier's reply may wait for a packet that
	// goes to the client anyway (a snapshot's) rather than go in one of its
	// own at the next tick; 0 holds none. It is checked at each tick: a
	// reply goes at the first tick at least ReplyHold after it was made. A game whose
	// replies come more often than its snapshots (movement's
	// acknowledgements) saves their packets' headers, about 50 bytes each,
	// for corrections up to ReplyHold later. Range up to 1 s.
	ReplyHold time.Duration
	// Reliable configures each client's channels.
	Reliable reliable.Config
	// OnTick, if set, is called after every tick, once its snapshot is
	// queued: where a caller reads the game's true state.
	OnTick func(t Tick)
	// Encode, if set, may encode a client's snapshot of a Replicated game
	// in place of the layer: it is handed the world the game filled for the
	// tick, at server time t, and the tick the client last acknowledged, and
	// returns ok false to leave the client to the layer. A baseline codec
	// measured beside the layer in one run (the lab's) plugs in here; a game
	// never needs it.
	Encode func(dst []byte, client int, tick uint64, t time.Duration, w *replica.World, acked uint64) (b []byte, ok bool)
	// OnLimit, if set, is called the first time each Limit is hit (every
	// time is counted in Stats): where a driver logs it, once, so that a
	// game whose snapshots outgrow a packet says so.
	OnLimit func(l Limit)
}

// Limit is a limit the server hit, and what it did.
type Limit struct {
	Cause  string // what happened, a sentence for a log
	Client int    // the client it happened with
	Bytes  int    // the size that did not fit
	Budget int    // the size it had to fit
}

// ErrConfig is wrapped by the error New returns for a Config field out of
// range; the message names it.
var ErrConfig = errors.New("tether/server: invalid config")

// Errors from Connect, Disconnect and Receive.
var (
	ErrSlot      = errors.New("tether/server: client slot out of range")
	ErrConnected = errors.New("tether/server: client slot already connected")
	ErrUnknown   = errors.New("tether/server: client not connected")
)

// Stats are a Server's counters.
type Stats struct {
	Ticks    uint64 // ticks run
	Overruns uint64 // Tick calls that found more than one tick due
	CaughtUp uint64 // ticks run beyond the first in such calls
	Skipped  uint64 // ticks dropped because more than MaxCatchUp were due

	Clients int    // clients connected now
	Joins   uint64 // clients connected
	Leaves  uint64 // clients disconnected
	Refused uint64 // clients the game refused

	Snapshots      uint64 // snapshot messages queued, all clients
	ExtraSnapshots uint64 // of which extra (not regular)
	Oversize       uint64 // snapshots too large for one unreliable message, not sent
	Events         uint64 // events emitted
	Pongs          uint64 // pings answered
	PingsIgnored   uint64 // pings not answered: another in the same packet, or beyond PongHz
	Inputs         uint64 // inputs handed to the game
	Replies        uint64 // game replies queued (a Replier's), all clients
	StaleInputs    uint64 // inputs dropped as older than one already handed over
	Acks           uint64 // baselines acknowledged by clients (protocol Ack messages and Moves headers that carry one)
	Malformed      uint64 // packets or messages dropped as malformed or unexpected
	QueueFull      uint64 // reliable messages refused by a full send queue

	PacketsIn, BytesIn   uint64 // payloads passed to Receive
	PacketsOut, BytesOut uint64 // payloads returned by Transmit
}

// ClientStats describes one connected client.
type ClientStats struct {
	Connected     time.Duration // server time it connected
	FirstSnapshot time.Duration // server time its first snapshot was queued; -1 if none yet
	Self          uint32        // the entity it controls
	LastInput     uint32        // sequence of the newest input handed to the game
	Acked         uint64        // tick of the newest snapshot it acknowledged keeping as a baseline (0: none)
	RTT           time.Duration // the reliable channel's smoothed round trip

	PacketsIn, BytesIn   uint64
	PacketsOut, BytesOut uint64
	// The bytes of the messages queued for the client, by kind (tag and
	// body; the welcome aside): snapshots, the game's replies, clock pongs
	// and events. BytesOut less these is the reliable channel's headers,
	// framing and resends.
	SnapshotBytes, ReplyBytes, PongBytes, EventBytes uint64
	// The bytes of the messages read from the client's payloads, by kind,
	// as the client counts what it sends (client.Stats): inputs (Input and
	// Moves messages, a Moves header's ack field aside), acknowledgements
	// (Ack messages and the ack field of Moves headers) and clock pings.
	// BytesIn less these is the reliable channel's headers and framing,
	// duplicate payloads and malformed messages.
	InputBytes, AckBytes, PingBytes uint64
}

type conn struct {
	ep       *reliable.Endpoint
	stats    ClientStats
	anyInput bool
	flush    bool          // packets owed before the next tick
	pongTAT  time.Duration // pong rate: theoretical arrival time of the next pong
	// A ping answered whose pong waits for a packet going anyway
	// (Config.Hold), built when it leaves.
	pinged bool
	ping   clock.Ping
	pingAt time.Duration // its arrival
	heldAt time.Duration // when it was answered
	pongs  int           // pongs sent
	// A reply queued that waits for a packet going anyway
	// (Config.ReplyHold), since replyAt.
	replyHeld bool
	replyAt   time.Duration
}

type outPacket struct {
	client   int
	off, end int
}

// Server is the sans-I/O authoritative loop. Create it with New.
type Server struct {
	cfg      Config
	rep      *replica.Encoder // a Replicated game's
	limited  uint             // the causes of a Limit reported
	snapper  Snapshotter      // another's
	game     Game
	dt       time.Duration
	snapEach uint64
	resp     clock.Responder

	tick    uint64 // ticks done
	clients []*conn
	order   []int // connected slots, in order of connection

	em      emitter
	eventID uint32
	msg     []byte // scratch for one message
	snap    []byte // this tick's snapshot message

	out     []byte
	packets []outPacket
	next    int // next packet Transmit returns

	stats Stats
}

// New returns a Server running game, or an error wrapping ErrConfig.
func New(cfg Config, game Game) (*Server, error) {
	if game == nil {
		return nil, fmt.Errorf("%w: nil Game", ErrConfig)
	}
	def := func(v *int, d, lo, hi int, name string) error {
		if *v == 0 {
			*v = d
		}
		if *v < lo || *v > hi {
			return fmt.Errorf("%w: %s = %d, want %d to %d", ErrConfig, name, *v, lo, hi)
		}
		return nil
	}
	if err := def(&cfg.TickHz, 60, 1, 1000, "TickHz"); err != nil {
		return nil, err
	}
	if err := def(&cfg.SnapshotHz, 30, 1, cfg.TickHz, "SnapshotHz"); err != nil {
		return nil, err
	}
	if err := def(&cfg.MaxCatchUp, 5, 1, 1000, "MaxCatchUp"); err != nil {
		return nil, err
	}
	if err := def(&cfg.MaxClients, 64, 1, 4096, "MaxClients"); err != nil {
		return nil, err
	}
	if err := def(&cfg.PongHz, 20, 1, 1000, "PongHz"); err != nil {
		return nil, err
	}
	if err := def(&cfg.SnapshotBudget, reliable.MaxUnreliableSize, 64, reliable.MaxUnreliableSize, "SnapshotBudget"); err != nil {
		return nil, err
	}
	switch {
	case cfg.Hold == 0:
		cfg.Hold = time.Second / time.Duration(cfg.SnapshotHz)
	case cfg.Hold > time.Second:
		return nil, fmt.Errorf("%w: Hold = %v, want up to 1s", ErrConfig, cfg.Hold)
	}
	if cfg.ReplyHold < 0 || cfg.ReplyHold > time.Second {
		return nil, fmt.Errorf("%w: ReplyHold = %v, want 0 to 1s", ErrConfig, cfg.ReplyHold)
	}
	if _, err := reliable.New(cfg.Reliable); err != nil {
		return nil, fmt.Errorf("%w: Reliable: %v", ErrConfig, err)
	}
	s := &Server{
		cfg:      cfg,
		game:     game,
		dt:       time.Second / time.Duration(cfg.TickHz),
		snapEach: uint64(max(1, (cfg.TickHz+cfg.SnapshotHz/2)/cfg.SnapshotHz)),
		resp:     clock.Responder{Epoch: cfg.ClockEpoch},
		clients:  make([]*conn, cfg.MaxClients),
		msg:      make([]byte, 0, reliable.MaxUnreliableSize),
		snap:     make([]byte, 0, reliable.MaxUnreliableSize),
		out:      make([]byte, 0, 16*reliable.MaxPacketSize),
	}
	s.em.s = s
	switch g := game.(type) {
	case Replicated:
		schema, rc := g.Replication()
		if schema == nil {
			return nil, fmt.Errorf("%w: Replication returned no schema", ErrConfig)
		}
		s.rep = replica.NewEncoder(schema, rc)
	case Snapshotter:
		s.snapper = g
	default:
		return nil, fmt.Errorf("%w: the Game is neither Replicated nor a Snapshotter", ErrConfig)
	}
	return s, nil
}

// Replica returns the replication layer's encoder of a Replicated game, nil
// for another: its counters (bits by kind, entities left out by the
// budget, snapshots over it).
func (s *Server) Replica() *replica.Encoder { return s.rep }

// Config returns the configuration in use, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// TickInterval returns the length of a tick, 1/TickHz.
func (s *Server) TickInterval() time.Duration { return s.dt }

// NextTick returns the server time at which the next tick is due.
func (s *Server) NextTick() time.Duration { return time.Duration(s.tick+1) * s.dt }

// Ticks returns the number of ticks run or skipped so far; the world is at
// server time Ticks()·TickInterval().
func (s *Server) Ticks() uint64 { return s.tick }

// Stats returns the counters.
func (s *Server) Stats() Stats {
	st := s.stats
	st.Clients = len(s.order)
	return st
}

// ClientStats returns the statistics of a connected client.
func (s *Server) ClientStats(client int) (ClientStats, bool) {
	if client < 0 || client >= len(s.clients) || s.clients[client] == nil {
		return ClientStats{}, false
	}
	c := s.clients[client]
	st := c.stats
	st.RTT = c.ep.RTT()
	return st, true
}

// Clients appends the connected slots, in order of connection, to dst.
func (s *Server) Clients(dst []int) []int { return append(dst, s.order...) }

func (s *Server) begin() {
	s.out = s.out[:0]
	s.packets = s.packets[:0]
	s.next = 0
}

// Connect adds a client that connected in slot client at server time now: the
// game joins its player and the client is sent a welcome. Packets to send
// follow from Transmit.
func (s *Server) Connect(now time.Duration, client int) error {
	s.begin()
	if client < 0 || client >= len(s.clients) {
		return fmt.Errorf("%w: %d", ErrSlot, client)
	}
	if s.clients[client] != nil {
		return fmt.Errorf("%w: %d", ErrConnected, client)
	}
	self, err := s.game.Join(client)
	if err != nil {
		s.stats.Refused++
		return err
	}
	ep, err := reliable.New(s.cfg.Reliable)
	if err != nil {
		return err // validated in New
	}
	c := &conn{ep: ep, stats: ClientStats{Connected: now, FirstSnapshot: -1, Self: self}}
	s.clients[client] = c
	s.order = append(s.order, client)
	s.stats.Joins++
	if s.rep != nil {
		s.rep.Join(client, self)
	}
	s.msg = protocol.AppendWelcome(s.msg[:0], protocol.Welcome{Self: self, TickHz: uint16(s.cfg.TickHz), SnapshotHz: uint16(s.cfg.SnapshotHz)})
	s.sendReliable(c, s.msg)
	s.flush(now, client)
	return nil
}

// Disconnect removes the client in slot client (it left or timed out); the game
// removes its player.
func (s *Server) Disconnect(now time.Duration, client int) error {
	s.begin()
	if client < 0 || client >= len(s.clients) || s.clients[client] == nil {
		return fmt.Errorf("%w: %d", ErrUnknown, client)
	}
	s.clients[client] = nil
	for i, c := range s.order {
		if c == client {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.stats.Leaves++
	if s.rep != nil {
		s.rep.Leave(client)
	}
	s.game.Leave(client)
	return nil
}

// Receive processes a payload from the client in slot client, received at
// server time now: a clock ping is answered — the last of the payload's
// pings, within the client's PongHz; the others are counted in PingsIgnored
// — with the client's next packet (Config.Hold; at once, to take with
// Transmit, if Hold is negative), and inputs go to the game. A malformed
// payload is dropped and counted.
func (s *Server) Receive(now time.Duration, client int, payload []byte) error {
	return s.ReceiveAt(now, now, client, payload)
}

// ReceiveAt is Receive for a payload that arrived at server time arrival
// (at most now) and is handled at now, for a driver that reads its socket
// once per tick and knows each datagram's arrival (a kernel timestamp): the
// pong says the ping arrived at arrival and left when it did, so the
// client's clock takes the wait as the server's hold, and inputs carry their
// true Arrival.
// ack takes client c's acknowledgement of the snapshot of tick, as an Ack
// message or a Moves header carries it, and reports whether it is one the
// server sent (a later tick is malformed).
func (s *Server) ack(c *conn, tick uint64) bool {
	if tick > s.tick {
		s.stats.Malformed++
		return false
	}
	s.stats.Acks++
	c.stats.Acked = max(c.stats.Acked, tick)
	return true
}

func (s *Server) ReceiveAt(now, arrival time.Duration, client int, payload []byte) error {
	arrival = min(arrival, now)
	s.begin()
	if client < 0 || client >= len(s.clients) || s.clients[client] == nil {
		return fmt.Errorf("%w: %d", ErrUnknown, client)
	}
	c := s.clients[client]
	s.stats.PacketsIn++
	s.stats.BytesIn += uint64(len(payload))
	c.stats.PacketsIn++
	c.stats.BytesIn += uint64(len(payload))
	if err := c.ep.Receive(arrival, payload); err != nil {
		if !errors.Is(err, reliable.ErrDuplicate) {
			s.stats.Malformed++
		}
		return err
	}
	var ping clock.Ping
	pings := 0
	for {
		b, _, ok := c.ep.Read()
		if !ok {
			break
		}
		m, err := protocol.Decode(b)
		if err != nil {
			s.stats.Malformed++
			continue
		}
		switch m.Tag {
		case protocol.TagPing:
			c.stats.PingBytes += uint64(len(b))
			ping = m.Ping
			pings++
		case protocol.TagInput, protocol.TagMoves:
			n := uint64(len(b))
			if m.Tag == protocol.TagMoves {
				a := uint64(wire.UvarintLen(m.Ack))
				c.stats.AckBytes += a
				n -= a
			}
			c.stats.InputBytes += n
			if m.Ack > 0 && !s.ack(c, m.Ack) {
				continue
			}
			if c.anyInput && int32(m.Input.Seq-c.stats.LastInput) <= 0 {
				s.stats.StaleInputs++
				continue
			}
			c.anyInput = true
			c.stats.LastInput = m.Input.Seq
			s.stats.Inputs++
			s.game.Input(client, Input{Seq: m.Input.Seq, Sent: m.Input.Sent, View: m.Input.View, Data: m.Body,
				Moves: m.Tag == protocol.TagMoves, Arrival: arrival})
			s.reply(c, client, now)
		case protocol.TagAck:
			c.stats.AckBytes += uint64(len(b))
			s.ack(c, m.Ack)
		default:
			s.stats.Malformed++
		}
	}
	if pings > 0 {
		s.pong(c, client, arrival, now, ping, pings)
	}
	return nil
}

// pong answers ping, one of n pings in a payload from client, if the
// client's pong rate allows: the pong goes with the client's next packet
// (flush builds it), within Hold, or at once if it is one of the client's
// first or Hold is negative. A ping answered while an older one's pong still
// waits takes its place (the older is counted ignored).
func (s *Server) pong(c *conn, client int, arrival, now time.Duration, ping clock.Ping, n int) {
	s.stats.PingsIgnored += uint64(n - 1)
	if c.pinged {
		s.stats.PingsIgnored++
		c.ping, c.pingAt = ping, arrival
		return
	}
	interval := time.Second / time.Duration(s.cfg.PongHz)
	burst := max(1, s.cfg.PongHz/4)
	if c.pongTAT-now > time.Duration(burst-1)*interval {
		s.stats.PingsIgnored++
		return
	}
	c.pongTAT = max(c.pongTAT, now) + interval
	c.pinged, c.ping, c.pingAt, c.heldAt = true, ping, arrival, now
	if s.cfg.Hold < 0 || c.pongs < promptPongs {
		s.flush(now, client)
	}
}

// promptPongs is how many of a client's first pongs go at once, never held:
// those of its clock's first burst of pings (clock.Config.BurstSamples),
// which decide how soon its estimate is ready.
const promptPongs = 16

// Tick runs the ticks due at server time now, at most MaxCatchUp of them, and
// queues their snapshots and events; take the packets with Transmit. It returns
// the number of ticks run.
func (s *Server) Tick(now time.Duration) int {
	s.begin()
	due := uint64(0)
	if next := s.NextTick(); now >= next {
		due = uint64((now-next)/s.dt) + 1
	}
	if due == 0 {
		return 0
	}
	run := min(due, uint64(s.cfg.MaxCatchUp))
	if due > 1 {
		s.stats.Overruns++
		s.stats.CaughtUp += run - 1
	}
	for range run {
		s.step()
	}
	if due > run {
		s.stats.Skipped += due - run
		s.tick += due - run
	}
	if _, ok := s.game.(Replier); ok {
		for _, client := range s.order {
			s.reply(s.clients[client], client, now)
		}
	}
	for _, client := range s.order {
		if c := s.clients[client]; c.flush || c.ep.Due(now) || c.pinged && now-c.heldAt >= s.cfg.Hold || c.replyHeld && now-c.replyAt >= s.cfg.ReplyHold {
			s.flush(now, client)
		}
	}
	return int(run)
}

func (s *Server) step() {
	s.tick++
	s.stats.Ticks++
	t := Tick{N: s.tick, Time: time.Duration(s.tick) * s.dt, Dt: s.dt}
	extra := s.game.Step(t, &s.em)
	regular := s.tick%s.snapEach == 0
	dups := uint64(0)
	if s.rep != nil {
		dups = s.rep.Stats().Duplicates
	}
	if (regular || extra) && len(s.order) > 0 {
		s.snap = protocol.AppendSnapshot(s.snap[:0], protocol.Snapshot{Tick: t.N, Regular: regular})
		pc, perClient := s.game.(PerClient)
		switch {
		case s.rep != nil:
			perClient = true
			w := s.rep.World()
			w.Reset()
			w.Regular = regular
			s.game.(Replicated).Replicate(w)
		case !perClient:
			s.snap = s.snapper.AppendSnapshot(s.snap, regular)
		}
		// The snapshot's time as the client reads it from the tick.
		at := t.Time / wire.TimeUnit * wire.TimeUnit
		for _, client := range s.order {
			c := s.clients[client]
			msg := s.snap
			if perClient {
				s.msg = append(s.msg[:0], s.snap...)
				budget := s.cfg.SnapshotBudget - len(s.snap)
				var ok bool
				if s.rep != nil && s.cfg.Encode != nil {
					s.msg, ok = s.cfg.Encode(s.msg, client, t.N, at, s.rep.World(), c.stats.Acked)
				}
				switch {
				case ok:
				case s.rep != nil:
					s.msg = s.rep.Append(s.msg, client, t.N, at, c.stats.Acked, budget)
				default:
					s.msg = pc.AppendSnapshotFor(s.msg, client, regular, c.stats.Acked, budget)
				}
				msg = s.msg
			}
			if len(msg) > reliable.MaxUnreliableSize || perClient && len(msg) > s.cfg.SnapshotBudget {
				s.limit(oversize, Limit{Client: client, Bytes: len(msg), Budget: min(reliable.MaxUnreliableSize, s.cfg.SnapshotBudget)})
				s.stats.Oversize++
				if perClient {
					continue
				}
				break
			}
			if c.ep.SendUnreliable(msg) != nil {
				continue
			}
			s.stats.Snapshots++
			c.stats.SnapshotBytes += uint64(len(msg))
			if !regular {
				s.stats.ExtraSnapshots++
			}
			if c.stats.FirstSnapshot < 0 {
				c.stats.FirstSnapshot = t.Time
			}
			c.flush = true
		}
	}
	if s.rep != nil && s.rep.Stats().Duplicates != dups {
		s.limit(duplicateID, Limit{Client: -1})
	}
	if s.cfg.OnTick != nil {
		s.cfg.OnTick(t)
	}
}

// The causes of a Limit, each reported once.
const (
	oversize = iota
	queueFull
	duplicateID
	causes
)

var causeText = [causes]string{
	oversize:    "a snapshot does not fit the budget (server.Config.SnapshotBudget, at most one unreliable message): not sent; a replicated game's has every change left out and still does not fit, too many entities for one packet",
	queueFull:   "a client's reliable send queue is full: an event or message not sent",
	duplicateID: "the game's world has two entities of one id: the second is not replicated",
}

// limit counts nothing (the caller does) but reports cause the first time.
func (s *Server) limit(cause int, l Limit) {
	if s.limited&(1<<cause) != 0 || s.cfg.OnLimit == nil {
		return
	}
	s.limited |= 1 << cause
	l.Cause = causeText[cause]
	s.cfg.OnLimit(l)
}

// reply queues the game's reply to client, if it is a Replier and owes one;
// it goes out with the client's next packets (at the next tick at the latest).
func (s *Server) reply(c *conn, client int, now time.Duration) {
	r, ok := s.game.(Replier)
	if !ok {
		return
	}
	s.msg = protocol.AppendReply(s.msg[:0])
	n := len(s.msg)
	s.msg = r.AppendReply(s.msg, client, now)
	if len(s.msg) == n || len(s.msg) > reliable.MaxUnreliableSize {
		return
	}
	if c.ep.SendUnreliable(s.msg) == nil {
		s.stats.Replies++
		c.stats.ReplyBytes += uint64(len(s.msg))
		switch {
		case s.cfg.ReplyHold == 0:
			c.flush = true
		case !c.replyHeld:
			c.replyHeld, c.replyAt = true, now
		}
	}
}

type emitter struct{ s *Server }

func (e *emitter) Emit(ev event.Event) {
	s := e.s
	s.eventID++
	ev.ID = s.eventID
	s.stats.Events++
	s.msg = protocol.AppendEvent(s.msg[:0], ev)
	for _, client := range s.order {
		if c := s.clients[client]; s.sendReliable(c, s.msg) {
			c.stats.EventBytes += uint64(len(s.msg))
		}
	}
}

// sendReliable queues msg for c on the reliable channel and reports whether
// it was taken.
func (s *Server) sendReliable(c *conn, msg []byte) bool {
	if c.ep.SendReliable(msg) != nil {
		s.limit(queueFull, Limit{Client: -1, Bytes: len(msg)})
		s.stats.QueueFull++
		return false
	}
	c.flush = true
	return true
}

// flush queues every packet the client's endpoint has due, with what was
// held for it: a held pong is built now, the time it leaves.
func (s *Server) flush(now time.Duration, client int) {
	c := s.clients[client]
	c.replyHeld = false
	if c.pinged {
		c.pinged = false
		s.msg = protocol.AppendPong(s.msg[:0], s.resp.Pong(c.ping, c.pingAt, now))
		if c.ep.SendUnreliable(s.msg) == nil {
			s.stats.Pongs++
			c.pongs++
			c.stats.PongBytes += uint64(len(s.msg))
		}
	}
	c.flush = false
	for {
		start := len(s.out)
		b, ok := c.ep.AppendPacket(s.out, now)
		if !ok {
			return
		}
		s.out = b
		s.packets = append(s.packets, outPacket{client: client, off: start, end: len(b)})
		n := uint64(len(b) - start)
		s.stats.PacketsOut++
		s.stats.BytesOut += n
		c.stats.PacketsOut++
		c.stats.BytesOut += n
	}
}

// Transmit returns the next payload to send and the slot of the client it is
// for. Call it until ok is false after every Connect, Receive and Tick: the
// next call of any of those discards what was not taken. The slice is valid
// until then.
func (s *Server) Transmit() (client int, payload []byte, ok bool) {
	if s.next >= len(s.packets) {
		return -1, nil, false
	}
	p := s.packets[s.next]
	s.next++
	return p.client, s.out[p.off:p.end:p.end], true
}
