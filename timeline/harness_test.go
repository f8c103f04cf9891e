package timeline

// A seeded end-to-end harness: a ball simulated on a walled pitch, its states
// sent at 30 Hz (plus a knot state at every contact) through an emulated
// link, rendered at 60 Hz with a perfect clock, and scored the way the lab
// scores a client: fidelity to the moment shown, error against the present,
// pops, extrapolated and frozen frames, render delay. The seed design (ring of
// 20, lerp, fixed 100 ms, extrapolate 500 ms then hold) runs on the same
// deliveries for comparison.

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/measure"
)

// The ball and its pitch.
const (
	ballRadius   = 0.11
	gravityY     = -9.81
	groundRest   = 0.6 // vertical restitution at a bounce
	groundFric   = 0.9 // share of horizontal speed kept at a bounce
	wallRest     = 0.7 // normal restitution at a wall
	rollDecel    = 1.0 // m/s² on the ground
	rollSpeedMin = 0.8 // below this vertical speed after a bounce the ball rolls
	halfX, halfZ = 30.0, 20.0
)

var ballExtrapolator = Ballistic{
	Gravity: geom.V(0, gravityY, 0), Floor: ballRadius,
	Restitution: groundRest, RollingDecel: rollDecel,
}.Extrapolate

// seg is a piece of the true trajectory under constant acceleration, with a
// rotation about a fixed axis at a linearly changing rate.
type seg struct {
	t0    float64 // seconds
	p, v  geom.Vec3
	a     geom.Vec3
	q     geom.Quat
	w     geom.Vec3 // angular velocity at t0
	alpha float64   // angular acceleration along w, rad/s²
}

type ballPath struct {
	segs     []seg
	contacts []float64 // times of kicks and bounces
}

func (s *seg) at(t float64) (geom.Vec3, geom.Vec3, geom.Quat, geom.Vec3) {
	d := t - s.t0
	p := s.p.AddScaled(s.v, d).AddScaled(s.a, d*d/2)
	v := s.v.AddScaled(s.a, d)
	wl := s.w.Len()
	if wl == 0 {
		return p, v, s.q, s.w
	}
	axis := s.w.Scale(1 / wl)
	theta := wl*d + s.alpha*d*d/2
	return p, v, geom.AxisAngle(axis, theta).Mul(s.q).Norm(), axis.Scale(wl + s.alpha*d)
}

// at returns the true state at t seconds.
func (b *ballPath) at(t float64) kinematic.State {
	i := sort.Search(len(b.segs), func(i int) bool { return b.segs[i].t0 > t }) - 1
	i = max(i, 0)
	p, v, q, w := b.segs[i].at(t)
	return kinematic.State{Time: secs(t), Pos: p, Vel: v, Rot: q, AngVel: w}
}

func (b *ballPath) pos(t float64) geom.Vec3 { return b.at(t).Pos }

