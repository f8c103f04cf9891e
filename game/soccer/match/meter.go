package match

import (
	"cmp"
	"fmt"
	"sync"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
)

// Meter measures how the bots of a match show it with package measure's
// meters, as the lab reports a soccer client: the clock, the ball, the other
// players, the own player and the own kicks (Figures). Feed it from the
// match's hooks (Tick from OnTick, Frame from OnFrame, Moved from OnMove,
// Corrected from OnCorrection), Stop it at the end of the run and read each
// bot's Figures. Every frame is measured at its true time (Bot.TrueTime), in
// Virtual and in Live alike. Create it with NewMeter; it is safe for
// concurrent use.
type Meter struct {
	cfg MeterConfig

	mu        sync.Mutex
	done      bool
	ball      *measure.Truth // nil until the first tick
	truth     *BallTruth     // nil until the first tick
	cast      measure.Cast   // the players
	forgot    time.Duration  // the cast holds no ticks before it
	poses     []measure.Pose // scratch for cast
	kicks     uint64         // the server's kicks so far
	possessor uint32         // after the tick before
	ballVel   geom.Vec3      // the ball's velocity after the tick before, m/s
	bots      []*botMeter
}

// MeterConfig configures a Meter.
type MeterConfig struct {
	// WarmUp is the true time before which frames are not measured.
	WarmUp time.Duration
	// Bots are the bots measured, by index: their links (for the clock's
	// asymmetry and convergence bound) and whether each predicts its own
	// player.
	Bots []MeteredBot
	// Rules are the match's rules (the zero value: the defaults) and TickHz
	// its server's tick rate (0 means 60): the ball's true trajectory, what
	// the ball is measured against, is recovered from the server's ticks
	// with them (BallTruth).
	Rules  soccer.Rules
	TickHz int
	// KeepBall is how much of the ball's trajectory is held behind the
	// newest tick; 0 holds it all (the own kicks are measured against it at
	// the end: a meter that keeps less measures them only as far back).
	KeepBall time.Duration
	// FrameHz is the bots' frame rate (0 means 60), by which the own kicks
	// are judged (measure.KickMeter).
	FrameHz int
	// DrawnBall, if set, reads the ball bot b drew in frame f at true time
	// t in place of FrameBall: for a reference that draws its own (the
	// lab's oracles).
	DrawnBall func(b *Bot, t time.Duration, f *client.Frame) measure.Drawn
}

// MeteredBot is one bot a Meter measures.
type MeteredBot struct {
	Link     measure.Link // the bot's link
	Predicts bool         // the bot's client predicts its own player
}

// botMeter is one bot's meters and what feeding them needs.
type botMeter struct {
	clock   measure.ClockMeter
	ball    measure.BallMeter
	others  measure.OthersMeter
	own     measure.OwnMeter
	kicks   measure.KickMeter
	replied bool          // the clock had its first reply
	first   time.Duration // true time of the first frame after it
	frames  int           // frames so far
	seq     uint8         // the action sequence of the newest input
	hasSeq  bool
	self    uint32 // the own player
	hasSelf bool
	gen     uint8 // the own player's teleport generation by the server's moves
	hasGen  bool

	resim      bool // taken at Stop
	resimTicks uint64
	predicted  []measure.PredictedKick
}

// Figures are one bot's measurements, as the lab reports them.
type Figures struct {
	Clock  measure.ClockMetrics
	Ball   measure.BallMetrics
	Others measure.OthersMetrics
	Own    measure.OwnMetrics
}

// NewMeter returns a meter of the bots cfg describes, or an error if its
// rules or tick rate make no world.
func NewMeter(cfg MeterConfig) (*Meter, error) {
	cfg.TickHz = cmp.Or(cfg.TickHz, 60)
	if _, _, err := cfg.Rules.WithDefaults().BallWorld(cfg.TickHz); err != nil {
		return nil, fmt.Errorf("tether/match: meter: %w", err)
	}
	m := &Meter{cfg: cfg, possessor: soccer.NoPlayer}
	for _, b := range cfg.Bots {
		m.bots = append(m.bots, newBotMeter(cfg.WarmUp, cfg.FrameHz, b))
	}
	return m, nil
}

