package match

import (
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replicate"
)

// ownRecord measures every bot's own predicted player against the server's
// path of that player: the state after each of its moves, by the move's end.
type ownRecord struct {
	path      map[uint32][]pathPoint
	teleports map[uint32][]time.Duration // per player, the end of the move a teleport followed
	bots      map[int]*ownBot
}

type pathPoint struct {
	t   time.Duration
	pos geom.Vec3
	gen uint8
}

type ownFrame struct {
	t         time.Duration // true time, shifted by the link's unobservable asymmetry
	rt        time.Duration // the render time: the client's estimate of server time
	pos       geom.Vec3
	cut, pred bool
	present   bool // drawn at the frame's own time, with no delay
}

type ownBot struct {
	id     uint32
	link   netsim.LinkConfig
	frames []ownFrame
	corr   []movement.Correction
}

func newOwnRecord() *ownRecord {
	return &ownRecord{path: map[uint32][]pathPoint{}, teleports: map[uint32][]time.Duration{}, bots: map[int]*ownBot{}}
}

func (r *ownRecord) bot(b *Bot) *ownBot {
	o := r.bots[b.Index]
	if o == nil {
		o = &ownBot{link: b.Link}
		r.bots[b.Index] = o
	}
	return o
}

func (r *ownRecord) onMove(b *Bot, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	id := soccer.FirstPlayerID + uint32(b.Slot())
	pp := r.path[id]
	if n := len(pp); n == 0 || pp[n-1].t < m.Time {
		gen := uint8(0)
		if n > 0 {
			gen = pp[n-1].gen
		}
		r.path[id] = append(pp, pathPoint{m.Time, s.Pos, gen})
	}
}

// onTick notes the teleports: the path jumps right after the move before.
func (r *ownRecord) onTick(tr *soccer.Truth) {
	for _, p := range tr.Players {
		pp := r.path[p.ID]
		if n := len(pp); p.Predicted && n > 0 && pp[n-1].gen != p.MovedGen {
			r.teleports[p.ID] = append(r.teleports[p.ID], pp[n-1].t)
			r.path[p.ID] = append(pp, pathPoint{pp[n-1].t + time.Microsecond, p.Moved.Pos, p.MovedGen})
		}
	}
}

func (r *ownRecord) onFrame(b *Bot, f *client.Frame, _ *soccer.View) {
	if !f.Ready || !f.HasSelf {
		return
	}
	e := f.Find(f.Self)
	if e == nil {
		return
	}
	o := r.bot(b)
	o.id = f.Self
	// The client's clock cannot see its link's asymmetry: the moment it can
	// show is true time plus (up - down)/2, as clock.err_ms has it.
	asym := time.Duration((b.Link.Up.LatencyMs - b.Link.Down.LatencyMs) / 2 * float64(time.Millisecond))
	o.frames = append(o.frames, ownFrame{t: b.Harness().Now() + asym, rt: e.RenderTime, pos: e.Pos, cut: e.Cut, pred: e.Predicted,
		present: e.Predicted && e.RenderTime == f.Server && e.Delay == 0})
}

// at returns the server's path of player id at time t.
func (r *ownRecord) at(id uint32, t time.Duration) (geom.Vec3, bool) {
	pp := r.path[id]
	i := sort.Search(len(pp), func(i int) bool { return pp[i].t >= t })
	if i == 0 || i == len(pp) {
		return geom.Vec3{}, false
	}
	a, b := pp[i-1], pp[i]
	return a.pos.Lerp(b.pos, float64(t-a.t)/float64(b.t-a.t)), true
}

type ownFigures struct {
	frames     int
	notPresent int // predicted frames not drawn at the present
	corrPerMin float64
	corrP99    float64
	presentRMS float64
	pops       int
}

// figures measures bot o over the frames after a 2 s warm-up, outside a
// blackout (and the second after it, while the client learns what the
// server made of it) and outside the span from a teleport to the frame that
// shows it.
func (r *ownRecord) figures(o *ownBot, dur time.Duration) ownFigures {
	var fg ownFigures
	var sizes []float64
	for _, c := range o.corr {
		if c.Kind == movement.Adjust {
			sizes = append(sizes, c.Error)
		}
	}
	fg.corrPerMin = float64(len(sizes)) / dur.Minutes()
	if len(sizes) > 0 {
		slices.Sort(sizes)
		fg.corrP99 = sizes[int(0.99*float64(len(sizes)-1))]
	}
	blackout := func(t time.Duration) bool {
		for _, b := range o.link.Blackouts {
			at := time.Duration(b.AtS * float64(time.Second))
			if t >= at && t < at+time.Duration(b.LenS*float64(time.Second))+time.Second {
				return true
			}
		}
		return false
	}
	sum := 0.0
	var prev *ownFrame
	var prevX geom.Vec3
	tp := r.teleports[o.id]
	for i := range o.frames {
		f := &o.frames[i]
		for len(tp) > 0 && f.t >= tp[0] && f.cut {
			tp = tp[1:]
		}
		x, ok := r.at(o.id, f.t)
		xr, okR := r.at(o.id, f.rt)
		if f.t < 2*time.Second || !ok || !okR || !f.pred || blackout(f.t) || (len(tp) > 0 && (f.t >= tp[0] || f.rt >= tp[0])) {
			prev = nil
			continue
		}
		fg.frames++
		if !f.present {
			fg.notPresent++
		}
		e := f.pos.Dist(x)
		sum += e * e
		// A pop: the drawing moves unlike the server's path over the
		// frame's advance of render time.
		if prev != nil && !f.cut && f.pos.Sub(prev.pos).Sub(xr.Sub(prevX)).Len() > 0.05 {
			fg.pops++
		}
		prev, prevX = f, xr
	}
	if fg.frames > 0 {
		fg.presentRMS = math.Sqrt(sum / float64(fg.frames))
	}
	return fg
}

