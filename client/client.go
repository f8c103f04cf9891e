package client

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/timeline"
	"github.com/tether-net/tether/wire"
)

// NoParent is the Parent of an entity drawn on its own.
const NoParent = ^uint32(0)

// MaxMeta is the largest game meta (Snapshot.Meta) a client keeps.
const MaxMeta = 64

// EntityState is one entity's state in a snapshot, as the Game decodes it.
type EntityState struct {
	ID   uint32 // the entity
	Kind uint8  // game-defined: which Timeline config applies
	Tag  uint8  // game-defined, passed through to frames (a team)
	// Gen is the entity's teleport generation: the server changes it when the
	// entity jumps (a kickoff reset, a respawn). A state whose Gen differs from
	// the previous state's is a Cut.
	Gen   uint8
	State kinematic.State
	// Ints are the game's integers (replica.Int fields: a health, a score),
	// passed through to frames.
	Ints [replica.MaxInts]int32
	// Parent is the entity this one is drawn relative to while the state
	// holds (a ball in possession), or NoParent. Offset is its position in
	// the parent's frame (rotated by the parent's drawn rotation), metres;
	// with a Blend, the place it is moving to.
	Parent uint32
	Offset geom.Vec3
	// Blend, if its Span is set, says the entity is still on its way to
	// Offset (a ball just won, moving to its carrier's feet): it is drawn
	// where Blend puts it, past the newest state too.
	Blend Blend
}

// Blend is an attached entity's way to its place in its parent's frame: it
// was at From, in the parent's frame, at server time Since, and reaches its
// place at Since+Span, along a smoothstep (3u² - 2u³ of the time's share u),
// which leaves and arrives at rest. The zero value is no blend.
type Blend struct {
	From  geom.Vec3
	Since time.Duration
	Span  time.Duration
}

// At returns where in the parent's frame an entity blending to place is at
// server time t: From before Since, place from Since+Span on.
func (b Blend) At(place geom.Vec3, t time.Duration) geom.Vec3 {
	if b.Span <= 0 || t >= b.Since+b.Span {
		return place
	}
	u := max(0, float64(t-b.Since)/float64(b.Span))
	return b.From.Lerp(place, u*u*(3-2*u))
}

// Snapshot is a decoded snapshot. The client sets Tick, Time (the server time
// of the tick, at the welcome's tick rate: protocol.Welcome.TickTime) and
// Regular; the replication layer (or a SnapshotDecoder game) fills in
// Entities, Meta, Base, Baseline and Gone.
type Snapshot struct {
	Tick     uint64
	Time     time.Duration
	Regular  bool
	Entities []EntityState
	// Meta is the game's match-level state (a score), at most MaxMeta bytes;
	// frames show the Meta of the newest snapshot not after their render
	// time. It may alias the decoded bytes.
	Meta []byte
	// Base is the tick of the snapshot this one was decoded against (a
	// delta), 0 if it was whole.
	Base uint64
	// Gone are the entities the snapshot says left the world (despawned, or
	// no longer relevant to this client): each is drawn no further than
	// the snapshot's time, then forgotten.
	Gone []uint32
	// Baseline says the game keeps this snapshot as a baseline for later
	// ones: the client acknowledges the newest such tick to the server (in
	// a Moves header or an Ack message, on its next packet that goes anyway;
	// see the package doc). A game whose snapshots are all
	// whole leaves it false, and no Ack is sent.
	Baseline bool
}

// Game is what a game provides to the client. Its snapshots are decoded by
// the replication layer if it is Replicated (every shipped game is);
// otherwise it decodes them itself, as a SnapshotDecoder.
type Game interface {
	// Timeline returns the timeline configuration for entities of a kind.
	// Its render delay fields are ignored: every entity is drawn at the
	// client's one render clock.
	Timeline(kind uint8) timeline.Config
	// RenderClock returns the configuration of the render clock every
	// entity is drawn at, by the render delay fields of a timeline.Config
	// (SendInterval, MinDelay, MaxDelay, LateShare, Window). It is fed by
	// the regular snapshots only, so that the extra ones a server sends at
	// contacts do not read as a faster send rate.
	RenderClock() timeline.Config
}

