package crowd

import (
	"errors"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/wire"
)

// The snapshot. After the server's header (package protocol: tick, time,
// regular) come the game's bytes:
//
//	bodies     unsigned varint: the number of spheres N
//	baseline   unsigned varint: the snapshot's tick less the baseline's,
//	           0 for none
//	spheres    bit-packed (wire.BitWriter), sphere by sphere in order of id:
//	           one the baseline holds has a bit changed; unchanged, it is
//	           the baseline's state extrapolated (below); changed, a bit
//	           sent and, if sent, its position and velocity as differences
//	           from that extrapolation (exponential-Golomb codes of
//	           deltaOrders). One the baseline does not hold has a bit sent
//	           and, if sent, its position and velocity whole (wholeOrders).
//	           Zero bits pad the section to a byte.
//
// A sphere at rest, known to the client, costs the changed bit alone; one
// rolling straight at a steady speed too. A sphere changed but not sent
// (the byte budget left it out) costs two bits and keeps, in the snapshot
// as the client rebuilds it, the state it had in the baseline.
//
// Positions are quantised to PosUnit and velocities to VelUnit (integers on
// both sides); a state's spin and orientation are not sent: the crowd's
// spheres are plain, and drawn unrotated. The baseline's state is
// extrapolated to the snapshot's time by its velocity, in integers, the same
// on both sides: position + velocity·dt, rounded half away from zero.
//
// A client keeps the snapshots it decoded in order as baselines (the last
// Ring), and the server the same ring of what it sent each client; every
// snapshot is encoded against the newest one the client acknowledged
// (server.PerClient), or whole if the server no longer holds it.

// The precision the crowd is sent at.
const (
	PosUnit = 0.001 // metres per step of a position
	VelUnit = 0.05  // metres per second per step of a velocity
)

// Ring is how many snapshots the server keeps per client, and a client
// keeps, as baselines: a second of snapshots at 60 Hz. A client whose
// newest acknowledgement is older gets every sphere whole.
const Ring = 64

// The orders of the exponential-Golomb codes of x, y, z, vx, vy, vz.
var (
	deltaOrders = [6]int{3, 0, 3, 2, 0, 2}
	wholeOrders = [6]int{14, 9, 14, 0, 0, 0}
)

// maxQuant bounds every quantised component: ±2^26 steps (67 km of
// position, 3,355 km/s of velocity), far from any overflow in extrapolation.
const maxQuant = 1 << 26

// Decoding errors; test with errors.Is. The wire package's ErrTruncated and
// ErrMalformed are returned as well.
var (
	// ErrNoBaseline is returned for a snapshot encoded against a baseline
	// the client does not keep (it joined or lost its baselines since).
	ErrNoBaseline = errors.New("tether/crowd: snapshot against a baseline not kept")
	// ErrBodies is returned for a snapshot whose number of spheres is out
	// of range or differs from the earlier ones'.
	ErrBodies = errors.New("tether/crowd: wrong number of bodies")
)

// qbody is a sphere's state quantised: position in PosUnit, velocity in
// VelUnit.
type qbody [6]int32

func quantise(p, v geom.Vec3) qbody {
	q := func(x, unit float64) int32 {
		return int32(max(-maxQuant, min(maxQuant, wire.Quantise(x, unit))))
	}
	return qbody{q(p.X, PosUnit), q(p.Y, PosUnit), q(p.Z, PosUnit), q(v.X, VelUnit), q(v.Y, VelUnit), q(v.Z, VelUnit)}
}

// state returns q as the kinematic state at server time t.
func (q *qbody) state(t time.Duration) kinematic.State {
	return kinematic.State{Time: t, Rot: geom.Identity,
		Pos: geom.V(float64(q[0])*PosUnit, float64(q[1])*PosUnit, float64(q[2])*PosUnit),
		Vel: geom.V(float64(q[3])*VelUnit, float64(q[4])*VelUnit, float64(q[5])*VelUnit)}
}

// known is a sphere's state as of server time t in a rebuilt snapshot.
type known struct {
	q  qbody
	t  time.Duration
	ok bool // the snapshot holds the sphere
}

// at returns the state extrapolated to server time t by its velocity,
// within ±maxQuant.
func (k *known) at(t time.Duration) qbody {
	q := k.q
	dt := int64(t - k.t)
	for i := range 3 {
		// (VelUnit/PosUnit = 50) steps per second × ns = 5e-8 steps.
		q[i] = int32(max(-maxQuant, min(maxQuant, int64(q[i])+wire.RoundDiv(int64(q[3+i])*dt, 2e7))))
	}
	return q
}

// table is a snapshot as its client rebuilt it: every sphere's state.
type table struct {
	bodies []known
}

// from makes t the table of n spheres, those of base (none if nil), unless
// it is base: the start of a snapshot rebuilt against base.
func (t *table) from(n int, base *table) {
	if cap(t.bodies) < n {
		t.bodies = make([]known, n)
	}
	t.bodies = t.bodies[:n]
	switch {
	case base == nil:
		clear(t.bodies)
	case base != t:
		copy(t.bodies, base.bodies)
	}
}

// diffs returns q less ref, field by field.
func diffs(q, ref *qbody) [6]int64 {
	var d [6]int64
	for i := range d {
		d[i] = int64(q[i]) - int64(ref[i])
	}
	return d
}

// bodyBits is the bits of q's values coded against ref with orders k.
func bodyBits(q, ref *qbody, k *[6]int) int {
	n := 0
	for i, d := range diffs(q, ref) {
		n += wire.IntBits(d, k[i])
	}
	return n
}

func putBody(w *wire.BitWriter, q, ref *qbody, k *[6]int) {
	for i, d := range diffs(q, ref) {
		w.Int(d, k[i])
	}
}

// getBody reads a body putBody wrote against ref.
func getBody(r *wire.BitReader, ref *qbody, k *[6]int) qbody {
	var q qbody
	for i := range q {
		x := int64(ref[i]) + r.Int(k[i], 2*maxQuant)
		if x > maxQuant || x < -maxQuant {
			r.Fail(wire.ErrMalformed)
		}
		q[i] = int32(x)
	}
	return q
}
