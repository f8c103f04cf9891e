package arena

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
)

// The arena: a rectangle of HalfX by HalfZ metres either side of the origin,
// in the Y-up world's ground plane (y = 0), closed by walls, with square
// pillars that stop players, projectiles and hitscan shots alike.
const (
	HalfX = 20.0 // metres from the centre to the east and west walls
	HalfZ = 12.0 // metres from the centre to the north and south walls
)

// Pillars are the square pillars: centre (x, z) and half-side, metres.
var Pillars = [...]Pillar{
	{X: -8, Z: -5, Half: 1}, {X: 8, Z: -5, Half: 1},
	{X: -8, Z: 5, Half: 1}, {X: 8, Z: 5, Half: 1},
	{X: 0, Z: 0, Half: 1.5},
}

// Pillar is a square pillar standing on the ground.
type Pillar struct{ X, Z, Half float64 }

// Sizes, speeds and weapons.
const (
	PlayerRadius = 0.4  // metres; players are circles on the ground
	HitRadius    = 0.5  // metres; a shot that passes this close to a player's centre hits
	RunSpeed     = 6.0  // metres per second
	ShotRange    = 40.0 // metres a hitscan shot reaches

	ProjectileSpeed    = 20.0 // metres per second
	ProjectileLifetime = 2 * time.Second

	ProjectileCooldown = 400 * time.Millisecond // between two projectiles of one player
	HitscanCooldown    = 250 * time.Millisecond // between two hitscan shots of one player

	ProjectileDamage = 40
	HitscanDamage    = 25
	MaxHealth        = 100
)

// clampToArena keeps a player of radius r centred at p inside the walls and
// out of the pillars (pushed out along the shortest way).
func clampToArena(p geom.Vec3, r float64) geom.Vec3 {
	p.X = max(-HalfX+r, min(HalfX-r, p.X))
	p.Z = max(-HalfZ+r, min(HalfZ-r, p.Z))
	for _, b := range Pillars {
		// The nearest point of the square to p.
		nx := max(b.X-b.Half, min(b.X+b.Half, p.X))
		nz := max(b.Z-b.Half, min(b.Z+b.Half, p.Z))
		dx, dz := p.X-nx, p.Z-nz
		d := math.Hypot(dx, dz)
		switch {
		case d >= r:
			continue
		case d > 1e-9: // outside the square, too close: out along the normal
			p.X, p.Z = nx+dx/d*r, nz+dz/d*r
		default: // centre inside the square: out by the nearest side
			ex, wx := b.X+b.Half-p.X, p.X-(b.X-b.Half)
			nz2, sz := b.Z+b.Half-p.Z, p.Z-(b.Z-b.Half)
			switch m := min(ex, wx, nz2, sz); m {
			case ex:
				p.X = b.X + b.Half + r
			case wx:
				p.X = b.X - b.Half - r
			case nz2:
				p.Z = b.Z + b.Half + r
			default:
				p.Z = b.Z - b.Half - r
			}
		}
	}
	return p
}

// wallHit returns the distance along the ray from o in the unit direction d
// (ground plane) to the first wall or pillar, at most limit.
func wallHit(o, d geom.Vec3, limit float64) float64 {
	t := limit
	// The walls, from inside.
	if d.X > 0 {
		t = min(t, (HalfX-o.X)/d.X)
	} else if d.X < 0 {
		t = min(t, (-HalfX-o.X)/d.X)
	}
	if d.Z > 0 {
		t = min(t, (HalfZ-o.Z)/d.Z)
	} else if d.Z < 0 {
		t = min(t, (-HalfZ-o.Z)/d.Z)
	}
	for _, b := range Pillars {
		if h, ok := slab(o, d, b); ok && h < t {
			t = h
		}
	}
	return max(0, t)
}

// slab returns where the ray from o along d enters pillar b (the slab
// method), if it does ahead of o.
func slab(o, d geom.Vec3, b Pillar) (float64, bool) {
	lo, hi := math.Inf(-1), math.Inf(1)
	for _, ax := range [2][3]float64{{o.X, d.X, b.X}, {o.Z, d.Z, b.Z}} {
		p, v, c := ax[0], ax[1], ax[2]
		if v == 0 {
			if p < c-b.Half || p > c+b.Half {
				return 0, false
			}
			continue
		}
		t1, t2 := (c-b.Half-p)/v, (c+b.Half-p)/v
		lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
	}
	if lo > hi || hi < 0 {
		return 0, false
	}
	return max(0, lo), true
}

// rayCircle returns the distance along the ray from o in the unit direction d
// to the first point within radius r of c, if the ray passes that close ahead
// of o.
func rayCircle(o, d, c geom.Vec3, r float64) (float64, bool) {
	ox, oz := o.X-c.X, o.Z-c.Z
	b := ox*d.X + oz*d.Z
	q := ox*ox + oz*oz - r*r
	if q <= 0 {
		return 0, true // starts inside
	}
	disc := b*b - q
	if b > 0 || disc < 0 {
		return 0, false
	}
	return -b - math.Sqrt(disc), true
}

// AimDir returns the unit direction on the ground of an aim angle, radians
// anticlockwise from +X seen from above (+Y).
func AimDir(aim float64) geom.Vec3 { return geom.V(math.Cos(aim), 0, -math.Sin(aim)) }

// AimAt returns the aim angle from a to b.
func AimAt(a, b geom.Vec3) float64 { return math.Atan2(-(b.Z - a.Z), b.X-a.X) }

// FlightEnd returns the server time a projectile that left s.Pos at s.Time
// with velocity s.Vel meets a wall or a pillar, or its lifetime runs out.
// (A player it meets on the way ends it earlier: only the server knows
// that, and says so by an EventEnd.) Server and clients compute it alike.
func FlightEnd(s kinematic.State) time.Duration {
	end := s.Time + ProjectileLifetime
	if v := s.Vel.Len(); v > 0 {
		d := wallHit(s.Pos, s.Vel.Scale(1/v), v*ProjectileLifetime.Seconds())
		end = min(end, s.Time+time.Duration(d/v*float64(time.Second)))
	}
	return end
}
