package replicate

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// Seed is the naive snapshot interpolation Tether replaces, kept as a
// baseline to compare with: a ring of the last SeedRing states in arrival
// order (a state older than the newest is ignored), drawn SeedBackTime behind
// the client's estimate of server time by linear interpolation of position
// and of Euler angles; past the newest state it extrapolates by the newest
// velocity for at most SeedExtrapolation, then holds still. It ignores Knot
// and Cut and needs no configuration.
//
// Do not ship it to players: linear interpolation kinks at every state,
// Euler angles spin the wrong way across ±180°, and the fixed back time is
// too short under jitter and too long on a quiet link.
type Seed struct {
	ring [SeedRing]seedState
	n    int // states held, up to SeedRing
	head int // index of the newest
}

// The Seed baseline's fixed parameters.
const (
	SeedRing          = 20
	SeedBackTime      = 100 * time.Millisecond
	SeedExtrapolation = 500 * time.Millisecond
)

type seedState struct {
	t     time.Duration
	pos   geom.Vec3
	vel   geom.Vec3
	euler [3]float64 // yaw, pitch, roll, radians
}

// Receive adds a server state unless it is older than the newest held.
func (b *Seed) Receive(s kinematic.State, _ time.Duration) {
	if b.n > 0 && s.Time <= b.ring[b.head].t {
		return // out of order or duplicate: ignored
	}
	b.head = (b.head + 1) % SeedRing
	b.ring[b.head] = seedState{t: s.Time, pos: s.Pos, vel: s.Vel, euler: toEuler(s.Rot.Norm())}
	b.n = min(b.n+1, SeedRing)
}

// Render draws the body at now - SeedBackTime.
func (b *Seed) Render(now time.Duration) Frame {
	if b.n == 0 {
		return Frame{}
	}
	rt := now - SeedBackTime
	f := Frame{Valid: true, Time: rt, Delay: SeedBackTime}
	newest := b.ring[b.head]
	if rt >= newest.t {
		ahead := min(rt-newest.t, SeedExtrapolation)
		f.Pos, f.Rot = newest.pos.AddScaled(newest.vel, ahead.Seconds()), fromEuler(newest.euler)
		f.Extrapolated = rt-newest.t <= SeedExtrapolation
		f.Frozen = !f.Extrapolated
		if f.Extrapolated {
			f.Vel = newest.vel
		}
		return f
	}
	// Walk back from the newest to the pair that brackets rt.
	for i := 1; i < b.n; i++ {
		older := b.ring[(b.head-i+SeedRing)%SeedRing]
		newer := b.ring[(b.head-i+1+SeedRing)%SeedRing]
		if older.t <= rt {
			u := float64(rt-older.t) / float64(newer.t-older.t)
			var e [3]float64
			for k := range e {
				e[k] = older.euler[k] + (newer.euler[k]-older.euler[k])*u
			}
			f.Pos, f.Rot = older.pos.Lerp(newer.pos, u), fromEuler(e)
			f.Vel = newer.pos.Sub(older.pos).Scale(1 / (newer.t - older.t).Seconds())
			return f
		}
	}
	// Older than everything held: show the oldest.
	oldest := b.ring[(b.head-b.n+1+SeedRing)%SeedRing]
	f.Pos, f.Rot = oldest.pos, fromEuler(oldest.euler)
	return f
}

// toEuler returns the yaw (about Y), pitch (about X) and roll (about Z) of q,
// applied in that order, in radians.
func toEuler(q geom.Quat) [3]float64 {
	sinp := 2 * (q.W*q.X - q.Y*q.Z)
	pitch := math.Asin(math.Max(-1, math.Min(1, sinp)))
	yaw := math.Atan2(2*(q.W*q.Y+q.X*q.Z), 1-2*(q.X*q.X+q.Y*q.Y))
	roll := math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.X*q.X+q.Z*q.Z))
	return [3]float64{yaw, pitch, roll}
}

// fromEuler is the inverse of toEuler.
func fromEuler(e [3]float64) geom.Quat {
	yaw := geom.AxisAngle(geom.V(0, 1, 0), e[0])
	pitch := geom.AxisAngle(geom.V(1, 0, 0), e[1])
	roll := geom.AxisAngle(geom.V(0, 0, 1), e[2])
	return yaw.Mul(pitch).Mul(roll)
}