// newBotMeter returns the meters of bot b, measuring its frames from true
// time warm on, at frameHz.
func newBotMeter(warm time.Duration, frameHz int, b MeteredBot) *botMeter {
	l := b.Link
	return &botMeter{
		clock:  measure.NewClockMeter(warm, l),
		ball:   measure.BallMeter{WarmUp: warm, Blackouts: l.Blackouts},
		others: measure.OthersMeter{WarmUp: warm, Blackouts: l.Blackouts},
		own:    measure.OwnMeter{WarmUp: warm, Asym: (l.Up - l.Down) / 2, Up: l.Up, Blackouts: l.Blackouts, Predicted: b.Predicts},
		kicks:  measure.KickMeter{WarmUp: warm, FrameHz: float64(frameHz)},
	}
}

// Tick takes the server's match after a tick, and its count of kicks so far
// (soccer.GameStats.Kicks), and measures what it completes.
func (m *Meter) Tick(t *soccer.Truth, kicks uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done {
		return
	}
	if m.truth == nil {
		bt, err := NewBallTruth(m.cfg.Rules, m.cfg.TickHz, t)
		if err != nil {
			panic(err) // NewMeter made one with the same rules and rate
		}
		m.truth, m.ball = bt, &bt.Truth
	} else {
		m.truth.Tick(t)
	}
	if keep := m.cfg.KeepBall; keep > 0 && t.Time-m.ball.Oldest().T > 2*keep {
		m.ball.Forget(t.Time - keep)
	}
	m.poses = m.poses[:0]
	for _, p := range t.Players {
		slot := int(p.ID - soccer.FirstPlayerID)
		for len(m.poses) <= slot {
			m.poses = append(m.poses, measure.Pose{})
		}
		m.poses[slot] = measure.Pose{Pos: p.Pos, Gen: p.Gen, In: true}
	}
	m.cast.Tick(t.Time, m.poses)
	if t.Time-m.forgot > 2*measure.OwnKeep {
		m.forgot = t.Time - measure.OwnKeep
		m.cast.Forget(m.forgot)
	}
	// A kick at this tick was made by the player with the ball before it.
	if kicks > m.kicks {
		m.kicks = kicks
		for _, b := range m.bots {
			if b.hasSelf && b.self == m.possessor {
				b.kicks.Applied(t.Time, t.Ball.Vel.Sub(m.ballVel).Len())
			}
		}
	}
	m.possessor, m.ballVel = t.Possessor, t.Ball.Vel
	for _, b := range m.bots {
		b.others.Measure(&m.cast, t.Time)
		b.ownTeleports(t)
	}
}

// ownTeleports notes the teleports of the bot's predicted player by the
// server's moves.
func (b *botMeter) ownTeleports(t *soccer.Truth) {
	for _, p := range t.Players {
		if !b.hasSelf || p.ID != b.self || !p.Predicted {
			continue
		}
		if b.hasGen && p.MovedGen != b.gen {
			b.own.Teleported(p.Moved.Pos)
		}
		b.gen, b.hasGen = p.MovedGen, true
	}
}

// row returns row i's meters, or nil once the run is over.
func (m *Meter) row(i int) *botMeter {
	if m.done || i >= len(m.bots) {
		return nil
	}
	return m.bots[i]
}

// Moved takes a move of bot b's predicted player the server applied, and the
// player's state after it.
func (m *Meter) Moved(b *Bot, mv *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	m.moved(b.Index, mv, s)
}

// moved takes a move of row i's predicted player.
func (m *Meter) moved(i int, mv *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if bm := m.row(i); bm != nil {
		bm.own.Moved(mv.Time, s.Pos)
		bm.own.Applied(int(mv.Seq))
	}
}

// Corrected takes an adjustment or reset bot b's prediction applied at true
// time t.
func (m *Meter) Corrected(b *Bot, t time.Duration, c movement.Correction) {
	if rc, ok := Correction(t, c); ok {
		m.mu.Lock()
		defer m.mu.Unlock()
		if bm := m.row(b.Index); bm != nil {
			bm.own.Corrected(rc.T, rc.Error)
		}
	}
}

