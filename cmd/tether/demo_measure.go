package main

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/game/soccer/match/page"
	"github.com/tether-net/tether/lab"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netsim"
)

// The demo measures its clients live as the lab does (match.Meter, package
// measure's meters fed from the match's hooks), against the lab's truth of
// the soccer ball (match.BallTruth): frames before demoWarmUp of server time
// are left out.
const (
	demoWarmUp = 2 * time.Second
	// keepTruth is how much of the ball's trajectory a run without a
	// report holds behind its newest tick, for the page's figures. A run
	// with a report holds all of it, which the own kicks are measured
	// against at the end.
	keepTruth = 10 * time.Second
)

// recorder feeds the match's hooks to the meter, which measures every bot
// for the report (report set) and holds the ball's truth, and to the page
// if there is one. Its hooks are called from the server's goroutine
// (onTick, onMove) and the bots' (onFrame, onCorrection).
type recorder struct {
	meter  *match.Meter
	page   *page.Page // nil headless
	report bool
	live   atomic.Pointer[match.Live]
}

// newRecorder returns the recorder of bots on links, predicting their own
// players or not, measuring them for a report or for a page.
func newRecorder(links []netsim.LinkConfig, predicts, report bool) *recorder {
	r := &recorder{report: report}
	mc := match.MeterConfig{WarmUp: demoWarmUp, TickHz: lab.DefaultTickHz}
	for _, l := range links {
		mc.Bots = append(mc.Bots, match.MeteredBot{Link: measure.LinkOf(l), Predicts: predicts})
	}
	if !report {
		mc.KeepBall = keepTruth
	}
	var err error
	if r.meter, err = match.NewMeter(mc); err != nil {
		panic(err) // the default rules and tick rate
	}
	return r
}

// onTick measures the server's match after a tick (on the server's
// goroutine, which runs the game: its counters are ours to read).
func (r *recorder) onTick(t *soccer.Truth) {
	var kicks uint64
	if live := r.live.Load(); live != nil {
		kicks = live.Game().Stats().Kicks
	}
	r.meter.Tick(t, kicks)
	if r.page != nil {
		r.page.Tick(t)
	}
}

// onMove takes a move of bot b's predicted player the server applied.
func (r *recorder) onMove(b *match.Bot, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	if r.report {
		r.meter.Moved(b, m, s)
	}
}

// onCorrection takes an adjustment or reset bot b's prediction applied.
func (r *recorder) onCorrection(b *match.Bot, corr movement.Correction) {
	if live := r.live.Load(); live != nil && r.report {
		r.meter.Corrected(b, live.Server().Now(), corr)
	}
}

// onFrame measures a bot's frame (on the bot's goroutine) and shows it.
func (r *recorder) onFrame(b *match.Bot, f *client.Frame, v *soccer.View) {
	if r.report {
		r.meter.Frame(b, f)
	}
	if r.page != nil {
		r.page.Frame(b, f, v)
	}
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// roundTo keeps places decimals.
func roundTo(x float64, places int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}
