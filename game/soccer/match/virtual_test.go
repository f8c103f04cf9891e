package match

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/netsim"
)

// record keeps the server's ball after every tick and measures every client
// frame against it.
type record struct {
	tick  time.Duration
	ball  []geom.Vec3 // per tick, from tick 1
	vel   []geom.Vec3
	tr    soccer.Truth
	goals []time.Duration
	// cuts holds the server times of the ticks whose ball is a cut: its
	// teleport generation changed (a kickoff or a restart) or its position
	// jumped (Truth.BallJumped).
	cuts    []time.Duration
	clients map[int]*clientRecord
}

type clientRecord struct {
	frames   int
	errs     []float64 // |drawn ball - true ball at the render time|, metres
	pops     int
	cuts     int       // frames with the ball drawn as a cut
	lastPos  geom.Vec3 // drawn ball at the previous frame
	lastTime time.Duration
	has      bool
	full     time.Duration // first local time the whole match was drawn
	players  int           // players drawn in the last frame
}

func newRecord() *record { return &record{tick: time.Second / 60, clients: map[int]*clientRecord{}} }

// at returns the true ball at server time t: interpolated between the ticks
// around it, unless the ball teleported between them (a kickoff), in which
// case that of the tick before moved on at its velocity.
func (r *record) at(t time.Duration) geom.Vec3 {
	i := int(t/r.tick) - 1
	if i < 0 {
		return r.ball[0]
	}
	i = min(i, len(r.ball)-1)
	h := t - time.Duration(i+1)*r.tick
	if i+1 < len(r.ball) && r.ball[i+1].Dist(r.ball[i]) < 1 {
		return r.ball[i].Lerp(r.ball[i+1], float64(h)/float64(r.tick))
	}
	return r.ball[i].Add(r.vel[i].Scale(h.Seconds()))
}

func (r *record) onTick(tr *soccer.Truth) {
	r.ball = append(r.ball, tr.Ball.Pos)
	r.vel = append(r.vel, tr.Ball.Vel)
	if tr.Score != r.tr.Score {
		r.goals = append(r.goals, tr.Time)
	}
	if tr.BallJumped || tr.BallGen != r.tr.BallGen {
		r.cuts = append(r.cuts, tr.Time)
	}
	r.tr.Score, r.tr.BallGen = tr.Score, tr.BallGen
}

func (r *record) onFrame(b *Bot, f *client.Frame, v *soccer.View) {
	c := r.clients[b.Index]
	if c == nil {
		c = &clientRecord{full: -1}
		r.clients[b.Index] = c
	}
	ball := f.Find(soccer.BallID)
	if !f.Ready || ball == nil {
		c.has = false
		return
	}
	c.frames++
	c.players = len(v.Players)
	truth := r.at(ball.RenderTime)
	c.errs = append(c.errs, ball.Pos.Dist(truth))
	if ball.Cut {
		c.cuts++
	}
	if c.has && !ball.Cut {
		dx := r.at(ball.RenderTime).Sub(r.at(c.lastTime))
		if ball.Pos.Sub(c.lastPos).Sub(dx).Len() > 0.05 {
			c.pops++
		}
	}
	c.lastPos, c.lastTime, c.has = ball.Pos, ball.RenderTime, true
}

func quantile(x []float64, q float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// TestMatch plays twelve matches of 30 s (seeds 1 to 12) with 4 bots on
// the wan profile: the ball moves the whole match; over the twelve the ball
// changes feet often and passes, shots and goals are made (at least 120
// possessions, 60 passes, 12 shots and 3 goals: over seeds 1 to 24 the
// matches had 13.8 to 14.6 possessions, 9.6 to 10.2 passes, 1.5 to 2 shots
// and 0.67 to 0.75 goals each on average, as clients changed; a floor on
// fewer matches fails on chance); each kickoff reset reaches every client as
// a cut; clients draw the ball where it was at their render time.
func TestMatch(t *testing.T) {
	link, err := netsim.Preset("wan")
	if err != nil {
		t.Fatal(err)
	}
	var total soccer.GameStats
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			st := playMatch(t, seed, link)
			total.Goals += st.Goals
			total.Possessions += st.Possessions
			total.Passes += st.Passes
			total.Shots += st.Shots
		})
	}
	t.Logf("over twelve: %d goals, %d possessions, %d passes, %d shots", total.Goals, total.Possessions, total.Passes, total.Shots)
	if total.Goals < 3 || total.Possessions < 120 || total.Passes < 60 || total.Shots < 12 {
		t.Errorf("not much of a match over twelve: %d goals, %d possessions, %d passes, %d shots",
			total.Goals, total.Possessions, total.Passes, total.Shots)
	}
}

