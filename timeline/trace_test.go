package timeline_test

// Data-driven traces: the scripts in testdata/ send a body's states through
// a scripted link (arrivals at given times, jitter that reorders them, lost
// runs, a kick, a teleport) into a Timeline and check the frames it renders,
// one line a frame. The format, and the -rewrite flag that regenerates the
// expected output in place, are described in internal/datadriven:
//
//	go test ./timeline -run TestTraces -rewrite
//
// Commands:
//
//	timeline [fps=60] [send-interval=] [max-extrapolation=] [min-delay=] [snap=]
//	    a new timeline (the Config fields named; the rest at their defaults),
//	    drawn at fps frames a second by a client whose clock reads server
//	    time exactly; it forgets the body, the link and the frames.
//	body pos=x,y,z vel=x,y,z          the body's true motion from time 0
//	kick at= vel=x,y,z                its velocity changes at at (a knot state)
//	teleport at= pos=x,y,z [vel=]      it jumps at at (a cut state)
//	stream from= to= [hz=30] [latency=0s] [jitter=d,d,...]
//	    sends the true state at from + k/hz up to to, each arriving latency
//	    plus the next jitter of the list (cycled) after it (Command.Stream),
//	    and at every kick or teleport between, in the next regular send
//	state at= arrive=                 sends one state, arriving at arrive
//	lose from= to=                    the states sent for times in [from, to] never arrive
//	render to= [quiet]                draws the frames up to to, inserting each
//	    state as it arrives; prints each frame (or, quiet, a summary)
//	stats                             the timeline's counters and estimates
//
// A frame line: the frame's time (now), the render time, the render delay,
// the drawn position (metres, to the millimetre), its distance from the true
// position at the render time (err), the correction offset being blended out
// if any, and the flags extrapolated, frozen, cut, snapped.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/internal/datadriven"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
)

func TestTraces(t *testing.T) {
	datadriven.RunDir(t, "testdata", func() datadriven.Handler { return new(trace).do })
}

// leg is a piece of the body's true motion: from at on, from pos at vel.
type leg struct {
	at        time.Duration
	pos, vel  geom.Vec3
	knot, cut bool
}

// sent is a state on its way to the client.
type sent struct {
	s      kinematic.State
	arrive time.Duration
	lost   bool
}

type trace struct {
	tl     *timeline.Timeline
	fps    int
	frames int // frames drawn; the next is at frames/fps
	legs   []leg
	link   []sent // in the order sent; removed as they arrive
}

func vec(c *datadriven.Command, key string, def geom.Vec3) geom.Vec3 {
	xs := c.Floats(key, def.X, def.Y, def.Z)
	if len(xs) != 3 {
		c.Errorf("%s wants three numbers", key)
		return def
	}
	return geom.V(xs[0], xs[1], xs[2])
}

// truth returns the body's true state at t.
func (tr *trace) truth(t time.Duration) kinematic.State {
	i := len(tr.legs) - 1
	for i > 0 && tr.legs[i].at > t {
		i--
	}
	l := tr.legs[i]
	return kinematic.State{Time: t, Pos: l.pos.AddScaled(l.vel, (t - l.at).Seconds()), Vel: l.vel,
		Rot: geom.Identity, Knot: l.knot && t == l.at, Cut: l.cut && t == l.at}
}

func (tr *trace) do(c *datadriven.Command) string {
	if c.Name != "timeline" && tr.tl == nil {
		c.Errorf("no timeline yet")
		return ""
	}
	switch c.Name {
	case "timeline":
		tl, err := timeline.New(timeline.Config{
			SendInterval:     c.Dur("send-interval", 0),
			MaxExtrapolation: c.Dur("max-extrapolation", 0),
			MinDelay:         c.Dur("min-delay", 0),
			SnapDistance:     c.Float("snap", 0),
		})
		if err != nil {
			c.Errorf("%v", err)
		}
		*tr = trace{tl: tl, fps: c.Int("fps", 60), legs: []leg{{}}}
		return ""
	case "body":
		tr.legs = []leg{{pos: vec(c, "pos", geom.Vec3{}), vel: vec(c, "vel", geom.Vec3{})}}
		return ""
	case "kick", "teleport":
		at := c.Dur("at", 0)
		now := tr.truth(at)
		l := leg{at: at, pos: now.Pos, vel: vec(c, "vel", now.Vel), knot: c.Name == "kick", cut: c.Name == "teleport"}
		if l.cut {
			l.pos = vec(c, "pos", now.Pos)
		}
		if at <= tr.legs[len(tr.legs)-1].at {
			c.Errorf("at %v is not after the last change of motion", at)
		}
		tr.legs = append(tr.legs, l)
		return ""
	case "stream":
		return tr.stream(c)
	case "state":
		s := tr.send(c.Dur("at", 0), c.Dur("arrive", 0))
		return "sent " + describe(s)
	case "lose":
		from, to := c.Dur("from", 0), c.Dur("to", 0)
		var lost []time.Duration
		for i := range tr.link {
			if s := &tr.link[i]; s.s.Time >= from && s.s.Time <= to {
				s.lost = true
				lost = append(lost, s.s.Time)
			}
		}
		if len(lost) == 0 {
			return "lost none"
		}
		return fmt.Sprintf("lost %d, %s to %s", len(lost), datadriven.Ms(lost[0]), datadriven.Ms(lost[len(lost)-1]))
	case "render":
		return tr.render(c.Dur("to", 0), c.Has("quiet"))
	case "stats":
		st := tr.tl.Stats()
		return fmt.Sprintf("inserted %d, duplicates %d, late %d, snaps %d; frames %d, extrapolated %d, frozen %d\n"+
			"lateness %s, send interval %s, loss %s, target %s, delay %s",
			st.Inserted, st.Duplicates, st.Late, st.Snaps, st.Frames, st.Extrapolated, st.Frozen,
			datadriven.Ms(st.Lateness), datadriven.Ms(st.SendInterval), datadriven.Fix(st.Loss, 3),
			datadriven.Ms(st.Target), datadriven.Ms(st.Delay))
	}
	c.Errorf("unknown command")
	return ""
}