// Replicated is implemented by a Game whose server side is a
// server.Replicated: the client decodes its snapshots with the replication
// layer (package replica), keeps them as baselines and acknowledges them.
// Every entity the layer decodes goes to the client's timelines and views by
// its declared fields, drawn on its own (Parent NoParent) unless its kind
// declares an attachment (replica.Attach) and it is attached.
type Replicated interface {
	// Schema returns the game's schema, the server's.
	Schema() *replica.Schema
}

// SnapshotDecoder is implemented by a Game that decodes its snapshots itself,
// the client half of a server.Snapshotter (the escape hatch; no shipped game
// uses it).
type SnapshotDecoder interface {
	// DecodeSnapshot decodes the game's bytes of a snapshot into s, appending
	// to s.Entities (which the client has emptied). An error drops the
	// snapshot. The client decodes every snapshot once, in order of arrival.
	DecodeSnapshot(s *Snapshot, b []byte) error
}

// Predictor is implemented by a Game that predicts the client's own entity
// (package movement does the work for one): the entity is then drawn at the
// present from the player's own inputs, not from its timeline, and the game
// builds the input messages and takes the server's replies to them.
type Predictor interface {
	// Predict is called by Frame, once the clock is ready and the frame's
	// entities are drawn from their timelines (the own entity included), with
	// the estimated server time now and the data last given to SetInput (nil
	// if none): it makes the frame's move and returns the own entity as
	// predicted (Pos, Vel, Rot, and Cut when the prediction jumped on
	// purpose), or ok false to leave it drawn from its timeline.
	Predict(now time.Duration, input []byte, f *Frame) (e Entity, ok bool)
	// AppendInput appends the game's bytes of the input message Update sends
	// at estimated server time now: its packet of moves, sent as a Moves
	// message (package protocol) that the server's game receives with
	// server.Input.Moves set. send false sends none this time; predicting
	// false means the game does not predict (yet), and the data of SetInput
	// is sent as it is, as a plain Input.
	AppendInput(dst []byte, now time.Duration) (b []byte, send, predicting bool)
	// Reply takes a reply from the server to this client's inputs, received
	// at estimated server time now.
	Reply(b []byte, now time.Duration) error
}

// Viewer is implemented by a Game that shows entities of some kinds by a
// replicate.View of their own instead of the client's timelines: Unreal's
// physics replication modes (velocity correction, predictive interpolation,
// resimulation), which show the present, or the Seed baseline. A view gets
// every state of its entity, with the estimated server time it arrived, and
// draws it at the estimated server time of each frame; its frame says which
// moment it shows (Entity.RenderTime). It is never drawn attached to a
// parent; Entity.Holder still says which entity the snapshots attach it to.
type Viewer interface {
	// View returns the view of a new entity id of kind, or nil to draw it
	// from a timeline at the client's render clock.
	View(id uint32, kind uint8) replicate.View
}

// Watcher is implemented by a Game that keeps a world of its own beside the
// client's timelines and views, fed whole snapshots (the soccer game's
// re-simulated match). Placed is called with every snapshot the client
// places, after its states went to the timelines and views, with the
// estimated server time it arrived; s is valid only during the call.
type Watcher interface {
	Placed(s *Snapshot, arrival time.Duration)
}

