package lab

// arenaColumns are the arena game's table: how each client drew the
// projectiles, and how its hitscan shots were judged.
func arenaColumns() []column {
	proj := func(f func(*ProjMetrics) (string, bool)) func(*Result) (string, bool) {
		return func(res *Result) (string, bool) {
			if res.Proj == nil {
				return "", false
			}
			return f(res.Proj)
		}
	}
	hits := func(f func(*HitMetrics) (string, bool)) func(*Result) (string, bool) {
		return func(res *Result) (string, bool) {
			if res.Hits == nil {
				return "", false
			}
			return f(res.Hits)
		}
	}
	return []column{
		clientCol, {"projectiles", text(func(res *Result) string { return res.BallMethod })},
		{"spawn err p50 m", proj(func(p *ProjMetrics) (string, bool) { return num("%.3f", p.SpawnErrM.P50, p.Samples > 0) })},
		{"spawn err p99 m", proj(func(p *ProjMetrics) (string, bool) { return num("%.3f", p.SpawnErrM.P99, p.Samples > 0) })},
		{"proj samples", proj(func(p *ProjMetrics) (string, bool) { return count(p.Samples, true) })},
		{"shots", hits(func(h *HitMetrics) (string, bool) { return count(h.Shots, true) })},
		{"hits agree", hits(func(h *HitMetrics) (string, bool) { return num("%.3f", h.Agree, h.Shots > 0) })},
		{"agree without rewind", hits(func(h *HitMetrics) (string, bool) { return num("%.3f", h.AgreeNoRewind, h.Shots > 0) })},
		{"rewind p99 ms", hits(func(h *HitMetrics) (string, bool) { return num("%.0f", h.RewindMs.P99, h.Shots > 0) })},
		{"clamped", hits(func(h *HitMetrics) (string, bool) { return count(h.Clamped, true) })},
	}
}

// entityColumns are the figures of the k'th kind of entity of a game on
// the replication layer (Result.Entities).
func entityColumns(k int) []column {
	ent := func(format string, f func(*EntityMetrics) float64) func(*Result) (string, bool) {
		return func(res *Result) (string, bool) {
			if k >= len(res.Entities) || res.Entities[k].Samples == 0 {
				return "", false
			}
			return num(format, f(&res.Entities[k]), true)
		}
	}
	return []column{
		clientCol, {"kind", func(res *Result) (string, bool) {
			if k >= len(res.Entities) {
				return "", false
			}
			return res.Entities[k].Kind, true
		}},
		{"err p50 m", ent("%.4f", func(e *EntityMetrics) float64 { return e.FidelityM.P50 })},
		{"err p99 m", ent("%.4f", func(e *EntityMetrics) float64 { return e.FidelityM.P99 })},
		{"pops/min", ent("%.1f", func(e *EntityMetrics) float64 { return e.PopsPerMin })},
		{"refresh p99 ms", ent("%.0f", func(e *EntityMetrics) float64 { return e.RefreshMs.P99 })},
		{"kbps", ent("%.2f", func(e *EntityMetrics) float64 { return e.Kbps })},
	}
}
