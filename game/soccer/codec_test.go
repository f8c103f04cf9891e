package soccer

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/replica"
)

func sampleInputs() []Input {
	return []Input{
		{},
		{Dir: geom.V(1, 0, 0), Sprint: true},
		{Dir: geom.V(-0.6, 0, 0.8), Action: ActionShot, ActionSeq: 200, Aim: geom.V(0, 0, -1), Power: 0.5},
		{Dir: geom.V(0.1, 0, -0.2), Action: ActionTackle, ActionSeq: 3},
		{Action: ActionPass, ActionSeq: 255, Aim: geom.V(-1, 0, -1), Power: 1},
		{Dir: geom.V(0, 0, 1), Action: ActionShot, ActionSeq: 7, Power: 0.8, ActionAge: 16667 * time.Microsecond},
		{Action: ActionTackle, ActionSeq: 9, Aim: geom.V(1, 0, 0), ActionAge: MaxActionAge},
		{Action: ActionPass, ActionSeq: 10, ActionAge: 400 * time.Microsecond}, // 0 ms: not sent
		{Dir: geom.V(1, 0, 0), Action: ActionPass, ActionSeq: 11, Aim: geom.V(0, 0, 1), Power: 0.4, ActionAge: 50 * time.Millisecond,
			KickFrom: geom.V(-52.4006, 0.11, 33.9994)},
		{Action: ActionShot, ActionSeq: 12, KickFrom: geom.V(MaxKickFrom, -MaxKickFrom, 0.0004)},
	}
}

