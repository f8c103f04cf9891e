package physics

import (
	"math"
	"time"

	"github.com/tether-net/tether/geom"
)

const (
	// maxSegments bounds the contacts one sphere resolves in one sub-step; a
	// sphere wedged so tightly that it needs more stays where it is for the rest
	// of the sub-step rather than pass through anything.
	maxSegments = 8
	// touchTol (m): a sphere this close to a surface is touching it.
	touchTol = 1e-9
	// approachTol (m): a sub-step's displacement into a surface smaller than this
	// is not an approach.
	approachTol = 1e-12
	// bounceMin (m/s): slower approaches do not bounce but come to rest.
	bounceMin = 0.2
	// capsulePasses bounds the rounds of pushing overlapping capsules apart.
	capsulePasses = 16
	// crowdRelax scales the pushes of the rounds after the first.
	crowdRelax = 1.8
	// crowdReach (m): capsules further apart than this are left out of the
	// rounds after the first.
	crowdReach = 0.5
)

// hit is the first contact found by a sweep.
type hit struct {
	frac    float64   // fraction of the displacement swept before touching
	n       geom.Vec3 // unit normal towards the sphere
	shape   int       // index in w.shapes, or -1
	capsule int       // index in w.capsules, or -1
}

// Step advances the world by one step of 1/Config.StepHz seconds. It allocates
// nothing unless a step has more contacts than any before and the contact slice
// must grow.
func (w *World) Step() {
	w.contacts = w.contacts[:0]
	for k := 0; k < w.sub; k++ {
		t0 := float64(k) * w.h
		w.moveCapsules(t0 + w.h)
		for i, id := range w.spheres {
			w.sphFrom[i] = w.state[id].Pos
			w.moveSphere(id, t0)
		}
		if len(w.spheres) > 1 {
			w.collideSpheres(t0 + w.h)
		}
	}
}

func duration(seconds float64) time.Duration {
	return time.Duration(seconds * float64(time.Second))
}

// moveCapsules moves every capsule by its velocity over one sub-step, pushes
// overlapping capsules apart, and records each one's path for the spheres.
func (w *World) moveCapsules(end float64) {
	h := w.h
	for i, id := range w.capsules {
		s := &w.state[id]
		w.capFrom[i] = s.Pos
		s.Pos = s.Pos.AddScaled(s.Vel, h)
	}
	if len(w.capsules) > 1 {
		w.separateCapsules(end)
	}
	for i, id := range w.capsules {
		b := &w.bodies[id]
		from, to := w.capFrom[i], w.state[id].Pos
		w.capVel[i] = to.Sub(from).Scale(1 / h)
		w.capLo[i] = minVec(from, to).Sub(geom.V(b.r, 0, b.r))
		w.capHi[i] = maxVec(from, to).Add(geom.V(b.r, b.height, b.r))
	}
}

// separateCapsules pushes overlapping capsules apart horizontally. Each round
// computes every pair's push from the same positions and applies them together,
// so the result does not depend on the order of the pairs, and a pair pushes its
// two capsules by equal and opposite amounts. The first round separates each pair
// exactly; later rounds, which only a crowd needs, push further (over-relaxation)
// so that a crowd pressed from all sides comes apart in a few rounds. The first
// round looks at all pairs and keeps those near enough to matter for the others.
func (w *World) separateCapsules(end float64) {
	n := len(w.capsules)
	w.capPairs = w.capPairs[:0]
	for pass := 0; pass < capsulePasses; pass++ {
		for i := range w.capPush[:n] {
			w.capPush[i] = geom.Vec3{}
		}
		any := false
		if pass == 0 {
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					near, pushed := w.pushCapsules(i, j, 1, end)
					if near {
						w.capPairs = append(w.capPairs, [2]int32{int32(i), int32(j)})
					}
					any = any || pushed
				}
			}
		} else {
			for _, pair := range w.capPairs {
				_, pushed := w.pushCapsules(int(pair[0]), int(pair[1]), crowdRelax, -1)
				any = any || pushed
			}
		}
		if !any {
			return
		}
		for i, id := range w.capsules {
			w.state[id].Pos = w.state[id].Pos.Add(w.capPush[i])
		}
	}
}

