package drill

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tether-net/tether/game/pitch"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/wire"
)

// BallID is the ball's entity id; KindBall its kind.
const (
	BallID   uint32 = 0
	KindBall uint8  = 0
)

// NewWorld returns a world stepping at tickHz that holds the default soccer
// pitch (with its boards and goals) and ball, at rest on the centre spot
// (soccer.Rules.BallWorld): the server's world, and every client's copy of
// it.
func NewWorld(tickHz int) (*physics.World, physics.BodyID, error) {
	w, ball, err := soccer.DefaultRules().BallWorld(tickHz)
	if err != nil {
		return nil, 0, fmt.Errorf("tether/drill: %w", err)
	}
	return w, ball, nil
}

// Kick timing: the first kick is at firstKick, then one every kickGapMin to
// kickGapMax (uniform).
const (
	firstKick  = 500 * time.Millisecond
	kickGapMin = 1500 * time.Millisecond
	kickGapMax = 4 * time.Second
)

// kicker is the drill's script: seeded kicks toward random points of the
// pitch.
type kicker struct {
	rng    *rand.Rand
	next   time.Duration
	pitch  pitch.Pitch
	radius float64
}

func newKicker(seed uint64) kicker {
	return kicker{rng: rand.New(rand.NewPCG(seed, 0x6b69636b)), next: firstKick, pitch: pitch.Default(), radius: pitch.DefaultBall().Radius}
}

// kick reports whether a kick is due at server time now and, if so, the
// ball's new state.
func (k *kicker) kick(now time.Duration, b physics.BodyState) (physics.BodyState, bool) {
	if now < k.next {
		return b, false
	}
	k.next = now + kickGapMin + time.Duration(k.rng.Int64N(int64(kickGapMax-kickGapMin)))
	half := geom.V(k.pitch.Length/2-3, 0, k.pitch.Width/2-3)
	target := geom.V((k.rng.Float64()*2-1)*half.X, 0, (k.rng.Float64()*2-1)*half.Z)
	dir := target.Sub(geom.V(b.Pos.X, 0, b.Pos.Z)).Norm()
	if dir == (geom.Vec3{}) {
		dir = geom.V(1, 0, 0)
	}
	side := geom.V(0, 1, 0).Cross(dir)
	var speed, elevation float64
	var spin geom.Vec3
	switch k.rng.IntN(3) {
	case 0: // ground pass, with some topspin
		speed = 8 + 10*k.rng.Float64()
		spin = side.Scale(-speed / k.radius * 0.5)
	case 1: // lofted shot, with backspin
		speed = 15 + 12*k.rng.Float64()
		elevation = (20 + 25*k.rng.Float64()) * math.Pi / 180
		spin = side.Scale(6 + 8*k.rng.Float64())
	default: // a hard, low shot toward the boards, curling
		speed = 20 + 10*k.rng.Float64()
		elevation = 8 * k.rng.Float64() * math.Pi / 180
		spin = geom.V(0, (k.rng.Float64()*2-1)*12, 0)
	}
	b.Vel = dir.Scale(speed * math.Cos(elevation)).Add(geom.V(0, speed*math.Sin(elevation), 0))
	b.AngVel = spin
	return b, true
}

// Schema returns the drill's replication schema, the same for the server and
// every client: one kind, the ball, at the precision of package wire's
// states (millimetres, millimetres per second, milliradians per second, a
// rotation of 14 bits a component, the knot of a kick), with one earlier
// sample (the tick before a kick or a bounce).
func Schema() *replica.Schema { return schema }

var schema = func() *replica.Schema {
	s, err := replica.NewSchema(ballKind())
	if err != nil {
		panic(err) // a valid declaration
	}
	return s
}()

// ballKind declares the ball.
func ballKind() replica.Kind {
	return replica.Kind{
		Name: "ball",
		Fields: []replica.Field{
			replica.Position(1000, replica.XYZ), replica.Velocity(1000, replica.XYZ),
			replica.Rotation(wire.RotBits), replica.AngularVelocity(1000, replica.XYZ), replica.Knot(),
		},
		Predictor: Ballistic{},
		Earlier:   1,
	}
}
