package soccer

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
	"github.com/tether-net/tether/server"
)

// fuzzBytes reads a fuzz input; past its end it reads zeros.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) u16() uint16 { return uint16(f.byte()) | uint16(f.byte())<<8 }

func (f *fuzzBytes) bytes(n int) []byte {
	n = min(n, len(f.b))
	b := f.b[:n]
	f.b = f.b[n:]
	return b
}

// offset is a time from -32.768 s to +32.767 s, in milliseconds.
func (f *fuzzBytes) offset() time.Duration { return time.Duration(int16(f.u16())) * time.Millisecond }

// dir is a direction of length up to about 1.4, or a degenerate one.
func (f *fuzzBytes) dir() geom.Vec3 {
	switch c := f.byte(); c {
	case 255:
		return geom.V(math.NaN(), 0, 1)
	case 254:
		return geom.V(math.Inf(1), 0, 0)
	case 253:
		return geom.V(1e9, 0, -1e9)
	default:
		return geom.V(float64(int8(c))/100, 0, float64(int8(f.byte()))/100)
	}
}

// session is a server core running a real match, driven by a fuzz input
// as its clients.
type session struct {
	t     *testing.T
	g     *Game
	s     *server.Server
	peers []*reliable.Endpoint
	seq   []uint32 // the next input sequence of each client
	mseq  []uint32 // the next move sequence
	now   time.Duration
	tr    Truth

	// Per client with predicted moves: the server time its first moves
	// arrived, the time its moves simulated, and the state after its last
	// move (for the speed check), valid while gen matches.
	movedFrom []time.Duration
	movedFor  []time.Duration
	last      []PlayerState
	lastOK    []bool
	pkt       movement.Packet[MoveInput]
	msg, buf  []byte
}

const sessionClients = 4

func newSession(t *testing.T) *session {
	g, err := NewGame(DefaultRules(), 60)
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Config{MaxClients: sessionClients}, g)
	if err != nil {
		t.Fatal(err)
	}
	ss := &session{t: t, g: g, s: s,
		peers: make([]*reliable.Endpoint, sessionClients), seq: make([]uint32, sessionClients), mseq: make([]uint32, sessionClients),
		movedFrom: make([]time.Duration, sessionClients), movedFor: make([]time.Duration, sessionClients),
		last: make([]PlayerState, sessionClients), lastOK: make([]bool, sessionClients)}
	g.SetOnMove(func(client int, m *movement.Move[MoveInput], st PlayerState) { ss.moved(client, m, st) })
	return ss
}

// moved checks one applied move: the player moves no faster than the
// sprint speed, and a client's moves simulate no more time than the
// server's clock advanced since its first moves arrived, plus the
// movement server's allowances (movement.ServerConfig defaults).
func (ss *session) moved(client int, m *movement.Move[MoveInput], st PlayerState) {
	const allowance = 100*time.Millisecond + 125*time.Millisecond
	r := ss.g.Rules()
	if v := st.Vel.Len(); v > r.SprintSpeed*(1+1e-9) {
		ss.t.Fatalf("client %d: speed %.3f m/s after a move, limit %v", client, v, r.SprintSpeed)
	}
	if ss.movedFor[client] == 0 && !ss.lastOK[client] {
		ss.movedFrom[client] = ss.now
	}
	ss.movedFor[client] += m.Dt
	if lim := ss.now - ss.movedFrom[client] + allowance; ss.movedFor[client] > lim {
		ss.t.Fatalf("client %d: moves simulated %v in %v of server time (limit %v)", client, ss.movedFor[client], ss.now-ss.movedFrom[client], lim)
	}
	if ss.lastOK[client] {
		if d := st.Pos.Sub(ss.last[client].Pos).Len(); d > r.SprintSpeed*m.Dt.Seconds()+1e-6 {
			ss.t.Fatalf("client %d: moved %.3f m in a move of %v (limit %.3f m)", client, d, m.Dt, r.SprintSpeed*m.Dt.Seconds())
		}
	}
	ss.last[client], ss.lastOK[client] = st, true
}

// deliver hands what the server transmitted to the peers.
func (ss *session) deliver() {
	for {
		c, p, ok := ss.s.Transmit()
		if !ok {
			return
		}
		if len(p) > reliable.MaxPacketSize {
			ss.t.Fatalf("packet of %d bytes", len(p))
		}
		if pe := ss.peers[c]; pe != nil {
			_ = pe.Receive(ss.now, p)
			for {
				if _, _, ok := pe.Read(); !ok {
					break
				}
			}
		}
	}
}