// send puts the true state at t on the link, arriving at arrive.
func (tr *trace) send(t, arrive time.Duration) sent {
	s := sent{s: tr.truth(t), arrive: arrive}
	tr.link = append(tr.link, s)
	return s
}

func describe(s sent) string {
	d := datadriven.Ms(s.s.Time)
	if s.s.Knot {
		d += " (knot)"
	}
	if s.s.Cut {
		d += " (cut)"
	}
	return d + " arriving " + datadriven.Ms(s.arrive)
}

func (tr *trace) stream(c *datadriven.Command) string {
	sends := c.Stream()
	if len(sends) == 0 {
		return ""
	}
	// The kicks and teleports in the stream's span, each in the next
	// regular send (or after the latency if none).
	for _, l := range tr.legs[1:] {
		if l.at <= c.Dur("from", 0) || l.at > c.Dur("to", 0) {
			continue
		}
		k, found := slices.BinarySearchFunc(sends, l.at, func(s datadriven.Send, t time.Duration) int { return cmp.Compare(s.At, t) })
		if found {
			continue
		}
		arrive := l.at + c.Dur("latency", 0)
		if k < len(sends) {
			arrive = sends[k].Arrive
		}
		sends = slices.Insert(sends, k, datadriven.Send{At: l.at, Arrive: arrive})
	}
	var out []string
	first := len(tr.link)
	for _, s := range sends {
		if st := tr.send(s.At, s.Arrive); st.s.Knot || st.s.Cut {
			out = append(out, "sent "+describe(st))
		}
	}
	// Reordered: a state that arrives before one sent earlier (the first
	// three shown).
	reordered := 0
	for i := first + 1; i < len(tr.link); i++ {
		for j := first; j < i; j++ {
			if tr.link[i].arrive < tr.link[j].arrive {
				if reordered++; reordered <= 3 {
					out = append(out, fmt.Sprintf("reordered: %s, before %s", describe(tr.link[i]), describe(tr.link[j])))
				}
				break
			}
		}
	}
	if reordered > 3 {
		out = append(out, fmt.Sprintf("and %d more reordered", reordered-3))
	}
	head := fmt.Sprintf("sent %d, %s to %s", len(sends), datadriven.Ms(sends[0].At), datadriven.Ms(sends[len(sends)-1].At))
	return strings.Join(append([]string{head}, out...), "\n")
}

// render draws the frames up to to.
func (tr *trace) render(to time.Duration, quiet bool) string {
	var out []string
	var n, extrap, frozen, cuts, snaps int
	var maxErr float64
	var last timeline.Frame
	for {
		now := time.Duration(tr.frames) * time.Second / time.Duration(tr.fps)
		if now > to {
			break
		}
		tr.frames++
		// The states that arrived by now, in the order they arrived.
		slices.SortStableFunc(tr.link, func(a, b sent) int { return cmp.Compare(a.arrive, b.arrive) })
		k := 0
		for ; k < len(tr.link) && tr.link[k].arrive <= now; k++ {
			if !tr.link[k].lost {
				tr.tl.Insert(tr.link[k].s, tr.link[k].arrive)
			}
		}
		tr.link = tr.link[k:]
		f := tr.tl.Sample(now)
		if !f.Valid {
			out = append(out, fmt.Sprintf("%s nothing to draw", datadriven.Ms(now)))
			continue
		}
		last = f
		n++
		err := f.Pos.Dist(tr.truth(f.Time).Pos)
		maxErr = max(maxErr, err)
		line := fmt.Sprintf("%s rt %s delay %s pos %s %s %s err %s", datadriven.Ms(now), datadriven.Ms(f.Time),
			datadriven.Ms(f.Delay), datadriven.Fix(f.Pos.X, 3), datadriven.Fix(f.Pos.Y, 3), datadriven.Fix(f.Pos.Z, 3),
			datadriven.Fix(err, 3))
		if o := f.Offset.Len(); o >= 0.0005 {
			line += " off " + datadriven.Fix(o, 3)
		}
		for _, fl := range []struct {
			on   bool
			name string
			n    *int
		}{{f.Extrapolated, "extrapolated", &extrap}, {f.Frozen, "frozen", &frozen}, {f.Cut, "cut", &cuts}, {f.Snapped, "snapped", &snaps}} {
			if fl.on {
				line += " " + fl.name
				*fl.n++
			}
		}
		out = append(out, line)
	}
	if quiet {
		return fmt.Sprintf("%d frames to %s: %d extrapolated, %d frozen, %d cut, %d snapped; max err %s; last delay %s",
			n, datadriven.Ms(to), extrap, frozen, cuts, snaps, datadriven.Fix(maxErr, 3), datadriven.Ms(last.Delay))
	}
	return strings.Join(out, "\n")
}
