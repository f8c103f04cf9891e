package replicate

// A seeded harness in virtual time: a server physics world (the pitch and a
// ball kicked at seeded times) sends the ball's state at 30 Hz, with extra
// states at kicks and bounces, through an emulated link; a client with a
// perfect clock renders at 60 Hz through each mode; every frame is scored
// against the server's true trajectory the way the lab scores a client:
// present error |R - X(now)|, fidelity |R - X(shown time)|, pops (frames
// where the drawn motion differs from the true motion over the frame's
// advance of shown time by more than 5 cm), frozen and extrapolated frames.
// The oracle — the server's exact state one one-way delay ago, advanced by
// the exact physics with no knowledge of later kicks — is scored alongside.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/timeline"
)

const (
	hTick     = time.Second / 60
	hFrame    = time.Second / 60
	hPhase    = 5 * time.Millisecond // frames are not aligned with ticks
	hWarmUp   = 2 * time.Second
	knotSpeed = 0.5 // m/s: a contact faster than this gets extra states
)

// pitchWorld returns a world with the default pitch and ball.
func pitchWorld(tb testing.TB) (*physics.World, physics.BodyID) {
	tb.Helper()
	w, err := physics.NewWorld(physics.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := pitch.Default().AddTo(w); err != nil {
		tb.Fatal(err)
	}
	ball, err := w.AddSphere(pitch.DefaultBall())
	if err != nil {
		tb.Fatal(err)
	}
	return w, ball
}

// tickTruth is the server's ball at one tick.
type tickTruth struct {
	st     physics.BodyState // after any kick at this tick
	velIn  geom.Vec3         // velocity arriving at this tick, before a kick
	bounce bool              // a contact inside the step that ended here
	at     time.Duration     // its time
}

type sent struct {
	at time.Duration
	b  kinematic.State
}

// drill is a server run: the truth at every tick and the states sent.
type drill struct {
	ticks []tickTruth
	sends []sent
	kicks []time.Duration
}

// runDrill simulates dur of the ball drill on the server.
func runDrill(tb testing.TB, seed uint64, dur time.Duration) *drill {
	w, ball := pitchWorld(tb)
	rng := rand.New(rand.NewPCG(seed, 0xba11))
	d := &drill{}
	next := 700 * time.Millisecond
	prevSent := false
	var prev physics.BodyState
	for n := 0; time.Duration(n)*hTick <= dur; n++ {
		now := time.Duration(n) * hTick
		var tt tickTruth
		if n > 0 {
			w.Step()
			for _, c := range w.Contacts() {
				if c.Body == ball && c.Speed > knotSpeed {
					tt.bounce, tt.at = true, now-hTick+c.At
					break
				}
			}
		}
		tt.velIn = w.Body(ball).Vel
		kicked := false
		if now >= next {
			kick(w, ball, rng)
			kicked = true
			d.kicks = append(d.kicks, now)
			next = now + 1500*time.Millisecond + time.Duration(rng.Int64N(int64(2500*time.Millisecond)))
		}
		tt.st = w.Body(ball)
		d.ticks = append(d.ticks, tt)
		send := n%2 == 0 || kicked || tt.bounce
		if (kicked || tt.bounce) && !prevSent && n > 0 {
			d.sends = append(d.sends, sent{now, wireBody(now-hTick, prev, false)})
		}
		if send {
			d.sends = append(d.sends, sent{now, wireBody(now, tt.st, kicked)})
		}
		prev, prevSent = tt.st, send
	}
	return d
}

// kick gives the ball a seeded kick toward a random point of the pitch: a
// rolling pass, a chip with backspin, or a low drive with side spin.
func kick(w *physics.World, ball physics.BodyID, rng *rand.Rand) {
	b := w.Body(ball)
	aim := geom.V((rng.Float64()*2-1)*45, 0, (rng.Float64()*2-1)*28)
	dir := aim.Sub(geom.V(b.Pos.X, 0, b.Pos.Z)).Norm()
	if dir == (geom.Vec3{}) {
		dir = geom.V(0, 0, 1)
	}
	right := dir.Cross(geom.V(0, 1, 0))
	var speed, lift float64
	var spin geom.Vec3
	switch rng.IntN(3) {
	case 0:
		speed = 7 + 11*rng.Float64()
		spin = right.Scale(speed / 0.11 * 0.4)
	case 1:
		speed = 14 + 12*rng.Float64()
		lift = (18 + 27*rng.Float64()) * math.Pi / 180
		spin = right.Scale(-(5 + 10*rng.Float64()))
	default:
		speed = 18 + 12*rng.Float64()
		lift = 6 * rng.Float64() * math.Pi / 180
		spin = geom.V(0, (rng.Float64()*2-1)*10, 0)
	}
	b.Vel = dir.Scale(speed * math.Cos(lift)).Add(geom.V(0, speed*math.Sin(lift), 0))
	b.AngVel = spin
	w.SetBody(ball, b)
}

// wireBody is a state as the wire carries it: quantised to a millimetre, a
// millimetre per second and a milliradian per second.
func wireBody(t time.Duration, s physics.BodyState, knot bool) kinematic.State {
	q := func(v geom.Vec3) geom.Vec3 {
		return geom.V(math.Round(v.X*1e3)/1e3, math.Round(v.Y*1e3)/1e3, math.Round(v.Z*1e3)/1e3)
	}
	return kinematic.State{Time: t, Pos: q(s.Pos), Vel: q(s.Vel), Rot: s.Rot, AngVel: q(s.AngVel), Knot: knot}
}

func flight(p, v geom.Vec3, dt float64) geom.Vec3 {
	return p.AddScaled(v, dt).AddScaled(geom.V(0, -9.81, 0), dt*dt/2)
}

// at returns the true ball position at server time t.
func (d *drill) at(t time.Duration) geom.Vec3 {
	if t <= 0 {
		return d.ticks[0].st.Pos
	}
	k := int((t + hTick - 1) / hTick)
	if k >= len(d.ticks) {
		return d.ticks[len(d.ticks)-1].st.Pos
	}
	a, b := d.ticks[k-1], d.ticks[k]
	ta, tb := time.Duration(k-1)*hTick, time.Duration(k)*hTick
	if b.bounce {
		if t < b.at {
			return flight(a.st.Pos, a.st.Vel, (t - ta).Seconds())
		}
		return flight(b.st.Pos, b.velIn, (t - tb).Seconds())
	}
	p, _ := geom.Hermite(a.st.Pos, a.st.Vel, b.st.Pos, b.velIn, hTick.Seconds(), float64(t-ta)/float64(hTick))
	return p
}

type delivery struct {
	at time.Duration
	b  kinematic.State
}

// deliver sends every state through a path of link and returns the
// arrivals in order.
func (d *drill) deliver(link netsim.Direction, seed uint64) []delivery {
	p := netsim.NewPath(link, nil, seed)
	var out []delivery
	var arr []time.Duration
	for _, s := range d.sends {
		arr = p.Send(s.at, 48, arr[:0])
		for _, a := range arr {
			out = append(out, delivery{a, s.b})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// oracle is the lab's reference: the server's exact state one one-way delay
// ago (base latency plus mean jitter), advanced by the exact physics. With
// informed set it is instead the best a client can do with the states
// actually delivered: the exact server state of the newest tick received,
// advanced likewise.
type oracle struct {
	d        *drill
	delay    time.Duration
	w        *physics.World
	ball     physics.BodyID
	informed bool
	newest   int64
}

func (o *oracle) Receive(s kinematic.State, _ time.Duration) {
	o.newest = max(o.newest, tickOf(s.Time, hTick))
}

func (o *oracle) Render(now time.Duration) Frame {
	k := int64((now - o.delay) / hTick)
	if o.informed {
		k = o.newest
	}
	if k < 0 {
		return Frame{}
	}
	m := ceilTick(now, hTick)
	o.w.SetBody(o.ball, o.d.ticks[k].st)
	var a, b kinematic.State
	b = o.w.Body(o.ball).State(0)
	for j := k; j < m; j++ {
		a = b
		o.w.Step()
		b = o.w.Body(o.ball).State(0)
	}
	if m <= k {
		a = b
	}
	a.Time = time.Duration(m-1) * hTick
	u := float64(now-a.Time) / float64(hTick)
	pos, vel, rot, _ := curve(a, b, hTick, u)
	return Frame{Pos: pos, Vel: vel, Rot: rot, Time: now, Valid: true, Extrapolated: true}
}

// score is what one mode showed over a run.
type score struct {
	present, fidelity measure.Stat
	pops, kickPops    int // kickPops: within 150 ms after a kick
	frozen, extrap    int
	invalid           int
	frames            int
	minutes           float64
}

func (s score) String() string {
	return fmt.Sprintf("present rms %.3f p99 %.3f m | fidelity rms %.3f m | pops %d (%.1f/min, %d at kicks) | frozen %d extrap %d",
		s.present.RMS, s.present.P99, s.fidelity.RMS, s.pops, float64(s.pops)/s.minutes, s.kickPops, s.frozen, s.extrap)
}

// play renders dur of frames of view fed with dl, and scores them.
func (d *drill) play(v View, dl []delivery, dur time.Duration) score {
	var s score
	var present, fidelity measure.Series
	next := 0
	var prev Frame
	havePrev := false
	kick := 0
	for t := hPhase; t <= dur; t += hFrame {
		for ; next < len(dl) && dl[next].at <= t; next++ {
			v.Receive(dl[next].b, dl[next].at)
		}
		f := v.Render(t)
		for kick < len(d.kicks)-1 && d.kicks[kick+1] <= t {
			kick++
		}
		if t < hWarmUp {
			prev, havePrev = f, f.Valid
			continue
		}
		s.frames++
		if !f.Valid {
			s.invalid++
			havePrev = false
			continue
		}
		present.Add(f.Pos.Dist(d.at(t)))
		fidelity.Add(f.Pos.Dist(d.at(f.Time)))
		if f.Frozen {
			s.frozen++
		}
		if f.Extrapolated {
			s.extrap++
		}
		if havePrev {
			if measure.Pop(prev.Pos, f.Pos, d.at(prev.Time), d.at(f.Time)) {
				s.pops++
				if len(d.kicks) > 0 && t-d.kicks[kick] < 400*time.Millisecond && t >= d.kicks[kick] {
					s.kickPops++
				}
			}
		}
		prev, havePrev = f, true
	}
	s.minutes = (dur - hWarmUp).Minutes()
	s.present, s.fidelity = present.Stat(), fidelity.Stat()
	return s
}

// modes builds each mode's view on a fresh client world.
var modes = []struct {
	name string
	make func(tb testing.TB) View
}{
	{"interp", func(tb testing.TB) View {
		ball, grass := pitch.DefaultBall(), pitch.Default().Grass
		ext := timeline.Ballistic{
			Gravity: geom.V(0, -9.81, 0), Floor: ball.Radius,
			Restitution:  ball.Material.Restitution * grass.Restitution,
			RollingDecel: ball.Material.RollingResistance * grass.RollingResistance * 9.81,
		}
		v, err := NewInterp(timeline.Config{Extrapolate: ext.Extrapolate})
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}},
	{"velocity", func(tb testing.TB) View {
		w, ball := pitchWorld(tb)
		v, err := NewVelocity(VelocityConfig{}, NewWorldSim(w, ball))
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}},
	{"predictive", func(tb testing.TB) View {
		w, ball := pitchWorld(tb)
		v, err := NewPredictive(PredictiveConfig{}, NewWorldSim(w, ball))
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}},
	{"resim", func(tb testing.TB) View {
		w, ball := pitchWorld(tb)
		v, err := NewWorldResim[NoInput](ResimConfig{}, w, ball, nil)
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}},
}

type profile struct {
	name  string
	link  netsim.Direction
	delay time.Duration // the oracle's one-way delay: base plus mean jitter
}

func profiles(tb testing.TB) []profile {
	var out []profile
	for _, name := range []string{"broadband", "wan"} {
		c, err := netsim.Preset(name)
		if err != nil {
			tb.Fatal(err)
		}
		d := time.Duration((c.Down.LatencyMs + c.Down.Jitter.MeanMs) * float64(time.Millisecond))
		out = append(out, profile{name, c.Down, d})
	}
	return out
}

// runAll plays every mode and the oracle over one drill and link.
func runAll(tb testing.TB, p profile, seed uint64, dur time.Duration) map[string]score {
	d := runDrill(tb, seed, dur)
	dl := d.deliver(p.link, seed)
	res := map[string]score{}
	ow, ob := pitchWorld(tb)
	res["oracle"] = d.play(&oracle{d: d, delay: p.delay, w: ow, ball: ob}, dl, dur)
	res["bound"] = d.play(&oracle{d: d, w: ow, ball: ob, informed: true}, dl, dur)
	for _, m := range modes {
		res[m.name] = d.play(m.make(tb), dl, dur)
	}
	return res
}

func report(res map[string]score) string {
	var b strings.Builder
	for _, n := range []string{"oracle", "bound", "interp", "velocity", "predictive", "resim"} {
		fmt.Fprintf(&b, "\n  %-10s %v", n, res[n])
	}
	return b.String()
}

// The figures, in the harness: 60 s of the drill on broadband and
// wan links, three seeds, each asserted with a margin:
//
//   - velocity's, predictive's and resim's present error (rms) within
//     0.5 × interpolation's (the issue asks 0.6 × of the first two);
//   - on broadband, resim's within 1.45 × the oracle's (the issue asks
//     1.5 ×) and 0.25 × interpolation's (0.3 ×);
//   - resim's within 1.1 × the bound's: the bound is the best a client can
//     show with the states actually delivered (the exact server state of the
//     newest tick received, advanced by the exact physics, jumping at once);
//   - no frozen frames, every frame valid after the warm-up.
//
// On wan the oracle's ratio is logged, not asserted: the oracle learns of a
// kick a fixed delay after it whatever the link loses, while a burst of loss
// over a kick leaves every client blind for its length (seed 3 loses the
// states of a kick for 330 ms and the bound itself is 3 × the oracle).
//
// Pops: the issue asks every mode for no more than interpolation's plus one
// a minute. No mode that shows the present can: at an unforeseen kick the
// true motion changes a one-way delay before any client can know, so every
// frame of that delay differs from the truth by the kick's change of
// velocity over a frame — the oracle itself pops about three times a kick.
// What a mode can do is add nothing to that: resim's pops are asserted to be
// at most the bound's plus one a minute, velocity's and predictive's plus two
// (they blend a correction through their own physics, so a body still off
// by a few decimetres meets a board at another moment than the server's),
// and every mode's pops not within 400 ms after a kick at most
// interpolation's plus one a minute.
func TestHarnessFigures(t *testing.T) {
	dur := 60 * time.Second
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, p := range profiles(t) {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed%d", p.name, seed), func(t *testing.T) {
				res := runAll(t, p, seed, dur)
				t.Log(report(res))
				checkFigures(t, res, p.name == "broadband")
			})
		}
	}
}

func checkFigures(t *testing.T, res map[string]score, vsOracle bool) {
	t.Helper()
	or, bd, in := res["oracle"], res["bound"], res["interp"]
	perMin := func(s score, n int) float64 { return float64(n) / s.minutes }
	for name, s := range res {
		if s.frozen != 0 || s.invalid != 0 {
			t.Errorf("%s: %d frozen and %d invalid frames", name, s.frozen, s.invalid)
		}
		if name == "oracle" || name == "bound" || name == "interp" {
			continue
		}
		if s.present.RMS > 0.5*in.present.RMS {
			t.Errorf("%s: present rms %.3f m > 0.5 × interpolation's %.3f", name, s.present.RMS, in.present.RMS)
		}
		extra := 2.0
		if name == "resim" {
			extra = 1
		}
		if perMin(s, s.pops) > perMin(bd, bd.pops)+extra {
			t.Errorf("%s: %.1f pops a minute, the bound %.1f", name, perMin(s, s.pops), perMin(bd, bd.pops))
		}
		if other := s.pops - s.kickPops; perMin(s, other) > perMin(in, in.pops)+1 {
			t.Errorf("%s: %.1f pops a minute away from kicks, interpolation %.1f", name, perMin(s, other), perMin(in, in.pops))
		}
	}
	rs := res["resim"].present.RMS
	t.Logf("resim present rms: %.2f × the oracle's, %.2f × the bound's, %.3f × interpolation's",
		rs/or.present.RMS, rs/bd.present.RMS, rs/in.present.RMS)
	if rs > 1.1*bd.present.RMS {
		t.Errorf("resim: present rms %.3f m, the bound %.3f", rs, bd.present.RMS)
	}
	if vsOracle && (rs > 1.45*or.present.RMS || rs > 0.25*in.present.RMS) {
		t.Errorf("resim: present rms %.3f m, oracle %.3f, interpolation %.3f", rs, or.present.RMS, in.present.RMS)
	}
}