// send sends msg from client c in one packet of its channel.
func (ss *session) send(c int, msg []byte) {
	pe := ss.peers[c]
	if pe == nil || len(msg) == 0 || pe.SendUnreliable(msg) != nil {
		return
	}
	if p, ok := pe.AppendPacket(ss.buf[:0], ss.now); ok {
		ss.buf = p
		_ = ss.s.Receive(ss.now, c, p)
		ss.deliver()
	}
}

func (ss *session) tick(d time.Duration) {
	ss.now += d
	ss.s.Tick(ss.now)
	ss.deliver()
	ss.g.Truth(&ss.tr)
	ss.checkWorld()
}

// checkWorld: every position finite and on the pitch (inside the boards,
// with room for the ball over them), gens tracked for the speed check.
func (ss *session) checkWorld() {
	p := ss.g.Rules().Pitch
	lx, lz := p.Length/2+p.Margin+p.BoardWidth+1, p.Width/2+p.Margin+p.BoardWidth+1
	on := func(what string, v geom.Vec3) {
		if !(math.Abs(v.X) <= lx && math.Abs(v.Z) <= lz && math.Abs(v.Y) < 100) {
			ss.t.Fatalf("%s at %v, off the pitch or not finite", what, v)
		}
	}
	on("ball", ss.tr.Ball.Pos)
	for _, pl := range ss.tr.Players {
		on("player", pl.Pos)
		if pl.Predicted {
			on("moved player", pl.Moved.Pos)
		}
	}
}

// step runs one operation read from in.
func (ss *session) step(in *fuzzBytes) {
	op := in.byte()
	c := int(in.byte()) % sessionClients
	switch op % 8 {
	case 0: // join
		if ss.peers[c] == nil && ss.s.Connect(ss.now, c) == nil {
			ss.peers[c], _ = reliable.New(reliable.Config{})
			ss.deliver()
		}
	case 1: // leave
		if ss.peers[c] != nil {
			_ = ss.s.Disconnect(ss.now, c)
			ss.peers[c] = nil
			ss.movedFor[c], ss.lastOK[c] = 0, false
		}
	case 2: // time passes: up to 255 ticks' worth
		ss.tick((time.Duration(in.byte()) + 1) * ss.s.TickInterval() / 4)
	case 3: // a raw payload
		if ss.peers[c] != nil {
			_ = ss.s.Receive(ss.now, c, in.bytes(int(in.byte())))
			ss.deliver()
		}
	case 4: // an arbitrary message
		ss.send(c, in.bytes(int(in.byte())))
	case 5: // an input with client-chosen times and action
		ss.seq[c] += uint32(in.byte()) - 8
		h := protocol.Input{Seq: ss.seq[c], Sent: max(0, ss.now+in.offset()), View: max(0, ss.now+in.offset())}
		d := Input{Dir: in.dir(), Sprint: in.byte()&1 == 1, Action: Action(in.byte() % 4), ActionSeq: in.byte(), Aim: in.dir(), Power: float64(in.byte()) / 200,
			ActionAge: time.Duration(in.byte()) * time.Millisecond}
		if in.byte()&1 == 1 {
			d.KickFrom = ss.tr.Ball.Pos.Add(in.dir().Scale(10))
		}
		ss.msg = AppendInput(protocol.AppendInput(ss.msg[:0], h), d)
		ss.send(c, ss.msg)
	case 6: // a packet of moves with client-chosen numbers, times and views
		n := int(in.byte())%movement.MaxPacketMoves + 1
		ss.mseq[c] += uint32(int8(in.byte()))
		end := max(0, ss.now+in.offset())
		p := &ss.pkt
		p.Moves = p.Moves[:0]
		p.Fix = uint32(in.byte())
		for k := range n {
			dt := time.Duration(in.byte()%128+1) * time.Millisecond * time.Duration(1+in.byte()%2*9)
			end += dt
			var mi MoveInput
			mi.Input = Input{Dir: in.dir(), Sprint: in.byte()&1 == 1, Action: Action(in.byte() % 4), ActionSeq: in.byte()}
			mi.Env.Carrying = in.byte()&1 == 1
			p.Moves = append(p.Moves, movement.Move[MoveInput]{Seq: ss.mseq[c] + uint32(k) + 1, Time: end, Dt: dt, View: max(0, end-time.Duration(in.byte())*time.Millisecond), Input: mi})
		}
		ss.mseq[c] += uint32(n)
		p.HasPos = in.byte()&1 == 1
		p.Pos = in.dir().Scale(50)
		ss.msg = movement.AppendPacket(protocol.AppendMoves(ss.msg[:0], ss.seq[c], 0), movement.Game[PlayerState, MoveInput](ownSim{rules: &ss.g.rules}), p)
		ss.seq[c]++
		ss.send(c, ss.msg)
	case 7: // a clock ping
		ss.send(c, protocol.AppendPing(ss.msg[:0], clock.Ping{ID: uint32(in.byte())}))
	}
}

