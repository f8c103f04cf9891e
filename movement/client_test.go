package movement

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

// TestPredictsAtOnce: the first frame's input moves the character in the same
// frame, and a client in step with its server is never corrected.
func TestPredictsAtOnce(t *testing.T) {
	p := newPipe(ClientConfig{}, ServerConfig{}, 30*time.Millisecond)
	p.run(100 * time.Millisecond)
	before := p.cli.State().Pos
	p.cli.Move(p.now+time.Second/60, p.now, winput{Dir: geom.V(0, 0, 1)})
	if d := p.cli.State().Pos.Sub(before); !(d.Z > 0.08) {
		t.Fatalf("the frame's input moved the character by %v", d)
	}
	p = newPipe(ClientConfig{}, ServerConfig{}, 30*time.Millisecond)
	p.run(3 * time.Second)
	cs, ss := p.cli.Stats(), p.srv.Stats()
	if !p.cli.Synced() || cs.Corrections != 0 || ss.Adjustments != 0 || cs.Resets != 1 || ss.Lost != 0 {
		t.Fatalf("client %+v\nserver %+v", cs, ss)
	}
	if cs.Saved > 10 {
		t.Errorf("%d moves held at 60 ms round trip", cs.Saved)
	}
}

// TestCombining: frames faster than the send rate fold into the move before
// them while the input holds, and the server simulates the combined moves
// exactly as the client did.
func TestCombining(t *testing.T) {
	for _, tc := range []struct {
		name    string
		input   func(t time.Duration) winput
		combine bool
	}{
		{"steady", func(time.Duration) winput { return winput{Dir: geom.V(1, 0, 0.5)} }, true},
		{"changing", func(t time.Duration) winput {
			a := t.Seconds() * 20
			return winput{Dir: geom.V(math.Cos(a), 0, math.Sin(a))}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipe(ClientConfig{}, ServerConfig{}, 20*time.Millisecond)
			p.frame = time.Second / 120
			p.input = tc.input
			p.run(2 * time.Second)
			cs, ss := p.cli.Stats(), p.srv.Stats()
			t.Logf("%d frames, client %+v", p.frames, cs)
			if tc.combine && (cs.Combined < uint64(p.frames)/3 || cs.Moves > uint64(p.frames)*2/3) {
				t.Errorf("steady input: %d moves, %d combined over %d frames", cs.Moves, cs.Combined, p.frames)
			}
			if !tc.combine && cs.Combined != 0 {
				t.Errorf("changing input combined %d times", cs.Combined)
			}
			if cs.Packets > uint64(p.frames)*2/3 {
				t.Errorf("%d packets for %d frames at 120 Hz", cs.Packets, p.frames)
			}
			if ss.Adjustments != 0 || cs.Corrections != 0 || ss.Lost != 0 {
				t.Errorf("server %+v", ss)
			}
			// In step: the server's state after the client's newest move
			// it applied is the client's, bit for bit.
			if p.srv.Seq() == p.cli.Seq() && p.srv.State() != p.cli.State() {
				t.Errorf("server %+v, client %+v", p.srv.State(), p.cli.State())
			}
		})
	}
}

// TestCombineLimits: a combined move never exceeds MaxMoveDelta, and a move
// already sent is never extended.
func TestCombineLimits(t *testing.T) {
	c, _ := NewClient(ClientConfig{SendInterval: time.Second}, Game[wstate, winput](&walker{}), wstate{})
	in := winput{Dir: geom.V(1, 0, 0)}
	now := time.Duration(0)
	c.Move(now, now, in)
	for range 30 {
		now += 10 * time.Millisecond
		c.Move(now, now, in)
	}
	for i := range c.n {
		if d := c.at(i).m.Dt; d > DefaultMaxMoveDelta {
			t.Fatalf("move %d lasts %v", i, d)
		}
	}
	if c.n != 3 {
		t.Fatalf("%d moves for 300 ms at 125 ms each", c.n)
	}
	if _, ok := c.AppendPacket(nil, now); !ok {
		t.Fatal("no packet")
	}
	n := c.n
	now += 10 * time.Millisecond
	c.Move(now, now, in)
	if c.n != n+1 {
		t.Fatal("a sent move was extended")
	}
}

