package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/crowd"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/lab/gaffer"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/timeline"
)

// runCrowd runs the validated scenario s of game crowd. A client's ball
// method says how the spheres are sent it: tether, the replication layer;
// gaffer, the bit-packer of Gaffer On Games' "Snapshot Compression" (package
// lab/gaffer), against the crowd's starting state until the client
// acknowledges a snapshot.
func runCrowd(s Scenario, opts Options) (*Report, error) {
	cfg := crowd.VirtualConfig{Game: crowd.Config{TickHz: s.TickHz, Seed: s.Seed}, SnapshotHz: s.SnapshotHz,
		FrameHz: s.FrameHz, Budget: s.SnapshotBudget, Seed: s.Seed, WarmUp: warmUp}
	var article *gaffer.Encoder
	for i, c := range s.Clients {
		if c.Clock != ClockTether || c.Ball != BallTether && c.Ball != BallGaffer {
			return nil, scenarioErr("clients[%d]: clock %q, ball %q, want clock tether and ball tether or gaffer for game crowd", i, c.Clock, c.Ball)
		}
		cfg.Links = append(cfg.Links, c.Link)
		cfg.Games = append(cfg.Games, nil)
		if c.Ball != BallGaffer {
			continue
		}
		if article == nil {
			gc, err := gafferConfig(cfg.Game)
			if err != nil {
				return nil, err
			}
			article = gaffer.NewEncoder(gc)
			cfg.Encode = func(i int, dst []byte, tick uint64, _ time.Duration, w *replica.World, acked uint64) ([]byte, bool) {
				if s.Clients[i].Ball != BallGaffer {
					return dst, false
				}
				return article.Append(dst, i, tick, w, acked), true
			}
		}
		gc, _ := gafferConfig(cfg.Game)
		article.Join(i)
		cfg.Games[i] = &gafferView{dec: gaffer.NewDecoder(gc)}
	}
	links := make([]measure.Link, len(cfg.Links))
	for i, l := range cfg.Links {
		links[i] = measure.LinkOf(l)
	}
	var v *crowd.Virtual
	tap := NewEntityTap(crowd.Schema.Names(), links, func() *replica.Encoder { return v.Rig().Server().Replica() })
	cfg.OnEncode = func(slot int, tick uint64, t time.Duration, w *replica.World) { tap.Encoding(slot, tick, t, w) }
	cfg.OnFrame = func(i int, hc *harness.Client, f *tclient.Frame) { tap.Frame(i, hc.Slot(), hc.Now(), f) }
	cfg.OnReceived = tap.Received
	v, err := crowd.NewVirtual(cfg) // its errors name the package and field
	if err != nil {
		return nil, err
	}
	newSim(s, opts).run(v.RunUntil)
	rep := &Report{Scenario: s}
	for i, c := range s.Clients {
		fig := v.Figures(i)
		rep.Results = append(rep.Results, Result{Client: c.Name, ClockMethod: c.Clock, BallMethod: c.Ball, Clock: fig.Clock, Net: fig.Net, Crowd: &fig})
	}
	tap.Report(rep, v.Rig().Now())
	return rep, nil
}

// gafferConfig is the article's coder for the crowd of cfg: its bodies, the
// walls as its bounds, and the crowd's starting state as the state both
// sides know before any snapshot.
func gafferConfig(cfg crowd.Config) (gaffer.Config, error) {
	g, err := crowd.NewGame(cfg)
	if err != nil {
		return gaffer.Config{}, err
	}
	n := g.Config().Bodies
	gc := gaffer.Config{Bodies: n, HalfWidth: crowd.HalfSize(n)}
	for i := range n {
		gc.Initial = append(gc.Initial, replica.Entity{ID: uint32(i), Kind: crowd.KindBody})
		gc.Initial[i].State.Pos = g.Body(i).Pos
	}
	return gc, nil
}

// gafferView is the client side of a crowd sent by the article's coder: the
// crowd's timelines, fed what the coder decodes (positions, no velocity).
type gafferView struct {
	crowd crowd.ClientGame // its timelines and render clock, not its schema
	dec   *gaffer.Decoder
	ents  []replica.Entity
}

func (g *gafferView) Timeline(kind uint8) timeline.Config { return g.crowd.Timeline(kind) }
func (g *gafferView) RenderClock() timeline.Config        { return g.crowd.RenderClock() }

func (g *gafferView) DecodeSnapshot(s *tclient.Snapshot, b []byte) error {
	ents, base, keep, err := g.dec.Decode(g.ents[:0], s.Tick, s.Time, b)
	g.ents = ents
	if err != nil {
		return err
	}
	for _, e := range ents {
		s.Entities = append(s.Entities, tclient.EntityState{ID: e.ID, Kind: e.Kind, State: e.State, Parent: tclient.NoParent})
	}
	s.Base, s.Baseline = base, keep
	return nil
}

// crowdColumns are the crowd's own figures (CrowdMetrics).
func crowdColumns() []column {
	f := func(head, format string, x func(CrowdMetrics) float64) column {
		return column{head, func(res *Result) (string, bool) { return num(format, x(deref(res.Crowd)), res.Crowd != nil) }}
	}
	return []column{clientCol, ballCol, f("fidelity p99 m", "%.4f", func(m CrowdMetrics) float64 { return m.FidelityM.P99 }),
		f("moving p99 m", "%.4f", func(m CrowdMetrics) float64 { return m.MovingM.P99 }),
		f("refresh p99 ms", "%.0f", func(m CrowdMetrics) float64 { return m.RefreshMs.P99 }),
		f("rest bits", "%.2f", func(m CrowdMetrics) float64 { return m.RestBits }),
		f("left out", "%.1f", func(m CrowdMetrics) float64 { return m.LeftOut })}
}