// Config configures a Client. The zero value gives the defaults noted.
type Config struct {
	// Clock configures the server clock estimator (package clock's
	// defaults: its first pings at 20 Hz make a joining client ready to draw
	// the match in well under a second on a jittery link).
	Clock    clock.Config
	Reliable reliable.Config // the channels
	// Forget is how long an entity may be missing from snapshots before it is
	// dropped; 0 means 1 s.
	Forget time.Duration
	// EventLog is how many recent events are kept; 0 means 64.
	EventLog int
	// AckEvery is how often at most a client that sends no inputs sends a
	// packet of its own to acknowledge the newest baseline it kept (a
	// client that sends inputs acknowledges on them, and any client on its
	// clock pings); 0 means 100 ms, negative means every baseline at once.
	// Each such packet costs about 50 bytes of headers up, and a baseline
	// acknowledged later makes the deltas coded against it a little larger
	// down.
	AckEvery time.Duration
	// ServerTime, if set, stands in for the clock estimator's reading of
	// server time wherever the client uses one (placing states, drawing
	// frames, stamping inputs): a naive clock design put in its place to be
	// compared with it (the lab's baselines). The estimator still sends its
	// pings and reports its bound.
	ServerTime func(local time.Duration) (server time.Duration, ok bool)
	// OnSnapshot, if set, is called with every snapshot decoded, at the local
	// time it arrived, whether or not the clock is ready: where a caller
	// (the lab) feeds its own ways of showing the entities. s is only valid
	// during the call.
	OnSnapshot func(local time.Duration, s *Snapshot)
}

// ErrConfig is wrapped by the error New returns for a bad Config.
var ErrConfig = errors.New("tether/client: invalid config")

// Stats are a Client's counters.
type Stats struct {
	PacketsIn, BytesIn   uint64 // payloads passed to Receive
	PacketsOut, BytesOut uint64 // payloads returned by Transmit
	Snapshots            uint64 // snapshots placed on the timelines
	Deltas               uint64 // of the snapshots decoded, those decoded against a baseline (Snapshot.Base)
	Acks                 uint64 // baselines acknowledged (protocol Ack messages, or Moves headers that carry one, sent)
	Unplaced             uint64 // snapshots dropped because the clock was not ready
	Unwelcomed           uint64 // snapshots that came before the welcome, whose tick rate dates them: the newest is decoded when it comes, the others dropped
	Events               uint64 // events received
	Inputs               uint64 // inputs sent
	Replies              uint64 // replies to the inputs received (handed to a Predictor)
	Pings                uint64 // clock pings sent
	Pongs                uint64 // clock pongs received
	// ClockBytesOut and ClockBytesIn are the bytes of the clock's messages
	// (pings out, pongs in), which share datagrams with the others.
	ClockBytesOut, ClockBytesIn uint64
	InputBytesOut               uint64 // bytes of the Input and Moves messages sent
	AckBytesOut                 uint64 // bytes of the Ack messages sent, and of the ack field of Moves headers
	// The bytes of the messages received, by kind: snapshots, replies and
	// events (tag and body).
	SnapshotBytesIn, ReplyBytesIn, EventBytesIn uint64
	Malformed                                   uint64 // packets or messages dropped as malformed
	// NoBaseline counts the snapshots of a Replicated game dropped for a
	// baseline no longer kept (counted in Malformed too): a sign of
	// acknowledgements lost on the way or a very late snapshot.
	NoBaseline uint64
	Entities   int    // entities known now
	Resets     uint64 // timelines emptied for a clock epoch change
}

// attach is one entry of an entity's parent history.
type attach struct {
	t      time.Duration
	parent uint32
	offset geom.Vec3
	blend  Blend
}

// at returns the entry's place in the parent's frame at server time t.
func (a *attach) at(t time.Duration) geom.Vec3 { return a.blend.At(a.offset, t) }

const attachHistory = 16

// noState is an entity's newest state time before its first state.
const noState = time.Duration(math.MinInt64)

type entity struct {
	id   uint32
	kind uint8
	tag  uint8
	ints [replica.MaxInts]int32
	gen  uint8
	// goneAt is the time of the snapshot that said the entity left (0:
	// none); gone, that a frame drew past it: it is forgotten.
	goneAt   time.Duration
	gone     bool
	newest   time.Duration // time of the newest state inserted
	lastSeen time.Duration // snapshot time it was last in
	tl       *timeline.Timeline
	view     replicate.View // instead of tl, if the game gives one (Viewer)
	att      [attachHistory]attach
	natt     int
}