func TestInputRoundTrip(t *testing.T) {
	buf := make([]byte, 0, MaxInputSize)
	for _, in := range sampleInputs() {
		b := AppendInput(buf[:0], in)
		var got Input
		n, err := DecodeInput(&got, b)
		if err != nil || n != len(b) || len(b) > MaxInputSize {
			t.Fatalf("%+v: %d of %d bytes, %v", in, n, len(b), err)
		}
		aim := geom.V(in.Aim.X, 0, in.Aim.Z).Norm()
		if got.Dir.Dist(in.Dir) > 0.01 || got.Sprint != in.Sprint || got.Action != in.Action || got.ActionSeq != in.ActionSeq ||
			got.Aim.Dist(aim) > 1e-3 || math.Abs(got.Power-in.Power) > 0.003 || (got.ActionAge-in.ActionAge).Abs() > time.Millisecond/2 ||
			math.Abs(got.KickFrom.X-in.KickFrom.X) > 5e-4 || math.Abs(got.KickFrom.Y-in.KickFrom.Y) > 5e-4 || math.Abs(got.KickFrom.Z-in.KickFrom.Z) > 5e-4 {
			t.Fatalf("got %+v, want %+v", got, in)
		}
		for i := range len(b) {
			if _, err := DecodeInput(&got, b[:i]); !errors.Is(err, ErrTruncated) {
				t.Fatalf("prefix %d: %v", i, err)
			}
		}
	}
	var in Input
	if _, err := DecodeInput(&in, []byte{0, 0, 0, 9, 0, 0}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("action 9: %v", err)
	}
	// An age over MaxActionAge is not sent.
	if _, err := DecodeInput(&in, AppendInput(nil, Input{ActionAge: MaxActionAge + time.Millisecond})); err != nil || in.ActionAge != 0 {
		t.Fatalf("older than MaxActionAge: decoded %v old, %v", in.ActionAge, err)
	}
	// A claimed kick origin out of range, or not finite, is not sent.
	for _, from := range []geom.Vec3{geom.V(0, 0, MaxKickFrom+1), geom.V(math.NaN(), 0, 0)} {
		if _, err := DecodeInput(&in, AppendInput(nil, Input{KickFrom: from})); err != nil || in.KickFrom != (geom.Vec3{}) {
			t.Fatalf("claim %v: decoded %v, %v", from, in.KickFrom, err)
		}
	}
	sample := sampleInputs()[len(sampleInputs())-2]
	if n := testing.AllocsPerRun(100, func() { buf = AppendInput(buf[:0], sample); _, _ = DecodeInput(&in, buf) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// playedSnapshots returns snapshots of a real match: regular ones and the
// extra ones at kicks and contacts.
func playedSnapshots(t testing.TB) [][]byte {
	g, err := NewGame(DefaultRules(), 60)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	var rec recorder
	l := newLayer(g)
	for c := range 4 {
		g.Join(c)
	}
	bots := []*Bot{}
	for c := range 4 {
		bots = append(bots, NewBot(DefaultRules(), uint64(c)))
	}
	// Bots acting on the truth directly (no network): enough to make kicks.
	var tr Truth
	var v View
	for n := uint64(1); n <= 600; n++ {
		g.Truth(&tr)
		for c, b := range bots {
			v = viewOfTruth(&tr, FirstPlayerID+uint32(c), v)
			in := b.Decide(&v)
			g.Input(c, serverInput(AppendInput(nil, in), tr.Time))
		}
		extra := g.Step(tick(n), &rec)
		if n%2 == 0 || extra {
			out = append(out, l.encode(nil, g, -1, 0, 0))
		}
	}
	return out
}

// Every snapshot of a played match decodes whole, each with the ball first,
// its states timed from the header's time.
func TestSnapshotRoundTrip(t *testing.T) {
	snaps := playedSnapshots(t)
	var s snapshotForTest
	l := decodeLayer(DefaultRules())
	for i, b := range snaps {
		l.dec = replica.NewDecoder(Schema(DefaultRules()))
		s.Tick, s.Time = uint64(i+1), time.Second
		if err := l.decode(&s.Snapshot, b); err != nil {
			t.Fatal(err)
		}
		if len(s.Entities) < 5 || s.Entities[0].ID != BallID {
			t.Fatalf("snapshot %d: %+v", i, s.Entities)
		}
		// The ball's states are timed from the header's time (here 1 s,
		// whatever tick the snapshot is of): the last is the snapshot's,
		// the others up to KnotRepeat before.
		last := time.Duration(-1)
		for _, e := range s.Entities {
			if e.ID == BallID {
				if e.State.Time > time.Second || e.State.Time < time.Second-KnotRepeat-dt || e.State.Time <= last {
					t.Fatalf("snapshot %d: ball state at %v, after %v", i, e.State.Time, last)
				}
				last = e.State.Time
			}
		}
		if last != time.Second {
			t.Fatalf("snapshot %d: the ball's last state at %v, not the snapshot's time", i, last)
		}
		if _, err := DecodeScore(s.Meta); err != nil {
			t.Fatal(err)
		}
	}
	// The regular snapshot of the real game after one tick, field by field.
	g, _ := NewGame(DefaultRules(), 60)
	g.Join(0)
	g.Join(1)
	in := Input{Dir: geom.V(0.6, 0, -0.8), Sprint: true}
	g.players[0].in = in
	g.Step(tick(1), &recorder{})
	g.score = [2]int{3, 2}
	s.of(t, g)
	var tr Truth
	g.Truth(&tr)
	if len(s.Entities) != 3 || s.Entities[0].State.Pos.Dist(tr.Ball.Pos) > 1e-3 || s.Entities[1].State.Pos.Dist(tr.Players[0].Pos) > 1e-3 ||
		s.Entities[2].Tag != Away || s.Entities[2].State.Rot.Angle(tr.Players[1].Rot()) > 1e-4 || s.Entities[0].Parent != client.NoParent {
		t.Fatalf("decoded %+v\ntruth %+v", s.Entities, tr)
	}
	// Each player's state carries the velocity its input asks for.
	if _, want := g.rules.wanted(in, false); s.Entities[1].State.Input.Dist(want) > 0.01 || s.Entities[2].State.Input != (geom.Vec3{}) {
		t.Fatalf("inputs sent %v and %v, want %v and zero", s.Entities[1].State.Input, s.Entities[2].State.Input, want)
	}
	if sc, _ := DecodeScore(s.Meta); sc != (Score{Home: 3, Away: 2}) {
		t.Fatalf("score %+v", sc)
	}
}

func FuzzDecodeInput(f *testing.F) {
	for _, in := range sampleInputs() {
		f.Add(AppendInput(nil, in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var in Input
		n, err := DecodeInput(&in, b)
		if err != nil {
			return
		}
		if n > len(b) || !in.Dir.IsFinite() || in.Dir.Len() > 1+1e-9 || in.Power < 0 || in.Power > 1 {
			t.Fatalf("decoded %+v from %x", in, b)
		}
		var again Input
		if _, err := DecodeInput(&again, AppendInput(nil, in)); err != nil || again.Action != in.Action || again.ActionSeq != in.ActionSeq || again.Dir.Dist(in.Dir) > 0.01 {
			t.Fatalf("re-encoding %+v gave %+v (%v)", in, again, err)
		}
	})
}

func FuzzDecodeSnapshot(f *testing.F) {
	for i, b := range playedSnapshots(f) {
		if i%10 == 0 || len(b) < 60 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s client.Snapshot
		s.Tick, s.Time = 100, time.Second
		if err := decodeLayer(DefaultRules()).decode(&s, b); err != nil {
			return
		}
		for _, e := range s.Entities {
			if !e.State.Pos.IsFinite() || !e.State.Vel.IsFinite() || math.IsNaN(e.State.Rot.W) {
				t.Fatalf("decoded %+v", e)
			}
		}
		// The meta is the game's bytes to the layer: malformed, it is
		// an error of DecodeScore's, never a panic.
		_, _ = DecodeScore(s.Meta)
	})
}

// A regular snapshot after a tick that was not sent holds the ball's carrier
// as that tick left it, and, while a ball just won moves to the carrier's
// feet, the ball then too; the ball's states say how it moves there.
func TestSnapshotCarrier(t *testing.T) {
	g, _ := NewGame(DefaultRules(), 60)
	g.Join(0)
	g.Join(1)
	g.Step(tick(1), &recorder{})
	g.win(0, geom.V(0.3, 0, 0.2), dt)
	g.Input(0, serverInput(AppendInput(nil, Input{Dir: geom.V(0.6, 0, 0.8)}), dt))
	g.Step(tick(2), &recorder{})
	var then Truth
	g.Truth(&then)
	offThen := g.carryOff
	g.Step(tick(3), &recorder{})
	var s snapshotForTest
	s.of(t, g)
	// Both ball states say where the ball was won, when, and where it is
	// going: their blend places it where the server carried it.
	for _, e := range s.Entities {
		if e.ID != BallID {
			continue
		}
		off := g.carryOff
		if e.State.Time < 3*dt-time.Millisecond {
			off = offThen
		}
		b := e.Blend
		if b.Span != g.rules.CarryBlend || (b.Since-dt).Abs() > time.Microsecond || b.From.Dist(geom.V(0.3, 0, 0.2)) > 1e-3 ||
			e.Offset.Dist(g.rules.dribbleSpot()) > 1e-3 || b.At(e.Offset, e.State.Time).Dist(off) > 2e-3 {
			t.Errorf("ball at %v: place %v, blend %+v; want won at %v from (0.3, 0, 0.2), now %v in the carrier's frame", e.State.Time, e.Offset, b, dt, off)
		}
	}
	var carrier, ball *client.EntityState
	for i := range s.Entities {
		// Times go in microseconds (players) and milliseconds (the ball).
		if e := &s.Entities[i]; (e.State.Time - 2*dt).Abs() < time.Millisecond {
			switch e.ID {
			case FirstPlayerID:
				carrier = e
			case BallID:
				ball = e
			default:
				t.Errorf("%+v at the previous tick", e)
			}
		}
	}
	p := then.Players[0]
	if carrier == nil || carrier.State.Pos.Dist(p.Pos) > 1e-3 || carrier.State.Rot.Angle(p.Rot()) > 1e-4 || carrier.Tag != p.Team {
		t.Fatalf("carrier at the previous tick %+v, want %+v", carrier, p)
	}
	if ball == nil || ball.Parent != FirstPlayerID || ball.State.Pos.Dist(then.Ball.Pos) > 1e-3 {
		t.Fatalf("ball at the previous tick %+v, want carried by player 0 at %v", ball, then.Ball.Pos)
	}
	// Once at the feet, the ball's state of the previous tick is not sent.
	for n := uint64(4); n < 4+uint64(g.rules.CarryBlend/dt)+2; n++ {
		g.Step(tick(n), &recorder{})
	}
	s.of(t, g)
	if got := len(s.Entities); got != 1+2+1 {
		t.Fatalf("%d entities after the blend, want the ball, two players and the carrier", got)
	}
	if e := s.Entities[0]; e.Blend != (client.Blend{}) || e.Offset.Dist(g.rules.dribbleSpot()) > 1e-3 {
		t.Fatalf("ball after the blend: place %v, blend %+v", e.Offset, e.Blend)
	}
}

// TestSnapshotPlayers: every player decodes to its pose, team and
// generation, after a gap in the ids and joined again (generation 2).
func TestSnapshotPlayers(t *testing.T) {
	g, _ := NewGame(DefaultRules(), 60)
	for c := range 4 {
		g.Join(c)
	}
	g.Step(tick(1), &recorder{})
	g.Leave(1) // slot 1 empty: slot 2's id does not follow slot 0's
	g.Step(tick(2), &recorder{})
	g.Join(1) // back in slot 1, generation 2
	g.Step(tick(3), &recorder{})
	var s snapshotForTest
	s.of(t, g)
	var tr Truth
	g.Truth(&tr)
	players := 0
	for _, e := range s.Entities {
		if e.Kind != KindPlayer {
			continue
		}
		i := int(e.ID - FirstPlayerID)
		p := &g.players[i]
		if e.Tag != p.team || e.Gen != p.gen || e.State.Pos.Dist(tr.Players[i].Pos) > 1e-3 || e.State.Vel != (geom.Vec3{}) ||
			e.State.AngVel != (geom.Vec3{}) || e.State.Input != (geom.Vec3{}) {
			t.Errorf("player %d: %+v, want team %d, generation %d, standing at %v", e.ID, e, p.team, p.gen, tr.Players[i].Pos)
		}
		players++
	}
	if players != 4 || g.players[1].gen != 2 {
		t.Fatalf("%d players decoded, slot 1's generation %d", players, g.players[1].gen)
	}
}
