package soccer

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/wire"
)

// MaxNear is the most other players an Env holds.
const MaxNear = 4

// Env is the world a predicted player's move meets, as its client showed it
// at the move's view time, and as the move claims it: whether the player had
// the ball, and the other players it might touch during the move (those
// within reach of where it started, the nearest MaxNear if more), with their
// ids and bases, in whole millimetres. The client takes it from the frame it
// drew; the server checks the claim against its record of what it sent at
// that time (see Rules.ContactTolerance), so that an honest client and the
// server simulate the move alike, to the bit, and a contact with another
// player needs no correction.
type Env struct {
	Carrying bool
	N        int // players in ID and Near
	ID       [MaxNear]uint32
	Near     [MaxNear]geom.Vec3
}

// MoveInput is a move's input as package movement carries it: the player's
// Input and the Env it met.
type MoveInput struct {
	Input
	Env Env
}

// reach is how far from a player starting a move another player may be and
// still be touched during it: two radii, three frames at sprint speed, and a
// margin. (A longer move, after a hitch, may touch one further away: the
// server then has it from its record.)
func (r Rules) reach() float64 {
	return 2*r.Player.Radius + r.SprintSpeed*0.05 + 0.1
}

// Step is the shared move function of a predicted player: Move, with the ball
// or not as env says, then the player is kept off the other players in env,
// softly, so that its path has no kink another client would see as a jump:
// near one (closer than contactCushion between the capsules) it may close the
// gap by at most the share 1 - exp(-dt/contactEase) of it in a move, so it
// slows into the contact over a few frames and slides along; overlapping one
// (the other ran into where it stood), it moves out at contactPush at most,
// instead of being shoved aside at once. Its client and the server compute
// it from the same state, input and Env, with the same result.
func (r Rules) Step(s PlayerState, in Input, env *Env, dt time.Duration) PlayerState {
	from := s.Pos
	s = r.Move(s, in, env.Carrying, dt)
	if env.N == 0 {
		return s
	}
	h := dt.Seconds()
	if h <= 0 {
		return s
	}
	minD := 2 * r.Player.Radius
	share := 1 - math.Exp(-h/contactEase.Seconds())
	for i := range min(env.N, MaxNear) {
		o := env.Near[i]
		dx, dz := from.X-o.X, from.Z-o.Z
		d := math.Hypot(dx, dz)
		gap := d - minD
		if !(gap < contactCushion) {
			continue
		}
		nx, nz := -math.Cos(s.Yaw), math.Sin(s.Yaw) // coincident: back off
		if d > 1e-9 {
			nx, nz = dx/d, dz/d
		}
		// How far the move may go toward the other player (negative: away).
		limit := gap * share
		if gap < 0 {
			limit = -math.Min(-gap, contactPush*h)
		}
		if closing := -((s.Pos.X-from.X)*nx + (s.Pos.Z-from.Z)*nz); closing > limit {
			s.Pos.X, s.Pos.Z = s.Pos.X+nx*(closing-limit), s.Pos.Z+nz*(closing-limit)
		}
		if vn, most := s.Vel.X*nx+s.Vel.Z*nz, -math.Max(limit, 0)/h; vn < most {
			s.Vel.X, s.Vel.Z = s.Vel.X+(most-vn)*nx, s.Vel.Z+(most-vn)*nz
		}
	}
	return r.clampPlayer(s)
}

// The contacts between players (see Step).
const (
	contactCushion = 0.6                   // metres between capsules within which an approach is eased
	contactEase    = 50 * time.Millisecond // time constant of the approach
	contactPush    = 1.0                   // m/s, the most an overlap is undone
)

// near collects the players an Env holds: those within reach of from, the
// nearest MaxNear if more, in the order they were added (of their ids).
type near struct {
	n  int
	id [maxSlots]uint32
	p  [maxSlots]geom.Vec3
	d  [maxSlots]float64
}

const maxSlots = 64