// parentAt returns the parent and offset in force at server time t. A state
// with a Blend gives the offset until the next state, and past the newest;
// without one, the offset is interpolated between two states with the same
// parent. Between a state with a parent and a later one with another (or
// none: a kick) the entity is on its own: its own curve joins the two
// states, where the parent carried it and where it was let go, while the
// offset from the parent between them is not known.
func (e *entity) parentAt(t time.Duration) (uint32, geom.Vec3) {
	for i := e.natt - 1; i >= 0; i-- {
		a := &e.att[i]
		if a.t > t {
			continue
		}
		if i+1 < e.natt {
			b := &e.att[i+1]
			if b.parent == a.parent && b.t > a.t {
				if a.blend.Span > 0 {
					return a.parent, a.at(t)
				}
				return a.parent, a.offset.Lerp(b.at(b.t), float64(t-a.t)/float64(b.t-a.t))
			}
			if t > a.t {
				return NoParent, geom.Vec3{}
			}
		}
		return a.parent, a.at(t)
	}
	if e.natt > 0 {
		return e.att[0].parent, e.att[0].at(t)
	}
	return NoParent, geom.Vec3{}
}

// insert hands a state of the entity, which arrived at estimated server time
// arrival, to its view or its timeline.
func (e *entity) insert(s kinematic.State, arrival time.Duration) {
	if e.view != nil {
		e.view.Receive(s, arrival)
		return
	}
	e.tl.Insert(s, arrival)
}

func (e *entity) addAttach(a attach) {
	if e.natt > 0 && a.t <= e.att[e.natt-1].t {
		return
	}
	if e.natt == attachHistory {
		copy(e.att[:], e.att[1:])
		e.natt--
	}
	e.att[e.natt] = a
	e.natt++
}

type meta struct {
	t time.Duration
	n int
	b [MaxMeta]byte
}

const metaHistory = 16

// Client is the sans-I/O client. Create it with New.
type Client struct {
	cfg     Config
	game    Game
	rep     *replica.Decoder // a Replicated game's
	decoded replica.Decoded
	decoder SnapshotDecoder // another's
	clk     *clock.Estimator
	rc      *timeline.Clock // the render clock of every entity
	ep      *reliable.Endpoint
	epoch   uint32

	connected bool
	welcomed  bool
	welcome   protocol.Welcome

	entities map[uint32]*entity
	order    []*entity // sorted by id
	snap     Snapshot
	newest   time.Duration // newest snapshot time

	metas [metaHistory]meta
	nmeta int

	events    *event.Log
	newEvents []event.Event

	// The newest snapshot received before the welcome, as received: its
	// time is its tick's at the welcome's tick rate.
	unwelcomed      []byte
	unwelcomedTick  uint64
	unwelcomedLocal time.Duration

	// The newest snapshot received before the clock was ready, decoded.
	early      Snapshot
	earlyMeta  [MaxMeta]byte
	earlyLocal time.Duration
	hasEarly   bool

	acked, ackSent uint64        // the newest baseline kept, and acknowledged
	ackAt          time.Duration // local time of the last acknowledgement in a packet of its own
	ackedOwn       bool          // one was sent
	// inputAt is the local time of the newest input sent, if inputSent.
	inputAt   time.Duration
	inputSent bool

	input    []byte
	hasInput bool
	inputSeq uint32
	pred     Predictor // the game, if it predicts
	viewer   Viewer    // the game, if it has views of its own
	watcher  Watcher   // the game, if it watches the snapshots
	pbuf     []byte

	msg     []byte
	out     []byte
	packets [][2]int
	next    int

	frame Frame
	stats Stats
}