func secs(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// smallestRoot returns the smallest root above 1e-9 of a/2 τ² + v τ + c, or +Inf.
func smallestRoot(a, v, c float64) float64 {
	const eps = 1e-9
	if math.Abs(a) < 1e-12 {
		if v == 0 {
			return math.Inf(1)
		}
		if r := -c / v; r > eps {
			return r
		}
		return math.Inf(1)
	}
	disc := v*v - 2*a*c
	if disc < 0 {
		return math.Inf(1)
	}
	sq := math.Sqrt(disc)
	r1, r2 := (-v-sq)/a, (-v+sq)/a
	if r1 > r2 {
		r1, r2 = r2, r1
	}
	if r1 > eps {
		return r1
	}
	if r2 > eps {
		return r2
	}
	return math.Inf(1)
}

// simulate builds dur seconds of a ball drill: kicks at random times (ground
// passes, lofted balls, shots at the walls), bounces, rolling, walls.
func simulate(rng *rand.Rand, dur float64) *ballPath {
	b := &ballPath{}
	p := geom.V(0, ballRadius, 0)
	var v, w geom.Vec3
	q := geom.Identity
	t := 0.0
	nextKick := 1 + rng.Float64()
	const (
		air = iota
		roll
		rest
	)
	mode := rest
	rolling := func() geom.Vec3 { return geom.V(0, 1, 0).Cross(v).Scale(1 / ballRadius) }
	for t < dur {
		var a geom.Vec3
		alpha := 0.0
		switch mode {
		case air:
			a = geom.V(0, gravityY, 0)
		case roll:
			a = v.Norm().Scale(-rollDecel)
			alpha = -rollDecel / ballRadius
		}
		s := seg{t0: t, p: p, v: v, a: a, q: q, w: w, alpha: alpha}
		if mode == roll {
			s.w = rolling()
		}
		b.segs = append(b.segs, s)
		// Next event.
		tau := nextKick - t
		ev := "kick"
		if mode == air {
			if r := smallestRoot(a.Y, v.Y, p.Y-ballRadius); r < tau {
				tau, ev = r, "ground"
			}
		}
		if mode == roll {
			if r := v.Len() / rollDecel; r < tau {
				tau, ev = r, "stop"
			}
		}
		if mode != rest {
			for _, wall := range []struct {
				pos, vel, acc, bound float64
				name                 string
			}{
				{p.X, v.X, a.X, halfX - ballRadius, "+x"}, {p.X, v.X, a.X, -halfX + ballRadius, "-x"},
				{p.Z, v.Z, a.Z, halfZ - ballRadius, "+z"}, {p.Z, v.Z, a.Z, -halfZ + ballRadius, "-z"},
			} {
				if r := smallestRoot(wall.acc, wall.vel, wall.pos-wall.bound); r < tau {
					tau, ev = r, wall.name
				}
			}
		}
		if t+tau > dur {
			tau, ev = dur-t, "end"
		}
		p, v, q, _ = s.at(t + tau)
		w = s.w.Norm().Scale(s.w.Len() + s.alpha*tau)
		t += tau
		contact := true
		switch ev {
		case "end":
			contact = false
		case "kick":
			nextKick = t + 1.5 + 3*rng.Float64()
			ang := 2 * math.Pi * rng.Float64()
			dir := geom.V(math.Cos(ang), 0, math.Sin(ang))
			switch k := rng.IntN(3); k {
			case 0: // ground pass
				v = dir.Scale(6 + 12*rng.Float64())
				mode = roll
				if p.Y > ballRadius+1e-9 {
					mode = air
				}
			case 1: // lofted
				sp, el := 12+13*rng.Float64(), (20+30*rng.Float64())*math.Pi/180
				v = dir.Scale(sp * math.Cos(el)).Add(geom.V(0, sp*math.Sin(el), 0))
				w = geom.V(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(30)
				mode = air
			default: // shot at a wall
				sp, el := 20+10*rng.Float64(), 15*rng.Float64()*math.Pi/180
				v = dir.Scale(sp * math.Cos(el)).Add(geom.V(0, sp*math.Sin(el), 0))
				w = geom.V(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(20)
				mode = air
			}
		case "ground":
			p.Y = ballRadius
			v.Y = -v.Y * groundRest
			v.X, v.Z = v.X*groundFric, v.Z*groundFric
			if v.Y < rollSpeedMin {
				v.Y = 0
				mode = roll
			}
		case "stop":
			v, w = geom.Vec3{}, geom.Vec3{}
			mode = rest
			contact = false
		case "+x", "-x":
			v.X = -v.X * wallRest
		case "+z", "-z":
			v.Z = -v.Z * wallRest
		}
		if mode == roll && v.Len() < 1e-9 {
			v, w = geom.Vec3{}, geom.Vec3{}
			mode = rest
		}
		if contact {
			b.contacts = append(b.contacts, t)
		}
	}
	return b
}

// link is a one-way path: base latency, jitter, loss (random or in bursts),
// duplicates, latency spikes and blackouts.
type link struct {
	name     string
	base     float64 // seconds
	jitter   func(r *rand.Rand) float64
	loss     float64
	burst    float64 // mean burst length; ≤ 1 means independent losses
	dup      float64
	spikes   bool
	blackout [2]float64 // start, length (seconds); zero length means none
}

func expJitter(mean float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return r.ExpFloat64() * mean }
}

func lognormalJitter(mean, p99 float64) func(*rand.Rand) float64 {
	const z = 2.3263478740408408
	sigma := z - math.Sqrt(z*z-2*math.Log(p99/mean))
	mu := math.Log(mean) - sigma*sigma/2
	return func(r *rand.Rand) float64 { return math.Exp(mu + sigma*r.NormFloat64()) }
}

var profiles = []link{
	{name: "lan", base: 0.0005, jitter: expJitter(0.0002)},
	{name: "broadband", base: 0.025, jitter: expJitter(0.005), loss: 0.01},
	{name: "wan", base: 0.060, jitter: lognormalJitter(0.010, 0.060), loss: 0.03, burst: 3, dup: 0.01},
	{name: "mobile", base: 0.075, jitter: expJitter(0.015), loss: 0.05, spikes: true},
	{name: "lossy", base: 0.025, jitter: expJitter(0.005), loss: 0.10, blackout: [2]float64{20, 2}},
}

type delivery struct {
	arrival float64
	s       kinematic.State
}

// deliver sends each state at its own time through l and returns the
// deliveries in arrival order.
func (l link) deliver(rng *rand.Rand, sent []kinematic.State, dur float64) []delivery {
	type spike struct{ from, to, extra float64 }
	var spikes []spike
	if l.spikes {
		for t := rng.ExpFloat64() * 30; t < dur; t += rng.ExpFloat64() * 30 {
			spikes = append(spikes, spike{t, t + 0.1 + 0.4*rng.Float64(), 0.05 + 0.15*rng.Float64()})
		}
	}
	bad := false
	var out []delivery
	for _, s := range sent {
		at := s.Time.Seconds()
		if l.burst > 1 {
			if bad {
				bad = rng.Float64() >= 1/l.burst
			} else {
				bad = rng.Float64() < l.loss/(l.burst*(1-l.loss))
			}
			if bad {
				continue
			}
		} else if rng.Float64() < l.loss {
			continue
		}
		if l.blackout[1] > 0 && at >= l.blackout[0] && at < l.blackout[0]+l.blackout[1] {
			continue
		}
		extra := 0.0
		for _, sp := range spikes {
			if at >= sp.from && at < sp.to {
				extra = sp.extra
			}
		}
		copies := 1
		if rng.Float64() < l.dup {
			copies = 2
		}
		for range copies {
			out = append(out, delivery{at + l.base + extra + l.jitter(rng), s})
		}
	}
	slices.SortStableFunc(out, func(a, b delivery) int {
		switch {
		case a.arrival < b.arrival:
			return -1
		case a.arrival > b.arrival:
			return 1
		}
		return 0
	})
	return out
}

// sendStates returns what the server sends: the state every 1/30 s (on its
// 60 Hz ticks) and a knot state at every contact, in send order.
func sendStates(b *ballPath, dur float64, knots bool) []kinematic.State {
	var out []kinematic.State
	ci := 0
	for k := 0; float64(k)/30 < dur; k++ {
		t := float64(k) / 30
		for knots && ci < len(b.contacts) && b.contacts[ci] <= t {
			c := b.contacts[ci]
			if c < t && t-c > 1e-6 { // a contact exactly on a tick is that tick's state
				s := b.at(c)
				s.Knot = true
				out = append(out, s)
			}
			ci++
		}
		out = append(out, b.at(t))
	}
	return out
}

// seedBall is the design Tether replaces, written from its description: the
// last 20 states in arrival order (older than the newest: ignored), render at
// now - 100 ms by linear interpolation, past the newest extrapolate by its
// velocity for at most 500 ms, then hold.
type seedBall struct {
	states []kinematic.State
}

func (sb *seedBall) receive(s kinematic.State) {
	if n := len(sb.states); n > 0 && s.Time <= sb.states[n-1].Time {
		return
	}
	sb.states = append(sb.states, s)
	if len(sb.states) > 20 {
		sb.states = sb.states[1:]
	}
}

func (sb *seedBall) render(now time.Duration) (pos geom.Vec3, rt time.Duration, extrap, frozen bool) {
	rt = now - 100*time.Millisecond
	n := len(sb.states)
	if n == 0 {
		return geom.Vec3{}, rt, false, true
	}
	last := sb.states[n-1]
	if rt >= last.Time {
		d := rt - last.Time
		if d > 500*time.Millisecond {
			return last.Pos.AddScaled(last.Vel, 0.5), rt, false, true
		}
		return last.Pos.AddScaled(last.Vel, d.Seconds()), rt, true, false
	}
	for i := n - 2; i >= 0; i-- {
		if a := sb.states[i]; a.Time <= rt {
			b := sb.states[i+1]
			return a.Pos.Lerp(b.Pos, float64(rt-a.Time)/float64(b.Time-a.Time)), rt, false, false
		}
	}
	return sb.states[0].Pos, rt, false, true
}

// score is one method's figures over a run.
type score struct {
	fidelity, present, delayMs measure.Stat
	targetMs                   measure.Stat // tether only: the target delay
	pops, extrap, frozen       int
	popsInBlackout             int // render time in the blackout
	popsAfterBlackout          int // render time in the 3 s after the blackout
	popsAfterBlackoutByFrame   int // frame time in the 3 s after the blackout
	minutes                    float64
}

// renderer is what a method draws at now: position and render time.
type renderer func(now time.Duration) (pos geom.Vec3, rt time.Duration, extrap, frozen bool)

type runConfig struct {
	seed    uint64
	dur     float64 // seconds
	warmup  float64
	knots   bool // flag contact states as knots
	cfg     Config
	linkFor link
}

// run simulates one profile and returns tether's and the seed's scores.
func run(rc runConfig) (ours, seed score) {
	rng := rand.New(rand.NewPCG(rc.seed, 0x7e7e))
	path := simulate(rng, rc.dur+1)
	sent := sendStates(path, rc.dur, true)
	if !rc.knots {
		for i := range sent {
			sent[i].Knot = false
		}
	}
	dels := rc.linkFor.deliver(rng, sent, rc.dur)

	cfg := rc.cfg
	if cfg.Extrapolate == nil {
		cfg.Extrapolate = ballExtrapolator
	}
	tl, err := New(cfg)
	if err != nil {
		panic(err)
	}
	sb := &seedBall{}
	var targets []float64
	ourRender := func(now time.Duration) (geom.Vec3, time.Duration, bool, bool) {
		f := tl.Sample(now)
		if now.Seconds() >= rc.warmup {
			targets = append(targets, tl.Stats().Target.Seconds()*1000)
		}
		return f.Pos, f.Time, f.Extrapolated, f.Frozen
	}
	scorers := []*scorer{newScorer(rc, path), newScorer(rc, path)}
	methods := []renderer{ourRender, sb.render}
	next := 0
	const phase = 0.0043
	for k := 0; ; k++ {
		nowS := float64(k)/60 + phase
		if nowS > rc.dur {
			break
		}
		for ; next < len(dels) && dels[next].arrival <= nowS; next++ {
			tl.Insert(dels[next].s, secs(dels[next].arrival))
			sb.receive(dels[next].s)
		}
		for i, m := range methods {
			scorers[i].frame(nowS, m)
		}
	}
	ours = scorers[0].result()
	ours.targetMs = measure.Summarise(targets)
	return ours, scorers[1].result()
}

type scorer struct {
	rc                                   runConfig
	path                                 *ballPath
	fid, pres, delay                     []float64
	pops, extrap, frozen, pab, pabf, pib int
	havePrev                             bool
	prevR                                geom.Vec3
	prevRT                               time.Duration
	frames                               int
}

func newScorer(rc runConfig, path *ballPath) *scorer { return &scorer{rc: rc, path: path} }

func (s *scorer) frame(nowS float64, m renderer) {
	r, rt, ex, fr := m(secs(nowS))
	counted := nowS >= s.rc.warmup
	bo := s.rc.linkFor.blackout
	rts := rt.Seconds()
	// Frames whose render time lies in the blackout show a stretch of time
	// no state exists for.
	inBlackout := bo[1] > 0 && rts >= bo[0] && rts < bo[0]+bo[1]
	if counted && s.havePrev {
		if measure.Pop(s.prevR, r, s.path.pos(s.prevRT.Seconds()), s.path.pos(rts)) {
			s.pops++
			if inBlackout {
				s.pib++
			}
			if bo[1] > 0 && rts >= bo[0]+bo[1] && rts < bo[0]+bo[1]+3 {
				s.pab++
			}
			if bo[1] > 0 && nowS >= bo[0]+bo[1] && nowS < bo[0]+bo[1]+3 {
				s.pabf++
			}
		}
	}
	if counted {
		s.frames++
		if !inBlackout {
			s.fid = append(s.fid, r.Dist(s.path.pos(rts)))
		}
		s.pres = append(s.pres, r.Dist(s.path.pos(nowS)))
		s.delay = append(s.delay, (secs(nowS)-rt).Seconds()*1000)
		if ex {
			s.extrap++
		}
		if fr {
			s.frozen++
		}
	}
	s.havePrev, s.prevR, s.prevRT = true, r, rt
}

func (s *scorer) result() score {
	return score{
		fidelity: measure.Summarise(s.fid), present: measure.Summarise(s.pres), delayMs: measure.Summarise(s.delay),
		pops: s.pops, extrap: s.extrap, frozen: s.frozen, popsAfterBlackout: s.pab, popsInBlackout: s.pib, popsAfterBlackoutByFrame: s.pabf,
		minutes: float64(s.frames) / 60 / 60,
	}
}
