package crowd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// The crowd's spheres and their arena.
const (
	// Radius is every sphere's radius, metres.
	Radius = 0.25
	// Spacing is the distance between neighbouring spheres at the start,
	// which stand in a square grid, metres.
	Spacing = 1.2
	// Margin is the gap between the grid and the walls, metres.
	Margin = 1.0
)

// DefaultBodies is the number of spheres of a zero Config.
const DefaultBodies = 1000

// MaxBodies bounds Config.Bodies and what a client decodes.
const MaxBodies = 4096

// ErrConfig is wrapped by the error NewGame returns for a bad Config.
var ErrConfig = errors.New("tether/crowd: invalid config")

// Config configures a Game. The zero value gives the defaults noted.
type Config struct {
	// Bodies is the number of spheres; 0 means DefaultBodies. Range [1,
	// MaxBodies].
	Bodies int
	// TickHz is the server's tick rate, the physics' step rate; 0 means 60.
	// Range [1, 1000].
	TickHz int
	// Seed seeds the kicks: the same seed stirs the same spheres the same
	// way.
	Seed uint64
	// KickEvery is the time between two kicks; 0 means 500 ms. Range
	// [1 ms, 1 min].
	KickEvery time.Duration
	// Kicked is the number of spheres each kick sets rolling; 0 means 4.
	// Range [1, Bodies].
	Kicked int
	// OnSnapshot, if set, is called with the make-up of every per-client
	// snapshot the game encodes: for meters (Meter.Snapshot).
	OnSnapshot func(Encoded)
}

// The kicks: a sphere kicked rolls off at a speed drawn from
// [kickMin, kickMax], in a direction drawn at random.
const (
	kickMin = 3.0 // m/s
	kickMax = 8.0 // m/s
)

// The spheres' material: they bounce off one another and the walls, and a
// rolling sphere slows by rolling·g (about 0.8 m/s²) until it stops.
var sphereMaterial = physics.Material{Restitution: 0.7, Friction: 0.3, RollingResistance: 0.08}

const sphereMass = 1.0 // kg

// world is the crowd's physics: the spheres, in BodyID order from 0, on a
// walled floor, and the script of kicks.
type world struct {
	phys *physics.World
	n    int
	half float64 // the arena's half size, metres
	rng  *rand.Rand
	next time.Duration // server time of the next kick
	cfg  Config
}

func (c Config) withDefaults() (Config, error) {
	def := func(v *int, d, lo, hi int, name string) error {
		if *v == 0 {
			*v = d
		}
		if *v < lo || *v > hi {
			return fmt.Errorf("%w: %s = %d, want %d to %d", ErrConfig, name, *v, lo, hi)
		}
		return nil
	}
	if err := def(&c.Bodies, DefaultBodies, 1, MaxBodies, "Bodies"); err != nil {
		return c, err
	}
	if err := def(&c.TickHz, 60, 1, 1000, "TickHz"); err != nil {
		return c, err
	}
	if err := def(&c.Kicked, 4, 1, c.Bodies, "Kicked"); err != nil {
		return c, err
	}
	if c.KickEvery == 0 {
		c.KickEvery = 500 * time.Millisecond
	}
	if c.KickEvery < time.Millisecond || c.KickEvery > time.Minute {
		return c, fmt.Errorf("%w: KickEvery = %v, want 1ms to 1m", ErrConfig, c.KickEvery)
	}
	return c, nil
}

// HalfSize returns the half size of the square arena of n spheres, metres:
// the walls stand at x, z = ±HalfSize.
func HalfSize(n int) float64 {
	side := int(math.Ceil(math.Sqrt(float64(n))))
	return float64(side)*Spacing/2 + Margin
}

// newWorld builds the arena of the validated cfg: every sphere at rest on
// the floor, in a square grid.
func newWorld(cfg Config) (*world, error) {
	phys, err := physics.NewWorld(physics.Config{StepHz: cfg.TickHz})
	if err != nil {
		return nil, err
	}
	w := &world{phys: phys, n: cfg.Bodies, half: HalfSize(cfg.Bodies), cfg: cfg,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x63726f7764)), next: cfg.KickEvery}
	wall := physics.Material{Restitution: 1, Friction: 1, RollingResistance: 1}
	for _, p := range []physics.Plane{
		{Normal: geom.V(0, 1, 0)},
		{Normal: geom.V(1, 0, 0), Offset: -w.half}, {Normal: geom.V(-1, 0, 0), Offset: -w.half},
		{Normal: geom.V(0, 0, 1), Offset: -w.half}, {Normal: geom.V(0, 0, -1), Offset: -w.half},
	} {
		p.Material = wall
		if _, err := phys.AddPlane(p); err != nil {
			return nil, err
		}
	}
	side := int(math.Ceil(math.Sqrt(float64(cfg.Bodies))))
	start := -float64(side-1) * Spacing / 2
	for i := range cfg.Bodies {
		pos := geom.V(start+float64(i%side)*Spacing, Radius, start+float64(i/side)*Spacing)
		if _, err := phys.AddSphere(physics.Sphere{Pos: pos, Radius: Radius, Mass: sphereMass, Material: sphereMaterial}); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// kick is a sphere kicked at a tick, and its velocity before.
type kick struct {
	id    int
	velIn geom.Vec3
}

// step advances the world by one physics step to server time now, then
// kicks the spheres whose kicks are due by now; it returns the kicks.
func (w *world) step(now time.Duration, kicks []kick) []kick {
	w.phys.Step()
	kicks = kicks[:0]
	for now >= w.next {
		w.next += w.cfg.KickEvery
		for range w.cfg.Kicked {
			id := physics.BodyID(w.rng.IntN(w.n))
			speed := kickMin + (kickMax-kickMin)*w.rng.Float64()
			a := 2 * math.Pi * w.rng.Float64()
			s := w.phys.Body(id)
			kicks = append(kicks, kick{id: int(id), velIn: s.Vel})
			s.Vel = s.Vel.Add(geom.V(speed*math.Cos(a), 0, speed*math.Sin(a)))
			w.phys.SetBody(id, s)
		}
	}
	return kicks
}