// TestLongFrames: a frame longer than MaxMoveDelta becomes several moves; one
// longer than MaxGap moves nothing; a clock that stands or steps back makes no
// move.
func TestLongFrames(t *testing.T) {
	c, _ := NewClient(ClientConfig{}, Game[wstate, winput](&walker{}), wstate{})
	in := winput{Dir: geom.V(1, 0, 0)}
	c.Move(0, 0, in)
	c.Move(300*time.Millisecond, 0, in)
	if st := c.Stats(); st.Moves != 3 || math.Abs(c.State().Pos.X-1.5) > 1e-9 {
		t.Fatalf("300 ms frame: %+v at %v", st, c.State().Pos)
	}
	c.Move(300*time.Millisecond, 0, in)
	c.Move(200*time.Millisecond, 0, in)
	c.Move(time.Hour, 0, in)
	if st := c.Stats(); st.Moves != 3 || st.Gaps != 1 || math.Abs(c.State().Pos.X-1.5) > 1e-9 {
		t.Fatalf("after an hour's jump: %+v at %v", st, c.State().Pos)
	}
	c.Move(time.Hour+time.Second/60, 0, in)
	if st := c.Stats(); st.Moves != 4 {
		t.Fatalf("%+v", st)
	}
}

// TestRedundancy: up to Redundancy consecutive lost packets lose no input,
// even when each packet may carry only the moves owed (PacketMoves small) and
// the server does not wait for late moves; random loss of 10 % and 30 %
// loses none with the defaults (Redundancy 6 at 60 packets a second: 100 ms
// of them); a longer run of losses loses a move when the
// server does not wait (each move goes in 1+Redundancy packets, however many
// fit), and none when it waits for the client to send the missing moves
// again.
func TestRedundancy(t *testing.T) {
	noWait := ServerConfig{GapWait: -1}
	for _, tc := range []struct {
		name    string
		cfg     ClientConfig
		srv     ServerConfig
		drop    func(int) bool
		maxLost uint64
		minLost uint64
	}{
		{"three in a row", ClientConfig{PacketMoves: 1, Redundancy: 3}, noWait, lossIn(10, 11, 12, 30, 31, 32, 50, 52, 53, 54, 70, 72, 74), 0, 0},
		{"three in a row, packed", ClientConfig{Redundancy: 3}, noWait, lossIn(10, 11, 12, 30, 31, 32, 50, 52, 53, 54), 0, 0},
		{"four in a row, minimal", ClientConfig{PacketMoves: 1, Redundancy: 3}, noWait, lossIn(20, 21, 22, 23), 1, 1},
		{"four in a row, minimal, server waits", ClientConfig{PacketMoves: 1, Redundancy: 3}, ServerConfig{}, lossIn(20, 21, 22, 23), 0, 0},
		{"four in a row, packed", ClientConfig{Redundancy: 3}, noWait, lossIn(20, 21, 22, 23), 1, 1},
		{"four in a row, packed, server waits", ClientConfig{Redundancy: 3}, ServerConfig{}, lossIn(20, 21, 22, 23), 0, 0},
		{"six in a row, default", ClientConfig{}, noWait, lossIn(20, 21, 22, 23, 24, 25), 0, 0},
		{"random 10 %", ClientConfig{}, ServerConfig{}, randomLoss(0.1, 7), 0, 0},
		{"random 30 %", ClientConfig{}, ServerConfig{}, randomLoss(0.3, 8), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipe(tc.cfg, tc.srv, 40*time.Millisecond)
			p.drop = tc.drop
			p.run(20 * time.Second)
			ss, cs := p.srv.Stats(), p.cli.Stats()
			t.Logf("server %+v", ss)
			if ss.Lost > tc.maxLost || ss.Lost < tc.minLost {
				t.Errorf("%d moves lost, want %d to %d", ss.Lost, tc.minLost, tc.maxLost)
			}
			if ss.Lost == 0 && (cs.Corrections != 0 || ss.Adjustments != 0) {
				t.Errorf("corrected without loss: client %+v", cs)
			}
		})
	}
}

// TestGapAck: when a packet is lost and the next arrives, the server holds
// it and acknowledges at once with Gap, and the client sends the missing
// moves again in its next packet, long before its usual time to an
// acknowledgement: the held packet goes in without waiting out GapWait.
func TestGapAck(t *testing.T) {
	p := newPipe(ClientConfig{Redundancy: -1}, ServerConfig{}, 40*time.Millisecond)
	p.drop = lossIn(30)
	p.run(2 * time.Second)
	ss, cs := p.srv.Stats(), p.cli.Stats()
	t.Logf("server %+v\nclient %+v", ss, cs)
	// A round trip is 80 ms, 5 packets: the server holds those sent before
	// the client hears of the gap, and one in flight (14 without Gap, the
	// client waiting for its usual time to an acknowledgement).
	if ss.Lost != 0 || ss.Held == 0 || ss.Held > 7 || cs.Corrections != 0 || cs.Resends == 0 || cs.Resends > 3 {
		t.Fatal("the lost packet was not resent at the server's word")
	}
}

