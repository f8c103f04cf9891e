package lab

import "github.com/tether-net/tether/game/crowd"

// runCrowd runs the validated scenario s of game crowd.
func runCrowd(s Scenario, opts Options) (*Report, error) {
	cfg := crowd.VirtualConfig{Game: crowd.Config{TickHz: s.TickHz, Seed: s.Seed}, SnapshotHz: s.SnapshotHz,
		FrameHz: s.FrameHz, Budget: s.SnapshotBudget, Seed: s.Seed, WarmUp: warmUp}
	for i, c := range s.Clients {
		if c.Clock != ClockTether || c.Ball != BallTether {
			return nil, scenarioErr("clients[%d]: clock %q, ball %q, want tether for game crowd", i, c.Clock, c.Ball)
		}
		cfg.Links = append(cfg.Links, c.Link)
	}
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
	return rep, nil
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
