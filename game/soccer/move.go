package soccer

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
)

// Action is what a player's kick button does.
type Action uint8

// The actions. A pass and a shot kick the ball if the player has it; a tackle
// tries to take it from an opponent who has it.
const (
	ActionNone   Action = iota
	ActionPass          // a ground pass
	ActionShot          // a lofted shot
	ActionTackle        // a tackle on the player with the ball
	numActions
)

// Input is what a player (a person or a bot) asks of its character.
type Input struct {
	// Dir is the direction to run in on the ground (Y ignored), of length at
	// most 1: its length scales the speed. Zero stands still.
	Dir    geom.Vec3
	Sprint bool
	// Action happens once each time ActionSeq changes: inputs are sent many
	// times (and may be lost), so the action is not repeated by a repeated
	// input nor lost with one packet.
	Action    Action
	ActionSeq uint8
	// Aim is the direction of a pass or a shot on the ground (Y ignored); zero
	// means the way the player faces.
	Aim geom.Vec3
	// Power scales the kick from the weakest to the strongest, in [0, 1].
	Power float64
	// ActionAge is how long before this input is sent its action was
	// decided, to the millisecond (zero: as it is sent). The input that
	// first carries an action may be lost, and the next one is sent a frame
	// later: the server takes the action as of the send time less the age,
	// so it kicks and tackles as of the frame the player acted in (see
	// Game.kick). An age over MaxActionAge is not sent: that late, the
	// server takes the action as of the send time. Bot and Human set it.
	ActionAge time.Duration
	// KickFrom is where the client's own simulation of the world had the
	// ball when it kicked, for a client that predicts its kick (the zero
	// vector: no claim; a ball's centre is never there). The server kicks
	// from there if it is within Rules.KickTolerance of its own ball at that
	// tick. Sent to the millimetre, within MaxKickFrom of the centre spot.
	KickFrom geom.Vec3
}

// MaxKickFrom bounds each coordinate of Input.KickFrom, metres; a claim
// beyond it is not sent.
const MaxKickFrom = 8000

// MaxActionAge is the oldest ActionAge an Input carries (a kick is rewound
// at most Rules.MaxRewind, by default 250 ms).
const MaxActionAge = 255 * time.Millisecond

// PlayerState is a player's motion: where it stands, how fast it moves and
// where it faces. The server's and the client's Move of the same state and
// input give the same result.
type PlayerState struct {
	Pos geom.Vec3 // base of the capsule, metres; Y is 0
	Vel geom.Vec3 // metres per second; Y is 0
	Yaw float64   // radians about +Y; the player faces (cos Yaw, 0, -sin Yaw)
}

// Forward returns the unit direction the player faces.
func (s PlayerState) Forward() geom.Vec3 { return forward(s.Yaw) }

// Rot returns the player's rotation: Yaw about +Y, so that it maps +X to
// Forward.
func (s PlayerState) Rot() geom.Quat { return yawRot(s.Yaw) }

// YawOfRot returns the yaw of a player facing rotation q about +Y: the
// inverse of PlayerState.Rot, in (-π, π].
func YawOfRot(q geom.Quat) float64 { return yawOf(q.Rotate(geom.V(1, 0, 0))) }

func forward(yaw float64) geom.Vec3 { return geom.V(math.Cos(yaw), 0, -math.Sin(yaw)) }

func yawRot(yaw float64) geom.Quat { return geom.AxisAngle(geom.V(0, 1, 0), yaw) }

func yawOf(d geom.Vec3) float64 { return math.Atan2(-d.Z, d.X) }

// Move advances a player's state by dt under input in: the velocity turns
// toward Dir times the run (or sprint) speed, slowed when carrying the ball,
// changing by at most Accel per second; the player turns toward Dir, by a
// share TurnGain per second of the angle left and at most TurnRate; and it
// moves by the new velocity, kept within the Rules' bounds.
// It is a pure function of its arguments.
func (r Rules) Move(s PlayerState, in Input, carrying bool, dt time.Duration) PlayerState {
	h := dt.Seconds()
	dir, want := r.wanted(in, carrying)
	dv := want.Sub(s.Vel)
	if l, m := dv.Len(), r.Accel*h; l > m {
		dv = dv.Scale(m / l)
	}
	s.Vel = geom.V(s.Vel.X+dv.X, 0, s.Vel.Z+dv.Z)
	if dir.Len2() > 1e-6 {
		// Turn toward Dir: a share TurnGain·dt of the angle left each tick,
		// at most TurnRate·dt, so small changes of direction turn gently.
		d := angleDiff(yawOf(dir), s.Yaw) * math.Min(1, r.TurnGain*h)
		m := r.TurnRate * h
		s.Yaw = geom.WrapAngle(s.Yaw + math.Max(-m, math.Min(m, d)))
	}
	s.Pos = geom.V(s.Pos.X+s.Vel.X*h, 0, s.Pos.Z+s.Vel.Z*h)
	return r.clampPlayer(s)
}