// Add adds a row to the meter, for a client that is not one of the bots
// it was made with (a browser's: Record), and returns its index. Its
// frames are measured from WarmUp after the newest tick.
func (m *Meter) Add(b MeteredBot) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	warm := m.cfg.WarmUp
	if m.ball != nil && m.ball.Len() > 0 {
		warm += m.ball.Newest().T
	}
	m.bots = append(m.bots, newBotMeter(warm, m.cfg.FrameHz, b))
	return len(m.bots) - 1
}

// Rows returns how many rows the meter has: its bots and those Add added.
func (m *Meter) Rows() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.bots)
}

// frameFacts are what measuring a frame needs besides the frame itself.
type frameFacts struct {
	t       time.Duration // true time
	replied bool          // the clock had its first reply
	ownSeq  int           // the own player's newest move, -1 if not predicted
	in      soccer.Input  // decided at the frame
}

// Frame measures bot b's frame f: what it draws, before the input it decided
// from that frame (Bot.Input) is sent, and returns the ball it measured.
// Call it from OnFrame, holding no lock the bot's client may wait for.
func (m *Meter) Frame(b *Bot, f *client.Frame) measure.Drawn {
	ff := frameFacts{t: b.TrueTime(f.Local), ownSeq: -1, in: b.Input()}
	b.do(func(c *client.Client) { ff.replied = c.Clock().Stats().Samples > 0 })
	if o := b.Game().Own(); o != nil {
		ff.ownSeq = int(o.Seq())
	}
	var ball measure.Drawn
	if m.cfg.DrawnBall != nil && f.Ready {
		ball = m.cfg.DrawnBall(b, ff.t, f)
	} else {
		ball = FrameBall(ff.t, f)
	}
	m.frame(b.Index, &ff, f, ball)
	return ball
}

// Record measures a frame of row i (see Add) as r records it, r.T being
// its true time, and the corrections r holds first. f is scratch space.
func (m *Meter) Record(i int, r *FrameRecord, f *client.Frame) {
	m.mu.Lock()
	if bm := m.row(i); bm != nil {
		for _, c := range r.Corrections {
			bm.own.Corrected(c.T, c.Error)
		}
	}
	m.mu.Unlock()
	r.frame(f)
	ff := frameFacts{t: r.T, replied: r.Replied, ownSeq: r.OwnSeq, in: soccer.Input{Action: r.Action, ActionSeq: r.ActionSeq}}
	m.frame(i, &ff, f, FrameBall(r.T, f))
}

