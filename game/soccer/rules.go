package soccer

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// Rules are the sizes, speeds and timings of a match; every speed is metres
// per second, every time a Duration.
//
// The zero value is the default match (DefaultRules): a field left zero takes
// its default, and Pitch, Ball and Player left wholly zero take DefaultPitch,
// DefaultBall and DefaultPlayer. A field whose zero is a setting of its own
// (Edge, CarryBlend, TouchMargin, KickNoTouch, TackleCooldown, TackledNoTouch,
// TacklePoke, MaxRewind, KickTolerance, GoalPause, ContactTolerance,
// ContactLead) is set to zero with any negative value. NewGame,
// NewClientGame and NewBot take Rules so; WithDefaults returns the values
// they play by, which Game.Rules and ClientGame.Rules hold. The methods of
// Rules, and BallExtrapolator and PlayerExtrapolator, read the fields as
// they are: call them on those values.
type Rules struct {
	Pitch  pitch.Pitch
	Ball   physics.Sphere
	Player physics.Capsule

	MaxPlayers int // player slots, 1 to 64

	RunSpeed    float64 // m/s
	SprintSpeed float64 // m/s
	CarrySpeed  float64 // share of the speed kept while carrying the ball, (0, 1]
	Accel       float64 // largest change of velocity, m/s²
	TurnRate    float64 // rad/s
	TurnGain    float64 // share of the angle left turned per second, 1/s
	// Edge is how far inside the boards' inner faces a player's base must
	// stay (room for the ball carried in front), metres.
	Edge float64

	// DribbleOffset is the horizontal distance from the base of the player
	// with the ball to the ball's centre, along the way it faces, metres.
	DribbleOffset float64
	// CarryBlend is how long a ball just won takes to move from where it
	// was touched to its place in front of the player.
	CarryBlend time.Duration
	// TouchMargin: a free ball whose centre comes within the player's radius
	// plus the ball's radius plus TouchMargin of a player's axis (below its
	// head) is won by that player.
	TouchMargin float64

	PassSpeed      [2]float64 // a ground pass's speed at power 0 and 1, m/s
	ShotSpeed      [2]float64 // a lofted shot's speed at power 0 and 1, m/s
	ShotElevation  [2]float64 // a shot's elevation at power 0 and 1, radians
	KickNoTouch    time.Duration
	TackleReach    float64 // largest distance between tackler and target, metres
	TackleCooldown time.Duration
	TackledNoTouch time.Duration // how long a tackled player cannot win the ball back
	TacklePoke     float64       // speed the tackle gives the ball, m/s
	// MaxRewind is the furthest back in server time a tackle is judged at
	// (the moment the tackling client was showing when it acted) and a kick
	// is made at (the moment its client made it), clamped to this.
	MaxRewind time.Duration
	// KickTolerance is how far, metres, the place a kick claims the ball
	// left from (Input.KickFrom) may be from where the server had the ball
	// at that tick: within it the claim is taken, beyond it the server's
	// record. A client that predicts its own kick in its own simulation of
	// the world (package replicate's Resim) has its own player, and so the
	// ball at its feet, a few centimetres off the server's; taking its word
	// leaves its prediction nothing to correct but what it could not know.
	// Zero takes the record always.
	KickTolerance float64

	GoalPause time.Duration // from a goal to the kickoff reset

	// ContactTolerance is how far, metres, a predicted player's move may
	// claim another player stood from where the server's record of what it
	// sent puts it, at the move's view time, plus the distance that player
	// runs in ContactLead: within it the claim is taken (a client draws the
	// others from the snapshots it received, a few millimetres off the
	// record, more when it extrapolates past a late or lost one, and must
	// simulate the contact as the server does), beyond it the record is.
	// Zero for both takes the record always.
	ContactTolerance float64
	ContactLead      time.Duration
}

// DefaultRules returns the rules of the showcase match on DefaultPitch with
// DefaultBall and DefaultPlayer: up to 22 players, 7 m/s running, 9 m/s
// sprinting. It is Rules{}.WithDefaults(): the value every zero field takes.
func DefaultRules() Rules {
	return Rules{
		Pitch: pitch.Default(), Ball: pitch.DefaultBall(), Player: pitch.DefaultPlayer(),
		MaxPlayers: 22,
		RunSpeed:   7, SprintSpeed: 9, CarrySpeed: 0.85, Accel: 25, TurnRate: 7, TurnGain: 8, Edge: 1,
		DribbleOffset: 0.6, CarryBlend: 200 * time.Millisecond, TouchMargin: 0.15,
		PassSpeed: [2]float64{4, 20}, ShotSpeed: [2]float64{16, 28},
		ShotElevation: [2]float64{14 * math.Pi / 180, 5 * math.Pi / 180},
		KickNoTouch:   300 * time.Millisecond,
		TackleReach:   1.3, TackleCooldown: 1200 * time.Millisecond, TackledNoTouch: 600 * time.Millisecond, TacklePoke: 4,
		MaxRewind: 250 * time.Millisecond, KickTolerance: 0.25,
		GoalPause:        1500 * time.Millisecond,
		ContactTolerance: 0.1, ContactLead: 150 * time.Millisecond,
	}
}

