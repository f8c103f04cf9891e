package physics

import (
	"math"

	"github.com/tether-net/tether/geom"
)

// grid is the broadphase for sphere–sphere contacts: a uniform grid over the
// spheres' bounds, rebuilt each sub-step by a counting sort, so that its contents
// depend only on the current positions. Cells are at least one diameter of the
// largest sphere wide, so two spheres that touch are in the same or neighbouring
// cells; the cell count is bounded by a multiple of the sphere count.
type grid struct {
	cellOf     []int32 // cell of each sphere, by index in World.spheres
	start      []int32 // first item of each cell; start[cells] = len(items)
	cursor     []int32
	items      []int32 // sphere indices sorted by cell, ascending within a cell
	nx, ny, nz int
}

func (g *grid) reserve(spheres int) {
	cells := 4*spheres + 64
	for len(g.cellOf) < spheres {
		g.cellOf = append(g.cellOf, 0)
		g.items = append(g.items, 0)
	}
	for len(g.start) < cells+1 {
		g.start = append(g.start, 0)
		g.cursor = append(g.cursor, 0)
	}
}

// collideSpheres pushes apart overlapping spheres and exchanges their impulses,
// pair by pair in an order fixed by the positions.
func (w *World) collideSpheres(at float64) {
	g := &w.grid
	n := len(w.spheres)
	lo := w.state[w.spheres[0]].Pos
	hi, maxR := lo, 0.0
	for _, id := range w.spheres {
		p := w.state[id].Pos
		lo, hi = minVec(lo, p), maxVec(hi, p)
		maxR = math.Max(maxR, w.bodies[id].r)
	}
	size := 2 * maxR
	ext := hi.Sub(lo)
	limit := float64(len(g.start) - 1)
	fx, fy, fz := 1.0, 1.0, 1.0
	if ext.IsFinite() {
		for {
			fx, fy, fz = math.Floor(ext.X/size)+1, math.Floor(ext.Y/size)+1, math.Floor(ext.Z/size)+1
			if fx*fy*fz <= limit {
				break
			}
			size *= 1.5
		}
	}
	g.nx, g.ny, g.nz = int(fx), int(fy), int(fz)
	cells := g.nx * g.ny * g.nz
	inv := 1 / size
	for c := 0; c <= cells; c++ {
		g.start[c] = 0
	}
	for i, id := range w.spheres {
		c := g.cell(w.state[id].Pos.Sub(lo), inv)
		g.cellOf[i] = int32(c)
		g.start[c+1]++
	}
	for c := 0; c < cells; c++ {
		g.start[c+1] += g.start[c]
		g.cursor[c] = g.start[c]
	}
	for i := 0; i < n; i++ {
		c := g.cellOf[i]
		g.items[g.cursor[c]] = int32(i)
		g.cursor[c]++
	}
	for i := 0; i < n; i++ {
		c := int(g.cellOf[i])
		cx, cy, cz := c%g.nx, c/g.nx%g.ny, c/(g.nx*g.ny)
		for z := max(cz-1, 0); z <= min(cz+1, g.nz-1); z++ {
			for y := max(cy-1, 0); y <= min(cy+1, g.ny-1); y++ {
				for x := max(cx-1, 0); x <= min(cx+1, g.nx-1); x++ {
					cell := x + g.nx*(y+g.ny*z)
					for _, j := range g.items[g.start[cell]:g.start[cell+1]] {
						if int(j) > i {
							w.spherePair(i, int(j), at)
						}
					}
				}
			}
		}
	}
}

func (g *grid) cell(rel geom.Vec3, inv float64) int {
	return coord(rel.X*inv, g.nx) + g.nx*(coord(rel.Y*inv, g.ny)+g.ny*coord(rel.Z*inv, g.nz))
}

// coord returns the cell coordinate of x in [0, n), NaN giving 0.
func coord(x float64, n int) int {
	switch {
	case !(x > 0):
		return 0
	case x >= float64(n-1):
		return n - 1
	}
	return int(x)
}

// spherePair resolves the contact of spheres i and j (indices in w.spheres), if
// they overlap at the end of the sub-step ending at time end: they are pushed apart
// along the line of their centres, in inverse proportion to their masses, and
// exchange an impulse along the normal they had when they first touched, found
// from their paths over the sub-step.
func (w *World) spherePair(i, j int, end float64) {
	ia, ib := w.spheres[i], w.spheres[j]
	sa, sb := &w.state[ia], &w.state[ib]
	a, b := &w.bodies[ia], &w.bodies[ib]
	d1 := sa.Pos.Sub(sb.Pos)
	reach := a.r + b.r
	d2 := d1.Len2()
	if d2 >= reach*reach {
		return
	}
	// When they first touched: the relative path d0 -> d1 enters the sphere of
	// radius reach at frac.
	d0 := w.sphFrom[i].Sub(w.sphFrom[j])
	move := d1.Sub(d0)
	frac := 0.0
	if c := d0.Len2() - reach*reach; c > 0 {
		if m2, bb := move.Len2(), d0.Dot(move); m2 > 0 && bb*bb-m2*c >= 0 {
			frac = clamp((-bb-math.Sqrt(bb*bb-m2*c))/m2, 0, 1)
		}
	}
	n := d0.AddScaled(move, frac).Norm()
	dist := math.Sqrt(d2)
	line := n
	if dist > 0 {
		line = d1.Scale(1 / dist)
	}
	if n == (geom.Vec3{}) {
		n = line
	}
	if n == (geom.Vec3{}) {
		n, line = geom.V(0, 1, 0), geom.V(0, 1, 0) // coincident centres: a goes up
	}
	share := a.invM / (a.invM + b.invM)
	depth := reach - dist
	sa.Pos = sa.Pos.AddScaled(line, depth*share)
	sb.Pos = sb.Pos.AddScaled(line, -depth*(1-share))

	vn := sa.Vel.Sub(sb.Vel).Dot(n)
	w.contacts = append(w.contacts, Contact{
		Body: BodyID(ia), Other: BodyID(ib), Shape: NoShape, At: duration(end - (1-frac)*w.h),
		Point: sa.Pos.AddScaled(n, -a.r), Normal: n, Speed: math.Max(0, -vn),
	})
	if vn >= 0 {
		return
	}
	target := 0.0
	if -vn > bounceMin {
		target = -a.mat.Restitution * b.mat.Restitution * vn
	}
	jn := (target - vn) / (a.invM + b.invM) // normal impulse, kg·m/s
	sa.Vel = sa.Vel.AddScaled(n, jn*a.invM)
	sb.Vel = sb.Vel.AddScaled(n, -jn*b.invM)

	armA, armB := n.Scale(-a.r), n.Scale(b.r)
	rel := sa.Vel.Add(sa.AngVel.Cross(armA)).Sub(sb.Vel.Add(sb.AngVel.Cross(armB)))
	slip := rel.AddScaled(n, -rel.Dot(n))
	sl := slip.Len()
	if sl == 0 {
		return
	}
	k := a.invM + b.invM + a.r*a.r*a.invI + b.r*b.r*b.invI
	jt := math.Min(sl/k, a.mat.Friction*b.mat.Friction*jn)
	imp := slip.Scale(-jt / sl)
	sa.Vel = sa.Vel.AddScaled(imp, a.invM)
	sa.AngVel = sa.AngVel.Add(armA.Cross(imp).Scale(a.invI))
	sb.Vel = sb.Vel.AddScaled(imp, -b.invM)
	sb.AngVel = sb.AngVel.Sub(armB.Cross(imp).Scale(b.invI))
}