// FuzzServerSession drives a server core running the real soccer match
// through a sequence of joins, leaves, ticks and arbitrary client payloads
// (raw bytes, arbitrary messages, inputs with forged times and actions,
// packets of forged moves). Invariants: no panic; the match keeps stepping
// (60 ticks a second after the sequence) with every body finite and on the
// pitch; no predicted player moves faster than the sprint speed within a
// move, nor simulates more time than the server's clock gave it (plus the
// movement server's allowances); memory stays bounded.
func FuzzServerSession(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 60, 5, 0, 9, 0, 0, 0, 0, 0, 100, 0, 1, 1, 1, 2, 200})
	f.Add([]byte{0, 0, 2, 0, 40, 6, 0, 10, 0, 0, 0, 0, 16, 0, 100, 0, 1, 2, 60, 6, 0, 10, 0, 0, 0, 0, 16, 0, 100, 0, 1, 7, 0, 5, 1, 0, 2, 0, 255})
	f.Add([]byte{0, 1, 0, 2, 2, 0, 255, 6, 1, 63, 0, 0, 128, 0, 127, 1, 50, 50, 1, 0, 0, 2, 0, 255, 3, 1, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 4, 2, 3, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		ss := newSession(t)
		in := &fuzzBytes{b: data}
		for len(in.b) > 0 {
			ss.step(in)
		}
		before := ss.s.Ticks()
		for range 60 {
			ss.tick(ss.s.TickInterval())
		}
		if got := ss.s.Ticks() - before; got != 60 {
			t.Fatalf("%d ticks in a second after the sequence, want 60", got)
		}
		checkHeap(t)
	})
}

// forgedHistory is a session where a client that joined a second into the
// match sends, at once, 64 moves of 125 ms stamped from time 0: 8 s of
// running in one packet.
func forgedHistory() []byte {
	b := []byte{0, 0, 2, 0, 255}              // join, a second passes
	b = append(b, 6, 0, 63, 0, 0x18, 0xfc, 0) // 64 moves from 1 s before now, fix 0
	for range 64 {
		b = append(b, 124, 0, 100, 0, 1, 0, 0, 0, 0) // 125 ms, run along +X, sprint
	}
	return append(b, 0, 0, 0)
}

func TestForgedMoveHistory(t *testing.T) {
	ss := newSession(t)
	in := &fuzzBytes{b: forgedHistory()}
	for len(in.b) > 0 {
		ss.step(in)
	}
	if ss.movedFor[0] == 0 {
		t.Fatal("no move applied")
	}
}

// clientSession is a client core running the real soccer client game (with
// prediction), fed arbitrary server payloads by a fuzz input.
type clientSession struct {
	t     *testing.T
	c     *client.Client
	ep    *reliable.Endpoint // the server's end of the channels
	local time.Duration
	snaps [][]byte // real snapshot bodies to forge from
	msg   []byte
	in    []byte
}

func (cs *clientSession) deliver(reliableMsg bool, msg []byte) {
	if reliableMsg {
		if cs.ep.SendReliable(msg) != nil {
			return
		}
	} else if cs.ep.SendUnreliable(msg) != nil {
		return
	}
	for {
		p, ok := cs.ep.AppendPacket(nil, cs.local)
		if !ok {
			return
		}
		_ = cs.c.Receive(cs.local, p)
	}
}

func (cs *clientSession) frame(d time.Duration) {
	cs.local += d
	cs.c.Update(cs.local)
	for {
		p, ok := cs.c.Transmit()
		if !ok {
			break
		}
		_ = cs.ep.Receive(cs.local, p) // acknowledgements reach the server's end
		for {
			if _, _, ok := cs.ep.Read(); !ok {
				break
			}
		}
	}
	f := cs.c.Frame(cs.local)
	if len(f.Entities) > 256 {
		cs.t.Fatalf("%d entities in a frame", len(f.Entities))
	}
	for _, e := range f.Entities {
		for _, x := range [...]float64{e.Pos.X, e.Pos.Y, e.Pos.Z, e.Vel.X, e.Vel.Y, e.Vel.Z, e.Rot.W, e.Rot.X, e.Rot.Y, e.Rot.Z} {
			if !(math.Abs(x) < 1e6) {
				cs.t.Fatalf("entity %d drawn at %v moving %v turned %v", e.ID, e.Pos, e.Vel, e.Rot)
			}
		}
	}
	cs.in = AppendInput(cs.in[:0], Input{Dir: geom.V(1, 0, 0)})
	cs.c.SetInput(cs.in)
}

