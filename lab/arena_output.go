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
