package client

// Data-driven traces: the scripts in testdata/ feed a client core scripted
// payloads (a welcome, snapshots, events with a state), framed by a server's
// reliable endpoint and delivered at given local times, and check the frames
// it renders, one line a frame. The format, and the -rewrite flag that
// regenerates the expected output in place, are described in
// internal/datadriven:
//
//	go test ./client -run TestTraces -rewrite
//
// The game is testGame (client_test.go): entities on a line, their states a
// position x and a velocity vx along X, drawn by timelines with Linear
// extrapolation; the render clock assumes 30 snapshots a second.
//
// Commands:
//
//	client [fps=60] [ready=0s] [seed=kind]
//	    a new client drawing fps frames a second; its clock (Config.ServerTime)
//	    reads server time exactly from local time ready on, and is not ready
//	    before. With seed, entities of that kind are shown by a replicate.Seed
//	    view (the game is a Viewer), the others by the client's timelines.
//	welcome self= [at=0s] [arrive=at]
//	snapshot at= [arrive=at] [meta=0]     one snapshot; its input lines are
//	    entities: ID [kind=0] [gen=0] [parent=ID] [x=0] [vx=0] [ago=frames]
//	stream from= to= [hz=30] [latency=0s] [jitter=d,d,...]
//	    a snapshot at from + k/hz up to to, arriving latency plus the next
//	    jitter (cycled) later (Command.Stream); its input lines are entities
//	    as above, x being where the entity is at from (it moves at vx)
//	event id= entity= at= [arrive=at] [x=0] [vx=0] [cut]
//	    an event with the entity's state leaving it (a kick's knot)
//	lose from= to=                       the snapshots of [from, to] never arrive
//	frames to= [quiet]                   draws the frames up to local time to,
//	    delivering each payload as it arrives; prints each frame (or, quiet,
//	    a summary)
//	stats                                the client's counters
//
// A frame line: local time (which is server time, once ready), the frame's
// render time and delay, then each entity drawn: its id, x (metres, to the
// millimetre), its own render time and delay where they differ from the
// frame's (a view), and its flags (on P: drawn attached to P; extrapolated,
// frozen, cut). The events the frame reports follow.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/internal/datadriven"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/netcode/reliable"
	"github.com/tether-net/tether/protocol"
	"github.com/tether-net/tether/replicate"
)

func TestTraces(t *testing.T) {
	datadriven.RunDir(t, "testdata", func() datadriven.Handler { return new(traceRig).do })
}

// seedGame is testGame showing entities of one kind by the Seed baseline.
type seedGame struct {
	testGame
	kind uint8
}

func (g seedGame) View(id uint32, kind uint8) replicate.View {
	if kind == g.kind {
		return &replicate.Seed{}
	}
	return nil
}

// payload is a packet on its way to the client; snap is the time of the
// snapshot it carries, if any.
type payload struct {
	arrive time.Duration
	snap   time.Duration
	isSnap bool
	b      []byte
}

type traceRig struct {
	c      *Client
	srv    *reliable.Endpoint
	fps    int
	frames int
	link   []payload
}

func (tr *traceRig) do(c *datadriven.Command) string {
	if c.Name != "client" && tr.c == nil {
		c.Errorf("no client yet")
		return ""
	}
	switch c.Name {
	case "client":
		ready := c.Dur("ready", 0)
		cfg := Config{ServerTime: func(local time.Duration) (time.Duration, bool) { return local, local >= ready }}
		var g Game = testGame{}
		if c.Has("seed") {
			g = seedGame{kind: uint8(c.Int("seed", 0))}
		}
		cl, err := New(cfg, g)
		if err != nil {
			c.Errorf("%v", err)
		}
		srv, _ := reliable.New(reliable.Config{})
		*tr = traceRig{c: cl, srv: srv, fps: c.Int("fps", 60)}
		return ""
	case "welcome":
		at := c.Dur("at", 0)
		_ = tr.srv.SendReliable(protocol.AppendWelcome(nil, protocol.Welcome{Self: uint32(c.Int("self", 0)), TickHz: 60, SnapshotHz: 30}))
		tr.send(at, c.Dur("arrive", at), 0, false)
		return ""
	case "snapshot":
		at := c.Dur("at", 0)
		tr.snapshot(at, c.Dur("arrive", at), byte(c.Int("meta", 0)), entities(c, 0))
		return ""
	case "stream":
		return tr.stream(c)
	case "event":
		at := c.Dur("at", 0)
		ev := event.Event{ID: uint32(c.Int("id", 0)), Kind: 1, Time: at, Entity: uint32(c.Int("entity", 0)), HasState: true,
			State: kinematic.State{Time: at, Pos: geom.V(c.Float("x", 0), 0, 0), Vel: geom.V(c.Float("vx", 0), 0, 0), Knot: true, Cut: c.Has("cut")}}
		if err := tr.srv.SendReliable(protocol.AppendEvent(nil, ev)); err != nil {
			c.Errorf("%v", err)
		}
		tr.send(at, c.Dur("arrive", at), 0, false)
		return ""
	case "lose":
		from, to := c.Dur("from", 0), c.Dur("to", 0)
		n := 0
		tr.link = slices.DeleteFunc(tr.link, func(p payload) bool {
			lost := p.isSnap && p.snap >= from && p.snap <= to
			if lost {
				n++
			}
			return lost
		})
		return fmt.Sprintf("lost %d snapshots", n)
	case "frames":
		return tr.render(c.Dur("to", 0), c.Has("quiet"))
	case "stats":
		st := tr.c.Stats()
		return fmt.Sprintf("snapshots %d, unplaced %d, events %d, malformed %d, entities %d",
			st.Snapshots, st.Unplaced, st.Events, st.Malformed, st.Entities)
	}
	c.Errorf("unknown command")
	return ""
}