// WithDefaults returns the rules r means, the ones a match plays by: each
// zero field set to its DefaultRules value and each negative one of the
// fields whose zero is a setting (see Rules) set to zero. Its result is to be
// read, not configured with again: a zero in it that was set on purpose
// would be filled.
func (r Rules) WithDefaults() Rules {
	d := DefaultRules()
	orDefault(&r.Pitch, d.Pitch)
	orDefault(&r.Ball, d.Ball)
	orDefault(&r.Player, d.Player)
	orDefault(&r.MaxPlayers, d.MaxPlayers)
	orDefault(&r.RunSpeed, d.RunSpeed)
	orDefault(&r.SprintSpeed, d.SprintSpeed)
	orDefault(&r.CarrySpeed, d.CarrySpeed)
	orDefault(&r.Accel, d.Accel)
	orDefault(&r.TurnRate, d.TurnRate)
	orDefault(&r.TurnGain, d.TurnGain)
	orDefault(&r.DribbleOffset, d.DribbleOffset)
	orDefault(&r.PassSpeed, d.PassSpeed)
	orDefault(&r.ShotSpeed, d.ShotSpeed)
	orDefault(&r.ShotElevation, d.ShotElevation)
	orDefault(&r.TackleReach, d.TackleReach)
	orNone(&r.Edge, d.Edge)
	orNone(&r.CarryBlend, d.CarryBlend)
	orNone(&r.TouchMargin, d.TouchMargin)
	orNone(&r.KickNoTouch, d.KickNoTouch)
	orNone(&r.TackleCooldown, d.TackleCooldown)
	orNone(&r.TackledNoTouch, d.TackledNoTouch)
	orNone(&r.TacklePoke, d.TacklePoke)
	orNone(&r.MaxRewind, d.MaxRewind)
	orNone(&r.KickTolerance, d.KickTolerance)
	orNone(&r.GoalPause, d.GoalPause)
	orNone(&r.ContactTolerance, d.ContactTolerance)
	orNone(&r.ContactLead, d.ContactLead)
	return r
}

// orDefault sets *v to d if it is zero.
func orDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

// orNone sets *v to d if it is zero and to zero if it is negative.
func orNone[T float64 | time.Duration](v *T, d T) {
	switch {
	case *v < 0:
		*v = 0
	case *v == 0:
		*v = d
	}
}

// ErrRules is wrapped by the error NewGame returns for a Rules field out of
// range; the message names the field.
var ErrRules = errors.New("tether/soccer: invalid rules")

// Validate reports the first field of r.WithDefaults() out of range.
func (r Rules) Validate() error {
	r = r.WithDefaults()
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%w: %s = %v, want %s", ErrRules, field, v, want)
	}
	pos := func(field string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return bad(field, v, "> 0")
		}
		return nil
	}
	switch {
	case r.MaxPlayers < 1 || r.MaxPlayers > 64:
		return bad("MaxPlayers", r.MaxPlayers, "1 to 64")
	case !(r.CarrySpeed > 0 && r.CarrySpeed <= 1):
		return bad("CarrySpeed", r.CarrySpeed, "(0, 1]")
	case r.PassSpeed[0] < 0 || r.PassSpeed[1] < r.PassSpeed[0]:
		return bad("PassSpeed", r.PassSpeed, "0 ≤ [0] ≤ [1]")
	case r.ShotSpeed[0] < 0 || r.ShotSpeed[1] < r.ShotSpeed[0]:
		return bad("ShotSpeed", r.ShotSpeed, "0 ≤ [0] ≤ [1]")
	case r.ShotElevation[0] < 0 || r.ShotElevation[1] < 0 || r.ShotElevation[0] > 1.5 || r.ShotElevation[1] > 1.5:
		return bad("ShotElevation", r.ShotElevation, "0 to 1.5 rad")
	case r.KickNoTouch < 0 || r.CarryBlend < 0 || r.TackleCooldown < 0 || r.TackledNoTouch < 0 || r.GoalPause < 0:
		return bad("KickNoTouch, TackleCooldown, TackledNoTouch, GoalPause", "negative", "≥ 0")
	case r.MaxRewind < 0 || r.MaxRewind > 2*time.Second:
		return bad("MaxRewind", r.MaxRewind, "0 to 2s")
	case r.Edge < 0 || r.Edge >= r.Pitch.Margin+r.Pitch.Width/2:
		return bad("Edge", r.Edge, "0 to inside the pitch")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"RunSpeed", r.RunSpeed}, {"SprintSpeed", r.SprintSpeed}, {"Accel", r.Accel}, {"TurnRate", r.TurnRate}, {"TurnGain", r.TurnGain},
		{"DribbleOffset", r.DribbleOffset}, {"TackleReach", r.TackleReach}, {"Ball.Radius", r.Ball.Radius}, {"Player.Radius", r.Player.Radius}} {
		if err := pos(f.name, f.v); err != nil {
			return err
		}
	}
	if r.TouchMargin < 0 || r.TacklePoke < 0 {
		return bad("TouchMargin, TacklePoke", "negative", "≥ 0")
	}
	if !(r.KickTolerance >= 0 && r.KickTolerance <= 1) {
		return bad("KickTolerance", r.KickTolerance, "0 to 1 m")
	}
	if !(r.ContactTolerance >= 0 && r.ContactTolerance <= 10) {
		return bad("ContactTolerance", r.ContactTolerance, "0 to 10 m")
	}
	if r.ContactLead < 0 || r.ContactLead > time.Second {
		return bad("ContactLead", r.ContactLead, "0 to 1s")
	}
	return nil
}

