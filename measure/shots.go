package measure

import (
	"time"

	"github.com/tether-net/tether/geom"
)

// ProjMetrics measure how a client draws projectiles (in the lab's arena
// game): one sample per projectile per frame after the warm-up, while the
// server's projectile flies at the frame's true time.
type ProjMetrics struct {
	// SpawnErrM is |drawn - the server's projectile at the frame's true
	// time|, metres.
	SpawnErrM Stat `json:"spawn_err_m"`
	// Samples is how many there were; Predicted how many of them were the
	// client's own projectiles drawn before the server's message of them
	// arrived.
	Samples   int `json:"samples"`
	Predicted int `json:"predicted"`
}

// HitMetrics measure a client's hitscan shots (in the lab's arena game):
// each shot after the warm-up that the client fired and judged against the
// players it drew, and the server judged too.
type HitMetrics struct {
	Shots int `json:"shots"`
	// Agree is the share of shots where the client and the server (which
	// rewinds the other players to the client's view time) name the same
	// player hit, or both none; AgreeNoRewind the same for the baseline
	// server that judges against the players where they are when the shot
	// arrives.
	Agree         float64 `json:"agree"`
	AgreeNoRewind float64 `json:"agree_no_rewind"`
	// RewindMs is how far back the server judged each shot: its arrival
	// minus the time judged at, milliseconds. Clamped counts the shots whose
	// view was further back than the server's bound, judged at the bound.
	RewindMs Stat `json:"rewind_ms"`
	Clamped  int  `json:"clamped"`
}

// ProjMeter accumulates ProjMetrics. The zero value, with WarmUp set, is
// ready.
type ProjMeter struct {
	WarmUp    time.Duration
	err       Series
	predicted int
}

// Add measures a projectile drawn at drawn in the frame at true time t,
// when the server's was at truth; predicted says it was the client's own,
// not yet confirmed.
func (m *ProjMeter) Add(t time.Duration, drawn, truth geom.Vec3, predicted bool) {
	if t < m.WarmUp {
		return
	}
	m.err.Add(drawn.Dist(truth))
	if predicted {
		m.predicted++
	}
}

// Metrics returns what was measured.
func (m *ProjMeter) Metrics() ProjMetrics {
	return ProjMetrics{SpawnErrM: m.err.Stat(), Samples: m.err.Len(), Predicted: m.predicted}
}

// HitMeter accumulates HitMetrics. The zero value, with WarmUp set, is
// ready.
type HitMeter struct {
	WarmUp               time.Duration
	shots, agree, agreeN int
	clamped              int
	rewind               Series
}

// Shot is one hitscan shot as its client and the server judged it: the
// players hit (any value that tells players apart, one for none).
type Shot struct {
	T       time.Duration // true time it was fired
	Claimed uint32        // by the client, against what it drew
	Judged  uint32        // by the server, with rewind
	Present uint32        // by a server judging against the present
	Rewind  time.Duration // how far back the server judged it
	Clamped bool          // at its bound
}

// Add measures shot s.
func (m *HitMeter) Add(s Shot) {
	if s.T < m.WarmUp {
		return
	}
	m.shots++
	if s.Claimed == s.Judged {
		m.agree++
	}
	if s.Claimed == s.Present {
		m.agreeN++
	}
	if s.Clamped {
		m.clamped++
	}
	m.rewind.Add(float64(s.Rewind) / float64(time.Millisecond))
}

// Metrics returns what was measured.
func (m *HitMeter) Metrics() HitMetrics {
	h := HitMetrics{Shots: m.shots, RewindMs: m.rewind.Stat(), Clamped: m.clamped}
	if m.shots > 0 {
		h.Agree = Round(float64(m.agree) / float64(m.shots))
		h.AgreeNoRewind = Round(float64(m.agreeN) / float64(m.shots))
	}
	return h
}
