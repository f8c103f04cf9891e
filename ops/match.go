package ops

import (
	"errors"
	"time"
)

// The reasons a match ends (MatchClock).
var (
	ErrFullTime   = errors.New("tether/ops: match over: full time")
	ErrIdle       = errors.New("tether/ops: match over: every player left")
	ErrNobodyCame = errors.New("tether/ops: match over: allocated, but no player came")
)

// MatchConfig says when a match ends. A zero field never ends it.
type MatchConfig struct {
	// Length is how long a match lasts from its first player's join (its
	// full time).
	Length time.Duration
	// Idle ends a match this long after its last player left.
	Idle time.Duration
	// NobodyCame ends a match this long after the server was allocated
	// (by the orchestrator) if no player joined since.
	NobodyCame time.Duration
}

// Players is what a MatchClock is shown of a server's players.
type Players struct {
	Connected int    // connected now
	Joins     uint64 // joins since the server started (server.Stats.Joins)
}

// MatchClock decides when a match ends, from what it is shown at each
// Check: the lifecycle's state and match number (Lifecycle.Match), and the
// players; it reads no clock itself. A match is the span of one Allocated
// state: it begins when the lifecycle becomes Allocated (the orchestrator
// allocated the server, or a player joined), and a Check in any other
// state, or of another match number, forgets it. It is not safe for
// concurrent use.
type MatchClock struct {
	cfg        MatchConfig
	match      uint64    // the match watched; 0: none
	over       bool      // its end was reported
	since      time.Time // it began
	joins      uint64    // joins before it began
	first      time.Time // its first player joined; zero before
	emptySince time.Time // its last player left; zero while players are on
}

// NewMatchClock returns a MatchClock that ends matches by cfg.
func NewMatchClock(cfg MatchConfig) *MatchClock { return &MatchClock{cfg: cfg} }

// Check returns why match number match is over at now (ErrFullTime,
// ErrIdle, ErrNobodyCame), once per match, or nil.
func (m *MatchClock) Check(now time.Time, s State, match uint64, p Players) error {
	if s != Allocated {
		*m = MatchClock{cfg: m.cfg, joins: p.Joins}
		return nil
	}
	if match != m.match {
		joins := m.joins
		if m.match != 0 { // the match before ended and this one began between two checks
			joins = p.Joins
		}
		*m = MatchClock{cfg: m.cfg, match: match, since: now, joins: joins}
	}
	if m.first.IsZero() && (p.Joins > m.joins || p.Connected > 0) {
		m.first = now
	}
	if p.Connected > 0 || m.first.IsZero() {
		m.emptySince = time.Time{}
	} else if m.emptySince.IsZero() {
		m.emptySince = now
	}
	var err error
	switch {
	case m.over:
	case m.first.IsZero():
		if m.cfg.NobodyCame > 0 && now.Sub(m.since) >= m.cfg.NobodyCame {
			err = ErrNobodyCame
		}
	case m.cfg.Length > 0 && now.Sub(m.first) >= m.cfg.Length:
		err = ErrFullTime
	case !m.emptySince.IsZero() && m.cfg.Idle > 0 && now.Sub(m.emptySince) >= m.cfg.Idle:
		err = ErrIdle
	}
	m.over = m.over || err != nil
	return err
}
