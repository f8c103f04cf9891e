package soccer

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
)

// TestMoveCodec: a move's input (with its Env) and a player's state travel
// exactly; bad bytes are errors.
func TestMoveCodec(t *testing.T) {
	var c moveCodec
	in := MoveInput{Input: Input{Dir: geom.V(0.5, 0, -0.5), Sprint: true, Action: ActionShot, ActionSeq: 7, Aim: geom.V(1, 0, 0), Power: 0.8},
		Env: Env{Carrying: true, N: 2, ID: [MaxNear]uint32{2, 5}, Near: [MaxNear]geom.Vec3{geom.V(1.234, 0, -5.678), geom.V(-40, 0, 30.001)}}}
	b := c.AppendInput(nil, in)
	var got MoveInput
	n, err := c.DecodeInput(&got, b)
	if err != nil || n != len(b) {
		t.Fatalf("%d of %d bytes, %v", n, len(b), err)
	}
	if got.Env != in.Env || got.Action != in.Action || got.ActionSeq != 7 || !got.Sprint {
		t.Fatalf("%+v, want %+v", got, in)
	}
	for k := range len(b) {
		if _, err := c.DecodeInput(&got, b[:k]); err == nil {
			t.Fatalf("%d bytes decoded", k)
		}
	}
	s := PlayerState{Pos: geom.V(1.0/3, 0, -7), Vel: geom.V(6.9999, 0, 1e-9), Yaw: -3}
	var st PlayerState
	if n, err := c.DecodeState(&st, c.AppendState(nil, s)); err != nil || n != stateSize || st != s {
		t.Fatalf("%+v, %v", st, err)
	}
	bad := c.AppendState(nil, PlayerState{Pos: geom.V(math.NaN(), 0, 0)})
	if _, err := c.DecodeState(&st, bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("NaN state: %v", err)
	}
	// Clamp keeps a direction within 1 and refuses NaN.
	if cl, ok := c.Clamp(MoveInput{Input: Input{Dir: geom.V(30, 4, 40), Power: 7}}); !ok || math.Abs(cl.Dir.Len()-1) > 1e-12 || cl.Power != 1 || cl.Dir.Y != 0 {
		t.Fatalf("clamped to %+v", cl)
	}
	if _, ok := c.Clamp(MoveInput{Input: Input{Dir: geom.V(math.Inf(1), 0, 0)}}); ok {
		t.Fatal("Inf taken")
	}
}

