package lab

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// seedBall is the snapshot interpolation design Tether replaces, implemented as
// its article describes: a ring of the last 20 states in arrival order (a state
// older than the newest is ignored), rendered at network time - 100 ms by linear
// interpolation of position and of Euler angles; past the newest state it
// extrapolates by the newest velocity for at most 500 ms, then holds still.
type seedBall struct {
	ring [seedRing]seedState
	n    int // states held, up to seedRing
	head int // index of the newest
}

type seedState struct {
	t     time.Duration
	pos   geom.Vec3
	vel   geom.Vec3
	euler [3]float64 // yaw, pitch, roll in radians
}

const (
	seedRing        = 20
	seedBackTime    = 100 * time.Millisecond
	seedExtrapolate = 500 * time.Millisecond
)

func (b *seedBall) receive(s kinematic.State, _ time.Duration) {
	if b.n > 0 && s.Time <= b.ring[b.head].t {
		return // out of order or duplicate: ignored
	}
	b.head = (b.head + 1) % seedRing
	b.ring[b.head] = seedState{t: s.Time, pos: s.Pos, vel: s.Vel, euler: toEuler(s.Rot)}
	b.n = min(b.n+1, seedRing)
}

func (b *seedBall) render(now time.Duration) ballFrame {
	if b.n == 0 {
		return ballFrame{}
	}
	rt := now - seedBackTime
	newest := b.ring[b.head]
	if rt >= newest.t {
		ahead := rt - newest.t
		if ahead > seedExtrapolate {
			return ballFrame{ok: true, pos: newest.pos.AddScaled(newest.vel, seedExtrapolate.Seconds()), rot: fromEuler(newest.euler), renderTime: rt, frozen: true}
		}
		return ballFrame{ok: true, pos: newest.pos.AddScaled(newest.vel, ahead.Seconds()), rot: fromEuler(newest.euler), renderTime: rt, extrapolated: true}
	}
	// Walk back from the newest to the pair that brackets rt.
	for i := 1; i < b.n; i++ {
		older := b.ring[(b.head-i+seedRing)%seedRing]
		newer := b.ring[(b.head-i+1+seedRing)%seedRing]
		if older.t <= rt {
			u := float64(rt-older.t) / float64(newer.t-older.t)
			var e [3]float64
			for k := range e {
				e[k] = older.euler[k] + (newer.euler[k]-older.euler[k])*u
			}
			return ballFrame{ok: true, pos: older.pos.Lerp(newer.pos, u), rot: fromEuler(e), renderTime: rt}
		}
	}
	// Older than everything held: show the oldest.
	oldest := b.ring[(b.head-b.n+1+seedRing)%seedRing]
	return ballFrame{ok: true, pos: oldest.pos, rot: fromEuler(oldest.euler), renderTime: rt}
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
