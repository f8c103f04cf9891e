package pitch

import (
	"errors"
	"fmt"
	"math"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/physics"
)

// ErrInvalidPitch is wrapped by the error AddTo returns for a Pitch field out of
// range; the message names the field.
var ErrInvalidPitch = errors.New("tether/pitch: invalid pitch")

// Pitch is the playing field as data, in metres: the field between the lines, the
// boards around it and a goal at each end. Posts and crossbars have a square
// section and stand on the goal lines; each goal has a back net, two side nets and
// a roof net, all thin boxes.
type Pitch struct {
	Length, Width float64 // between the lines, along X and Z
	Margin        float64 // from the lines to the inner faces of the boards
	BoardHeight   float64
	BoardWidth    float64 // thickness of the boards

	GoalWidth  float64 // between the inner faces of the posts
	GoalHeight float64 // from the grass to the underside of the crossbar
	GoalDepth  float64 // from the goal line to the back net, less than Margin
	PostWidth  float64 // side of the square section of posts and crossbar
	NetWidth   float64 // thickness of the nets

	// Materials, multiplied with the ball's (see physics.Material).
	Grass, Boards, Frame, Net physics.Material
}

// DefaultPitch returns a 105 m × 68 m field with boards 3 m high, 3 m outside the
// lines, and regulation goals: 7.32 m × 2.44 m, 12 cm posts, 2 m deep.
func Default() Pitch {
	return Pitch{
		Length: 105, Width: 68, Margin: 3, BoardHeight: 3, BoardWidth: 0.5,
		GoalWidth: 7.32, GoalHeight: 2.44, GoalDepth: 2, PostWidth: 0.12, NetWidth: 0.02,
		// With DefaultBall: restitution 0.66 and friction 0.6 on grass, and a
		// rolling ball slows by about 1 m/s each second.
		Grass:  physics.Material{Restitution: 0.78, Friction: 1, RollingResistance: 0.1},
		Boards: physics.Material{Restitution: 0.85, Friction: 0.8, RollingResistance: 0.05},
		Frame:  physics.Material{Restitution: 0.95, Friction: 0.5, RollingResistance: 0.05},
		Net:    physics.Material{Restitution: 0.02, Friction: 0.1, RollingResistance: 1},
	}
}

// DefaultBall returns a size-5 ball at rest on the centre spot: 0.11 m radius,
// 0.43 kg, a hollow shell, with air drag and lift (so a spinning shot curls). Its
// material is its own against a hard surface; the pitch's materials scale it.
func DefaultBall() physics.Sphere {
	const r, m = 0.11, 0.43
	return physics.Sphere{
		Pos: geom.V(0, r, 0), Radius: r, Mass: m, Inertia: 2.0 / 3 * m * r * r,
		Material: physics.Material{Restitution: 0.85, Friction: 0.6, RollingResistance: 1},
		// ρ·Cd·A/2m with air at 1.2 kg/m³ and Cd 0.25; lift of the same order.
		Drag: 1.2 * 0.25 * math.Pi * r * r / (2 * m), Lift: 0.005,
	}
}

// DefaultPlayer returns a player's capsule standing at the origin: 0.35 m radius,
// 1.8 m tall.
func DefaultPlayer() physics.Capsule {
	return physics.Capsule{
		Radius: 0.35, Height: 1.8,
		Material: physics.Material{Restitution: 0.5, Friction: 0.5},
	}
}

// Surface tells which part of the pitch a static shape is.
type Surface uint8

// The parts of a pitch. SurfaceNone is a shape that is not part of it.
const (
	SurfaceNone Surface = iota
	SurfaceGrass
	SurfaceBoard
	SurfacePost // a post or a crossbar
	SurfaceNet
)

func (s Surface) String() string {
	switch s {
	case SurfaceGrass:
		return "grass"
	case SurfaceBoard:
		return "board"
	case SurfacePost:
		return "post"
	case SurfaceNet:
		return "net"
	}
	return "none"
}

// Part is one static box of a pitch.
type Part struct {
	Surface Surface
	Box     physics.Box
}