// pushCapsules adds to capPush the push, scaled by relax, that separates capsules
// i and j (indices in w.capsules) if they overlap, and records their contact at
// time end into the step unless end is negative. near tells whether they are
// within crowdReach of touching.
func (w *World) pushCapsules(i, j int, relax, end float64) (near, pushed bool) {
	ia, ib := w.capsules[i], w.capsules[j]
	a, pa := &w.bodies[ia], w.state[ia].Pos
	b, pb := &w.bodies[ib], w.state[ib].Pos
	reach := a.r + b.r
	dx, dz := pa.X-pb.X, pa.Z-pb.Z
	if far := reach + crowdReach; dx >= far || -dx >= far || dz >= far || -dz >= far {
		return false, false
	}
	// Vertical gap between the two axis segments.
	gap := fmax(0, fmax((pb.Y+b.r)-(pa.Y+a.height-a.r), (pa.Y+a.r)-(pb.Y+b.height-b.r)))
	flat2 := dx*dx + dz*dz
	if flat2+gap*gap >= reach*reach*(1-1e-12) {
		return true, false
	}
	flat := math.Sqrt(flat2)
	nrm := geom.V(1, 0, 0) // coincident axes: a goes +X, b goes -X
	if flat > 0 {
		nrm = geom.V(dx/flat, 0, dz/flat)
	}
	push := relax * (math.Sqrt(reach*reach-gap*gap) - flat) / 2
	w.capPush[i] = w.capPush[i].AddScaled(nrm, push)
	w.capPush[j] = w.capPush[j].AddScaled(nrm, -push)
	if end >= 0 {
		va, vb := w.state[ia].Vel, w.state[ib].Vel
		mid := pa.Add(pb).Scale(0.5)
		mid.Y = math.Max(pa.Y, pb.Y)
		w.contacts = append(w.contacts, Contact{
			Body: BodyID(ia), Other: BodyID(ib), Shape: NoShape, At: duration(end),
			Point: mid, Normal: nrm, Speed: math.Max(0, -va.Sub(vb).Dot(nrm)),
		})
	}
	return true, true
}

// moveSphere advances sphere id through one sub-step that starts t0 seconds into
// the step.
func (w *World) moveSphere(id int32, t0 float64) {
	s, b := &w.state[id], &w.bodies[id]
	h := w.h
	p, v, om, rot := s.Pos, s.Vel, s.AngVel, s.Rot
	if b.lift != 0 {
		// Lift turns the velocity without changing the speed.
		speed := v.Len()
		turned := v.AddScaled(om.Cross(v), b.lift*h)
		if l := turned.Len(); l > 0 {
			v = turned.Scale(speed / l)
		}
	}
	if b.drag != 0 {
		v = v.Scale(1 / (1 + b.drag*v.Len()*h))
	}
	p = w.depenetrate(p, b.r)
	acc := w.gravity
	elapsed, remaining := 0.0, h
	var prevN, prevVel geom.Vec3 // the last contact's normal and other side's velocity
	for seg := 0; seg < maxSegments; seg++ {
		// Over the rest of the sub-step the centre moves along the chord of its
		// parabola, at the mean velocity u.
		u := v.AddScaled(acc, remaining/2)
		d := u.Scale(remaining)
		c, ok := w.sweep(p, d, b.r, elapsed, remaining)
		if !ok {
			p = p.Add(d)
			v = v.AddScaled(acc, remaining)
			rot = rot.Integrate(om, remaining)
			break
		}
		if dt := c.frac * remaining; dt > 0 {
			p = p.AddScaled(u, dt)
			v = v.AddScaled(acc, dt)
			rot = rot.Integrate(om, dt)
			elapsed += dt
			remaining -= dt
		}
		vo := w.touch(id, b, p, &v, &om, &acc, c, t0+elapsed, remaining)
		if seg > 0 && c.frac == 0 && v.Sub(prevVel).Dot(prevN) < 0 {
			// Two contacts at once, such as the ground and a player's foot:
			// this one pushed the sphere back into the last one, so it slides
			// along both.
			v = crease(v, prevN, prevVel, c.n, vo)
		}
		prevN, prevVel = c.n, vo
		if remaining <= 0 {
			break
		}
	}
	s.Pos, s.Vel, s.AngVel, s.Rot = p, v, om, rot
}