// TestOutage: after a second with nothing getting through either way, the
// moves of the outage are resent and applied: nothing is lost and the client
// is not corrected.
func TestOutage(t *testing.T) {
	p := newPipe(ClientConfig{}, ServerConfig{}, 30*time.Millisecond)
	out := func(from, to int) func(int) bool { return func(n int) bool { return n >= from && n < to } }
	p.drop = out(120, 180)
	p.dropDn = func(n int) bool { return false }
	p.run(6 * time.Second)
	ss, cs := p.srv.Stats(), p.cli.Stats()
	t.Logf("server %+v\nclient %+v", ss, cs)
	if ss.Lost != 0 || cs.Corrections != 0 || cs.Resends == 0 {
		t.Fatal("the outage lost moves")
	}
}

// TestReplayAfterAdjustment: when the server's world differs (a push the
// client does not know of), the server adjusts; the client restores the
// server's state at the adjusted move and replays the later ones, after which
// its prediction matches the server's bit for bit, and the visual difference
// decays without a jump.
func TestReplayAfterAdjustment(t *testing.T) {
	p := newPipe(ClientConfig{}, ServerConfig{}, 50*time.Millisecond)
	var corr []Correction
	p.cli.cfg.OnCorrection = func(c Correction) { corr = append(corr, c) }
	p.run(time.Second)
	p.srv.g.(*walker).push = geom.V(0, 0, 0.5) // a shove for 200 ms
	p.run(1200 * time.Millisecond)
	p.srv.g.(*walker).push = geom.Vec3{}
	// Draw every frame from here and check the drawing never jumps.
	var last geom.Vec3
	jumps := 0
	for end := 1300 * time.Millisecond; end <= 3*time.Second; end += time.Second / 60 {
		p.run(end)
		_, pos, _ := p.cli.Draw(p.now)
		if end > 1300*time.Millisecond && pos.Sub(last).Sub(geom.V(walkSpeed/60, 0, 0)).Len() > 0.05 {
			jumps++
		}
		last = pos
	}
	cs, ss := p.cli.Stats(), p.srv.Stats()
	t.Logf("client %+v\nserver %+v\ncorrections %+v", cs, ss, corr)
	if cs.Corrections == 0 || cs.Replayed == 0 {
		t.Fatal("no correction")
	}
	if cs.Corrections > 3 {
		t.Errorf("%d corrections for one 200 ms shove", cs.Corrections)
	}
	if jumps != 0 {
		t.Errorf("%d frames jumped", jumps)
	}
	// The client's prediction after the server's newest move is the
	// server's, within the threshold (the last 8 ms of the shove came after
	// the last correction and were within it).
	for i := range p.cli.n {
		if s := p.cli.at(i); s.m.Seq == p.srv.Seq() {
			if d := s.end.Pos.Dist(p.srv.State().Pos); d > 0.02 {
				t.Errorf("after replay: server %+v, client %+v", p.srv.State(), s.end)
			}
		}
	}
	if off := p.cli.Offset(p.now); off.Len() > 1e-6 {
		t.Errorf("offset %v left", off)
	}
}

// TestReplyDuplicates: an adjustment applied twice (resent, duplicated) is
// applied once; acknowledgements free the moves they cover.
func TestReplyDuplicates(t *testing.T) {
	g := Game[wstate, winput](&walker{})
	c, _ := NewClient(ClientConfig{}, g, wstate{})
	in := winput{Dir: geom.V(1, 0, 0)}
	for i := range 10 {
		now := time.Duration(i) * time.Second / 60
		c.Move(now, now, in)
		c.AppendPacket(nil, now)
	}
	reset := AppendReply(nil, g, &Reply[wstate]{Kind: Reset, Seq: 0, ID: 1, State: wstate{Pos: geom.V(5, 0, 0)}})
	if err := c.HandleReply(reset, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.HandleReply(reset, 0); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Resets != 1 || st.Duplicates != 1 || st.Replayed != 9 {
		t.Fatalf("%+v", st)
	}
	if x := c.State().Pos.X; math.Abs(x-(5+9*walkSpeed/60)) > 1e-9 {
		t.Fatalf("at %v after the reset", x)
	}
	adj := AppendReply(nil, g, &Reply[wstate]{Kind: Adjust, Seq: 4, ID: 2, State: wstate{Pos: geom.V(5.2, 0, 0), Vel: geom.V(5, 0, 0)}})
	for range 2 {
		if err := c.HandleReply(adj, 0); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Corrections != 1 || st.Saved != 5 {
		t.Fatalf("%+v", st)
	}
	if err := c.HandleReply(AppendReply(nil, g, &Reply[wstate]{Kind: Ack, Seq: 7}), 0); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Saved != 2 || c.Acked() != 7 {
		t.Fatalf("%+v", st)
	}
	if err := c.HandleReply(AppendReply(nil, g, &Reply[wstate]{Kind: Ack, Seq: 99}), 0); err == nil {
		t.Fatal("an ack of a move never made was taken")
	}
	if err := c.HandleReply([]byte{9}, 0); err == nil {
		t.Fatal("garbage taken")
	}
}
