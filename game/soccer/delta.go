package soccer

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/wire"
)

// Per-client snapshots (server.PerClient). The server encodes every client's
// snapshot on its own: the same flags (with bit 3 set) as a shared
// snapshot, then the baseline (below), then its score and ball generation
// unless they are the baseline's (flags bit 4, snapSame), and its ball
// states (less a repeated knot when the client keeps a snapshot of the
// knot's tick or later, which held it; else the knot's state goes after the
// ball's current one, countKnot, as does the previous tick's, countPrev,
// their carriers staying in place), then the ball's current state and the
// players against the baseline, which the client acknowledged keeping, then
// the carriers. The ball's current state (the last of its states; its
// carrier, offset and blend stay where they were) then moves into the
// bit-packed section:
//
//	baseline   unsigned varint after the flags: the snapshot's tick less
//	           the baseline's, 0 for none (everything whole)
//	ball       (bit-packed, see ballDeltaOrders) the current state, its time
//	           the snapshot's; then a repeated knot and the previous
//	           tick's state against it (putKnot)
//	players    in the same bit-packed section (wire.BitWriter): the count of players
//	           (order-3 exponential-Golomb code); unless none, a bit run
//	           (their slots follow one another) and a bit moved (every
//	           one is a changed delta); then per player, in order of
//	           slot, its slot less the previous one's plus one (order 0;
//	           the first: its slot; with run, the first only), and unless
//	           moved a bit: delta or whole.
//	           A delta player has a bit changed (unless moved); unchanged, it is the
//	           baseline's pose extrapolated (below); changed, each field
//	           of its pose follows as its difference from that (order-k
//	           codes, deltaOrders). A whole player has a bit team Away, its
//	           generation (8 bits) and each field as it is (wholeOrders).
//	           Zero bits pad the section to a byte.
//	carriers   as in the shared snapshot
//
// A player's baseline is its pose in the baseline snapshot as the client
// rebuilt it: every player that snapshot held, and for every other player
// the pose in the snapshot's own baseline, and so on back (a player left out
// by the byte budget keeps the pose it had). The baseline's position is
// extrapolated by its velocity to the snapshot's time (integer millimetres,
// rounded half away from zero), so a player running straight costs the
// changed bit alone; its yaw, velocity, turning and velocity asked for are
// the baseline's. A changed player's position is coded against that
// position moved further by half the difference of its new velocity (in
// the same pose) from the baseline's over the time between them (midway),
// so one speeding up or slowing down steadily costs its velocity alone; the
// ball's likewise. A changed player's velocity is coded against the one the
// baseline's reaches turning toward the velocity it asked for at the rules'
// acceleration (lean), and each field's code has an order chosen by the
// fields before it (deltaOrders). A player is sent as a delta only when the
// baseline has it with the same team and generation.
//
// The snapshot fits the server's budget (server.Config.SnapshotBudget):
// when every player does not fit, the carriers go first (and the player
// who has the ball: the ball is drawn at its feet), then the players
// left out longest (a priority accumulated per client and player, reset
// when it is sent), so no player waits more than a few snapshots even when
// a whole snapshot of 64 players is larger than a packet.

const snapDelta = 1 << 3

// snapSame marks a per-client snapshot that leaves out the score and the
// ball's generation: they are the baseline's.
const snapSame = 1 << 4

// baselineRing is how many snapshots the server keeps per client, and a
// client keeps, as baselines: a second of regular snapshots at 30 Hz. A
// client whose newest acknowledged snapshot is older is sent whole players.
const baselineRing = 32

// The orders of the exponential-Golomb codes of a whole pose's fields: x,
// z, vx, vz, yaw, turn, wx, wz (the units of qpose; yaw and turn in their
// steps).
var wholeOrders = poseOrders{14, 14, 7, 7, 11, 5, 3, 3}

type poseOrders [8]int