// crease returns v changed as little as possible to move along both surfaces, of
// normals na and nb moving at va and vb; v if the surfaces are parallel.
func crease(v, na, va, nb, vb geom.Vec3) geom.Vec3 {
	g := na.Dot(nb)
	den := 1 - g*g
	if den < 1e-9 {
		return v
	}
	a, b := va.Dot(na), vb.Dot(nb)
	along := na.Cross(nb).Scale(1 / math.Sqrt(den))
	return along.Scale(v.Dot(along)).AddScaled(na, (a-b*g)/den).AddScaled(nb, (b-a*g)/den)
}

// depenetrate moves a sphere at p out of any capsule it overlaps and then out of
// any static shape, so that statics have the last word.
func (w *World) depenetrate(p geom.Vec3, r float64) geom.Vec3 {
	for i, id := range w.capsules {
		c := &w.bodies[id]
		dist, n := capsuleGap(p.Sub(w.capFrom[i]), c.r, c.height-c.r)
		if reach := r + c.r; dist < reach {
			p = p.AddScaled(n, reach-dist)
		}
	}
	for i := range w.shapes {
		sh := &w.shapes[i]
		if !sh.box {
			if dist := sh.n.Dot(p) - sh.off - r; dist < 0 {
				p = p.AddScaled(sh.n, -dist)
			}
			continue
		}
		rr := geom.V(r, r, r)
		if !overlaps(p.Sub(rr), p.Add(rr), sh.lo, sh.hi) {
			continue
		}
		if gap, n := boxGap(sh.toLocal(p), sh.e); gap < r {
			p = p.AddScaled(sh.dirToWorld(n), r-gap)
		}
	}
	return p
}

// sweep finds the first static shape or capsule that a sphere of radius r moving
// from p by d touches, elapsed seconds into the sub-step and with remaining seconds
// left in it.
func (w *World) sweep(p, d geom.Vec3, r, elapsed, remaining float64) (hit, bool) {
	best := hit{frac: 2, shape: -1, capsule: -1}
	rr := geom.V(r, r, r)
	lo, hi := minVec(p, p.Add(d)).Sub(rr), maxVec(p, p.Add(d)).Add(rr)
	for i := range w.shapes {
		sh := &w.shapes[i]
		var f float64
		var n geom.Vec3
		if !sh.box {
			dist, dn := sh.n.Dot(p)-sh.off-r, sh.n.Dot(d)
			switch {
			case dn >= -approachTol:
				continue
			case dist <= touchTol:
				f = 0
			case dist+dn < 0:
				f = dist / -dn
			default:
				continue
			}
			n = sh.n
		} else {
			if !overlaps(lo, hi, sh.lo, sh.hi) {
				continue
			}
			lp, ld := sh.toLocal(p), sh.dirToLocal(d)
			gap, ln := boxGap(lp, sh.e)
			if gap-r <= touchTol {
				if ld.Dot(ln) >= -approachTol {
					continue
				}
				f = 0
			} else {
				var ok bool
				if f, ok = sweepBox(lp, ld, sh.e, r); !ok || f >= best.frac {
					continue
				}
				_, ln = boxGap(lp.AddScaled(ld, f), sh.e)
			}
			n = sh.dirToWorld(ln)
		}
		if f < best.frac {
			best = hit{frac: f, n: n, shape: i, capsule: -1}
		}
	}
	for i, id := range w.capsules {
		if !overlaps(lo, hi, w.capLo[i], w.capHi[i]) {
			continue
		}
		c := &w.bodies[id]
		ya, yb := c.r, c.height-c.r
		rp := p.Sub(w.capFrom[i].AddScaled(w.capVel[i], elapsed))
		rd := d.Sub(w.capVel[i].Scale(remaining))
		dist, n := capsuleGap(rp, ya, yb)
		var f float64
		if dist-c.r-r <= touchTol {
			if rd.Dot(n) >= -approachTol {
				continue
			}
		} else {
			var ok bool
			if f, ok = sweepCapsule(rp, rd, ya, yb, r+c.r); !ok || f >= best.frac {
				continue
			}
			_, n = capsuleGap(rp.AddScaled(rd, f), ya, yb)
		}
		if f < best.frac {
			best = hit{frac: f, n: n, shape: -1, capsule: i}
		}
	}
	return best, best.frac <= 1
}