// New returns a Client for game, or an error wrapping ErrConfig.
func New(cfg Config, game Game) (*Client, error) {
	if game == nil {
		return nil, fmt.Errorf("%w: nil Game", ErrConfig)
	}
	if cfg.Forget == 0 {
		cfg.Forget = time.Second
	}
	if cfg.Forget < 0 {
		return nil, fmt.Errorf("%w: Forget %v, want > 0", ErrConfig, cfg.Forget)
	}
	if cfg.EventLog == 0 {
		cfg.EventLog = 64
	}
	if cfg.AckEvery == 0 {
		cfg.AckEvery = 100 * time.Millisecond
	}
	if cfg.EventLog < 0 || cfg.EventLog > 1<<16 {
		return nil, fmt.Errorf("%w: EventLog %d, want 1 to 65536", ErrConfig, cfg.EventLog)
	}
	clk, err := clock.NewEstimator(cfg.Clock)
	if err != nil {
		return nil, fmt.Errorf("%w: Clock: %v", ErrConfig, err)
	}
	ep, err := reliable.New(cfg.Reliable)
	if err != nil {
		return nil, fmt.Errorf("%w: Reliable: %v", ErrConfig, err)
	}
	rc, err := timeline.NewClock(game.RenderClock())
	if err != nil {
		return nil, fmt.Errorf("%w: the game's RenderClock: %v", ErrConfig, err)
	}
	c := &Client{
		cfg: cfg, game: game, clk: clk, rc: rc, ep: ep,
		entities: map[uint32]*entity{},
		events:   event.NewLog(cfg.EventLog),
		msg:      make([]byte, 0, reliable.MaxUnreliableSize),
		out:      make([]byte, 0, 4*reliable.MaxPacketSize),
	}
	switch g := game.(type) {
	case Replicated:
		schema := g.Schema()
		if schema == nil {
			return nil, fmt.Errorf("%w: the game's Schema is nil", ErrConfig)
		}
		c.rep = replica.NewDecoder(schema)
	case SnapshotDecoder:
		c.decoder = g
	default:
		return nil, fmt.Errorf("%w: the Game is neither Replicated nor a SnapshotDecoder", ErrConfig)
	}
	c.pred, _ = game.(Predictor)
	c.viewer, _ = game.(Viewer)
	c.watcher, _ = game.(Watcher)
	return c, nil
}

// now returns the estimate of server time at local time local.
func (c *Client) now(local time.Duration) (time.Duration, bool) {
	if c.cfg.ServerTime != nil {
		return c.cfg.ServerTime(local)
	}
	return c.clk.Now(local)
}

// Clock returns the client's server clock estimator (read it, do not feed it).
func (c *Client) Clock() *clock.Estimator { return c.clk }

// Self returns the entity the server said this client controls, and whether
// the welcome has arrived.
func (c *Client) Self() (uint32, bool) { return c.welcome.Self, c.welcomed }

// Welcome returns the server's welcome, and whether it has arrived.
func (c *Client) Welcome() (protocol.Welcome, bool) { return c.welcome, c.welcomed }

// Stats returns the counters.
func (c *Client) Stats() Stats {
	st := c.stats
	st.Entities = len(c.order)
	return st
}

// Connected tells the client its transport connected at local time local:
// from now on Update sends pings and inputs.
func (c *Client) Connected(local time.Duration) {
	c.begin()
	c.connected = true
}

func (c *Client) begin() {
	c.out = c.out[:0]
	c.packets = c.packets[:0]
	c.next = 0
}