// deltaOrders are the orders of the codes of a delta pose's fields, by
// field and by what the fields before it were (deltaContext): the second
// of a pair (z, vz, turn, wz) by the bit length of the first's magnitude
// (x, vx, yaw, wx), capped at 11; the first of a pair by the sum of the
// bit lengths of every field before it, a quarter of it, capped at 7. A
// player whose x moved far has likely moved far in z too, one whose yaw
// turned much likely changed its rate of turning, and so on. Fitted to the
// deltas of bots' matches of 4 and 22 players on the wan preset (the
// shortest codes of each context): 59.9 bits a changed player of 22 where
// one order a field took 66.3, 51.6 of 4 where it took 56.4.
var deltaOrders = [8][12]uint8{
	{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
	{0, 1, 2, 3, 4, 4, 5, 6, 6, 6, 3, 3},
	{3, 5, 6, 7, 9, 9, 9, 9, 9, 9, 9, 9},
	{1, 2, 2, 3, 4, 5, 6, 6, 7, 8, 8, 7},
	{0, 1, 2, 4, 6, 6, 7, 8, 8, 8, 8, 8},
	{0, 2, 2, 5, 6, 7, 8, 9, 10, 11, 12, 12},
	{0, 0, 1, 2, 3, 4, 5, 8, 8, 8, 8, 8},
	{0, 1, 2, 2, 4, 5, 6, 7, 7, 7, 8, 8},
}

// deltaOrder returns the order of field i of a delta pose whose fields
// before it are d[:i].
func deltaOrder(d *[8]int64, i int) int {
	if i%2 == 1 {
		return int(deltaOrders[i][min(magBits(d[i-1]), 11)])
	}
	n := 0
	for _, x := range d[:i] {
		n += magBits(x)
	}
	return int(deltaOrders[i][min(n/4, 7)])
}

// magBits returns the bit length of x's magnitude.
func magBits(x int64) int {
	if x < 0 {
		return bits.Len64(uint64(-x))
	}
	return bits.Len64(uint64(x))
}

const countOrder = 3

// errNoBaseline is returned for a snapshot encoded against a baseline the
// client does not have.
var errNoBaseline = errors.New("tether/soccer: snapshot against a baseline not kept")

// known is a player's pose as of server time t in a rebuilt snapshot.
type known struct {
	q         qpose
	t         time.Duration
	gen, team uint8
}

// at returns the pose extrapolated to server time t by its velocity.
func (k *known) at(t time.Duration) qpose {
	q := k.q
	dt := int64(t - k.t)
	q.x += wire.RoundDiv(q.vx*dt, 1e8) // cm/s × ns = 1e-8 mm
	q.z += wire.RoundDiv(q.vz*dt, 1e8)
	// mrad/s × µs = 1e-9 rad, in steps of yawStep 65536ths of a turn.
	q.yaw += uint16(wire.RoundDiv(q.turn*(dt/1000)*(65536/yawStep), 6283185307) * yawStep)
	return q
}

// playerTable is a snapshot's ball and players as its client rebuilt them.
type playerTable struct {
	has uint64 // slot bits of the players known
	p   [maxSlots]known
	// The ball at the snapshot's tick, its server time and generation.
	hasBall bool
	ballGen uint8
	ballT   time.Duration
	ball    wire.QState
	// The score, Home then Away.
	score [2]uint64
}

func (t *playerTable) set(slot int, k known) {
	t.has |= 1 << uint(slot)
	t.p[slot] = k
}

// from makes t the table of base's players (none if nil), unless it is
// base: the start of a snapshot rebuilt against base.
func (t *playerTable) from(base *playerTable) {
	switch {
	case base == nil:
		t.has = 0
	case base != t:
		*t = *base
	}
}

// clientView is what the server sent one client.
type clientView struct {
	sent wire.Baselines[playerTable]
	wait [maxSlots]uint32 // snapshots each player was left out of since last sent
}

// AppendSnapshotFor implements server.PerClient: the snapshot of
// AppendSnapshot with its players encoded against the newest snapshot the
// client acknowledged, within budget bytes (see the layout above).
func (g *Game) AppendSnapshotFor(dst []byte, cl int, regular bool, acked uint64, budget int) []byte {
	o := &g.out
	if !o.ok || o.tick != g.tick || o.regular != regular {
		o = g.prepare(regular)
	}
	start := len(dst)
	if !o.players {
		return appendBall(append(dst, o.head...), o.ballState, g.now)
	}
	v := g.views[cl]
	if v == nil {
		v = &clientView{sent: wire.NewBaselines[playerTable](baselineRing)}
		g.views[cl] = v
	}
	base := v.sent.Find(acked)
	same := base != nil && base.score == o.score && base.ballGen == o.ballGen
	flags := o.head[0] | snapDelta
	if same {
		flags |= snapSame
	}
	dst = append(dst, flags)
	if base != nil {
		dst = binary.AppendUvarint(dst, g.tick-acked)
	} else {
		dst = append(dst, 0)
	}
	if !same {
		dst = append(dst, o.head[1:o.count]...)
	}
	knot, count, from := false, o.head[o.count], o.count+1
	switch {
	case o.repeat != 0 && base != nil && acked >= o.repeat:
		// The client keeps a snapshot of the knot's tick or later, which
		// held the knot (as the ball's state, repeated, or the previous
		// tick's): it need not come again.
		count, from = count-1, o.repeatEnd
	case o.repeat != 0:
		// The knot goes against the current ball, after it.
		knot, count, from = true, count|countKnot, o.repeatEnd
	}
	if o.prevAt != 0 {
		// So does the previous tick's state, its carrier staying here.
		dst = append(dst, count|countPrev)
		dst = append(dst, o.head[from:o.prevAt]...)
		dst = append(dst, o.head[o.prevEnd:]...)
	} else {
		dst = append(dst, count)
		dst = append(dst, o.head[from:]...)
	}
	now := g.wireNow()
	room := (budget-(len(dst)-start)-len(o.tail))*8 - wire.UintBits(uint64(o.n), countOrder) - 2 - ballBits(o, base, now, radiusMicro(g.rules))
	if knot {
		room -= knotBits(&o.knot, &o.ball, o.knotTicks, o.knotAge, g.tick, now, radiusMicro(g.rules))
	}
	if o.prevAt != 0 {
		room -= knotBits(&o.prevQ, &o.ball, 1, o.prevAge, g.tick, now, radiusMicro(g.rules))
	}
	var cost [maxSlots]int
	total, prev := 0, -1
	moved := uint64(0) // slot bits of the players sent as changed deltas
	for j := range o.n {
		var m bool
		cost[j], m = g.playerBits(o, j, base)
		if m {
			moved |= 1 << uint(o.slots[j])
		}
		total += cost[j] + wire.UintBits(uint64(int(o.slots[j])-prev-1), 0)
		prev = int(o.slots[j])
	}
	in := uint64(0)
	if total <= room {
		in = ^uint64(0)
	} else {
		in = v.choose(o, &cost, room)
	}
	t := v.sent.Push(g.tick)
	t.from(base)
	w := wire.NewBitWriter(dst)
	putBall(&w, o, base, now, radiusMicro(g.rules))
	if knot {
		putKnot(&w, &o.knot, &o.ball, o.knotTicks, o.knotAge, g.tick, now, radiusMicro(g.rules))
	}
	if o.prevAt != 0 {
		putKnot(&w, &o.prevQ, &o.ball, 1, o.prevAge, g.tick, now, radiusMicro(g.rules))
	}
	t.ball, t.ballT, t.ballGen, t.hasBall, t.score = o.ball, now, o.ballGen, true, o.score
	sent := in & slotBits(o)
	w.Uint(uint64(bits.OnesCount64(sent)), countOrder)
	run, all := false, false
	if sent != 0 {
		m := sent >> uint(bits.TrailingZeros64(sent))
		run, all = m&(m+1) == 0, sent&^moved == 0
		w.Bool(run)
		w.Bool(all)
	}
	prev = -1
	for j := range o.n {
		slot := int(o.slots[j])
		if in&(1<<uint(slot)) == 0 {
			v.wait[slot]++
			continue
		}
		v.wait[slot] = 0
		if !run || prev < 0 {
			w.Uint(uint64(slot-prev-1), 0)
		}
		prev = slot
		g.putPlayer(&w, o, j, base, all)
		t.set(slot, known{q: o.q[j], t: now, gen: o.gen[j], team: o.team[j]})
	}
	return append(w.Append(), o.tail...)
}

// wireNow is the tick's time as the snapshot's header carries it (whole
// wire.TimeUnits), which a client extrapolates its baselines to: the same
// integers on both sides.
func (g *Game) wireNow() time.Duration { return g.now / wire.TimeUnit * wire.TimeUnit }

// slotBits returns the slot bits of the snapshot's players.
func slotBits(o *prepared) uint64 {
	m := uint64(0)
	for j := range o.n {
		m |= 1 << uint(o.slots[j])
	}
	return m
}

// maxGapBits bounds the bits of a slot gap.
var maxGapBits = wire.UintBits(maxSlots-1, 0)

// choose returns the slot bits of the players that fit room bits, costing
// cost each (and a slot gap): the carriers first, then those left out of
// the most snapshots, then by slot.
func (v *clientView) choose(o *prepared, cost *[maxSlots]int, room int) uint64 {
	var order [maxSlots]uint8 // indexes into o.slots, by priority
	n := 0
	for j := range o.n {
		k := n
		for k > 0 && v.before(o, j, int(order[k-1])) {
			order[k] = order[k-1]
			k--
		}
		order[k] = uint8(j)
		n++
	}
	in := uint64(0)
	for _, j := range order[:n] {
		c := cost[j] + maxGapBits
		if c <= room || o.forced&(1<<uint(o.slots[j])) != 0 {
			in |= 1 << uint(o.slots[j])
			room -= c
		}
	}
	return in
}

// before says whether player j goes before player k.
func (v *clientView) before(o *prepared, j, k int) bool {
	sj, sk := o.slots[j], o.slots[k]
	fj, fk := o.forced&(1<<uint(sj)) != 0, o.forced&(1<<uint(sk)) != 0
	if fj != fk {
		return fj
	}
	if v.wait[sj] != v.wait[sk] {
		return v.wait[sj] > v.wait[sk]
	}
	return sj < sk
}

// deltaBase returns the baseline of player j, or nil if it goes whole.
func deltaBase(o *prepared, j int, base *playerTable) *known {
	slot := o.slots[j]
	if base == nil || base.has&(1<<uint(slot)) == 0 {
		return nil
	}
	k := &base.p[slot]
	if k.gen != o.gen[j] || k.team != o.team[j] {
		return nil
	}
	return k
}

// poseRef is what a pose is coded against: for a delta, its baseline's
// pose extrapolated to the snapshot's time (q), how long before that the
// baseline was (dt) and the rules lean predicts velocities with; the
// zero poseRef codes a pose whole.
type poseRef struct {
	q     qpose
	dt    time.Duration
	rules leanRules
	delta bool
}

// leanRules are the rules lean predicts a player's velocity with: its
// acceleration, cm/s², and how far from the centre spot it may stand
// along X and Z (Rules.standLimits), millimetres.
type leanRules struct{ acc, lx, lz int64 }

func leanOf(r Rules) leanRules {
	lx, lz := r.standLimits()
	return leanRules{acc: max(0, int64(math.Round(r.Accel*100))), lx: wire.Quantise(lx, 0.001), lz: wire.Quantise(lz, 0.001)}
}

// playerRef returns what player j is coded against with baseline k.
func (g *Game) playerRef(k *known) poseRef {
	return poseRef{q: k.at(g.wireNow()), dt: g.wireNow() - k.t, rules: leanOf(g.rules), delta: true}
}

// playerBits is the bits of player j but its slot gap, at most, and
// whether it goes as a changed delta.
func (g *Game) playerBits(o *prepared, j int, base *playerTable) (int, bool) {
	if k := deltaBase(o, j, base); k != nil {
		if ref := g.playerRef(k); ref.q != o.q[j] {
			return 2 + poseBits(o.q[j], &ref), true
		}
		return 2, false
	}
	return 2 + 8 + poseBits(o.q[j], &poseRef{}), false
}

// putPlayer writes player j; moved, every player goes as a changed delta,
// which its bits need not say.
func (g *Game) putPlayer(w *wire.BitWriter, o *prepared, j int, base *playerTable, moved bool) {
	k := deltaBase(o, j, base)
	if moved {
		ref := g.playerRef(k)
		putPose(w, o.q[j], &ref)
		return
	}
	w.Bool(k != nil)
	if k != nil {
		ref := g.playerRef(k)
		w.Bool(ref.q != o.q[j])
		if ref.q != o.q[j] {
			putPose(w, o.q[j], &ref)
		}
		return
	}
	w.Bool(o.team[j] == Away)
	w.Bits(uint64(o.gen[j]), 8)
	putPose(w, o.q[j], &poseRef{})
}

// order returns the order of field i of a pose coded against ref whose
// fields before it are d[:i].
func (ref *poseRef) order(d *[8]int64, i int) int {
	if ref.delta {
		return deltaOrder(d, i)
	}
	return wholeOrders[i]
}

// diffs returns q's fields less ref's, the yaw the short way round, yaw
// and turning in their steps (yawStep, turnStep). For a delta, q's position
// is taken less ref's corrected to the mean of the two velocities over dt
// (midway), which is exact for a steady acceleration, and its velocity
// less the one ref's reaches running toward the velocity it asked for
// (lean).
func diffs(q qpose, ref *poseRef) [8]int64 {
	r := &ref.q
	x, z := midway(*r, q.vx, q.vz, ref.dt)
	vx, vz := lean(ref)
	return [8]int64{q.x - x, q.z - z, q.vx - vx, q.vz - vz,
		int64(int16(q.yaw-r.yaw)) / yawStep, (q.turn - r.turn) / turnStep, q.wx - r.wx, q.wz - r.wz}
}


// lean returns the velocity ref's pose reaches after dt when its velocity
// turns toward the one it asks for (its velocity plus wx, wz) at acc, as
// Rules.Move turns it, in integer cm/s: the velocity asked for if it is
// within acc·dt, else the velocity moved by acc·dt toward it (rounded half
// away from zero); but a player standing at the boards, running into them,
// stays there (Rules.clampPlayer stops it), its velocity across them zero.
// The same integers on server and client.
func lean(ref *poseRef) (vx, vz int64) {
	r := &ref.q
	vx, vz = r.vx, r.vz
	m := wire.RoundDiv(min(ref.rules.acc, leanMax)*int64(min(max(ref.dt, 0), time.Minute)), 1e9) // cm/s² × ns = 1e-9 cm/s
	if m <= 0 || r.wx > leanMax || r.wx < -leanMax || r.wz > leanMax || r.wz < -leanMax {
		return vx, vz
	}
	if l2 := r.wx*r.wx + r.wz*r.wz; l2 <= m*m {
		vx, vz = vx+r.wx, vz+r.wz
	} else {
		l := max(1, int64(math.Sqrt(float64(l2))))
		vx, vz = vx+wire.RoundDiv(r.wx*m, l), vz+wire.RoundDiv(r.wz*m, l)
	}
	if r.x >= ref.rules.lx && vx > 0 || r.x <= -ref.rules.lx && vx < 0 {
		vx = 0
	}
	if r.z >= ref.rules.lz && vz > 0 || r.z <= -ref.rules.lz && vz < 0 {
		vz = 0
	}
	return vx, vz
}

// midway returns ref's position moved by half the difference of velocity
// vx, vz from ref's over dt (cm/s × ns = 1e-8 mm).
func midway(ref qpose, vx, vz int64, dt time.Duration) (x, z int64) {
	return ref.x + wire.RoundDiv((vx-ref.vx)*int64(dt), 2e8), ref.z + wire.RoundDiv((vz-ref.vz)*int64(dt), 2e8)
}

func putPose(w *wire.BitWriter, q qpose, ref *poseRef) {
	d := diffs(q, ref)
	for i := range d {
		w.Int(d[i], ref.order(&d, i))
	}
}

func poseBits(q qpose, ref *poseRef) int {
	n := 0
	d := diffs(q, ref)
	for i := range d {
		n += wire.IntBits(d[i], ref.order(&d, i))
	}
	return n
}

// getPose reads a pose putPose wrote against ref.
func getPose(r *wire.BitReader, ref *poseRef) qpose {
	var d [8]int64
	for i := range d {
		d[i] = r.Int(ref.order(&d, i), 2*maxQuant)
	}
	if d[4] >= 1<<15/yawStep || d[4] < -1<<15/yawStep {
		r.Fail(wire.ErrMalformed)
	}
	b := &ref.q
	vx, vz := lean(ref)
	q := qpose{vx: vx + d[2], vz: vz + d[3],
		yaw: b.yaw + uint16(d[4]*yawStep), turn: b.turn + d[5]*turnStep, wx: b.wx + d[6], wz: b.wz + d[7]}
	q.x, q.z = midway(*b, q.vx, q.vz, ref.dt)
	q.x, q.z = q.x+d[0], q.z+d[1]
	for _, x := range [...]int64{q.x, q.z, q.vx, q.vz, q.turn, q.wx, q.wz} {
		if x > maxQuant || x < -maxQuant {
			r.Fail(wire.ErrMalformed)
		}
	}
	return q
}

// received is a client's side of per-client snapshots: the baselines it
// keeps, and the table of the snapshot being decoded.
type received struct {
	kept    wire.Baselines[playerTable]
	scratch playerTable
	meta    [1 + 2*binary.MaxVarintLen64]byte // a per-client snapshot's Meta
}

// The ball's state in a per-client snapshot leads the bit-packed section: a
// bit delta or whole; its flags (3 bits); its position and velocity
// (wire.QState's steps), each component a difference from the baseline's
// ball extrapolated by its velocity (delta; same generation only) or from
// zero (whole), with ballOrders; a bit rolling, then its angular velocity:
// rolling, each component a difference (rollOrders) from a ball's rolling
// on the ground without slipping at the velocity just sent, its spin about
// the vertical the reference's (a ball carried, or rolling once friction has
// stopped its slip, costs a few bits); otherwise a difference from the
// reference's, with ballOrders; then the rotation (putRot): a bit, as the
// reference's (a delta: the baseline's turned at the mean of its angular
// velocity and the new one, rotAhead); else, a delta, a bit, the same
// largest component as the reference's, then the differences of the other
// three (order 6), or else its packed form (wire.RotPackBits). The encoder
// sends the angular velocity whichever way is shorter.
var (
	ballDeltaOrders = ballOrders{pos: 3, vel: 8, still: 1, spin: [3]int{6, 0, 8}, ground: true, ahead: true, rot: 6}
	ballWholeOrders = ballOrders{pos: 15, vel: 12, still: 12, spin: [3]int{15, 12, 12}}
	rollOrders      = [3]int{2, 0, 2}
)

// ballOrders are the orders of the codes of a ball's differences: of a
// component of its position, of its velocity, of its velocity where the
// position's difference was zero (still), and of its angular velocity not
// rolling, by component. With ground, against a ball without vertical
// velocity (on the ground, mostly, or at the top of a bounce) the vertical
// position's difference, and the vertical velocity's after a zero one,
// have order 0: a ball rolling on stays on the ground. Fitted to the deltas
// of bots' matches on wan: about 58 bits a ball where 70 fixed orders took.
type ballOrders struct {
	pos, vel, still int
	spin            [3]int
	ground          bool
	// With ahead, the rotation is coded against the baseline's turned by
	// the mean of its angular velocity and the new one over the time
	// between (rotAhead), its components' differences with order rot.
	ahead bool
	rot   int
}

// rotRef returns what the rotation of ball q is coded against: ref's, turned
// ahead by dt (ns) for a delta.
func rotRef(q, ref *wire.QState, k *ballOrders, dt int64) uint64 {
	if !k.ahead {
		return ref.Rot
	}
	return rotAhead(ref.Rot, ref.AngVel, q.AngVel, dt)
}

// posOrder returns the order of component i of the position's difference
// from ref's.
func (k *ballOrders) posOrder(ref *wire.QState, i int) int {
	if i == 1 && k.ground && ref.Vel[1] == 0 {
		return 0
	}
	return k.pos
}

// velOrder returns the order of component i of the velocity's difference
// from ref's, after a difference dp of the position's.
func (k *ballOrders) velOrder(ref *wire.QState, i int, dp int64) int {
	switch {
	case dp != 0:
		return k.vel
	case i == 1 && k.ground && ref.Vel[1] == 0:
		return 0
	}
	return k.still
}

// rolling returns the angular velocity, in steps, of a ball of radius rad
// micrometres rolling on the ground at q's velocity: ω = v × (−ŷ)/r, that is
// (vz/r, ref's, −vx/r) (mm/s ÷ µm = 1e3 mrad/s), ref's about the vertical.
func rolling(q, ref *wire.QState, rad int64) [3]int64 {
	return [3]int64{wire.RoundDiv(q.Vel[2]*1e6, rad), ref.AngVel[1], wire.RoundDiv(-q.Vel[0]*1e6, rad)}
}

// radiusMicro is the ball's radius the spin prediction uses, micrometres
// (at least 1).
func radiusMicro(r Rules) int64 { return max(1, int64(math.Round(r.Ball.Radius*1e6))) }

// spinRef returns what a ball's angular velocity is coded against, and
// with which orders: rolling, a ball rolling at q's velocity
// (rollOrders); otherwise ref's (k.spin).
func spinRef(q, ref *wire.QState, k *ballOrders, rad int64, roll bool) ([3]int64, *[3]int) {
	if roll {
		return rolling(q, ref, rad), &rollOrders
	}
	return ref.AngVel, &k.spin
}

// spinCode returns how putBall sends q's angular velocity against ref,
// rolling or not, whichever is shorter, and its bits.
func spinCode(q, ref *wire.QState, k *ballOrders, rad int64) (roll bool, bits int) {
	var n [2]int // not rolling, rolling
	for j := range n {
		a, o := spinRef(q, ref, k, rad, j == 1)
		for i := range 3 {
			n[j] += wire.IntBits(q.AngVel[i]-a[i], o[i])
		}
	}
	return n[1] < n[0], min(n[0], n[1])
}

// ballBase returns the baseline's ball to delta-code against, or nil.
func ballBase(base *playerTable, gen uint8) *playerTable {
	if base == nil || !base.hasBall || base.ballGen != gen {
		return nil
	}
	return base
}

// ballRef returns what the ball at time t is coded against, the orders, and
// how long before t the baseline's ball was (0 for none).
func ballRef(base *playerTable, gen uint8, t time.Duration) (wire.QState, *ballOrders, int64) {
	b := ballBase(base, gen)
	if b == nil {
		return wire.QState{}, &ballWholeOrders, 0
	}
	q := b.ball
	dt := int64(t - b.ballT)
	for i := range q.Pos {
		q.Pos[i] += wire.RoundDiv(q.Vel[i]*dt, 1e9) // mm/s × ns = 1e-9 mm
	}
	return q, &ballDeltaOrders, dt
}

// ballMid returns component i of ref's position moved by half the
// difference of velocity v from ref's over dt: what the ball's position is
// coded against, as a player's (midway).
func ballMid(ref *wire.QState, i int, v, dt int64) int64 {
	return ref.Pos[i] + wire.RoundDiv((v-ref.Vel[i])*dt, 2e9)
}

func ballBits(o *prepared, base *playerTable, t time.Duration, rad int64) int {
	ref, k, dt := ballRef(base, o.ballGen, t)
	q := &o.ball
	return 1 + motionBits(q, &ref, k, dt, rad) + rotBits(q.Rot, rotRef(q, &ref, k, dt), k)
}

// putMotion writes ball state q's flags, position, velocity and angular
// velocity against ref with orders k: each component of the position
// against ref's moved midway over dt ns (ballMid), of the velocity against
// ref's, a bit rolling and the angular velocity's differences (spinCode).
func putMotion(w *wire.BitWriter, q, ref *wire.QState, k *ballOrders, dt, rad int64) {
	w.Bits(uint64(q.Flags), 3)
	for i := range 3 {
		dp := q.Pos[i] - ballMid(ref, i, q.Vel[i], dt)
		w.Int(dp, k.posOrder(ref, i))
		w.Int(q.Vel[i]-ref.Vel[i], k.velOrder(ref, i, dp))
	}
	roll, _ := spinCode(q, ref, k, rad)
	w.Bool(roll)
	a, ko := spinRef(q, ref, k, rad, roll)
	for i := range 3 {
		w.Int(q.AngVel[i]-a[i], ko[i])
	}
}

// getMotion reads what putMotion wrote.
func getMotion(r *wire.BitReader, ref *wire.QState, k *ballOrders, dt, rad int64) wire.QState {
	q := wire.QState{Flags: byte(r.Bits(3))}
	for i := range 3 {
		dp := r.Int(k.posOrder(ref, i), 2*maxQuant)
		q.Vel[i] = ref.Vel[i] + r.Int(k.velOrder(ref, i, dp), 2*maxQuant)
		q.Pos[i] = dp + ballMid(ref, i, q.Vel[i], dt)
	}
	a, ko := spinRef(&q, ref, k, rad, r.Bool())
	for i := range 3 {
		q.AngVel[i] = a[i] + r.Int(ko[i], 2*maxQuant)
	}
	return q
}

// motionBits returns the bits of putMotion's.
func motionBits(q, ref *wire.QState, k *ballOrders, dt, rad int64) int {
	n := 3 + 1
	for i := range 3 {
		dp := q.Pos[i] - ballMid(ref, i, q.Vel[i], dt)
		n += wire.IntBits(dp, k.posOrder(ref, i)) + wire.IntBits(q.Vel[i]-ref.Vel[i], k.velOrder(ref, i, dp))
	}
	_, spin := spinCode(q, ref, k, rad)
	return n + spin
}

func putBall(w *wire.BitWriter, o *prepared, base *playerTable, t time.Duration, rad int64) {
	ref, k, dt := ballRef(base, o.ballGen, t)
	q := &o.ball
	w.Bool(ballBase(base, o.ballGen) != nil)
	putMotion(w, q, &ref, k, dt, rad)
	putRot(w, q.Rot, rotRef(q, &ref, k, dt), k)
}

func getBall(r *wire.BitReader, base *playerTable, gen uint8, t time.Duration, rad int64) wire.QState {
	delta := r.Bool()
	if delta && ballBase(base, gen) == nil {
		r.Fail(ErrMalformed)
		return wire.QState{}
	}
	if !delta {
		base = nil
	}
	ref, k, dt := ballRef(base, gen, t)
	q := getMotion(r, &ref, k, dt, rad)
	q.Rot = getRot(r, rotRef(&q, &ref, k, dt), k)
	if q.Flags&^wire.FlagMask != 0 {
		r.Fail(ErrMalformed)
	}
	return q
}

// readDelta reads the players of a per-client snapshot at tick (server time
// at) into s, against the baselines kept in bl, and rebuilds the snapshot's
// table into scratch. It returns the baseline's tick (0: none).
func readDelta(r *wire.Reader, s *client.Snapshot, base, scratch *playerTable, ballGen uint8, ball *wire.QState, kn, pv *knotRead, rad int64, lean leanRules) {
	scratch.from(base)
	br := wire.NewBitReader(r.Remaining())
	*ball = getBall(&br, base, ballGen, s.Time, rad)
	if kn != nil {
		kn.q, kn.age = getKnot(&br, ball, s.Tick, s.Time, rad)
	}
	if pv != nil {
		pv.q, pv.age = getKnot(&br, ball, s.Tick, s.Time, rad)
	}
	scratch.ball, scratch.ballT, scratch.ballGen, scratch.hasBall = *ball, s.Time, ballGen, true
	n := br.Uint(countOrder, maxSlots)
	run, moved := false, false
	if n > 0 {
		run, moved = br.Bool(), br.Bool()
	}
	slot := -1
	for range n {
		if run && slot >= 0 {
			slot++
		} else {
			slot += 1 + int(br.Uint(0, maxSlots))
		}
		if slot >= maxSlots {
			br.Fail(ErrMalformed)
		}
		if br.Err() != nil {
			break
		}
		var k known
		if moved || br.Bool() {
			if base == nil || base.has&(1<<uint(slot)) == 0 {
				br.Fail(ErrMalformed)
				break
			}
			b := &base.p[slot]
			k = known{q: b.at(s.Time), t: s.Time, gen: b.gen, team: b.team}
			if moved || br.Bool() {
				k.q = getPose(&br, &poseRef{q: k.q, dt: s.Time - b.t, rules: lean, delta: true})
			}
		} else {
			if br.Bool() {
				k.team = Away
			}
			k.gen = uint8(br.Bits(8))
			k.q, k.t = getPose(&br, &poseRef{}), s.Time
		}
		if br.Err() != nil {
			break
		}
		scratch.set(slot, k)
		s.Entities = append(s.Entities, client.EntityState{
			ID: FirstPlayerID + uint32(slot), Kind: KindPlayer, Tag: k.team, Gen: k.gen, Parent: client.NoParent, State: k.q.state(s.Time),
		})
	}
	nb, err := br.End()
	r.Sub(nb, err, wire.ErrTruncated)
}

// readBase reads the baseline distance of a per-client snapshot at tick and
// returns the baseline kept in bl it names (nil: none) and its tick.
func readBase(r *wire.Reader, tick uint64, bl *wire.Baselines[playerTable]) (*playerTable, uint64) {
	dist := r.Uvarint(1 << 32)
	if r.Err() != nil || dist == 0 {
		return nil, 0
	}
	if dist >= tick {
		r.Fail(ErrMalformed)
		return nil, 0
	}
	base := bl.Find(tick - dist)
	if base == nil {
		r.Fail(errNoBaseline)
		return nil, 0
	}
	return base, tick - dist
}

// countKnot marks, in a per-client snapshot's count of ball states, that
// its first state, a repeated knot, goes in the bit-packed section after
// the current ball, coded against it (putKnot) rather than whole.
const countKnot = 1 << 2

// countPrev marks likewise that its state of the previous tick, the one
// before the current, goes in the bit-packed section after the current
// ball (and the knot), its carrier in its place.
const countPrev = 1 << 3

// A repeated knot in a per-client snapshot: how many ticks before the
// snapshot it was (order 1), then its age in wire.TimeUnits as its
// difference from that many ticks' time (knotAge, order 0), its flags (3
// bits), then its position and velocity, each component a difference from
// the current ball's taken back over that time (its position moved back at
// the mean of the two velocities, as midway), a bit rolling and its angular
// velocity's differences (as the current ball's against its baseline's,
// spinCode), and its rotation against the current ball's turned back at the
// mean of the two angular velocities (putRot), with knotOrders.
var knotOrders = ballOrders{pos: 1, vel: 9, still: 6, spin: [3]int{6, 0, 8}, ground: true, ahead: true, rot: 6}

// maxKnotTicks bounds a knot's ticks before the snapshot.
const maxKnotTicks = 1 << 16

// maxKnotAge bounds a knot's age, wire.TimeUnits.
const maxKnotAge = int64(time.Minute / wire.TimeUnit)

// knotAge returns the time of ticks ticks, wire.TimeUnits, as the time of
// the snapshot's tick, now, makes it: ticks/tick of now's whole
// wire.TimeUnits (rounded half away from zero; 0 for tick 0).
func knotAge(ticks, tick uint64, now time.Duration) int64 {
	if tick == 0 {
		return 0
	}
	return wire.RoundDiv(int64(ticks)*int64(now/wire.TimeUnit), int64(min(tick, 1<<62)))
}

// knotRead is a repeated knot decoded, and its age.
type knotRead struct {
	q   wire.QState
	age int64
}

// knotRef returns what a knot age wire.TimeUnits before ball cur is coded
// against: cur moved back by its velocity; and that time, ns.
func knotRef(cur *wire.QState, age int64) (wire.QState, int64) {
	q := *cur
	dt := age * int64(wire.TimeUnit)
	for i := range q.Pos {
		q.Pos[i] -= wire.RoundDiv(q.Vel[i]*dt, 1e9)
	}
	return q, dt
}

// knotRot returns what a knot's rotation, angular velocity w, is coded
// against: ref's turned back by dt at the mean of its angular velocity and w.
func knotRot(ref *wire.QState, w [3]int64, dt int64) uint64 {
	var a, b [3]int64
	for i := range a {
		a[i], b[i] = -ref.AngVel[i], -w[i]
	}
	return rotAhead(ref.Rot, a, b, dt)
}

// knotBits returns the bits of putKnot's state.
func knotBits(k, cur *wire.QState, ticks uint64, age int64, tick uint64, now time.Duration, rad int64) int {
	ref, dt := knotRef(cur, age)
	ko := &knotOrders
	return wire.UintBits(ticks, 1) + wire.IntBits(age-knotAge(ticks, tick, now), 0) +
		motionBits(k, &ref, ko, -dt, rad) + rotBits(k.Rot, knotRot(&ref, k.AngVel, dt), ko)
}

// putKnot writes ball state k, ticks ticks and age wire.TimeUnits before
// the snapshot's current ball cur, against it, the snapshot's tick and time
// tick and now.
func putKnot(w *wire.BitWriter, k, cur *wire.QState, ticks uint64, age int64, tick uint64, now time.Duration, rad int64) {
	ref, dt := knotRef(cur, age)
	ko := &knotOrders
	w.Uint(ticks, 1)
	w.Int(age-knotAge(ticks, tick, now), 0)
	putMotion(w, k, &ref, ko, -dt, rad)
	putRot(w, k.Rot, knotRot(&ref, k.AngVel, dt), ko)
}

// getKnot reads a knot putKnot wrote against the current ball cur of a
// snapshot at tick, server time now, and its age.
func getKnot(r *wire.BitReader, cur *wire.QState, tick uint64, now time.Duration, rad int64) (wire.QState, int64) {
	ticks := r.Uint(1, maxKnotTicks)
	age := knotAge(ticks, tick, now) + r.Int(0, 2*maxQuant)
	if age < 0 || age > maxKnotAge {
		r.Fail(ErrMalformed)
		age = 0
	}
	ref, dt := knotRef(cur, age)
	ko := &knotOrders
	k := getMotion(r, &ref, ko, -dt, rad)
	k.Rot = getRot(r, knotRot(&ref, k.AngVel, dt), ko)
	if k.Flags&^wire.FlagMask != 0 {
		r.Fail(ErrMalformed)
	}
	return k, age
}
