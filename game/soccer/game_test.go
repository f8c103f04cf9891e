package soccer

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/timeline"
)

type recorder struct{ events []event.Event }

func (r *recorder) Emit(e event.Event) { r.events = append(r.events, e) }

func (r *recorder) kinds() []uint8 {
	var k []uint8
	for _, e := range r.events {
		k = append(k, e.Kind)
	}
	return k
}

// rig drives a Game tick by tick without a network.
type rig struct {
	t   *testing.T
	g   *Game
	rec recorder
	n   uint64
	seq map[int]uint8
}

const dt = time.Second / 60

func newRig(t *testing.T, players int) *rig {
	g, err := NewGame(DefaultRules(), 60)
	if err != nil {
		t.Fatal(err)
	}
	m := &rig{t: t, g: g, seq: map[int]uint8{}}
	for c := range players {
		if _, err := g.Join(c); err != nil {
			t.Fatal(err)
		}
		m.input(c, Input{}, 0) // first input: the action sequence starts here
	}
	return m
}

func (m *rig) now() time.Duration { return time.Duration(m.n) * dt }

func (m *rig) input(client int, in Input, view time.Duration) {
	in.ActionSeq = m.seq[client]
	m.g.Input(client, server.Input{View: view, Data: AppendInput(nil, in)})
}

// act sends an input whose action happens at the next tick.
func (m *rig) act(client int, in Input, view time.Duration) {
	m.seq[client]++
	m.input(client, in, view)
}

func (m *rig) step(n int) {
	for range n {
		m.n++
		m.g.Step(server.Tick{N: m.n, Time: m.now(), Dt: dt}, &m.rec)
	}
}

// place teleports a client's player (and stops it).
func (m *rig) place(client int, pos geom.Vec3, yaw float64) {
	i := m.g.byClient[client]
	p := &m.g.players[i]
	p.st = PlayerState{Pos: pos, Yaw: yaw}
	m.g.world.SetBody(p.body, physics.BodyState{Pos: pos})
}

func (m *rig) ball(pos, vel geom.Vec3) {
	m.g.world.SetBody(m.g.ball, physics.BodyState{Pos: pos, Vel: vel})
	m.g.possessor = -1
}

func (m *rig) truth() Truth {
	var tr Truth
	m.g.Truth(&tr)
	return tr
}

func TestJoinTeamsAndFull(t *testing.T) {
	r := DefaultRules()
	r.MaxPlayers = 3
	g, err := NewGame(r, 60)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		id, err := g.Join(c * 10)
		if err != nil || id != FirstPlayerID+uint32(c) {
			t.Fatalf("join %d: %d %v", c, id, err)
		}
	}
	if _, err := g.Join(99); !errors.Is(err, ErrFull) {
		t.Fatalf("fourth join: %v", err)
	}
	if _, err := g.Join(0); err == nil {
		t.Fatal("joined twice")
	}
	var tr Truth
	g.Truth(&tr)
	if tr.Players[0].Team != Home || tr.Players[1].Team != Away || tr.Players[2].Team != Home {
		t.Fatalf("teams %+v", tr.Players)
	}
	if tr.Players[0].Pos.X >= 0 || tr.Players[1].Pos.X <= 0 {
		t.Fatal("players not in their own halves")
	}
	g.Leave(10)
	if id, err := g.Join(77); err != nil || id != FirstPlayerID+1 {
		t.Fatalf("slot not reused: %d %v", id, err)
	}
	if r.MaxPlayers = 65; r.Validate() == nil {
		t.Fatal("MaxPlayers 65 accepted")
	}
}

