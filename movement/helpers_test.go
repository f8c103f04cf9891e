package movement

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tether-net/tether/geom"
)

// walker is the test game: a character on the ground that runs at 5 m/s in
// the direction it is told (at most 1 long), reaching the new velocity at
// once. The server's walker can be given a push per second the client does
// not know of, to provoke corrections.
type walker struct {
	push geom.Vec3 // m/s of extra drift, server side
	raw  bool      // inputs travel as raw float64s, so that anything can be forged
}

type wstate struct{ Pos, Vel geom.Vec3 }

type winput struct {
	Dir  geom.Vec3
	Kick uint8
}

const walkSpeed = 5.0

func (w *walker) Move(s wstate, m *Move[winput]) wstate {
	h := m.Dt.Seconds()
	s.Vel = geom.V(m.Input.Dir.X, 0, m.Input.Dir.Z).Scale(walkSpeed)
	s.Pos = s.Pos.AddScaled(s.Vel, h).AddScaled(w.push, h)
	return s
}

func (w *walker) Pos(s wstate) geom.Vec3 { return s.Pos }

func (w *walker) Clamp(in winput) (winput, bool) {
	if !in.Dir.IsFinite() {
		return winput{}, false
	}
	in.Dir.Y = 0
	if l := in.Dir.Len(); l > 1 {
		in.Dir = in.Dir.Scale(1 / l)
	}
	return in, true
}

func (w *walker) Combine(a, b winput) bool { return a == b }

func (w *walker) AppendInput(dst []byte, in winput) []byte {
	if w.raw {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(in.Dir.X))
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(in.Dir.Z))
		return append(dst, in.Kick)
	}
	q := func(x float64) byte { return byte(int8(math.Round(math.Max(-1, math.Min(1, x)) * 127))) }
	return append(dst, q(in.Dir.X), q(in.Dir.Z), in.Kick)
}

func (w *walker) DecodeInput(in *winput, b []byte) (int, error) {
	if w.raw {
		if len(b) < 17 {
			return 0, ErrTruncated
		}
		x := math.Float64frombits(binary.LittleEndian.Uint64(b))
		z := math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
		*in = winput{Dir: geom.V(x, 0, z), Kick: b[16]}
		return 17, nil
	}
	if len(b) < 3 {
		return 0, ErrTruncated
	}
	if int8(b[0]) == -128 || int8(b[1]) == -128 {
		return 0, ErrMalformed
	}
	*in = winput{Dir: geom.V(float64(int8(b[0]))/127, 0, float64(int8(b[1]))/127), Kick: b[2]}
	return 3, nil
}

func (w *walker) AppendState(dst []byte, s wstate) []byte {
	for _, x := range []float64{s.Pos.X, s.Pos.Y, s.Pos.Z, s.Vel.X, s.Vel.Y, s.Vel.Z} {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x))
	}
	return dst
}

func (w *walker) DecodeState(s *wstate, b []byte) (int, error) {
	if len(b) < 48 {
		return 0, ErrTruncated
	}
	var f [6]float64
	for i := range f {
		f[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		if math.IsNaN(f[i]) || math.IsInf(f[i], 0) {
			return 0, ErrMalformed
		}
	}
	*s = wstate{Pos: geom.V(f[0], f[1], f[2]), Vel: geom.V(f[3], f[4], f[5])}
	return 48, nil
}

// pipe carries a client's packets to its server and the replies back, each
// way after a fixed delay, dropping what drop says.
type pipe struct {
	cli *Client[wstate, winput]
	srv *Server[wstate, winput]

	delay  time.Duration
	drop   func(n int) bool // the n-th packet up (from 0) is lost
	dropDn func(n int) bool // the n-th reply down is lost
	ups    int
	downs  int
	queue  []flight
	skew   func(t time.Duration) time.Duration // the client's clock at true time t; nil: exact
	frame  time.Duration
	now    time.Duration
	input  func(t time.Duration) winput
	frames int

	nextFrame, nextTick time.Duration
}

type flight struct {
	at   time.Duration
	up   bool
	data []byte
}

func newPipe(cc ClientConfig, sc ServerConfig, delay time.Duration) *pipe {
	g := &walker{}
	c, err := NewClient(cc, Game[wstate, winput](g), wstate{})
	if err != nil {
		panic(err)
	}
	s, err := NewServer(sc, Game[wstate, winput](&walker{}), wstate{}, nil)
	if err != nil {
		panic(err)
	}
	return &pipe{cli: c, srv: s, delay: delay, frame: time.Second / 60,
		input: func(time.Duration) winput { return winput{Dir: geom.V(1, 0, 0)} }}
}

func (p *pipe) clientNow() time.Duration {
	if p.skew != nil {
		return p.skew(p.now)
	}
	return p.now
}

// run advances true time to end: a client frame every p.frame (a move and,
// when due, a packet), the server replying every 1/60 s.
func (p *pipe) run(end time.Duration) {
	for {
		t := min(p.nextFrame, p.nextTick)
		for _, f := range p.queue {
			t = min(t, f.at)
		}
		if t > end {
			p.now = end
			return
		}
		p.now = t
		// Deliver what arrived.
		kept := p.queue[:0]
		var due []flight
		for _, f := range p.queue {
			if f.at <= p.now {
				due = append(due, f)
			} else {
				kept = append(kept, f)
			}
		}
		p.queue = kept
		for _, f := range due {
			if f.up {
				_ = p.srv.Receive(p.now, f.data)
			} else {
				_ = p.cli.HandleReply(f.data, p.clientNow())
			}
		}
		if p.now >= p.nextFrame {
			cn := p.clientNow()
			p.cli.Move(cn, cn-50*time.Millisecond, p.input(p.now))
			if b, ok := p.cli.AppendPacket(nil, cn); ok {
				if p.drop == nil || !p.drop(p.ups) {
					p.queue = append(p.queue, flight{at: p.now + p.delay, up: true, data: b})
				}
				p.ups++
			}
			p.frames++
			p.nextFrame += p.frame
		}
		if p.now >= p.nextTick {
			if b := p.srv.AppendReply(nil, p.now); len(b) > 0 {
				if p.dropDn == nil || !p.dropDn(p.downs) {
					p.queue = append(p.queue, flight{at: p.now + p.delay, data: b})
				}
				p.downs++
			}
			p.nextTick += time.Second / 60
		}
	}
}

// randomLoss returns a drop function losing share of packets, seeded.
func randomLoss(share float64, seed uint64) func(int) bool {
	rng := rand.New(rand.NewPCG(seed, 1))
	var fates []bool
	return func(n int) bool {
		for len(fates) <= n {
			fates = append(fates, rng.Float64() < share)
		}
		return fates[n]
	}
}

// lossIn returns a drop function losing exactly the packets listed.
func lossIn(ns ...int) func(int) bool {
	return func(n int) bool { return slices.Contains(ns, n) }
}