func (b *near) add(id uint32, p, from geom.Vec3, reach float64) {
	d := math.Hypot(p.X-from.X, p.Z-from.Z)
	if !(d < reach) || b.n == maxSlots {
		return
	}
	b.id[b.n], b.p[b.n], b.d[b.n] = id, geom.V(p.X, 0, p.Z), d
	b.n++
}

// fill writes the chosen players into env.
func (b *near) fill(env *Env) {
	for b.n > MaxNear {
		far := 0
		for i := 1; i < b.n; i++ {
			if b.d[i] > b.d[far] || (b.d[i] == b.d[far] && b.id[i] > b.id[far]) {
				far = i
			}
		}
		copy(b.id[far:b.n], b.id[far+1:b.n])
		copy(b.p[far:b.n], b.p[far+1:b.n])
		copy(b.d[far:b.n], b.d[far+1:b.n])
		b.n--
	}
	env.N = b.n
	copy(env.ID[:], b.id[:b.n])
	copy(env.Near[:], b.p[:b.n])
}

// moveCodec is what the client's and the server's movement.Game share: the
// player's position, clamping, combining and the encodings.
type moveCodec struct{}

// stateSize is the encoding of a PlayerState: x, z, vx, vz and yaw as
// float64s, exact.
const stateSize = 40

func (moveCodec) Pos(s PlayerState) geom.Vec3 { return s.Pos }

// Clamp shortens a direction longer than 1, brings the power into [0, 1] and
// an unknown action to none, and refuses NaN and Inf.
func (moveCodec) Clamp(in MoveInput) (MoveInput, bool) {
	if !in.Dir.IsFinite() || !in.Aim.IsFinite() || math.IsNaN(in.Power) || math.IsInf(in.Power, 0) {
		return MoveInput{}, false
	}
	in.Dir.Y, in.Aim.Y = 0, 0
	if l := in.Dir.Len(); l > 1 {
		in.Dir = in.Dir.Scale(1 / l)
	}
	in.Power = math.Max(0, math.Min(1, in.Power))
	if in.Action >= numActions {
		in.Action = ActionNone
	}
	return in, true
}

// Combine: the same input, the same possession, nobody near.
func (moveCodec) Combine(a, b MoveInput) bool {
	return a.Input == b.Input && a.Env.Carrying == b.Env.Carrying && a.Env.N == 0 && b.Env.N == 0
}

// AppendInput appends the Input (AppendInput), then the Env: a byte with
// bit 7 set if carrying and the number of players in its low 3 bits, then per
// player its id (unsigned varint) and x and z in millimetres (signed
// varints).
func (moveCodec) AppendInput(dst []byte, in MoveInput) []byte {
	dst = AppendInput(dst, in.Input)
	n := min(max(in.Env.N, 0), MaxNear)
	h := byte(n)
	if in.Env.Carrying {
		h |= envCarrying
	}
	dst = append(dst, h)
	for i := range n {
		dst = binary.AppendUvarint(dst, uint64(in.Env.ID[i]))
		dst = binary.AppendVarint(dst, wire.Quantise(in.Env.Near[i].X, 0.001))
		dst = binary.AppendVarint(dst, wire.Quantise(in.Env.Near[i].Z, 0.001))
	}
	return dst
}

const (
	envCarrying = 0x80
	envCount    = 0x07
	maxEnvMM    = 1 << 24 // 16 km
)

func (moveCodec) DecodeInput(in *MoveInput, b []byte) (int, error) {
	n, err := DecodeInput(&in.Input, b)
	if err != nil {
		return 0, err
	}
	r := wire.NewReader(b[n:])
	h := r.Byte()
	if err := r.Err(); err != nil {
		return 0, err
	}
	if h&^(envCarrying|envCount) != 0 || int(h&envCount) > MaxNear {
		return 0, ErrMalformed
	}
	env := Env{Carrying: h&envCarrying != 0, N: int(h & envCount)}
	for i := range env.N {
		env.ID[i] = uint32(r.Uvarint(math.MaxUint32))
		x, z := r.Varint(maxEnvMM), r.Varint(maxEnvMM)
		env.Near[i] = geom.V(float64(x)/1000, 0, float64(z)/1000)
	}
	if err := r.Err(); err != nil {
		return 0, err
	}
	in.Env = env
	return n + r.Offset(), nil
}

