package lab

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// drill is the ball drill: the server simulates the ball on the pitch, kicked by
// scripted kicks at seeded random times — ground passes, lofted shots and shots
// off the walls.
type drill struct {
	world    *physics.World
	ball     physics.BodyID
	pitch    soccer.Pitch
	rng      *rand.Rand
	nextKick time.Duration
	gravity  geom.Vec3
	radius   float64
}

// gravity is the physics world's default, m/s².
const gravity = 9.81

// Kick timing and strength of the drill.
const (
	kickGapMin = 1500 * time.Millisecond
	kickGapMax = 4 * time.Second
	// contactKnotSpeed is the impact speed (m/s) above which a contact gets
	// extra states in the snapshot stream: a bounce, not a ball rolling.
	contactKnotSpeed = 0.5
)

// newBallWorld returns a world stepping at tickHz holding the default pitch
// and ball, at rest on the centre spot: the drill's world, and the private
// world of every client method that simulates the ball.
func newBallWorld(tickHz int) (*physics.World, physics.BodyID) {
	w, err := physics.NewWorld(physics.Config{StepHz: tickHz})
	if err != nil {
		panic(err) // the config is the lab's own
	}
	if _, err := soccer.DefaultPitch().AddTo(w); err != nil {
		panic(err)
	}
	ball, err := w.AddSphere(soccer.DefaultBall())
	if err != nil {
		panic(err)
	}
	return w, ball
}

func newDrill(seed uint64, tickHz int) *drill {
	w, ball := newBallWorld(tickHz)
	return &drill{
		world:    w,
		ball:     ball,
		pitch:    soccer.DefaultPitch(),
		rng:      rand.New(rand.NewPCG(seed, 0x6b69636b)),
		nextKick: 500 * time.Millisecond,
		gravity:  geom.V(0, -gravity, 0),
		radius:   soccer.DefaultBall().Radius,
	}
}

// kickDue reports whether a scripted kick happens at server time now, and if
// so applies it to the ball.
func (d *drill) kickDue(now time.Duration) bool {
	if now < d.nextKick {
		return false
	}
	d.nextKick = now + kickGapMin + time.Duration(d.rng.Int64N(int64(kickGapMax-kickGapMin)))
	b := d.world.Body(d.ball)
	half := geom.V(d.pitch.Length/2-3, 0, d.pitch.Width/2-3)
	target := geom.V((d.rng.Float64()*2-1)*half.X, 0, (d.rng.Float64()*2-1)*half.Z)
	dir := target.Sub(geom.V(b.Pos.X, 0, b.Pos.Z)).Norm()
	if dir == (geom.Vec3{}) {
		dir = geom.V(1, 0, 0)
	}
	side := geom.V(0, 1, 0).Cross(dir)
	var speed, elevation float64
	var spin geom.Vec3
	switch d.rng.IntN(3) {
	case 0: // ground pass, with some topspin
		speed = 8 + 10*d.rng.Float64()
		spin = side.Scale(-speed / d.radius * 0.5)
	case 1: // lofted shot, with backspin
		speed = 15 + 12*d.rng.Float64()
		elevation = (20 + 25*d.rng.Float64()) * math.Pi / 180
		spin = side.Scale(6 + 8*d.rng.Float64())
	default: // a hard, low shot toward the boards, curling
		speed = 20 + 10*d.rng.Float64()
		elevation = 8 * d.rng.Float64() * math.Pi / 180
		spin = geom.V(0, (d.rng.Float64()*2-1)*12, 0)
	}
	v := dir.Scale(speed * math.Cos(elevation)).Add(geom.V(0, speed*math.Sin(elevation), 0))
	b.Vel, b.AngVel = v, spin
	d.world.SetBody(d.ball, b)
	return true
}

// step advances the world one tick and returns the first contact worth a knot
// and whether there was one.
func (d *drill) step() (physics.Contact, bool) {
	d.world.Step()
	for _, c := range d.world.Contacts() {
		if c.Body == d.ball && c.Speed > contactKnotSpeed {
			return c, true
		}
	}
	return physics.Contact{}, false
}

func (d *drill) state() physics.BodyState { return d.world.Body(d.ball) }