// playMatch plays the match of TestMatch with seed and returns its counters.
func playMatch(t *testing.T, seed uint64, link netsim.LinkConfig) soccer.GameStats {
	const dur = 30 * time.Second
	rec := newRecord()
	v, err := NewVirtual(Config{Seed: seed, Link: link, OnTick: rec.onTick, OnFrame: rec.onFrame})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(dur)
	st := v.Game().Stats()
	t.Logf("game %+v, goals at %v", st, rec.goals)

	// The ball moves the whole match: never still for 3 s outside a goal's pause.
	still, longest := 0, 0
	for i := 1; i < len(rec.ball); i++ {
		if rec.ball[i].Dist(rec.ball[i-1]) < 0.005 {
			still++
			longest = max(longest, still)
		} else {
			still = 0
		}
	}
	if lim := 3 * 60; longest > lim {
		t.Errorf("the ball stood still for %v", time.Duration(longest)*rec.tick)
	}
	for i, c := range rec.clients {
		// A client draws the past: a cut after its last render time is
		// not yet due (a kickoff in the match's last render delay).
		due := 0
		for _, at := range rec.cuts {
			if at <= c.lastTime {
				due++
			}
		}
		p50, p99 := quantile(c.errs, 0.5), quantile(c.errs, 0.99)
		t.Logf("client %d: %d frames, ball error p50 %.3f m p99 %.3f m, %d pops, %d cuts", i, c.frames, p50, p99, c.pops, c.cuts)
		if c.frames < int(dur.Seconds()-2)*60 {
			t.Errorf("client %d drew only %d frames", i, c.frames)
		}
		if p50 > 0.05 || p99 > 1 {
			t.Errorf("client %d: ball error p50 %.3f m, p99 %.3f m", i, p50, p99)
		}
		if c.pops > 40 {
			t.Errorf("client %d: %d pops", i, c.pops)
		}
		if c.cuts != due {
			t.Errorf("client %d saw %d cuts, the server's ball %d by its last render time (%d kickoffs, %d restarts)", i, c.cuts, due, st.Kickoffs, st.Restarts)
		}
	}
	ss := v.Server().Stats()
	if ss.Skipped != 0 || ss.Clients != 4 || ss.Malformed != 0 {
		t.Errorf("server %+v", ss)
	}
	for _, b := range v.Bots() {
		cs := b.Client().Stats()
		kbps := float64(cs.BytesIn+cs.PacketsIn*(25+netsim.HeaderBytes)) * 8 / dur.Seconds() / 1000
		t.Logf("bot %d down %.1f kbit/s (with netcode and IP/UDP headers), %+v", b.Index, kbps, cs)
		if kbps > 64 {
			t.Errorf("bot %d receives %.1f kbit/s", b.Index, kbps)
		}
	}
	return st
}

// TestSmoothOnLAN: on a link with little jitter and no loss, the ball (free or
// carried) hardly ever jumps on any client: at most 40 frames in all over five
// 20-second matches of four clients (a carrier shoved or turning hard while its
// client extrapolates a few milliseconds), none on most.
func TestSmoothOnLAN(t *testing.T) {
	link, _ := netsim.Preset("lan")
	total := 0
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		rec := newRecord()
		v, err := NewVirtual(Config{Seed: seed, Link: link, OnTick: rec.onTick, OnFrame: rec.onFrame})
		if err != nil {
			t.Fatal(err)
		}
		v.RunUntil(20 * time.Second)
		for _, c := range rec.clients {
			total += c.pops
		}
	}
	t.Logf("%d pops in 5 matches × 4 clients × 20 s", total)
	if total > 40 {
		t.Errorf("%d pops", total)
	}
}

// TestDeterministic: the same seed gives the same match.
func TestDeterministic(t *testing.T) {
	link, _ := netsim.Preset("broadband")
	run := func() (soccer.Truth, soccer.GameStats, client.Stats) {
		v, err := NewVirtual(Config{Seed: 9, Link: link})
		if err != nil {
			t.Fatal(err)
		}
		v.RunUntil(8 * time.Second)
		var tr soccer.Truth
		v.Truth(&tr)
		return tr, v.Game().Stats(), v.Bots()[2].Client().Stats()
	}
	a, as, ac := run()
	b, bs, bc := run()
	if a.Ball != b.Ball || as != bs || ac != bc || !slices.Equal(a.Players, b.Players) {
		t.Fatalf("two runs differ:\n%+v %+v\n%+v %+v", a.Ball, as, b.Ball, bs)
	}
}