func (cs *clientSession) step(in *fuzzBytes) {
	op := in.byte()
	rel := op&8 != 0
	switch op % 8 {
	case 0: // a frame, 1 to 256 ms later
		cs.frame(time.Duration(in.byte())*time.Millisecond + time.Millisecond)
	case 1: // a raw payload
		_ = cs.c.Receive(cs.local, in.bytes(int(in.byte())))
	case 2: // an arbitrary message
		cs.deliver(rel, in.bytes(int(in.byte())))
	case 3: // a welcome with forged fields
		cs.deliver(true, protocol.AppendWelcome(cs.msg[:0], protocol.Welcome{Self: uint32(in.u16()), TickHz: in.u16(), SnapshotHz: in.u16()}))
	case 4: // a real snapshot with a forged tick, some bytes flipped
		body := append([]byte(nil), cs.snaps[int(in.byte())%len(cs.snaps)]...)
		for range int(in.byte() % 4) {
			if len(body) > 0 {
				body[int(in.u16())%len(body)] ^= in.byte()
			}
		}
		h := protocol.Snapshot{Tick: uint64(in.u16()), Regular: in.byte()&1 == 1}
		cs.deliver(false, append(protocol.AppendSnapshot(cs.msg[:0], h), body...))
	case 5: // a pong with forged times and epoch
		p := clock.Pong{ID: uint32(in.byte()), Epoch: uint32(in.byte() % 3), Recv: max(0, cs.local+in.offset())}
		p.Send = p.Recv + time.Duration(in.byte())*time.Millisecond
		cs.deliver(false, protocol.AppendPong(cs.msg[:0], p))
	case 6: // an event with forged fields
		e := event.Event{ID: uint32(in.u16()), Kind: in.byte() % 8, Time: max(0, cs.local+in.offset()), Entity: uint32(in.byte()), Actor: uint32(in.byte()), Arg: uint32(in.byte())}
		if e.HasState = in.byte()&1 == 1; e.HasState {
			e.State.Time, e.State.Knot = e.Time, true
			e.State.Pos, e.State.Vel = in.dir().Scale(60), in.dir().Scale(30)
			e.State.Rot = geom.Identity
		}
		cs.deliver(true, protocol.AppendEvent(cs.msg[:0], e))
	case 7: // a reply of arbitrary bytes
		cs.deliver(false, append(protocol.AppendReply(cs.msg[:0]), in.bytes(int(in.byte()))...))
	}
}

// FuzzClientSession drives a client core running the real soccer client game
// through arbitrary server payloads: raw bytes, arbitrary messages, forged
// welcomes, real snapshots with forged headers and flipped bytes, pongs and
// events with forged times, and arbitrary replies, between frames.
// Invariants: no panic; every frame draws at most 256 entities, at finite
// positions, velocities and rotations; the client keeps drawing frames for
// a second after the sequence; memory stays bounded.
func FuzzClientSession(f *testing.F) {
	snaps := playedSnapshots(f)
	f.Add([]byte{3, 0, 1, 0, 60, 0, 30, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0, 1, 0, 0, 10, 0, 4, 5, 0, 2, 0, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{3, 7, 0, 60, 0, 30, 0, 0, 16, 4, 9, 2, 1, 0, 255, 0, 0, 0, 1, 0, 16, 6, 1, 0, 1, 0, 0, 1, 2, 3, 1, 100, 0, 0, 0, 0, 16, 7, 5, 1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		g := NewClientGame(DefaultRules())
		g.Prediction = true
		c, err := client.New(client.Config{}, g)
		if err != nil {
			t.Fatal(err)
		}
		ep, _ := reliable.New(reliable.Config{})
		cs := &clientSession{t: t, c: c, ep: ep, snaps: snaps}
		c.Connected(0)
		in := &fuzzBytes{b: data}
		for len(in.b) > 0 {
			cs.step(in)
		}
		for range 60 {
			cs.frame(time.Second / 60)
		}
		checkHeap(t)
	})
}

// checkHeap fails if the live heap exceeds 512 MiB: garbage not yet
// collected does not count.
func checkHeap(t *testing.T) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 512<<20 {
		runtime.GC()
		runtime.ReadMemStats(&m)
	}
	if m.HeapAlloc > 512<<20 {
		t.Fatalf("heap %d MiB after a collection", m.HeapAlloc>>20)
	}
}