// Parts returns the boxes of the pitch: the four boards (-X, +X, -Z, +Z), then for
// the goal at -X and then the one at +X its two posts (-Z, +Z), its crossbar, its
// back net, its two side nets (-Z, +Z) and its roof net. The grass is a plane, not
// a part.
func (p Pitch) Parts() []Part {
	l, w := p.Length/2, p.Width/2
	m, t, bh := p.Margin, p.BoardWidth, p.BoardHeight/2
	parts := []Part{
		{SurfaceBoard, box(geom.V(-(l+m+t/2), bh, 0), geom.V(t/2, bh, w+m), p.Boards)},
		{SurfaceBoard, box(geom.V(l+m+t/2, bh, 0), geom.V(t/2, bh, w+m), p.Boards)},
		{SurfaceBoard, box(geom.V(0, bh, -(w+m+t/2)), geom.V(l+m+t, bh, t/2), p.Boards)},
		{SurfaceBoard, box(geom.V(0, bh, w+m+t/2), geom.V(l+m+t, bh, t/2), p.Boards)},
	}
	pw, nw := p.PostWidth, p.NetWidth
	top := p.GoalHeight + pw     // top of the crossbar
	side := p.GoalWidth/2 + pw/2 // |z| of the posts' centres
	deep := p.GoalDepth - pw/2   // from the posts' back faces to the back of the net
	for _, s := range []float64{-1, 1} {
		x := s * l
		parts = append(parts,
			Part{SurfacePost, box(geom.V(x, top/2, -side), geom.V(pw/2, top/2, pw/2), p.Frame)},
			Part{SurfacePost, box(geom.V(x, top/2, side), geom.V(pw/2, top/2, pw/2), p.Frame)},
			Part{SurfacePost, box(geom.V(x, p.GoalHeight+pw/2, 0), geom.V(pw/2, pw/2, side-pw/2), p.Frame)},
			Part{SurfaceNet, box(geom.V(s*(l+p.GoalDepth-nw/2), top/2, 0), geom.V(nw/2, top/2, side+pw/2), p.Net)},
			Part{SurfaceNet, box(geom.V(s*(l+pw/2+deep/2), top/2, -side), geom.V(deep/2, top/2, nw/2), p.Net)},
			Part{SurfaceNet, box(geom.V(s*(l+pw/2+deep/2), top/2, side), geom.V(deep/2, top/2, nw/2), p.Net)},
			Part{SurfaceNet, box(geom.V(s*(l+pw/2+deep/2), top-nw/2, 0), geom.V(deep/2, nw/2, side+pw/2), p.Net)},
		)
	}
	return parts
}

func box(c, half geom.Vec3, m physics.Material) physics.Box {
	return physics.Box{Center: c, Half: half, Material: m}
}

// Surfaces tells which part of a pitch added to a world a static shape is.
type Surfaces struct {
	first physics.ShapeID
	kinds []Surface
}

// Of returns the part of the pitch that shape id is, or SurfaceNone.
func (s Surfaces) Of(id physics.ShapeID) Surface {
	i := int(id) - int(s.first)
	if id < 0 || i < 0 || i >= len(s.kinds) {
		return SurfaceNone
	}
	return s.kinds[i]
}

// AddTo adds the grass (a plane) and the parts of the pitch to w, and returns which
// shape is which. It returns an error wrapping ErrInvalidPitch, and adds nothing,
// if a field is out of range.
func (p Pitch) AddTo(w *physics.World) (Surfaces, error) {
	if err := p.check(); err != nil {
		return Surfaces{}, err
	}
	ground, err := w.AddPlane(physics.Plane{Normal: geom.V(0, 1, 0), Material: p.Grass})
	if err != nil {
		return Surfaces{}, err
	}
	s := Surfaces{first: ground, kinds: []Surface{SurfaceGrass}}
	for _, part := range p.Parts() {
		if _, err := w.AddBox(part.Box); err != nil {
			return Surfaces{}, err
		}
		s.kinds = append(s.kinds, part.Surface)
	}
	return s, nil
}

func (p Pitch) check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"Length", p.Length}, {"Width", p.Width}, {"Margin", p.Margin}, {"BoardHeight", p.BoardHeight},
		{"BoardWidth", p.BoardWidth}, {"GoalWidth", p.GoalWidth}, {"GoalHeight", p.GoalHeight},
		{"GoalDepth", p.GoalDepth}, {"PostWidth", p.PostWidth}, {"NetWidth", p.NetWidth},
	} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%w: Pitch.%s = %v, want > 0", ErrInvalidPitch, f.name, f.v)
		}
	}
	switch {
	case p.GoalWidth+2*p.PostWidth >= p.Width:
		return fmt.Errorf("%w: Pitch.GoalWidth = %v, want less than Width - 2·PostWidth", ErrInvalidPitch, p.GoalWidth)
	case p.GoalDepth >= p.Margin:
		return fmt.Errorf("%w: Pitch.GoalDepth = %v, want less than Margin = %v", ErrInvalidPitch, p.GoalDepth, p.Margin)
	case p.GoalDepth <= p.PostWidth/2+p.NetWidth:
		return fmt.Errorf("%w: Pitch.GoalDepth = %v, want more than PostWidth/2 + NetWidth", ErrInvalidPitch, p.GoalDepth)
	}
	for _, m := range []struct {
		name string
		m    physics.Material
	}{{"Grass", p.Grass}, {"Boards", p.Boards}, {"Frame", p.Frame}, {"Net", p.Net}} {
		if !(m.m.Restitution >= 0 && m.m.Restitution <= 1) || !(m.m.Friction >= 0) || !(m.m.RollingResistance >= 0) ||
			math.IsInf(m.m.Friction, 0) || math.IsInf(m.m.RollingResistance, 0) {
			return fmt.Errorf("%w: Pitch.%s = %+v, want Restitution in 0..1, Friction and RollingResistance >= 0",
				ErrInvalidPitch, m.name, m.m)
		}
	}
	return nil
}