// Receive processes a payload from the server received at local time local.
// Malformed payloads and messages are dropped and counted.
func (c *Client) Receive(local time.Duration, payload []byte) error {
	c.begin()
	c.stats.PacketsIn++
	c.stats.BytesIn += uint64(len(payload))
	if err := c.ep.Receive(local, payload); err != nil {
		if !errors.Is(err, reliable.ErrDuplicate) {
			c.stats.Malformed++
		}
		return err
	}
	for {
		b, _, ok := c.ep.Read()
		if !ok {
			break
		}
		m, err := protocol.Decode(b)
		if err != nil {
			c.stats.Malformed++
			continue
		}
		switch m.Tag {
		case protocol.TagPong:
			c.stats.Pongs++
			c.stats.ClockBytesIn += uint64(len(b))
			c.clk.HandlePong(m.Pong, local)
		case protocol.TagWelcome:
			c.welcome, c.welcomed = m.Welcome, true
		case protocol.TagSnapshot:
			c.stats.SnapshotBytesIn += uint64(len(b))
			if !c.welcomed {
				// Its time is its tick's at the welcome's rate: hold the
				// newest until the welcome comes.
				c.stats.Unwelcomed++
				if c.unwelcomed == nil || m.Snapshot.Tick > c.unwelcomedTick {
					c.unwelcomed, c.unwelcomedTick, c.unwelcomedLocal = append(c.unwelcomed[:0], b...), m.Snapshot.Tick, local
				}
				continue
			}
			c.snapshot(local, m.Snapshot, m.Body)
		case protocol.TagEvent:
			c.stats.Events++
			c.stats.EventBytesIn += uint64(len(b))
			c.onEvent(local, m.Event)
		case protocol.TagReply:
			est, ok := c.now(local)
			if c.pred == nil || !ok || c.pred.Reply(m.Body, est) != nil {
				c.stats.Malformed++
				continue
			}
			c.stats.Replies++
			c.stats.ReplyBytesIn += uint64(len(b))
		default:
			c.stats.Malformed++
		}
	}
	if c.welcomed && c.unwelcomed != nil {
		if m, err := protocol.Decode(c.unwelcomed); err == nil {
			c.snapshot(c.unwelcomedLocal, m.Snapshot, m.Body)
		}
		c.unwelcomed = nil
	}
	return nil
}

func (c *Client) snapshot(local time.Duration, h protocol.Snapshot, body []byte) {
	s := &c.snap
	s.Tick, s.Time, s.Regular, s.Entities, s.Meta, s.Base, s.Baseline, s.Gone = h.Tick, c.welcome.TickTime(h.Tick), h.Regular, s.Entities[:0], nil, 0, false, s.Gone[:0]
	if err := c.decode(s, body); err != nil {
		c.stats.Malformed++
		if errors.Is(err, replica.ErrNoBaseline) {
			c.stats.NoBaseline++
		}
		return
	}
	if s.Base != 0 {
		c.stats.Deltas++
	}
	if s.Baseline {
		c.acked = max(c.acked, h.Tick)
	}
	if c.cfg.OnSnapshot != nil {
		c.cfg.OnSnapshot(local, s)
	}
	est, ok := c.now(local)
	if !ok {
		c.stats.Unplaced++
		if !c.hasEarly || s.Time > c.early.Time {
			c.keepEarly(local, s)
		}
		return
	}
	c.place(est, s)
}

// decode decodes the game's bytes of snapshot s.
func (c *Client) decode(s *Snapshot, body []byte) error {
	if c.rep == nil {
		return c.decoder.DecodeSnapshot(s, body)
	}
	d := &c.decoded
	d.Entities = d.Entities[:0]
	if err := c.rep.Decode(d, s.Tick, s.Time, body); err != nil {
		return err
	}
	for i := range d.Entities {
		e := &d.Entities[i]
		es := EntityState{ID: e.ID, Kind: e.Kind, Tag: e.Tag, Gen: e.Gen, State: e.State, Ints: e.Ints, Parent: NoParent}
		if a := &e.Attach; a.On {
			es.Parent, es.Offset = a.Parent, a.Offset
			if a.Span > 0 {
				es.Blend = Blend{From: a.From, Since: a.Since, Span: a.Span}
			}
		}
		s.Entities = append(s.Entities, es)
	}
	s.Meta, s.Base, s.Baseline, s.Gone = d.Meta, d.Base, d.Keep, append(s.Gone[:0], d.Gone...)
	return nil
}

// keepEarly keeps a copy of s, received at local time local before the
// clock was ready, to place once it is.
func (c *Client) keepEarly(local time.Duration, s *Snapshot) {
	e := &c.early
	ents := e.Entities
	*e = *s
	e.Entities = append(ents[:0], s.Entities...)
	e.Meta = nil
	if len(s.Meta) <= MaxMeta {
		e.Meta = append(c.earlyMeta[:0], s.Meta...)
	}
	c.earlyLocal, c.hasEarly = local, true
}