// frame measures row i's frame f, which drew ball.
func (m *Meter) frame(i int, ff *frameFacts, f *client.Frame, ball measure.Drawn) {
	t := ff.t
	own := measure.OwnDrawn{T: t, Est: f.Server}
	if e := f.Find(f.Self); f.Ready && f.HasSelf && e != nil {
		own.OK, own.Pos, own.RenderTime, own.Predicted, own.Cut = true, e.Pos, e.RenderTime, e.Predicted, e.Cut
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	bm := m.row(i)
	if bm == nil || m.ball == nil {
		return
	}
	if f.HasSelf {
		bm.self, bm.hasSelf = f.Self, true
	}
	if ff.replied && !bm.replied {
		bm.first, bm.replied = t, true
	}
	bound := time.Duration(-1)
	if f.Ready {
		bound = f.Bound
		for i := range f.Entities {
			e := &f.Entities[i]
			if e.Kind == soccer.KindPlayer && !(f.HasSelf && e.ID == f.Self) {
				bm.others.Add(measure.OtherDrawn{Frame: bm.frames, T: t, Slot: int(e.ID - soccer.FirstPlayerID), Pos: e.Pos, RenderTime: e.RenderTime, Cut: e.Cut})
			}
		}
	}
	bm.own.Frame(own)
	if ff.ownSeq >= 0 {
		bm.own.Made(ff.ownSeq, t)
	}
	bm.clock.Add(measure.Frame{T: t, Est: f.Server, Ready: f.Ready, Bound: bound})
	bm.ball.Add(m.ball, ball)
	bm.kicks.Frame(ball)
	bm.frames++
	if in := ff.in; !bm.hasSeq {
		bm.seq, bm.hasSeq = in.ActionSeq, true // the server takes the first as the start
	} else if in.ActionSeq != bm.seq {
		bm.seq = in.ActionSeq
		if in.Action == soccer.ActionPass || in.Action == soccer.ActionShot {
			bm.kicks.Kicked(t)
		}
	}
}

// FrameBall returns the ball as frame f, at true time t, drew it.
func FrameBall(t time.Duration, f *client.Frame) measure.Drawn {
	e := f.Find(soccer.BallID)
	if !f.Ready || e == nil {
		return measure.Drawn{T: t}
	}
	return measure.Drawn{T: t, OK: true, Pos: e.Pos, RenderTime: e.RenderTime, Extrapolated: e.Extrapolated, Frozen: e.Frozen, Cut: e.Cut}
}

// BallAt returns the true ball at server time t, and false if t is before
// the trajectory held (or there is none yet): past the newest tick the ball
// flies on from it.
func (m *Meter) BallAt(t time.Duration) (geom.Vec3, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tr := m.ball
	if tr == nil || tr.Len() == 0 || t < tr.Oldest().T {
		return geom.Vec3{}, false
	}
	if n := tr.Newest(); t > n.T {
		return measure.Flight(n.Pos, n.Vel, tr.G, (t - n.T).Seconds()), true
	}
	return tr.At(t), true
}

// Ball returns the ball's true trajectory held, nil before the first tick.
// Read it after Stop (or from the goroutine that feeds Tick).
func (m *Meter) Ball() *measure.Truth {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ball
}

// Stop ends the measurement: later ticks and frames are not measured. It
// takes what the bots' clients counted of their own (the resim method's
// re-simulated ticks and predicted kicks).
func (m *Meter) Stop(bots []*Bot) {
	m.mu.Lock()
	m.done = true
	m.mu.Unlock()
	for _, b := range bots {
		if b.Index >= len(m.bots) {
			continue
		}
		bm := m.bots[b.Index]
		b.do(func(*client.Client) {
			st, ok := b.Game().ResimStats()
			bm.resimTicks, bm.resim, bm.kicks.Predicts = st.ResimTicks, ok, ok
			bm.predicted = PredictedKicks(b.Game())
		})
	}
}

// Figures returns bot i's figures of a run that ended at true time end.
// Call it once, after Stop.
func (m *Meter) Figures(i int, end time.Duration) Figures {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.bots[i]
	fig := Figures{Clock: b.clock.Metrics(b.first, b.replied)}
	if m.ball == nil {
		return fig // the server never ticked
	}
	fig.Ball = b.ball.Metrics(m.ball)
	if b.resim {
		perS := measure.Round(float64(b.resimTicks) / end.Seconds())
		fig.Ball.ResimTicks = &perS
	}
	b.kicks.Metrics(&fig.Ball, b.predicted, m.ball)
	b.others.Measure(&m.cast, end+time.Hour)
	fig.Others, fig.Own = b.others.Metrics(), b.own.Metrics(end)
	return fig
}

// BallMeter returns bot i's ball meter, measured to the end once Figures
// was called: for pooling the ball's figures over runs (BallMeter.Merge).
func (m *Meter) BallMeter(i int) *measure.BallMeter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &m.bots[i].ball
}

// PredictedKicks returns the own kicks g predicted (soccer.ClientGame's
// PredictedKicks) as measure.KickMeter takes them.
func PredictedKicks(g *soccer.ClientGame) []measure.PredictedKick {
	var ks []measure.PredictedKick
	for _, k := range g.PredictedKicks() {
		ks = append(ks, measure.PredictedKick{At: k.At, Until: k.Until, From: k.From,
			Confirmed: k.Confirmed, Correction: k.Correction, Change: k.Change})
	}
	return ks
}