func (moveCodec) AppendState(dst []byte, s PlayerState) []byte {
	for _, x := range [...]float64{s.Pos.X, s.Pos.Z, s.Vel.X, s.Vel.Z, s.Yaw} {
		dst = wire.AppendFloat64(dst, x)
	}
	return dst
}

func (moveCodec) DecodeState(s *PlayerState, b []byte) (int, error) {
	r := wire.NewReader(b[:min(len(b), stateSize)])
	x, z, vx, vz, yaw := r.Float64(), r.Float64(), r.Float64(), r.Float64(), r.Float64()
	if err := r.Err(); err != nil {
		return 0, err
	}
	*s = PlayerState{Pos: geom.V(x, 0, z), Vel: geom.V(vx, 0, vz), Yaw: yaw}
	return stateSize, nil
}

// ownSim is the client's movement.Game: a move meets the Env saved with it.
type ownSim struct {
	moveCodec
	rules *Rules
}

func (g ownSim) Move(s PlayerState, m *movement.Move[MoveInput]) PlayerState {
	return g.rules.Step(s, m.Input.Input, &m.Input.Env, m.Dt)
}

// Predict implements client.Predictor: with Prediction set it turns the frame's
// input (an AppendInput encoding, as given to the client's SetInput) into a
// move of the own player, meeting the other players and the ball as the frame
// shows them, and draws the player where the prediction puts it; until the
// server's first reset it leaves the player to its timeline.
func (g *ClientGame) Predict(now time.Duration, input []byte, f *client.Frame) (client.Entity, bool) {
	if !g.Prediction {
		return client.Entity{}, false
	}
	g.hasShown = false
	self := f.Find(f.Self)
	if self == nil {
		return client.Entity{}, false
	}
	g.shown = *self
	own := g.Own()
	if own == nil {
		init := PlayerState{Pos: geom.V(self.Pos.X, 0, self.Pos.Z), Vel: geom.V(self.Vel.X, 0, self.Vel.Z), Yaw: yawOf(self.Rot.Rotate(geom.V(1, 0, 0)))}
		var err error
		if own, err = g.Start(g.Movement, movement.Game[PlayerState, MoveInput](ownSim{rules: &g.Rules}), init); err != nil {
			g.Prediction = false
			return client.Entity{}, false
		}
	}
	var in MoveInput
	if len(input) > 0 {
		if _, err := DecodeInput(&in.Input, input); err != nil {
			in.Input = Input{}
		}
	}
	view := g.env(f, own.State().Pos, &in.Env)
	own.Move(now, view, in)
	if !own.Synced() {
		return client.Entity{}, false
	}
	g.hasShown = true
	st, pos, cut := own.Draw(now)
	return client.Entity{Pos: pos, Vel: st.Vel, Rot: st.Rot(), Cut: cut}, true
}

// env fills env from frame f for a player starting a move at from, and
// returns the view time: the render time of the other players.
func (g *ClientGame) env(f *client.Frame, from geom.Vec3, env *Env) time.Duration {
	view := f.RenderTime
	seen := false
	reach := g.Rules.reach()
	var b near
	for i := range f.Entities {
		e := &f.Entities[i]
		switch {
		case e.Kind == KindBall:
			env.Carrying = e.Holder == f.Self && f.HasSelf // as the snapshots have it, however the ball is drawn
		case e.Kind == KindPlayer && e.ID != f.Self:
			if !seen {
				view, seen = e.RenderTime, true
			}
			b.add(e.ID, e.Pos, from, reach)
		}
	}
	b.fill(env)
	return view
}

// Shown returns the own player as its timeline drew it in the last frame
// predicted (the server's picture of it, delayed like the other players,
// before the prediction took its place), and whether the prediction draws
// it.
//
// It reads only what the last Predict wrote, so a driver may call it after
// the frame without holding the lock that serialises replies.
func (g *ClientGame) Shown() (client.Entity, bool) { return g.shown, g.hasShown }