// place inserts the states of a decoded snapshot, which arrived at estimated
// server time arrival.
func (c *Client) place(arrival time.Duration, s *Snapshot) {
	c.stats.Snapshots++
	if s.Time > c.newest {
		c.newest = s.Time
	}
	if s.Regular {
		c.rc.Arrived(s.Time, arrival)
	}
	// In order of time, so that a generation's first state is the cut even
	// when the game sent it after a later one.
	slices.SortStableFunc(s.Entities, func(a, b EntityState) int { return cmp.Compare(a.State.Time, b.State.Time) })
	for i := range s.Entities {
		es := &s.Entities[i]
		e := c.entity(es.ID, es.Kind)
		if e == nil {
			continue
		}
		st := es.State
		if st.Time > e.newest {
			if e.newest != noState && es.Gen != e.gen {
				st.Cut = true
			}
			e.gen, e.newest = es.Gen, st.Time
		}
		e.tag, e.ints = es.Tag, es.Ints
		if st.Time >= e.goneAt {
			e.goneAt, e.gone = 0, false // back
		}
		e.insert(st, arrival)
		e.addAttach(attach{t: st.Time, parent: es.Parent, offset: es.Offset, blend: es.Blend})
		if s.Time > e.lastSeen {
			e.lastSeen = s.Time
		}
	}
	for _, id := range s.Gone {
		if e := c.entities[id]; e != nil && e.newest < s.Time {
			e.goneAt = s.Time
		}
	}
	if len(s.Meta) > 0 && len(s.Meta) <= MaxMeta {
		c.addMeta(s.Time, s.Meta)
	}
	if c.watcher != nil {
		c.watcher.Placed(s, arrival)
	}
}

func (c *Client) addMeta(t time.Duration, b []byte) {
	if c.nmeta > 0 && t <= c.metas[c.nmeta-1].t {
		return
	}
	if c.nmeta == metaHistory {
		copy(c.metas[:], c.metas[1:])
		c.nmeta--
	}
	m := &c.metas[c.nmeta]
	m.t, m.n = t, copy(m.b[:], b)
	c.nmeta++
}

// metaAt returns the meta of the newest snapshot not after t (or the oldest
// held).
func (c *Client) metaAt(t time.Duration) []byte {
	for i := c.nmeta - 1; i >= 0; i-- {
		if c.metas[i].t <= t {
			return c.metas[i].b[:c.metas[i].n]
		}
	}
	if c.nmeta > 0 {
		return c.metas[0].b[:c.metas[0].n]
	}
	return nil
}

// entity returns the entity id, created with the timeline of kind if new.
func (c *Client) entity(id uint32, kind uint8) *entity {
	if e, ok := c.entities[id]; ok {
		return e
	}
	cfg := c.game.Timeline(kind)
	cfg.Clock = c.rc
	tl, err := timeline.New(cfg)
	if err != nil {
		c.stats.Malformed++
		return nil
	}
	e := &entity{id: id, kind: kind, tl: tl, newest: noState}
	if c.viewer != nil {
		e.view = c.viewer.View(id, kind)
	}
	c.entities[id] = e
	i, _ := slices.BinarySearchFunc(c.order, id, func(e *entity, id uint32) int {
		switch {
		case e.id < id:
			return -1
		case e.id > id:
			return 1
		}
		return 0
	})
	c.order = slices.Insert(c.order, i, e)
	return e
}

func (c *Client) onEvent(local time.Duration, ev event.Event) {
	if !c.events.Add(ev) {
		return
	}
	c.newEvents = append(c.newEvents, ev)
	if !ev.HasState {
		return
	}
	e, ok := c.entities[ev.Entity]
	if !ok {
		return
	}
	est, ready := c.now(local)
	if !ready {
		return
	}
	// A knot at the event: placed on the curve if it is still ahead of the
	// render time, and extrapolated from (drawn at its age) if the render time
	// has passed it but no newer state is known. A Cut in it (the event moved
	// the entity, as a kick brought to the present does) is kept.
	e.insert(ev.State, est)
}

// SetInput sets the game's input to send with every Update from now on (a
// copy is kept). Inputs are sent only once the welcome has arrived.
func (c *Client) SetInput(data []byte) {
	c.input = append(c.input[:0], data...)
	c.hasInput = true
}