// TestPossession: a player reaching a free ball wins it and carries it in
// front; a kick frees it with an event carrying the ball's state; the kicker
// cannot touch it again at once.
func TestPossession(t *testing.T) {
	m := newRig(t, 2)
	m.place(0, geom.V(-5, 0, 0), 0)
	m.place(1, geom.V(30, 0, 20), math.Pi)
	m.ball(geom.V(0, 0.11, 0), geom.Vec3{})
	m.input(0, Input{Dir: geom.V(1, 0, 0)}, 0)
	for range 120 {
		m.step(1)
		if m.truth().Possessor != NoPlayer {
			break
		}
	}
	tr := m.truth()
	if tr.Possessor != FirstPlayerID {
		t.Fatalf("possessor %d", tr.Possessor)
	}
	// Carried: in front of the player, at the dribble offset, moving with it.
	m.step(30)
	tr = m.truth()
	p := tr.Players[0]
	want := p.Pos.Add(p.Forward().Scale(0.6)).Add(geom.V(0, 0.11, 0))
	if tr.Ball.Pos.Dist(want) > 1e-9 || tr.Ball.Vel.Dist(p.Vel) > 1e-6 {
		t.Fatalf("ball at %v moving %v, want %v moving %v", tr.Ball.Pos, tr.Ball.Vel, want, p.Vel)
	}
	// A ground pass to +Z at full power.
	m.act(0, Input{Dir: geom.V(1, 0, 0), Action: ActionPass, Aim: geom.V(0, 0, 1), Power: 1}, m.now())
	m.step(1)
	tr = m.truth()
	if tr.Possessor != NoPlayer || math.Abs(tr.Ball.Vel.Z-20) > 0.5 {
		t.Fatalf("after the pass: possessor %d, ball velocity %v", tr.Possessor, tr.Ball.Vel)
	}
	kick := m.rec.events[len(m.rec.events)-1]
	if kick.Kind != EventKick || kick.Actor != FirstPlayerID || kick.Arg != uint32(ActionPass) || !kick.HasState || kick.State.Vel.Dist(tr.Ball.Vel) > 1e-9 || kick.Time != m.now() {
		t.Fatalf("kick event %+v", kick)
	}
	// Repeating the same input does not kick again.
	m.input(0, Input{Action: ActionPass}, m.now())
	m.step(20)
	if st := m.g.Stats(); st.Kicks != 1 || st.Possessions != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestTackleRewind: a tackle is judged where the tackling client saw both
// players, at the server time it was showing: in reach then wins the ball even
// if not now, out of reach then fails even if in reach now.
func TestTackleRewind(t *testing.T) {
	run := func(tacklerFrom, victimVel geom.Vec3, viewBack time.Duration) (bool, GameStats) {
		m := newRig(t, 2)
		m.place(0, geom.V(0, 0, 0), 0)
		m.place(1, tacklerFrom, 0)
		m.ball(geom.V(0.5, 0.11, 0), geom.Vec3{})
		m.step(2)
		if m.truth().Possessor != FirstPlayerID {
			t.Fatal("setup: no possession")
		}
		m.input(0, Input{Dir: victimVel}, 0)
		m.step(40) // the victim runs off at full speed
		m.act(1, Input{Action: ActionTackle}, m.now()-viewBack)
		m.step(1)
		return m.truth().Possessor == NoPlayer, m.g.Stats()
	}
	// The victim runs off along +X at about 6 m/s, passing 1 m from the
	// tackler. Seen 200 ms ago, they were close...
	won, st := run(geom.V(1.5, 0, 1), geom.V(1, 0, 0), 200*time.Millisecond)
	if !won || st.TacklesWon != 1 || st.Rewinds != 1 {
		t.Fatalf("rewound tackle: won %v, %+v", won, st)
	}
	// ...but judged now, the victim is metres away.
	if won, _ := run(geom.V(1.5, 0, 1), geom.V(1, 0, 0), 0); won {
		t.Fatal("tackle out of reach now won")
	}
	// Asking further back than MaxRewind is clamped to it.
	_, st = run(geom.V(1.5, 0, 1), geom.V(1, 0, 0), 2*time.Second)
	if st.RewindsClamped != 1 {
		t.Fatalf("not clamped: %+v", st)
	}
	// A tackle on a teammate does nothing.
	m := newRig(t, 3) // clients 0 and 2 are Home
	m.place(0, geom.V(0, 0, 0), 0)
	m.place(2, geom.V(1, 0, 0.5), 0)
	m.ball(geom.V(0.5, 0.11, 0), geom.Vec3{})
	m.step(2)
	m.act(2, Input{Action: ActionTackle}, m.now())
	m.step(1)
	if m.g.Stats().Tackles != 0 {
		t.Fatal("tackled a teammate")
	}
}

// TestGoalAndKickoff: a ball over the goal line between the posts scores;
// after the pause everyone is teleported to the kickoff (new generations,
// which clients show as cuts).
func TestGoalAndKickoff(t *testing.T) {
	m := newRig(t, 2)
	m.step(1)
	m.ball(geom.V(48, 0.11, 1), geom.V(15, 0, 0))
	before := m.g.players[0].gen
	ballGen := m.g.ballGen
	for m.g.Stats().Kickoffs == 0 && m.n < 600 {
		m.step(1)
	}
	tr := m.truth()
	if tr.Score != [2]int{1, 0} {
		t.Fatalf("score %v", tr.Score)
	}
	k := m.rec.kinds()
	if len(k) != 2 || k[0] != EventGoal || k[1] != EventKickoff || m.rec.events[0].Arg != uint32(Home) {
		t.Fatalf("events %+v", m.rec.events)
	}
	if pause := m.rec.events[1].Time - m.rec.events[0].Time; pause < DefaultRules().GoalPause || pause > DefaultRules().GoalPause+dt {
		t.Fatalf("pause %v", pause)
	}
	if tr.Ball.Pos != geom.V(0, 0.11, 0) || m.g.players[0].gen == before || m.g.ballGen == ballGen || !m.g.kickoff {
		t.Fatalf("not reset: ball %v", tr.Ball.Pos)
	}
	// The kickoff snapshot carries everyone with their new generations.
	var s snapshotForTest
	s.of(t, m.g)
	if len(s.Entities) != 3 || s.Entities[0].Gen != m.g.ballGen || s.Entities[1].Gen != m.g.players[0].gen {
		t.Fatalf("kickoff snapshot %+v", s.Entities)
	}
	// A ball over the line beside the goal is no goal.
	m.step(1)
	m.ball(geom.V(50, 0.11, 10), geom.V(15, 0, 0))
	m.step(60)
	if m.truth().Score != [2]int{1, 0} {
		t.Fatal("scored beside the goal")
	}
}

func TestOutOfPlay(t *testing.T) {
	m := newRig(t, 2)
	m.step(1)
	m.ball(geom.V(10, 5, 0), geom.V(0, 20, 40))
	for m.g.Stats().Restarts == 0 && m.n < 300 {
		m.step(1)
	}
	tr := m.truth()
	lz := pitch.Default().Width/2 + pitch.Default().Margin
	if m.g.Stats().Restarts != 1 || math.Abs(tr.Ball.Pos.Z) > lz || tr.Ball.Vel != (geom.Vec3{}) {
		t.Fatalf("restart: ball %v %v", tr.Ball.Pos, tr.Ball.Vel)
	}
	// The restart is a teleport, and its event's state says so: a client
	// that places the event before the snapshot of the tick holds the
	// snapshot's copy as a duplicate, whose cut it would not see.
	if e := m.rec.events[len(m.rec.events)-1]; e.Kind != EventRestart || !e.HasState || !e.State.Cut || e.State.Pos.Dist(tr.Ball.Pos) > 1e-9 {
		t.Fatalf("event %+v", e)
	}
	// The snapshot of the restart holds the ball where it was put only: the
	// state of the tick before would go with the new generation, and a
	// client would cut there, a tick early and off the pitch.
	var s snapshotForTest
	s.of(t, m.g)
	balls := 0
	for _, e := range s.Entities {
		if e.ID == BallID {
			balls++
			if e.State.Pos.Dist(tr.Ball.Pos) > 0.01 {
				t.Fatalf("restart snapshot: ball at %v, want %v", e.State.Pos, tr.Ball.Pos)
			}
		}
	}
	if balls != 1 {
		t.Fatalf("restart snapshot: %+v, want one state of the ball", s.Entities)
	}
}

// TestMove: speeds, acceleration, turning and bounds.
func TestMove(t *testing.T) {
	r := DefaultRules()
	s := PlayerState{}
	for range 120 {
		s = r.Move(s, Input{Dir: geom.V(0, 0, -1)}, false, dt)
	}
	if math.Abs(s.Vel.Len()-r.RunSpeed) > 1e-9 || math.Abs(angleDiff(s.Yaw, math.Pi/2)) > 1e-6 {
		t.Fatalf("after 2 s running to -Z: %+v", s)
	}
	if f := s.Forward(); f.Dist(geom.V(0, 0, -1)) > 1e-6 || s.Rot().Rotate(geom.V(1, 0, 0)).Dist(f) > 1e-9 {
		t.Fatalf("facing %v", f)
	}
	// One tick changes the velocity by at most Accel·dt and the yaw by TurnRate·dt.
	n := r.Move(s, Input{Dir: geom.V(0, 0, 1), Sprint: true}, false, dt)
	if dv := n.Vel.Sub(s.Vel).Len(); dv > r.Accel*dt.Seconds()+1e-9 {
		t.Fatalf("dv %v", dv)
	}
	if dy := math.Abs(angleDiff(n.Yaw, s.Yaw)); dy > r.TurnRate*dt.Seconds()+1e-9 {
		t.Fatalf("turned %v", dy)
	}
	for range 900 {
		s = r.Move(s, Input{Dir: geom.V(1, 0, 0), Sprint: true}, true, dt)
	}
	lx := r.Pitch.Length/2 + r.Pitch.Margin - r.Edge
	if s.Pos.X != lx || s.Vel.X != 0 {
		t.Fatalf("not kept inside: %+v", s)
	}
	// Same input, same result; NaN directions stand still.
	a := r.Move(PlayerState{Yaw: 1}, Input{Dir: geom.V(0.3, 0, 0.4)}, false, dt)
	b := r.Move(PlayerState{Yaw: 1}, Input{Dir: geom.V(0.3, 0, 0.4)}, false, dt)
	if a != b {
		t.Fatal("not deterministic")
	}
	if z := r.Move(PlayerState{}, Input{Dir: geom.V(math.NaN(), 0, 0)}, false, dt); z != (PlayerState{}) {
		t.Fatalf("NaN moved: %+v", z)
	}
}

// PlayerExtrapolator draws a player's motion under its input held as Move
// makes it: its continuous form matches Move stepped finely, and is off Move
// at the server's tick only by the tick's stepping (half the acceleration
// times the tick, per second of acceleration), at most half a straight
// line's error from two ticks on.
func TestPlayerExtrapolator(t *testing.T) {
	r := DefaultRules()
	cases := []struct {
		name     string
		s        PlayerState
		in       Input
		carrying bool
	}{
		{"start and turn", PlayerState{Pos: geom.V(3, 0, 4), Yaw: 2}, Input{Dir: geom.V(1, 0, 0.2), Sprint: true}, false},
		{"stop", PlayerState{Vel: geom.V(0, 0, -7), Yaw: math.Pi / 2}, Input{}, false},
		{"turn back carrying", PlayerState{Vel: geom.V(5, 0, 1), Yaw: -0.2}, Input{Dir: geom.V(-0.5, 0, -0.1)}, true},
		{"slow turn", PlayerState{Vel: geom.V(6, 0, 0)}, Input{Dir: geom.V(0.9, 0, -0.1)}, false},
	}
	extrapolate := PlayerExtrapolator(r)
	for _, c := range cases {
		_, want := r.wanted(c.in, c.carrying)
		s0 := kinematic.State{Pos: c.s.Pos, Vel: c.s.Vel, Rot: c.s.Rot(), Input: want}
		for _, d := range []time.Duration{dt, 2 * dt, 100 * time.Millisecond, 300 * time.Millisecond, time.Second} {
			got := extrapolate(s0, d)
			fine := c.s
			const h = 100 * time.Microsecond
			for range d / h {
				fine = r.Move(fine, c.in, c.carrying, h)
			}
			if e := got.Pos.Dist(fine.Pos); e > 2e-3 || got.Vel.Dist(fine.Vel) > 2e-3 || math.Abs(angleDiff(YawOfRot(got.Rot), fine.Yaw)) > 2e-3 || got.Time != d {
				t.Errorf("%s, %v on: extrapolated %+v (yaw %.4f), Move in steps of %v %+v (off by %.4f m)", c.name, d, got, YawOfRot(got.Rot), h, fine, e)
			}
			if d < 2*dt {
				continue
			}
			tick := c.s
			for range d / dt {
				tick = r.Move(tick, c.in, c.carrying, dt)
			}
			stepping := r.Accel * dt.Seconds() / 2 * d.Seconds()
			lin := timeline.Linear(s0, d)
			if e, l := got.Pos.Dist(tick.Pos), lin.Pos.Dist(tick.Pos); e > stepping+1e-3 || e > l/2 {
				t.Errorf("%s, %v on: %.4f m from Move at 60 Hz (stepping %.4f m), a straight line %.4f m", c.name, d, e, stepping, l)
			}
		}
		if back := extrapolate(s0, -dt); back != timeline.Linear(s0, -dt) {
			t.Errorf("%s: backward %+v, want Linear's", c.name, back)
		}
	}
	// Against the boards it stays inside them, not running into them.
	lx := r.Pitch.Length/2 + r.Pitch.Margin - r.Edge
	s0 := kinematic.State{Pos: geom.V(lx-0.3, 0, 2), Vel: geom.V(6, 0, 0), Rot: geom.Identity, Input: geom.V(7, 0, 2)}
	if got := extrapolate(s0, 300*time.Millisecond); got.Pos.X != lx || got.Vel.X != 0 || got.Pos.Z <= 2 {
		t.Errorf("against the boards: %+v", got)
	}
}

func TestPassPower(t *testing.T) {
	r := DefaultRules()
	for _, d := range []float64{8, 20, 35} {
		p := r.PassPower(d)
		v, _ := r.Kick(ActionPass, geom.V(1, 0, 0), p)
		w, _ := physics.NewWorld(physics.Config{})
		r.Pitch.AddTo(w)
		b := r.Ball
		b.Pos, b.Vel = geom.V(0, b.Radius, 0), v
		b.AngVel = geom.V(0, 0, -v.X/b.Radius)
		id, _ := w.AddSphere(b)
		for range 60 * 30 {
			w.Step()
		}
		if got := w.Body(id).Pos.X; math.Abs(got-d) > 0.2*d {
			t.Errorf("a pass for %v m rolled %.1f m", d, got)
		}
	}
}

// TestKickAsOfSent: a kick is made as of the tick its client made it (the
// input's send time less its ActionAge), the ball brought from there to the
// present by the physics, so it is where a kick at that tick would have put
// it; from where the input claims the ball was if that is within
// KickTolerance; without a send time, now.
func TestKickAsOfSent(t *testing.T) {
	// cut is whether the newest ball state in the snapshot sent after run's
	// kick is a Cut.
	var cut bool
	// age > 0: the input that first carried the kick was lost, and the one
	// that arrived was sent age later. claim: the kick's KickFrom, relative
	// to the ball at the send tick.
	run := func(back int, sendTime bool, age time.Duration, claim geom.Vec3) (Truth, geom.Vec3, GameStats) {
		m := newRig(t, 2)
		m.place(0, geom.V(-5, 0, 0), 0)
		m.place(1, geom.V(30, 0, 20), math.Pi)
		m.ball(geom.V(-4.4, 0.11, 0), geom.Vec3{})
		m.input(0, Input{Dir: geom.V(1, 0, 0)}, 0)
		m.step(30)
		if m.truth().Possessor != FirstPlayerID {
			t.Fatal("no possession")
		}
		sent := m.now()
		from := m.truth().Ball.Pos
		m.step(back)
		m.seq[0]++
		in := Input{Dir: geom.V(1, 0, 0), ActionSeq: m.seq[0], Action: ActionPass, Aim: geom.V(0, 0, 1), Power: 1, ActionAge: age}
		if claim != (geom.Vec3{}) {
			in.KickFrom = from.Add(claim)
		}
		si := server.Input{View: sent + age, Data: AppendInput(nil, in)}
		if sendTime {
			si.Sent = sent + age
		}
		m.g.Input(0, si)
		m.step(1)
		var s snapshotForTest
		s.of(t, m.g)
		var newest time.Duration
		for _, e := range s.Entities {
			if e.Kind == KindBall && e.State.Time >= newest {
				newest, cut = e.State.Time, e.State.Cut
			}
		}
		return m.truth(), from, m.g.Stats()
	}
	// The reference: the same kick from the ball's place at the send tick,
	// stepped alone for the four ticks from there to the one that applied it.
	kicked := func(from geom.Vec3) physics.BodyState {
		w, ball, _, err := newWorld(DefaultRules(), 60)
		if err != nil {
			t.Fatal(err)
		}
		v, spin := DefaultRules().Kick(ActionPass, geom.V(0, 0, 1), 1)
		w.SetBody(ball, physics.BodyState{Pos: from, Vel: v, AngVel: spin, Rot: geom.Identity})
		for range 4 {
			w.Step()
		}
		return w.Body(ball)
	}
	tr, from, st := run(3, true, 0, geom.Vec3{})
	want := kicked(from)
	if tr.Possessor != NoPlayer || st.KicksBackdated != 1 || tr.Ball.Pos.Dist(want.Pos) > 1e-6 || tr.Ball.Vel.Dist(want.Vel) > 1e-6 {
		t.Fatalf("kicked as of 4 ticks back: ball at %v moving %v (stats %+v), want %v moving %v", tr.Ball.Pos, tr.Ball.Vel, st, want.Pos, want.Vel)
	}
	// Brought to the present, the ball jumped: the state sent is a Cut.
	if !tr.BallJumped || !cut {
		t.Fatalf("kicked as of 4 ticks back: BallJumped %v, snapshot Cut %v, want both", tr.BallJumped, cut)
	}
	// Sent two ticks later, two ticks old: the same kick.
	if tr3, _, _ := run(3, true, 2*dt, geom.Vec3{}); tr3.Ball != tr.Ball {
		t.Fatalf("kick carried by a later input: ball %+v, want %+v", tr3.Ball, tr.Ball)
	}
	// Claimed 12 cm off the server's ball: from there; 40 cm off: from the
	// server's ball. (Off towards +Z, the aim, so that KickAim keeps it;
	// the claim is sent to the millimetre.)
	off := geom.V(-0.1, 0, 0.066)
	tr4, _, st4 := run(3, true, 0, off)
	if want := kicked(from.Add(off)); st4.KicksClaimed != 1 || tr4.Ball.Pos.Dist(want.Pos) > 1e-3 {
		t.Fatalf("claimed %v off: ball at %v (stats %+v), want %v", off, tr4.Ball.Pos, st4, want.Pos)
	}
	if tr5, _, st5 := run(3, true, 0, geom.V(0, 0, 0.4)); st5.KicksClaimed != 0 || tr5.Ball.Pos.Dist(tr.Ball.Pos) > 1e-9 {
		t.Fatalf("claimed 40 cm off: ball at %v (stats %+v), want %v", tr5.Ball.Pos, st5, tr.Ball.Pos)
	}
	// Without a send time, from where the ball is now: further along +X.
	tr2, _, st2 := run(3, false, 0, geom.Vec3{})
	if st2.KicksBackdated != 0 || tr2.Ball.Pos.X-tr.Ball.Pos.X < 0.05 || tr2.Ball.Pos.Z > tr.Ball.Pos.Z-0.2 {
		t.Fatalf("kicked now: ball at %v (stats %+v), as of the send time at %v", tr2.Ball.Pos, st2, tr.Ball.Pos)
	}
	// From where it was: no jump, and no Cut.
	if tr2.BallJumped || cut {
		t.Fatalf("kicked now: BallJumped %v, snapshot Cut %v, want neither", tr2.BallJumped, cut)
	}
}

// TestKickCaughtUpIsWon: a kick made in the past meets the players on the
// way to the present: one standing in its path wins it then.
func TestKickCaughtUpIsWon(t *testing.T) {
	m := newRig(t, 2)
	m.place(0, geom.V(0, 0, 0), -math.Pi/2) // facing +Z
	m.place(1, geom.V(0, 0, 2.4), math.Pi)
	m.ball(geom.V(0, 0.11, 0.6), geom.Vec3{})
	m.input(0, Input{}, 0)
	m.step(20)
	if m.truth().Possessor != FirstPlayerID {
		t.Fatalf("possessor %d", m.truth().Possessor)
	}
	sent := m.now()
	m.step(8)
	m.seq[0]++
	in := Input{ActionSeq: m.seq[0], Action: ActionPass, Aim: geom.V(0, 0, 1), Power: 1}
	m.g.Input(0, server.Input{Sent: sent, View: sent, Data: AppendInput(nil, in)})
	m.step(1)
	tr := m.truth()
	if tr.Possessor != FirstPlayerID+1 || m.g.Stats().Possessions != 2 {
		t.Fatalf("after a pass through player 1 made 150 ms ago: possessor %d, stats %+v", tr.Possessor, m.g.Stats())
	}
}

// TestKickAim: a kick is never aimed back into the kicker.
func TestKickAim(t *testing.T) {
	r := DefaultRules()
	kicker := PlayerState{Pos: geom.V(0, 0, 0), Yaw: 0} // facing +X
	ball := geom.V(0.6, 0.11, 0)
	for _, c := range []struct{ aim, want geom.Vec3 }{
		{geom.V(0, 0, 2), geom.V(0, 0, 1)},              // sideways: as asked
		{geom.V(1, 0, 1), geom.V(1, 0, 1).Norm()},       // forward: as asked
		{geom.V(-1, 0, 1), geom.V(0, 0, 1)},             // back and to the side: turned square
		{geom.V(-0.1, 0, 1), geom.V(-0.1, 0, 1).Norm()}, // a few degrees back: as asked
		{geom.V(-1, 0, 0), geom.V(1, 0, 0)},             // straight back: straight out
		{geom.Vec3{}, geom.V(1, 0, 0)},                  // none: the way the player faces
		{geom.V(math.NaN(), 0, 0), geom.V(1, 0, 0)},     // not finite: likewise
	} {
		if got := r.KickAim(c.aim, kicker, ball); got.Dist(c.want) > 1e-9 {
			t.Errorf("KickAim(%v) = %v, want %v", c.aim, got, c.want)
		}
	}
	// A client that had its kicker 5 cm off the server's turns a backward
	// aim square to its own line and sends that: the server keeps it,
	// although it points a little back along the server's line.
	seen := PlayerState{Pos: geom.V(0, 0, -0.05)}
	sent := r.KickAim(geom.V(-1, 0, 1), seen, ball)
	if d := sent.Dot(ball.Sub(kicker.Pos).Norm()); d >= 0 {
		t.Fatalf("the client's aim %v is not back along the server's line (dot %.3f): the case tests nothing", sent, d)
	}
	if got := r.KickAim(sent, kicker, ball); got.Dist(sent) > 1e-9 {
		t.Errorf("the server turned the client's aim %v to %v", sent, got)
	}
}

// TestPredictedJumpIsTeleport: a predicted player whose moves come back after
// an outage too long to blend jumps in the server's world; its generation
// changes there (clients draw a jump, not a run through the gap), its moves'
// does not (its own client was not moved), and the ball it carries jumps too,
// moving on at its carrier's pace, not at the speed of the jump.
func TestPredictedJumpIsTeleport(t *testing.T) {
	m := newRig(t, 1)
	m.place(0, geom.V(0, 0, 0), -math.Pi/2) // facing +Z
	m.ball(geom.V(0, 0.11, 0.6), geom.Vec3{})
	rules := DefaultRules()
	c, err := movement.NewClient(movement.ClientConfig{}, movement.Game[PlayerState, MoveInput](ownSim{rules: &rules}), m.g.players[0].st)
	if err != nil {
		t.Fatal(err)
	}
	outage := [2]time.Duration{2 * time.Second, 3 * time.Second}
	var prev Truth
	jumps := 0
	for m.now() < 5*time.Second {
		now := m.now()
		carrying := m.g.possessor == 0
		c.Move(now, now, MoveInput{Input: Input{Dir: geom.V(0, 0, 1)}, Env: Env{Carrying: carrying}})
		pkt, _ := c.AppendPacket(nil, now)
		if now < outage[0] || now >= outage[1] {
			m.g.Input(0, server.Input{Sent: now, Arrival: now, View: now, Data: pkt, Moves: true})
			if reply := m.g.AppendReply(nil, 0, now); len(reply) > 0 {
				if err := c.HandleReply(reply, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		prev = m.truth()
		m.step(1)
		tr := m.truth()
		a, b := prev.Players[0], tr.Players[0]
		moved := b.Pos.Dist(a.Pos)
		switch {
		case moved > 1 && b.Gen == a.Gen:
			t.Fatalf("at %v the player moved %.2f m with its generation kept", tr.Time, moved)
		case b.Gen != a.Gen:
			jumps++
			if b.MovedGen != a.MovedGen || !tr.BallJumped || tr.Possessor != FirstPlayerID || tr.Ball.Vel.Len() > 10 {
				t.Fatalf("at %v jumped %.2f m: moves' generation %d -> %d, ball jumped %v at %.1f m/s, possessor %d",
					tr.Time, moved, a.MovedGen, b.MovedGen, tr.BallJumped, tr.Ball.Vel.Len(), tr.Possessor)
			}
		case tr.BallJumped:
			t.Fatalf("at %v the ball jumped without its carrier", tr.Time)
		}
		if now == outage[0] && tr.Possessor != FirstPlayerID {
			t.Fatalf("no possession before the outage: %d", tr.Possessor)
		}
	}
	if jumps == 0 {
		t.Fatal("the player never jumped after the outage")
	}
}

// TestRestart: in a match under way, Restart puts the score back to 0-0
// and everyone, the ball too, at the kickoff positions at the next tick.
func TestRestart(t *testing.T) {
	m := newRig(t, 2)
	m.step(1)
	m.g.score = [2]int{2, 1}
	m.ball(geom.V(10, 0.11, 5), geom.V(3, 0, 0))
	m.step(30)
	kickoffs := m.g.Stats().Kickoffs
	if m.truth().Score != [2]int{2, 1} || m.truth().Ball.Pos == geom.V(0, 0.11, 0) {
		t.Fatalf("before the restart: score %v, ball %v", m.truth().Score, m.truth().Ball.Pos)
	}
	m.g.Restart()
	m.step(1)
	tr := m.truth()
	if tr.Score != [2]int{} || tr.Ball.Pos != geom.V(0, 0.11, 0) || m.g.Stats().Kickoffs != kickoffs+1 {
		t.Fatalf("after Restart: score %v, ball %v, kickoffs %d (was %d)", tr.Score, tr.Ball.Pos, m.g.Stats().Kickoffs, kickoffs)
	}
}