// TestOwnFigures: on each preset link, every bot predicts its own player: it
// is drawn at the present with the frame's input (no frame of delay), within
// centimetres of the server's path; the server corrects any difference above
// 2 cm, which happens at most once a minute on lan, three times on
// broadband and ten times on mobile (contacts with other players are
// predicted, not corrected); no correction shows as a jump; and at 10 %
// loss no input is lost.
func TestOwnFigures(t *testing.T) {
	const dur = 45 * time.Second
	for _, tc := range []struct {
		link       string
		maxPerMin  float64
		maxLost    uint64
		maxRMS     float64
		checkPerMn bool
	}{
		{"lan", 1, 0, 0.01, true},
		{"broadband", 3, 0, 0.02, true},
		{"mobile", 10, 10, 0.05, true},
		{"lossy", 10, 0, 0.05, false},
		{"wan", 10, 30, 0.05, false},
	} {
		t.Run(tc.link, func(t *testing.T) {
			link, err := netsim.Preset(tc.link)
			if err != nil {
				t.Fatal(err)
			}
			rec := newOwnRecord()
			v, err := NewVirtual(Config{Seed: 1, Link: link, OnTick: rec.onTick, OnFrame: rec.onFrame, OnMove: rec.onMove,
				OnCorrection: func(b *Bot, c movement.Correction) { o := rec.bot(b); o.corr = append(o.corr, c) }})
			if err != nil {
				t.Fatal(err)
			}
			v.RunUntil(dur)
			for _, b := range v.Bots() {
				fg := rec.figures(rec.bots[b.Index], dur)
				ss, _ := v.Game().Movement(b.Slot())
				t.Logf("bot %d: %d frames, %.1f corrections/min (p99 %.3f m), present rms %.4f m, %d pops, %d moves lost, %d held",
					b.Index, fg.frames, fg.corrPerMin, fg.corrP99, fg.presentRMS, fg.pops, ss.Lost, ss.Held)
				if fg.frames < int(dur.Seconds()*60*0.8) {
					t.Errorf("bot %d: only %d frames measured", b.Index, fg.frames)
				}
				if fg.notPresent != 0 {
					t.Errorf("bot %d: %d frames not drawn at the present", b.Index, fg.notPresent)
				}
				if tc.checkPerMn && fg.corrPerMin > tc.maxPerMin {
					t.Errorf("bot %d: %.1f corrections a minute, want ≤ %.0f", b.Index, fg.corrPerMin, tc.maxPerMin)
				}
				if fg.pops != 0 {
					t.Errorf("bot %d: %d pops", b.Index, fg.pops)
				}
				if fg.presentRMS > tc.maxRMS {
					t.Errorf("bot %d: present error rms %.3f m", b.Index, fg.presentRMS)
				}
				if ss.Lost > tc.maxLost {
					t.Errorf("bot %d: %d moves lost", b.Index, ss.Lost)
				}
				if ss.Ahead != 0 || ss.BadInputs != 0 || ss.BadTimes != 0 || ss.BadPackets != 0 {
					t.Errorf("bot %d: an honest client refused: %+v", b.Index, ss)
				}
			}
		})
	}
}

// TestOwnFiguresBallViews: a client showing the ball by a view of its own
// (seed, velocity, predictive: never drawn at its carrier's feet) knows from
// the snapshots when its player has the ball, as the tether method's does:
// its bot sees itself with the ball, and its prediction of the own player
// needs no more corrections than over broadband with the tether method
// (TestOwnFigures).
func TestOwnFiguresBallViews(t *testing.T) {
	const dur = 45 * time.Second
	link, err := netsim.Preset("broadband")
	if err != nil {
		t.Fatal(err)
	}
	balls := []replicate.Method{replicate.MethodSeed, replicate.MethodVelocity, replicate.MethodPredictive, replicate.MethodTether}
	rec := newOwnRecord()
	carried := map[uint32]int{}         // ticks the server had each player with the ball
	withBall := make([]int, len(balls)) // frames each bot saw its player with the ball
	v, err := NewVirtual(Config{Seed: 1, Bots: len(balls), Balls: balls, Link: link, OnMove: rec.onMove,
		OnTick: func(tr *soccer.Truth) {
			rec.onTick(tr)
			carried[tr.Possessor]++
		},
		OnFrame: func(b *Bot, f *client.Frame, sv *soccer.View) {
			rec.onFrame(b, f, sv)
			if sv.Ready && sv.Self != soccer.NoPlayer && sv.Possessor == sv.Self {
				withBall[b.Index]++
			}
		},
		OnCorrection: func(b *Bot, c movement.Correction) { o := rec.bot(b); o.corr = append(o.corr, c) }})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(dur)
	for _, b := range v.Bots() {
		fg := rec.figures(rec.bots[b.Index], dur)
		id := soccer.FirstPlayerID + uint32(b.Slot())
		t.Logf("bot %d (%s): with the ball %d ticks, seen so in %d frames; %.1f corrections/min (p99 %.3f m)",
			b.Index, balls[b.Index], carried[id], withBall[b.Index], fg.corrPerMin, fg.corrP99)
		if carried[id] > 60 && withBall[b.Index] < carried[id]/2 {
			t.Errorf("bot %d (%s): had the ball %d ticks but saw it in only %d frames", b.Index, balls[b.Index], carried[id], withBall[b.Index])
		}
		if fg.corrPerMin > 3 {
			t.Errorf("bot %d (%s): %.1f corrections a minute, want ≤ 3", b.Index, balls[b.Index], fg.corrPerMin)
		}
	}
}