// Update queues, at local time local, a clock ping if one is due and the
// current input, and the packets the channels owe (acknowledgements, resends);
// take them with Transmit. Call it once per frame.
func (c *Client) Update(local time.Duration) {
	c.begin()
	if !c.connected {
		return
	}
	packet := false // a packet goes out this time
	if c.clk.PingDue(local) {
		c.msg = protocol.AppendPing(c.msg[:0], c.clk.Ping(local))
		if c.ep.SendUnreliable(c.msg) == nil {
			c.stats.Pings++
			c.stats.ClockBytesOut += uint64(len(c.msg))
			packet = true
		}
	}
	data, send, moves := c.input, c.hasInput, false
	est, ready := c.now(local)
	if c.pred != nil && ready {
		b, ok, predicting := c.pred.AppendInput(c.pbuf[:0], est)
		if predicting {
			c.pbuf, data, send, moves = b, b, ok, true
		}
	}
	if c.welcomed && send {
		c.inputSeq++
		ack := uint64(0) // the newest baseline, in a Moves header
		if moves {
			if c.acked > c.ackSent {
				ack = c.acked
			}
			c.msg = protocol.AppendMoves(c.msg[:0], c.inputSeq, ack)
		} else {
			h := protocol.Input{Seq: c.inputSeq}
			if ready {
				h.Sent = est
				h.View = est - c.frame.Delay
			}
			c.msg = protocol.AppendInput(c.msg[:0], h)
		}
		c.msg = append(c.msg, data...)
		if c.ep.SendUnreliable(c.msg) == nil {
			n := uint64(len(c.msg))
			if moves {
				a := uint64(wire.UvarintLen(ack)) // the ack field's bytes
				c.stats.AckBytesOut += a
				n -= a
			}
			if ack > 0 {
				c.ackSent = ack
				c.stats.Acks++
			}
			c.stats.Inputs++
			c.stats.InputBytesOut += n
			c.inputAt, c.inputSent = local, true
			packet = true
		}
	}
	// The newest baseline kept rides in the Moves header, or in a message
	// on a packet that goes anyway (an input, a ping, the channel's
	// acknowledgement of reliable fragments), and waits for one while
	// inputs go (at the game's input rate); a client that sends no inputs
	// (none for ackWait) sends it in a packet of its own, at most every
	// Config.AckEvery.
	carried := packet || c.ep.AckOwed()
	own := (!c.inputSent || local-c.inputAt > ackWait) && (c.cfg.AckEvery < 0 || !c.ackedOwn || local-c.ackAt >= c.cfg.AckEvery)
	if c.acked > c.ackSent && (carried || own) {
		c.msg = protocol.AppendAck(c.msg[:0], c.acked)
		if c.ep.SendUnreliable(c.msg) == nil {
			if !carried {
				c.ackAt, c.ackedOwn = local, true
			}
			c.ackSent = c.acked
			c.stats.Acks++
			c.stats.AckBytesOut += uint64(len(c.msg))
		}
	}
	for {
		start := len(c.out)
		b, ok := c.ep.AppendPacket(c.out, local)
		if !ok {
			return
		}
		c.out = b
		c.packets = append(c.packets, [2]int{start, len(b)})
		c.stats.PacketsOut++
		c.stats.BytesOut += uint64(len(b) - start)
	}
}

// ackWait is how long after its newest input a client stops waiting for the
// next to carry its acknowledgement of a baseline: longer than the time
// between two inputs of any game's rate (soccer's is 30 Hz).
const ackWait = 100 * time.Millisecond

// Transmit returns the next payload to send to the server. Call it until ok is
// false after every Update; the next call of Update, Receive or Connected
// discards what was not taken. The slice is valid until then.
func (c *Client) Transmit() (payload []byte, ok bool) {
	if c.next >= len(c.packets) {
		return nil, false
	}
	p := c.packets[c.next]
	c.next++
	return c.out[p[0]:p[1]:p[1]], true
}