// entities reads a command's input lines as entities, moved along by dt.
func entities(c *datadriven.Command, dt time.Duration) []ent {
	var es []ent
	for _, l := range c.Sub() {
		id, err := strconv.Atoi(l.Name)
		if err != nil {
			l.Errorf("entity id %q: %v", l.Name, err)
		}
		e := ent{id: uint8(id), kind: uint8(l.Int("kind", 0)), gen: uint8(l.Int("gen", 0)), ago: uint8(l.Int("ago", 0)),
			x: l.Float("x", 0), vx: l.Float("vx", 0)}
		if l.Has("parent") {
			e.parent = uint8(l.Int("parent", 0)) + 1
		}
		e.x += e.vx * dt.Seconds()
		es = append(es, e)
	}
	return es
}

// send frames what the server endpoint holds into packets sent at at,
// arriving at arrive.
func (tr *traceRig) send(at, arrive, snap time.Duration, isSnap bool) {
	for {
		b, ok := tr.srv.AppendPacket(nil, at)
		if !ok {
			return
		}
		tr.link = append(tr.link, payload{arrive: arrive, snap: snap, isSnap: isSnap, b: b})
	}
}

func (tr *traceRig) snapshot(at, arrive time.Duration, meta byte, es []ent) {
	msg := appendEnts(protocol.AppendSnapshot(nil, protocol.Snapshot{Tick: tickAt(at), Regular: true}), meta, es...)
	_ = tr.srv.SendUnreliable(msg)
	tr.send(at, arrive, at, true)
}

func (tr *traceRig) stream(c *datadriven.Command) string {
	sends := c.Stream()
	for _, s := range sends {
		tr.snapshot(s.At, s.Arrive, 0, entities(c, s.At-sends[0].At))
	}
	return fmt.Sprintf("sent %d snapshots", len(sends))
}

// render draws the frames up to local time to.
func (tr *traceRig) render(to time.Duration, quiet bool) string {
	var out []string
	var n, notReady int
	for {
		local := time.Duration(tr.frames) * time.Second / time.Duration(tr.fps)
		if local > to {
			break
		}
		tr.frames++
		slices.SortStableFunc(tr.link, func(a, b payload) int { return cmp.Compare(a.arrive, b.arrive) })
		k := 0
		for ; k < len(tr.link) && tr.link[k].arrive <= local; k++ {
			_ = tr.c.Receive(tr.link[k].arrive, tr.link[k].b)
		}
		tr.link = tr.link[k:]
		f := tr.c.Frame(local)
		n++
		if !f.Ready {
			notReady++
			out = append(out, datadriven.Ms(local)+" not ready")
			continue
		}
		out = append(out, frameLine(f))
	}
	if quiet {
		return fmt.Sprintf("%d frames to %s, %d not ready; last: %s", n, datadriven.Ms(to), notReady, out[len(out)-1])
	}
	return strings.Join(out, "\n")
}

func frameLine(f *Frame) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rt %s delay %s", datadriven.Ms(f.Local), datadriven.Ms(f.RenderTime), datadriven.Ms(f.Delay))
	if len(f.Meta) > 0 && f.Meta[0] != 0 {
		fmt.Fprintf(&b, " meta %d", f.Meta[0])
	}
	for _, e := range f.Entities {
		fmt.Fprintf(&b, " | %d x %s", e.ID, datadriven.Fix(e.Pos.X, 3))
		if e.RenderTime != f.RenderTime || e.Delay != f.Delay {
			fmt.Fprintf(&b, " rt %s delay %s", datadriven.Ms(e.RenderTime), datadriven.Ms(e.Delay))
		}
		if e.Parent != NoParent {
			fmt.Fprintf(&b, " on %d", e.Parent)
		}
		for _, fl := range []struct {
			on   bool
			name string
		}{{e.Extrapolated, "extrapolated"}, {e.Frozen, "frozen"}, {e.Cut, "cut"}} {
			if fl.on {
				b.WriteString(" " + fl.name)
			}
		}
	}
	for _, ev := range f.Events {
		fmt.Fprintf(&b, " | event %d", ev.ID)
	}
	return b.String()
}