// Kick returns the ball's velocity and spin for a kick of kind (ActionPass or
// ActionShot) toward the horizontal direction aim (unit) at power in [0, 1]: a
// ground pass rolls from the start; a shot leaves the ground at an elevation
// that is lower the harder it is struck.
func (r Rules) Kick(kind Action, aim geom.Vec3, power float64) (vel, spin geom.Vec3) {
	power = math.Max(0, math.Min(1, power))
	if !(power >= 0) {
		power = 0
	}
	aim = geom.V(aim.X, 0, aim.Z).Norm()
	side := geom.V(0, 1, 0).Cross(aim) // rolling spin axis
	switch kind {
	case ActionShot:
		speed := lerp(r.ShotSpeed, power)
		el := lerp(r.ShotElevation, power)
		vel = aim.Scale(speed * math.Cos(el)).Add(geom.V(0, speed*math.Sin(el), 0))
		spin = side.Scale(-4) // a little backspin
	default:
		speed := lerp(r.PassSpeed, power)
		vel = aim.Scale(speed)
		spin = side.Scale(speed / r.Ball.Radius)
	}
	return vel, spin
}

// KickAim returns the direction (horizontal, unit) in which a player in
// state kicker sends a ball at ball when it aims at aim: aim itself (the way
// the player faces if aim is zero), turned square to the line from the player
// to the ball if it points back more than kickAimSlack past square, so that a
// kicked ball never runs back into its kicker.
func (r Rules) KickAim(aim geom.Vec3, kicker PlayerState, ball geom.Vec3) geom.Vec3 {
	a := geom.V(aim.X, 0, aim.Z)
	if a.Len2() < 1e-6 || !a.IsFinite() {
		a = kicker.Forward()
	}
	a = a.Norm()
	out := geom.V(ball.X-kicker.Pos.X, 0, ball.Z-kicker.Pos.Z)
	if out.Len2() < 1e-12 {
		return a
	}
	out = out.Norm()
	if d := a.Dot(out); d < -kickAimSlack {
		a = a.Sub(out.Scale(d))
		if a.Len2() < 1e-12 {
			return out
		}
		a = a.Norm()
	}
	return a
}

// kickAimSlack is how far back past square to the line from the kicker to
// the ball an aim may point and be kept, as the cosine of its angle to that
// line (0.2: about 11.5°). A client that predicts its kick turns its aim
// square to its own line, from its own estimate of where its player stood,
// and sends that aim; the server's line differs from it by a few degrees, and
// the slack keeps it from turning the aim again.
const kickAimSlack = 0.2

func lerp(r [2]float64, u float64) float64 { return r[0] + (r[1]-r[0])*u }

// rollDecel is the deceleration of a ball rolling on the grass, m/s², without
// air drag.
func (r Rules) rollDecel() float64 {
	return r.Ball.Material.RollingResistance * r.Pitch.Grass.RollingResistance * gravity
}

const gravity = 9.81

// PassPower returns the power of a ground pass that rolls about dist metres
// before stopping, given rolling resistance and air drag, in [0, 1].
func (r Rules) PassPower(dist float64) float64 {
	a, k := r.rollDecel(), r.Ball.Drag
	var v float64
	if k > 0 {
		v = math.Sqrt(a * (math.Exp(2*k*dist) - 1) / k)
	} else {
		v = math.Sqrt(2 * a * dist)
	}
	if r.PassSpeed[1] <= r.PassSpeed[0] {
		return 1
	}
	return math.Max(0, math.Min(1, (v-r.PassSpeed[0])/(r.PassSpeed[1]-r.PassSpeed[0])))
}