// TestPairedLinks: with PairedLinks every bot's link loses the same share.
func TestPairedLinks(t *testing.T) {
	link, _ := netsim.Preset("lossy")
	v, err := NewVirtual(Config{Seed: 5, Link: link, PairedLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(25 * time.Second)
	for _, b := range v.Bots() {
		if b.Seed != v.Bots()[0].Seed {
			t.Fatal("links seeded differently")
		}
		// The blackout at 20 s and 10 % loss: nothing crashes, frames go on.
		if st := b.Client().Stats(); st.Snapshots < 500 {
			t.Fatalf("bot %d placed %d snapshots", b.Index, st.Snapshots)
		}
	}
}

// TestJoinLeave: a bot joining mid-match draws the whole match within 1 s; a
// bot leaving disappears from the others' views.
func TestJoinLeave(t *testing.T) {
	link, _ := netsim.Preset("broadband")
	rec := newRecord()
	var joinedAt time.Duration
	var firstFull time.Duration = -1
	var late *Bot
	v, err := NewVirtual(Config{Seed: 4, Link: link, OnTick: rec.onTick, OnFrame: func(b *Bot, f *client.Frame, view *soccer.View) {
		rec.onFrame(b, f, view)
		if b == late && firstFull < 0 && view.Ready && len(view.Players) == 5 {
			firstFull = b.Harness().Now()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(10 * time.Second)
	joinedAt = v.Sched.Now()
	late, err = v.Join(joinedAt, link)
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(15 * time.Second)
	if firstFull < 0 || firstFull-joinedAt > time.Second {
		t.Fatalf("the late joiner drew the whole match %v after joining", firstFull-joinedAt)
	}
	t.Logf("the late joiner drew the whole match %v after joining", firstFull-joinedAt)
	v.Leave(v.Bots()[1], v.Sched.Now())
	v.RunUntil(18 * time.Second)
	for i, c := range rec.clients {
		if i == 1 {
			continue
		}
		if c.players != 4 {
			t.Errorf("client %d still draws %d players", i, c.players)
		}
	}
	if st := v.Server().Stats(); st.Joins != 5 || st.Leaves != 1 || st.Clients != 4 {
		t.Fatalf("server %+v", st)
	}
	var tr soccer.Truth
	v.Truth(&tr)
	if len(tr.Players) != 4 {
		t.Fatalf("%d players on the pitch", len(tr.Players))
	}
}

// TestTakeOver: a caller's input replaces a bot's.
func TestTakeOver(t *testing.T) {
	v, err := NewVirtual(Config{Seed: 2, Bots: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := v.Bots()[0]
	v.Take(b, &soccer.Input{Dir: geom.V(0, 0, 1)})
	v.RunUntil(3 * time.Second)
	var tr soccer.Truth
	v.Truth(&tr)
	p := tr.Players[0]
	if p.Vel.Dist(geom.V(0, 0, 7)) > 1e-6 && p.Vel.Dist(geom.V(0, 0, 7*0.85)) > 1e-6 && p.Vel.Z != 0 {
		t.Fatalf("player moving %v, want +Z", p.Vel)
	}
	if p.Pos.Z < 10 {
		t.Fatalf("player at %v", p.Pos)
	}
	v.Take(b, nil)
	// A person's keys: run to -X, then press kick (a tackle or a shot).
	b.Steer(&soccer.Keys{Dir: geom.V(-1, 0, 0)})
	v.RunUntil(5 * time.Second)
	v.Truth(&tr)
	if tr.Players[0].Vel.X >= 0 {
		t.Fatalf("steered player moving %v", tr.Players[0].Vel)
	}
	b.Steer(nil)
}

// TestBotViewLeavesView: a predicting bot decides from the server's picture
// of its own player (BotView), but the view its frame hands OnFrame (the
// page draws it; a person's keys steer by it) keeps the predicted player
// its client drew.
func TestBotViewLeavesView(t *testing.T) {
	link, _ := netsim.Preset("wan")
	var frames, differ int
	v, err := NewVirtual(Config{Seed: 3, Bots: 2, Link: link, OnFrame: func(b *Bot, f *client.Frame, view *soccer.View) {
		e := f.Find(f.Self)
		shown, ok := b.Game().Shown()
		me := view.Player(view.Self)
		if !f.Ready || !f.HasSelf || e == nil || !ok || me == nil {
			return
		}
		frames++
		if shown.Pos.Dist(e.Pos) > 0.01 {
			differ++
		}
		if me.Pos != e.Pos {
			t.Fatalf("frame at %v: the view's own player at %v, the frame drew it at %v (the server's picture %v)",
				f.Local, me.Pos, e.Pos, shown.Pos)
		}
		if bv := BotView(b.Game(), view, new(soccer.View)); bv.Player(view.Self).Pos != shown.Pos {
			t.Fatalf("the bot's view of its own player at %v, want the server's picture %v", bv.Player(view.Self).Pos, shown.Pos)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(10 * time.Second)
	if frames < 500 || differ < frames/4 {
		t.Fatalf("%d frames drew the own player predicted, %d of them away from the server's picture: too few to tell", frames, differ)
	}
	t.Logf("%d frames, %d with the prediction > 1 cm from the server's picture", frames, differ)
}
