package movement

// Data-driven traces: the scripts in testdata/ run a predicting Client and
// its Server over a scripted link (pipe, helpers_test.go: the walker game,
// a fixed one-way delay, client frames and server replies at 60 Hz) and
// check, frame by frame, the moves made and acknowledged, the predicted and
// drawn positions, the server's position, and every correction the client
// applies. The format, and the -rewrite flag that regenerates the expected
// output in place, are described in internal/datadriven:
//
//	go test ./movement -run TestTraces -rewrite
//
// Commands:
//
//	pipe [delay=50ms]                 a new client and server joined by a link
//	    of that one-way delay; the client's clock reads server time exactly
//	input dir=x,z                     the client's input from now on (walker:
//	    runs at 5 m/s along dir, on the ground)
//	push vel=x,z                      the server's walker drifts at vel besides
//	    (what the client does not know of: its predictions go wrong)
//	teleport pos=x,z                  the server moves the character (a reset)
//	lose [up] [down] from= to=        packets sent up (client to server) or
//	    down in [from, to] are lost
//	run to= [quiet]                   runs to time to; prints a line per client
//	    frame (or, quiet, a summary)
//	stats                             the client's and server's counters
//
// A frame line: the time; the newest move made, the newest acknowledged and
// the moves held (saved, unacknowledged); the predicted position and where it
// is drawn (with the correction offset), x and z in metres to the
// millimetre; the server's newest move applied and its position after it.
// A correction applied during the frame is printed on its own line before
// it: its kind, the move it follows, the prediction's error there, the
// moves replayed, and the offset left to blend out (or snapped).

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/internal/datadriven"
)

func TestTraces(t *testing.T) {
	datadriven.RunDir(t, "testdata", func() datadriven.Handler { return new(moveTrace).do })
}

type window struct {
	up       bool
	from, to time.Duration
}

type moveTrace struct {
	p     *pipe
	lost  []window
	corrs []string // corrections applied since the last frame printed
}

// xz reads a two-number argument as a vector on the ground.
func xz(c *datadriven.Command, key string) geom.Vec3 {
	v := c.Floats(key, 0, 0)
	if len(v) != 2 {
		c.Errorf("%s wants two numbers, x and z", key)
		return geom.Vec3{}
	}
	return geom.V(v[0], 0, v[1])
}

func fmtXZ(v geom.Vec3) string { return datadriven.Fix(v.X, 3) + " " + datadriven.Fix(v.Z, 3) }

func (tr *moveTrace) do(c *datadriven.Command) string {
	if c.Name != "pipe" && tr.p == nil {
		c.Errorf("no pipe yet")
		return ""
	}
	switch c.Name {
	case "pipe":
		*tr = moveTrace{}
		cc := ClientConfig{OnCorrection: func(k Correction) {
			line := fmt.Sprintf("  %s after move %d (ended %s): error %s, replayed %d", k.Kind, k.Seq, datadriven.Ms(k.Time),
				datadriven.Fix(k.Error, 3), k.Replayed)
			switch {
			case k.Snapped:
				line += ", snapped"
			case k.Kind == Adjust:
				line += ", offset " + datadriven.Fix(k.Offset, 3)
			}
			tr.corrs = append(tr.corrs, line)
		}}
		tr.p = newPipe(cc, ServerConfig{}, c.Dur("delay", 50*time.Millisecond))
		tr.p.drop = func(int) bool { return tr.lose(true) }
		tr.p.dropDn = func(int) bool { return tr.lose(false) }
		return ""
	case "input":
		in := winput{Dir: xz(c, "dir")}
		tr.p.input = func(time.Duration) winput { return in }
		return ""
	case "push":
		tr.p.srv.g.(*walker).push = xz(c, "vel")
		return ""
	case "teleport":
		tr.p.srv.Teleport(wstate{Pos: xz(c, "pos")})
		return ""
	case "lose":
		up, down := c.Has("up"), c.Has("down")
		if !up && !down {
			c.Errorf("lose up, down or both")
		}
		from, to := c.Dur("from", 0), c.Dur("to", 0)
		if up {
			tr.lost = append(tr.lost, window{true, from, to})
		}
		if down {
			tr.lost = append(tr.lost, window{false, from, to})
		}
		return ""
	case "run":
		return tr.run(c.Dur("to", 0), c.Has("quiet"))
	case "stats":
		cs, ss := tr.p.cli.Stats(), tr.p.srv.Stats()
		return fmt.Sprintf("client: moves %d, combined %d, packets %d, resends %d, acks %d, corrections %d, resets %d, snaps %d, replayed %d, saved %d\n"+
			"server: packets %d, moves %d, stale %d, lost %d, held %d, acks %d, adjustments %d, resets %d, resent %d, max error %s",
			cs.Moves, cs.Combined, cs.Packets, cs.Resends, cs.Acks, cs.Corrections, cs.Resets, cs.Snaps, cs.Replayed, cs.Saved,
			ss.Packets, ss.Moves, ss.Stale, ss.Lost, ss.Held, ss.Acks, ss.Adjustments, ss.Resets, ss.Resent, datadriven.Fix(ss.MaxError, 3))
	}
	c.Errorf("unknown command")
	return ""
}

// lose reports whether a packet sent now, up or down, is lost.
func (tr *moveTrace) lose(up bool) bool {
	return slices.ContainsFunc(tr.lost, func(w window) bool {
		return w.up == up && tr.p.now >= w.from && tr.p.now <= w.to
	})
}

// run runs the pipe frame by frame up to to.
func (tr *moveTrace) run(to time.Duration, quiet bool) string {
	p := tr.p
	var out []string
	frames := 0
	for p.nextFrame <= to {
		at := p.nextFrame
		p.run(at) // the frame at at, and what arrived by then
		frames++
		out = append(out, tr.corrs...)
		tr.corrs = tr.corrs[:0]
		_, drawn, cut := p.cli.Draw(at)
		line := fmt.Sprintf("%s move %d acked %d saved %d pos %s drawn %s", datadriven.Ms(at), p.cli.Seq(), p.cli.Acked(),
			p.cli.Stats().Saved, fmtXZ(p.cli.State().Pos), fmtXZ(drawn))
		if cut {
			line += " cut"
		}
		out = append(out, line+fmt.Sprintf(" | server %d at %s", p.srv.Seq(), fmtXZ(p.srv.State().Pos)))
	}
	if quiet {
		var corrections []string
		for _, l := range out {
			if strings.HasPrefix(l, "  ") {
				corrections = append(corrections, l)
			}
		}
		last := ""
		if len(out) > 0 {
			last = out[len(out)-1]
		}
		return strings.Join(append([]string{fmt.Sprintf("%d frames to %s, %d corrections; last: %s", frames, datadriven.Ms(to), len(corrections), last)}, corrections...), "\n")
	}
	return strings.Join(out, "\n")
}