// wanted returns the direction input in runs in on the ground (of length at
// most 1) and the velocity it asks for, m/s.
func (r Rules) wanted(in Input, carrying bool) (dir, want geom.Vec3) {
	dir = geom.V(in.Dir.X, 0, in.Dir.Z)
	if l := dir.Len(); l > 1 {
		dir = dir.Scale(1 / l)
	} else if !(l >= 0) { // NaN
		dir = geom.Vec3{}
	}
	speed := r.RunSpeed
	if in.Sprint {
		speed = r.SprintSpeed
	}
	if carrying {
		speed *= r.CarrySpeed
	}
	return dir, dir.Scale(speed)
}

// PlayerExtrapolator returns the extrapolation of a player under rules, for
// the timelines of the players a client draws: the motion Move gives while
// the input is held, with kinematic.State.Input the velocity the input asks
// for (as snapshots send it). The velocity turns toward it at Accel, the
// player faces its way (turning by TurnGain of the angle left per second, at
// most TurnRate), and it stays inside the boards. It is Move's motion in
// continuous time, not tick by tick: while the velocity changes it runs
// behind Move at the server's tick by half the acceleration times the tick
// per second (7 mm over a 30 Hz snapshot interval at 60 Hz), which the curve
// between two states corrects. Against the boards it slides along them at
// the pace it has in the open, where Move's pace is slower (it spends its
// acceleration pushing into them). A negative dt runs the state backward at
// constant velocity, as Linear.
func PlayerExtrapolator(rules Rules) timeline.Extrapolator {
	return rules.extrapolatePlayer
}

func (r Rules) extrapolatePlayer(s kinematic.State, dt time.Duration) kinematic.State {
	if dt <= 0 {
		return timeline.Linear(s, dt)
	}
	sec := dt.Seconds()
	want := geom.V(s.Input.X, 0, s.Input.Z)
	v := geom.V(s.Vel.X, 0, s.Vel.Z)
	pos := s.Pos
	d := want.Sub(v)
	if l := d.Len(); l > 0 && r.Accel > 0 {
		// Constant acceleration toward want until the velocity reaches it.
		u, reach := d.Scale(1/l), l/r.Accel
		a := min(sec, reach)
		pos = pos.AddScaled(v, a).AddScaled(u, r.Accel*a*a/2)
		v = v.AddScaled(u, r.Accel*a)
		if sec > reach {
			v = want
			pos = pos.AddScaled(want, sec-reach)
		}
	} else {
		pos = pos.AddScaled(v, sec)
	}
	yaw := YawOfRot(s.Rot)
	turn := 0.0
	if want.Len2() > 1e-6 {
		yaw, turn = r.turnToward(yaw, yawOf(want), sec)
	}
	st := r.clampPlayer(PlayerState{Pos: pos, Vel: v, Yaw: yaw})
	s.Time += dt
	s.Pos, s.Vel, s.Rot, s.AngVel = st.Pos, st.Vel, yawRot(st.Yaw), geom.V(0, turn, 0)
	return s
}

// turnToward returns the yaw a player facing yaw reaches after sec seconds of
// turning toward target as Move turns it, in continuous time, and its rate of
// turn then, rad/s: at TurnRate while the angle left is more than
// TurnRate/TurnGain, then closing the angle left at TurnGain per second.
func (r Rules) turnToward(yaw, target, sec float64) (float64, float64) {
	left := angleDiff(target, yaw)
	sign := math.Copysign(1, left)
	far := math.Abs(left) - r.TurnRate/r.TurnGain // angle turned at TurnRate
	if far > 0 {
		fast := far / r.TurnRate
		if sec < fast {
			return geom.WrapAngle(yaw + sign*r.TurnRate*sec), sign * r.TurnRate
		}
		sec -= fast
		left -= sign * far
	}
	rest := left * math.Exp(-r.TurnGain*sec)
	return geom.WrapAngle(target - rest), r.TurnGain * rest
}

// TouchDistance returns the horizontal distance, metres, from a player at
// player to a ball at ball, as touching goes: a ball nearer the boards than a
// player may stand (Edge) is measured from the nearest spot a player may
// stand, so that a ball at rest against the boards can be won.
func (r Rules) TouchDistance(player, ball geom.Vec3) float64 {
	lx, lz := r.standLimits()
	x, z := math.Max(-lx, math.Min(lx, ball.X)), math.Max(-lz, math.Min(lz, ball.Z))
	return math.Hypot(x-player.X, z-player.Z)
}

// standLimits returns how far from the centre spot, along X and Z, metres, a
// player may stand: Edge inside the boards.
func (r Rules) standLimits() (lx, lz float64) {
	return r.Pitch.Length/2 + r.Pitch.Margin - r.Edge, r.Pitch.Width/2 + r.Pitch.Margin - r.Edge
}

// clampPlayer keeps a player inside the boards, with room for the ball in front.
func (r Rules) clampPlayer(s PlayerState) PlayerState {
	lx, lz := r.standLimits()
	if s.Pos.X > lx || s.Pos.X < -lx {
		s.Pos.X = math.Max(-lx, math.Min(lx, s.Pos.X))
		s.Vel.X = 0
	}
	if s.Pos.Z > lz || s.Pos.Z < -lz {
		s.Pos.Z = math.Max(-lz, math.Min(lz, s.Pos.Z))
		s.Vel.Z = 0
	}
	return s
}

// angleDiff returns a - b wrapped into (-π, π].
func angleDiff(a, b float64) float64 { return geom.WrapAngle(a - b) }