// touch resolves the contact c of sphere id, at p with velocity v and spin om, at
// time at into the step with remaining seconds of the sub-step left. acc is the
// acceleration for the rest of the sub-step: a resting contact removes the part
// pressing into the surface. It returns the velocity of the other side.
func (w *World) touch(id int32, b *body, p geom.Vec3, v, om, acc *geom.Vec3, c hit, at, remaining float64) geom.Vec3 {
	n := c.n
	var vo geom.Vec3 // velocity of the other side
	var mat Material
	ct := Contact{Body: BodyID(id), Other: NoBody, Shape: NoShape, At: duration(at), Point: p.AddScaled(n, -b.r), Normal: n}
	if c.capsule >= 0 {
		cid := w.capsules[c.capsule]
		vo, mat, ct.Other = w.capVel[c.capsule], w.bodies[cid].mat, BodyID(cid)
	} else {
		mat, ct.Shape = w.shapes[c.shape].mat, ShapeID(c.shape)
	}
	vn := v.Sub(vo).Dot(n)
	ct.Speed = math.Max(0, -vn)
	w.contacts = append(w.contacts, ct)

	// Normal: bounce, or come to rest against the surface.
	an := acc.Dot(n)
	press := math.Max(0, -an) // acceleration into the surface
	target := 0.0
	if -vn > bounceMin {
		if target = -b.mat.Restitution * mat.Restitution * vn; target <= press*w.h {
			target = 0 // too slow to leave the surface: rest on it
		}
	}
	dv := target - vn
	*v = v.AddScaled(n, dv)
	jn := math.Max(0, dv) // normal impulse per unit mass, m/s
	resting := target == 0
	if resting && press > 0 {
		*acc = acc.AddScaled(n, -an)
		jn += press * remaining
	}

	// Friction on the contact point's slip, at most Friction times the normal
	// impulse; it stops the slip (rolling) if it can.
	arm := n.Scale(-b.r) // contact point from the centre
	rel := v.Sub(vo).Add(om.Cross(arm))
	slip := rel.AddScaled(n, -rel.Dot(n))
	rolling := true
	if sl := slip.Len(); sl > 0 {
		k := b.invM + b.r*b.r*b.invI
		jt := sl / k
		if limit := b.mat.Friction * mat.Friction * jn / b.invM; jt > limit {
			jt, rolling = limit, false
		}
		imp := slip.Scale(-jt / sl)
		*v = v.AddScaled(imp, b.invM)
		*om = om.Add(arm.Cross(imp).Scale(b.invI))
	}

	// Rolling resistance slows a rolling sphere, keeping it rolling, and damps its
	// spin about the normal.
	rr := b.mat.RollingResistance * mat.RollingResistance
	if !resting || !rolling || rr == 0 {
		return vo
	}
	loss := rr * jn // m/s
	vt := v.Sub(vo)
	vt = vt.AddScaled(n, -vt.Dot(n))
	if sp := vt.Len(); sp > 0 {
		dvt := vt.Scale(-math.Min(sp, loss) / sp)
		*v = v.Add(dvt)
		*om = om.Add(n.Cross(dvt).Scale(1 / b.r))
	}
	wn, dw := om.Dot(n), loss/b.r
	*om = om.AddScaled(n, -clamp(wn, -dw, dw))
	return vo
}