func FuzzMoveInput(f *testing.F) {
	var c moveCodec
	f.Add(c.AppendInput(nil, MoveInput{Input: Input{Dir: geom.V(1, 0, 0)}}))
	f.Add(c.AppendInput(nil, MoveInput{Input: Input{Aim: geom.V(0, 0, 1), Action: ActionPass, ActionSeq: 3},
		Env: Env{Carrying: true, N: 1, ID: [MaxNear]uint32{4}, Near: [MaxNear]geom.Vec3{geom.V(3, 0, 4)}}}))
	f.Add(c.AppendState(nil, PlayerState{Pos: geom.V(1, 0, 2), Yaw: 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var in MoveInput
		if n, err := c.DecodeInput(&in, b); err == nil {
			if n > len(b) || in.Env.N > MaxNear || !in.Dir.IsFinite() {
				t.Fatalf("%d bytes, %+v", n, in)
			}
			// What decodes simulates to a finite state.
			s := DefaultRules().Step(PlayerState{}, in.Input, &in.Env, time.Second/60)
			if !s.Pos.IsFinite() || !s.Vel.IsFinite() {
				t.Fatalf("stepped to %+v", s)
			}
		} else if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
		var s PlayerState
		if _, err := c.DecodeState(&s, b); err == nil && (!s.Pos.IsFinite() || math.IsNaN(s.Yaw)) {
			t.Fatalf("state %+v", s)
		}
	})
}

// TestStepContacts: a player running into another slows into the contact,
// never overlaps it and slides along it; one the other stands on moves out
// gently (contactPush); with nobody near, Step is Move.
func TestStepContacts(t *testing.T) {
	r := DefaultRules()
	minD := 2 * r.Player.Radius
	dt := time.Second / 60
	in := Input{Dir: geom.V(1, 0, 0), Sprint: true}
	s := PlayerState{Pos: geom.V(-2, 0, 0.1), Vel: geom.V(9, 0, 0)}
	env := Env{N: 1, ID: [MaxNear]uint32{2}}
	for range 120 {
		s = r.Step(s, in, &env, dt)
		if d := math.Hypot(s.Pos.X, s.Pos.Z); d < minD-1e-9 {
			t.Fatalf("inside the other player: %.3f m", d)
		}
	}
	if s.Pos.X < 1 {
		t.Fatalf("did not slide past: %+v", s)
	}
	s = PlayerState{Pos: geom.V(0.1, 0, 0)}
	for i := range 60 {
		next := r.Step(s, Input{}, &env, dt)
		if step := next.Pos.Dist(s.Pos); step > contactPush*dt.Seconds()+1e-9 {
			t.Fatalf("frame %d: pushed %.3f m at once", i, step)
		}
		s = next
	}
	if d := s.Pos.Len(); math.Abs(d-minD) > 1e-9 {
		t.Fatalf("moved out to %.3f m in a second", d)
	}
	free := Env{}
	a, b := r.Step(PlayerState{}, in, &free, dt), r.Move(PlayerState{}, in, false, dt)
	if a != b {
		t.Fatalf("Step %+v, Move %+v", a, b)
	}
}

// TestCheckEnv: the server takes a move's claim of where another player stood
// when it is within the tolerance of its record, and its record otherwise; a
// player the claim leaves out is there all the same.
func TestCheckEnv(t *testing.T) {
	g, err := NewGame(DefaultRules(), 60)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 2 {
		if _, err := g.Join(c); err != nil {
			t.Fatal(err)
		}
	}
	g.players[0].st.Pos, g.players[1].st.Pos = geom.V(0, 0, 0), geom.V(1, 0, 0)
	g.now, g.dt = time.Second, time.Second/60
	g.recordEnv()
	near := func(x float64) *Env {
		return &Env{N: 1, ID: [MaxNear]uint32{FirstPlayerID + 1}, Near: [MaxNear]geom.Vec3{geom.V(x, 0, 0)}}
	}
	var env Env
	g.checkEnv(0, time.Second, geom.Vec3{}, near(1.05), &env)
	if env.N != 1 || env.Near[0].X != 1.05 {
		t.Fatalf("claim within tolerance refused: %+v", env)
	}
	g.checkEnv(0, time.Second, geom.Vec3{}, near(1.5), &env)
	if env.N != 1 || env.Near[0].X != 1 {
		t.Fatalf("claim beyond tolerance taken: %+v", env)
	}
	g.checkEnv(0, time.Second, geom.Vec3{}, &Env{}, &env)
	if env.N != 1 || env.Near[0].X != 1 {
		t.Fatalf("player left out of the claim missing: %+v", env)
	}
}

// BenchmarkReplay20 is an adjustment replaying 20 saved moves of a soccer
// player among others (contacts included).
func BenchmarkReplay20(b *testing.B) {
	rules := DefaultRules()
	game := movement.Game[PlayerState, MoveInput](ownSim{rules: &rules})
	c, err := movement.NewClient(movement.ClientConfig{}, game, PlayerState{})
	if err != nil {
		b.Fatal(err)
	}
	env := Env{N: 2, ID: [MaxNear]uint32{2, 3}, Near: [MaxNear]geom.Vec3{geom.V(1, 0, 0.2), geom.V(0.5, 0, -1)}}
	for i := range 22 {
		now := time.Duration(i) * time.Second / 60
		c.Move(now, now-80*time.Millisecond, MoveInput{Input: Input{Dir: geom.V(1, 0, float64(i%3-1)), Sprint: true}, Env: env})
		c.AppendPacket(nil, now)
	}
	var adj []byte
	id := uint32(0)
	b.ReportAllocs()
	for b.Loop() {
		id++
		// An adjustment after move 1 replays moves 2 to 21; the next one
		// names move 1 again, which the client no longer holds: it replays
		// the same 20.
		adj = movement.AppendReply(adj[:0], game, &movement.Reply[PlayerState]{Kind: movement.Adjust, Seq: 1, ID: id, State: PlayerState{Pos: geom.V(0.01, 0, 0)}})
		if err := c.HandleReply(adj, time.Second); err != nil {
			b.Fatal(err)
		}
	}
	if st := c.Stats(); st.Saved != 20 {
		b.Fatalf("%d moves held", st.Saved)
	}
}
