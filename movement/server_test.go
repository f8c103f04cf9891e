package movement

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

const ms = time.Millisecond

// mv is a move of the forging tests: seq, end time, length, input.
func mv(seq uint32, end, dt time.Duration, dir geom.Vec3) Move[winput] {
	return Move[winput]{Seq: seq, Time: end, Dt: dt, View: end - 50*ms, Input: winput{Dir: dir}}
}

// TestServerValidation: each check of the server, one packet sequence each.
func TestServerValidation(t *testing.T) {
	east := geom.V(1, 0, 0)
	type step struct {
		now   time.Duration
		moves []Move[winput]
	}
	for _, tc := range []struct {
		name  string
		steps []step
		check func(t *testing.T, s *Server[wstate, winput])
	}{
		{"in order, exactly once", []step{
			{100 * ms, []Move[winput]{mv(1, 20*ms, 20*ms, east), mv(2, 40*ms, 20*ms, east), mv(3, 60*ms, 20*ms, east)}},
			{120 * ms, []Move[winput]{mv(2, 40*ms, 20*ms, east), mv(3, 60*ms, 20*ms, east), mv(4, 80*ms, 20*ms, east)}},
			{110 * ms, []Move[winput]{mv(1, 20*ms, 20*ms, east), mv(2, 40*ms, 20*ms, east)}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			st := s.Stats()
			if st.Moves != 4 || st.Stale != 4 || s.Seq() != 4 || math.Abs(s.State().Pos.X-0.4) > 1e-9 {
				t.Fatalf("%+v at %v", st, s.State().Pos)
			}
		}},
		{"times must increase", []step{
			{100 * ms, []Move[winput]{mv(1, 20*ms, 20*ms, east)}},
			{100 * ms, []Move[winput]{mv(2, 10*ms, 20*ms, east), mv(3, 30*ms, 20*ms, east)}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			// Move 2 ends before move 1 did: skipped. Move 3 covers 20..30.
			st := s.Stats()
			if st.BadTimes != 1 || st.Moves != 2 || math.Abs(s.State().Pos.X-0.15) > 1e-9 {
				t.Fatalf("%+v at %v", st, s.State().Pos)
			}
		}},
		{"at most 125 ms a move", []step{
			{100 * ms, []Move[winput]{mv(1, 20*ms, 20*ms, east)}},
			{900 * ms, []Move[winput]{mv(2, 520*ms, 500*ms, east)}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			st := s.Stats()
			if st.Clamped != 1 || math.Abs(s.State().Pos.X-0.1-0.625) > 1e-9 {
				t.Fatalf("%+v at %v", st, s.State().Pos)
			}
		}},
		{"lost moves count, their time is clamped", []step{
			{100 * ms, []Move[winput]{mv(1, 20*ms, 20*ms, east)}},
			{800 * ms, []Move[winput]{mv(9, 420*ms, 20*ms, east)}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			st := s.Stats()
			if st.Lost != 7 || st.Clamped != 1 || math.Abs(s.State().Pos.X-0.1-0.625) > 1e-9 {
				t.Fatalf("%+v at %v", st, s.State().Pos)
			}
		}},
		{"no further ahead than the allowance", []step{
			{1000 * ms, []Move[winput]{mv(1, 1000*ms, 20*ms, east), mv(2, 1080*ms, 80*ms, east)}},
			{1010 * ms, []Move[winput]{mv(3, 1300*ms, 120*ms, east)}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			// Move 2 ends 80 ms ahead: allowed. Move 3 ends 290 ms ahead:
			// cut to end at 1110 ms, 30 ms after move 2.
			st := s.Stats()
			if st.Ahead != 1 || !s.Flagged() || math.Abs(s.State().Pos.X-5*0.130) > 1e-9 || st.AheadTime != 190*ms {
				t.Fatalf("%+v at %v", st, s.State().Pos)
			}
		}},
		{"a first packet cannot run time before it arrived", []step{
			{60000 * ms, []Move[winput]{mv(1, 125*ms, 125*ms, east), mv(2, 250*ms, 125*ms, east)}},
			{60000 * ms, []Move[winput]{mv(3, 59950*ms, 100*ms, east)}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			// Stamped 60 s in the past, moves 1 and 2 would run 250 ms
			// at once: they are late. Move 3 runs from 125 ms before the
			// packet arrived.
			st := s.Stats()
			if st.BadTimes != 2 || st.Moves != 1 || math.Abs(s.State().Pos.X-5*0.075) > 1e-9 {
				t.Fatalf("%+v at %v", st, s.State().Pos)
			}
		}},
		{"magnitudes clamped", []step{
			{100 * ms, []Move[winput]{mv(1, 20*ms, 20*ms, geom.V(1e9, 0, 0))}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			if x := s.State().Pos.X; math.Abs(x-0.1) > 1e-9 {
				t.Fatalf("at %v", x)
			}
		}},
		{"NaN and Inf refused", []step{
			{100 * ms, []Move[winput]{mv(1, 20*ms, 20*ms, geom.V(math.NaN(), 0, 0)), mv(2, 40*ms, 20*ms, geom.V(math.Inf(1), 0, 1))}},
		}, func(t *testing.T, s *Server[wstate, winput]) {
			st := s.Stats()
			if st.BadInputs != 2 || s.State().Pos != (geom.Vec3{}) {
				t.Fatalf("%+v at %v", st, s.State().Pos)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &walker{raw: true}
			s, err := NewServer(ServerConfig{GapWait: -1}, Game[wstate, winput](g), wstate{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tc.steps {
				b := AppendPacket(nil, Game[wstate, winput](g), &Packet[winput]{Moves: st.moves})
				if err := s.Receive(st.now, b); err != nil {
					t.Fatal(err)
				}
			}
			tc.check(t, s)
		})
	}
}

// TestServerReplies: the first packet owes a reset; a right position an
// acknowledgement (at most one per AckInterval); a wrong one an adjustment,
// sent again until the client confirms it, and no other adjustment meanwhile.
func TestServerReplies(t *testing.T) {
	g := Game[wstate, winput](&walker{})
	s, _ := NewServer(ServerConfig{}, g, wstate{Pos: geom.V(3, 0, 0)}, nil)
	east := geom.V(1, 0, 0)
	send := func(now time.Duration, fix uint32, pos geom.Vec3, moves ...Move[winput]) {
		t.Helper()
		if err := s.Receive(now, AppendPacket(nil, g, &Packet[winput]{Fix: fix, Moves: moves, HasPos: true, Pos: pos})); err != nil {
			t.Fatal(err)
		}
	}
	reply := func(now time.Duration) *Reply[wstate] {
		t.Helper()
		b := s.AppendReply(nil, now)
		if len(b) == 0 {
			return nil
		}
		var r Reply[wstate]
		if err := DecodeReply(&r, b, g); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	send(100*ms, 0, geom.V(0.1, 0, 0), mv(1, 20*ms, 20*ms, east))
	// The reset is of the state after the first move as applied: 3 + 5 m/s × 20 ms.
	if r := reply(100 * ms); r == nil || r.Kind != Reset || r.ID != 1 || r.Seq != 1 || math.Abs(r.State.Pos.X-3.1) > 1e-12 {
		t.Fatalf("first reply %+v", r)
	}
	if r := reply(110 * ms); r != nil {
		t.Fatalf("resent at once: %+v", r)
	}
	if r := reply(260 * ms); r == nil || r.ID != 1 {
		t.Fatalf("not resent: %+v", r)
	}
	// Confirmed, right: acknowledged.
	send(270*ms, 1, geom.V(3.2, 0, 0), mv(2, 40*ms, 20*ms, east))
	if r := reply(270 * ms); r == nil || r.Kind != Ack || r.Seq != 2 {
		t.Fatalf("ack %+v", r)
	}
	send(280*ms, 1, geom.V(3.3, 0, 0), mv(3, 60*ms, 20*ms, east))
	if r := reply(280 * ms); r != nil {
		t.Fatalf("ack not throttled: %+v", r)
	}
	if r := reply(320 * ms); r == nil || r.Kind != Ack || r.Seq != 3 {
		t.Fatalf("ack %+v", r)
	}
	// Wrong by 3 cm: adjusted; the next wrong one is not judged until the
	// client confirms.
	send(330*ms, 1, geom.V(3.43, 0, 0), mv(4, 80*ms, 20*ms, east))
	r := reply(330 * ms)
	if r == nil || r.Kind != Adjust || r.Seq != 4 || r.ID != 2 || r.Time != 80*ms || math.Abs(r.State.Pos.X-3.4) > 1e-9 {
		t.Fatalf("adjust %+v", r)
	}
	if s.Resetting() {
		t.Fatal("an adjustment reads as a reset")
	}
	send(340*ms, 1, geom.V(9, 0, 0), mv(5, 100*ms, 20*ms, east))
	if r := reply(340 * ms); r != nil {
		t.Fatalf("%+v", r)
	}
	send(400*ms, 2, geom.V(3.6, 0, 0), mv(6, 120*ms, 20*ms, east))
	if r := reply(400 * ms); r == nil || r.Kind != Ack || r.Seq != 6 {
		t.Fatalf("%+v", r)
	}
	// A teleport resets after the newest move.
	s.Teleport(wstate{Pos: geom.V(-1, 0, 0)})
	if r := reply(500 * ms); r == nil || r.Kind != Reset || r.Seq != 6 || r.ID != 3 || r.State.Pos.X != -1 {
		t.Fatalf("%+v", r)
	}
	if st := s.Stats(); st.Resets != 2 || st.Adjustments != 1 || st.Resent != 1 || st.Acks != 3 {
		t.Fatalf("%+v", st)
	}
	// Until the client confirms it, moves arrive made before it knew.
	if !s.Resetting() {
		t.Fatal("a teleport's reset is not pending")
	}
	send(600*ms, 3, geom.V(-0.8, 0, 0), mv(7, 140*ms, 20*ms, east))
	if s.Resetting() {
		t.Fatal("still resetting after the client confirmed")
	}
}

// clockRun plays 60 s of a client whose clock reads clk(t) at true time t,
// running east at full speed, over a 40 ms link each way, and returns its
// server.
func clockRun(t *testing.T, clk func(t time.Duration) time.Duration) (*Server[wstate, winput], time.Duration) {
	p := newPipe(ClientConfig{}, ServerConfig{}, 40*ms)
	p.skew = clk
	var flagged time.Duration = -1
	for end := time.Second; end <= 60*time.Second; end += time.Second {
		p.run(end)
		if flagged < 0 && p.srv.Flagged() {
			flagged = end
		}
	}
	return p.srv, flagged
}

// TestSpeedHack: a client whose clock runs 1.05 to 10 times fast covers no
// more than full speed times (server time + 0.25 s) and is flagged within
// 10 s; one whose clock runs slow is never flagged; one whose clock jumps an
// hour either way neither crashes nor gains.
func TestSpeedHack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		clk      func(t time.Duration) time.Duration
		flag     bool
		maxDelay time.Duration
	}{
		{"1.05x", func(t time.Duration) time.Duration { return t * 105 / 100 }, true, 10 * time.Second},
		{"2x", func(t time.Duration) time.Duration { return t * 2 }, true, time.Second},
		{"10x", func(t time.Duration) time.Duration { return t * 10 }, true, time.Second},
		{"0.95x", func(t time.Duration) time.Duration { return t * 95 / 100 }, false, 0},
		{"0.5x", func(t time.Duration) time.Duration { return t / 2 }, false, 0},
		{"+1h at 5 s", func(t time.Duration) time.Duration {
			if t > 5*time.Second {
				return t + time.Hour
			}
			return t
		}, true, 6 * time.Second},
		{"-1h at 5 s", func(t time.Duration) time.Duration {
			if t > 5*time.Second {
				return t - time.Hour
			}
			return t
		}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, flagged := clockRun(t, tc.clk)
			x := s.State().Pos.X
			bound := walkSpeed * (60 + 0.25)
			t.Logf("covered %.2f m (bound %.2f), flagged at %v, %+v", x, bound, flagged, s.Stats())
			if x > bound || math.IsNaN(x) {
				t.Errorf("covered %.2f m in 60 s, bound %.2f", x, bound)
			}
			if tc.flag && (flagged < 0 || flagged > tc.maxDelay) {
				t.Errorf("flagged at %v, want within %v", flagged, tc.maxDelay)
			}
			if !tc.flag && flagged >= 0 {
				t.Errorf("an honest slow clock flagged at %v", flagged)
			}
		})
	}
}

// TestForgedMoves: 10^5 forged moves (huge directions, NaN, Inf, times far
// ahead and behind, numbering jumps) and garbage packets leave the server
// finite and the character no faster than full speed.
func TestForgedMoves(t *testing.T) {
	g := &walker{raw: true}
	gg := Game[wstate, winput](g)
	s, _ := NewServer(ServerConfig{}, gg, wstate{}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	weird := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, 1e9, 0, 1, -1}
	now := time.Duration(0)
	seq := uint32(1)
	var b []byte
	moves := make([]Move[winput], 0, 8)
	for sent := 0; sent < 100000; {
		now += time.Second / 60
		moves = moves[:0]
		n := 1 + rng.IntN(8)
		switch rng.IntN(20) {
		case 0:
			seq += uint32(rng.IntN(100))
		case 1:
			seq = max(1, seq-uint32(rng.IntN(50)))
		}
		// The forger's times run about the server's clock, a packet now
		// and then far ahead or behind.
		tClient := now - 50*ms
		switch rng.IntN(10) {
		case 0:
			tClient += time.Duration(rng.Int64N(int64(time.Hour)))
		case 1:
			tClient -= time.Duration(rng.Int64N(int64(time.Hour)))
		case 2, 3, 4:
			tClient += time.Duration(rng.Int64N(int64(time.Second)))
		}
		for range n {
			dt := time.Duration(1+rng.Int64N(int64(30*time.Millisecond))) / time.Microsecond * time.Microsecond
			if rng.IntN(10) == 0 {
				dt = time.Duration(1+rng.Int64N(int64(3*time.Second))) / time.Microsecond * time.Microsecond
			}
			tClient = (tClient + dt) / time.Microsecond * time.Microsecond
			dir := geom.V(1, 0, 0)
			if rng.IntN(2) == 0 {
				dir = geom.V(weird[rng.IntN(len(weird))], 0, weird[rng.IntN(len(weird))])
			}
			moves = append(moves, Move[winput]{Seq: seq, Time: tClient, Dt: dt, View: tClient - time.Duration(rng.Int64N(int64(time.Minute))), Input: winput{Dir: dir}})
			seq++
			sent++
		}
		b = AppendPacket(b[:0], gg, &Packet[winput]{Fix: rng.Uint32(), Moves: moves, HasPos: true, Pos: geom.V(weird[rng.IntN(len(weird))], 0, 0)})
		if rng.IntN(10) == 0 {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		}
		if err := s.Receive(now, b); err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTruncated) {
			t.Fatal(err)
		}
		_ = s.AppendReply(nil, now)
		st := s.State()
		if !st.Pos.IsFinite() || !st.Vel.IsFinite() {
			t.Fatalf("state %+v", st)
		}
	}
	if st := s.Stats(); st.Moves < 5000 {
		t.Fatalf("only %d forged moves applied: %+v", st.Moves, st)
	}
	if d, bound := s.State().Pos.Len(), walkSpeed*(now.Seconds()+0.25); d > bound {
		t.Fatalf("forger %.1f m from the start after %v, bound %.1f", d, now, bound)
	}
	t.Logf("after %v: %+v", now, s.Stats())
}

// TestReorder: a packet overtaken by a later one is not lost: the later one
// waits for it (up to GapWait), and the moves go in order; a gap that is not
// filled is crossed once GapWait has passed.
func TestReorder(t *testing.T) {
	g := Game[wstate, winput](&walker{})
	s, _ := NewServer(ServerConfig{}, g, wstate{}, nil)
	east := geom.V(1, 0, 0)
	pk := func(moves ...Move[winput]) []byte {
		return AppendPacket(nil, g, &Packet[winput]{Fix: 1, Moves: moves, HasPos: true, Pos: geom.V(float64(len(moves)), 0, 0)})
	}
	var order []uint32
	s.onMove = func(m *Move[winput], _ wstate) { order = append(order, m.Seq) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Receive(100*ms, pk(mv(1, 20*ms, 20*ms, east))))
	must(s.Receive(110*ms, pk(mv(4, 80*ms, 20*ms, east), mv(5, 100*ms, 20*ms, east))))
	must(s.Receive(120*ms, pk(mv(6, 120*ms, 20*ms, east))))
	if len(order) != 1 {
		t.Fatalf("applied %v before the gap was filled", order)
	}
	must(s.Receive(130*ms, pk(mv(2, 40*ms, 20*ms, east), mv(3, 60*ms, 20*ms, east))))
	if !slices.Equal(order, []uint32{1, 2, 3, 4, 5, 6}) || s.Stats().Lost != 0 || math.Abs(s.State().Pos.X-0.6) > 1e-9 {
		t.Fatalf("applied %v, %+v", order, s.Stats())
	}
	must(s.Receive(140*ms, pk(mv(9, 180*ms, 20*ms, east))))
	s.AppendReply(nil, 500*ms)
	if len(order) != 6 {
		t.Fatalf("crossed the gap early: %v", order)
	}
	s.AppendReply(nil, 550*ms)
	if len(order) != 7 || s.Stats().Lost != 2 || s.Stats().Held != 3 {
		t.Fatalf("applied %v, %+v", order, s.Stats())
	}
}

// TestAnchoredHeld: a packet coded against an anchor and held for the moves
// before it decodes when it is released, though the moves applied meanwhile
// pushed its anchor out of the server's keeping; a packet whose anchor the
// server does not hold is dropped and counted (NoAnchor), not taken as bad.
func TestAnchoredHeld(t *testing.T) {
	g := Game[wstate, winput](&walker{})
	s, _ := NewServer(ServerConfig{}, g, wstate{}, nil)
	east := geom.V(1, 0, 0)
	moves := func(from, n int) []Move[winput] {
		var run []Move[winput]
		for i := range n {
			seq := from + i
			run = append(run, mv(uint32(seq), time.Duration(seq)*16*ms, 16*ms, east))
		}
		return run
	}
	anchorIn := g.AppendInput(nil, winput{Dir: east})
	pk := func(anchor uint32, run []Move[winput]) []byte {
		return AppendPacket(nil, g, &Packet[winput]{Anchor: anchor, AnchorEnd: time.Duration(anchor) * 16 * ms, AnchorInput: anchorIn, Moves: run})
	}
	at := func(run []Move[winput]) time.Duration { return run[len(run)-1].Time + 50*ms } // received after its last move ended
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for from := 1; from < 60; from += 4 {
		must(s.Receive(at(moves(from, 4)), pk(uint32(from-1), moves(from, 4))))
	}
	must(s.Receive(at(moves(75, 4)), pk(50, moves(75, 4))))  // held: 61 to 74 missing
	must(s.Receive(at(moves(75, 4)), pk(45, moves(61, 64)))) // up to 124: move 50's place is 114's now
	if st := s.Stats(); s.Seq() != 124 || st.Moves != 124 || st.Held != 1 || st.BadPackets != 0 || st.Stale != 4 {
		t.Fatalf("at move %d: %+v", s.Seq(), st)
	}
	must(s.Receive(at(moves(124, 1)), pk(40, moves(70, 2)))) // a late copy: its anchor is gone
	if st := s.Stats(); st.NoAnchor != 1 || st.BadPackets != 0 {
		t.Fatalf("a late copy: %+v", st)
	}
}

// Add sums every count of ServerStats (a field added later and forgotten
// shows here) and keeps the larger MaxError.
func TestServerStatsAdd(t *testing.T) {
	var a, b ServerStats
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		switch f := va.Field(i); f.Kind() {
		case reflect.Uint64:
			f.SetUint(uint64(i + 1))
			vb.Field(i).SetUint(100)
		case reflect.Int64: // AheadTime
			f.SetInt(int64(i + 1))
			vb.Field(i).SetInt(100)
		}
	}
	a.MaxError, b.MaxError = 0.5, 0.25
	a.Add(b)
	for i := range va.NumField() {
		f := va.Field(i)
		switch f.Kind() {
		case reflect.Uint64:
			if f.Uint() != uint64(i+101) {
				t.Errorf("%s = %d, want %d", va.Type().Field(i).Name, f.Uint(), i+101)
			}
		case reflect.Int64:
			if f.Int() != int64(i+101) {
				t.Errorf("%s = %d, want %d", va.Type().Field(i).Name, f.Int(), i+101)
			}
		}
	}
	if a.MaxError != 0.5 {
		t.Errorf("MaxError %v, want 0.5", a.MaxError)
	}
}
