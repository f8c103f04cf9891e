package lab

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	gdrill "github.com/tether-net/tether/game/drill"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/timeline"
)

// SweepRow is one client's figures at one setting of the render delay's knob
// (Scenario.LateShare), pooled over the seeds of a sweep.
type SweepRow struct {
	// LateShare is the setting; 0 is the game's default.
	LateShare float64 `json:"late_share"`
	Client    string  `json:"client"`
	Ball      string  `json:"ball_method"`
	Seeds     int     `json:"seeds"`
	// DelayMeanMs is the mean render delay over every frame the runs
	// measured, milliseconds; PresentRMSM the rms of the present error over
	// them, metres (see report.md's definitions).
	DelayMeanMs float64 `json:"delay_mean_ms"`
	PresentRMSM float64 `json:"present_rms_m"`
	// PopsPerMin is the pops of every run over their measured minutes.
	PopsPerMin float64 `json:"pops_per_min"`
	// FidelityP99M is the fidelity error's 99th percentile over every frame
	// measured, metres.
	FidelityP99M float64 `json:"fidelity_p99_m"`
	// LateFrames is the share of the frames measured that drew the ball past
	// the newest state received: what LateShare aims at (the tether
	// method's; the ball's timeline shares the render clock that LateShare
	// sets).
	LateFrames float64 `json:"late_frames"`
}

// Sweep runs scenario s once per seed at every setting of its render delay's
// knob (Scenario.LateShare; 0 is the game's default) and returns each
// client's figures at each setting, pooled over the seeds, settings in the
// order given. progress, if set, is called after every run with the share
// of the runs done.
func Sweep(s Scenario, shares []float64, seeds []uint64, progress func(float64)) ([]SweepRow, error) {
	if len(shares) == 0 || len(seeds) == 0 {
		return nil, scenarioErr("a sweep needs at least one setting and one seed")
	}
	var rows []SweepRow
	for i, share := range shares {
		s := s
		s.LateShare = share
		pool := make([]measure.BallMeter, len(s.Clients))
		minutes := 0.0
		for j, seed := range seeds {
			s.Seed = seed
			rep, err := Run(s, Options{})
			if err != nil {
				return nil, fmt.Errorf("late share %v, seed %d: %w", share, seed, err)
			}
			for k, c := range rep.clients {
				pool[k].Merge(&c.ballMeter) // measured to the end by Run's report
			}
			minutes += (s.DurationS - warmUp.Seconds()) / 60
			if progress != nil {
				progress(float64(i*len(seeds)+j+1) / float64(len(shares)*len(seeds)))
			}
		}
		for k, c := range s.Clients {
			b := pool[k].Metrics(nil)
			r := SweepRow{
				LateShare: share, Client: c.Name, Ball: c.Ball, Seeds: len(seeds),
				DelayMeanMs: b.DelayMs.Mean, PresentRMSM: b.PresentM.RMS,
				PopsPerMin: measure.Round(float64(b.Pops) / minutes), FidelityP99M: b.FidelityM.P99,
			}
			if b.Frames > 0 {
				r.LateFrames = measure.Round(float64(b.ExtrapFrames) / float64(b.Frames))
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// ParseSweep reads a sweep's settings, "late=0.5,0.2,0.1,default": the
// render delay's knob (Scenario.LateShare) at each value, "default" (or 0)
// for the game's own.
func ParseSweep(spec string) ([]float64, error) {
	values, ok := strings.CutPrefix(spec, "late=")
	if !ok {
		return nil, scenarioErr("sweep %q, want late=SHARE,SHARE,... (the render delay's target share of late frames)", spec)
	}
	var shares []float64
	for v := range strings.SplitSeq(values, ",") {
		if v == "default" {
			shares = append(shares, 0)
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x >= 0 && x < 1) {
			return nil, scenarioErr("sweep value %q, want a share 0 <= x < 1 or default", v)
		}
		shares = append(shares, x)
	}
	return shares, nil
}

// WriteSweep prints a sweep's rows as a text table, one row per setting and
// client.
func WriteSweep(w io.Writer, s Scenario, seeds []uint64, rows []SweepRow) error {
	fmt.Fprintf(w, "sweep of %s: game %s, %g s, %d seeds (%s), figures pooled over the seeds\n\n",
		s.Name, s.Game, s.DurationS, len(seeds), seedList(seeds))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "late share\tclient\tball\tdelay mean ms\tpresent rms m\tpops/min\tfidelity p99 m\tlate frames\t")
	for _, r := range rows {
		share := strconv.FormatFloat(r.LateShare, 'g', -1, 64)
		if r.LateShare == 0 {
			share = fmt.Sprintf("default (%g)", defaultLateShare(s.Game))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.4f\t%.2f\t%.4f\t%.3f\t\n",
			share, r.Client, r.Ball, r.DelayMeanMs, r.PresentRMSM, r.PopsPerMin, r.FidelityP99M, r.LateFrames)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nlate frames: the share of frames drawing the ball past the newest state received.")
	return err
}

// defaultLateShare is the render delay's knob at game's own setting
// (Scenario.LateShare 0).
func defaultLateShare(game string) float64 {
	if game == GameBallDrill {
		return gdrill.LateShare
	}
	return timeline.DefaultLateShare
}

// seedList writes seeds as a range, "1-10", if they are one, else as a
// list.
func seedList(seeds []uint64) string {
	run := len(seeds) > 2
	for i, s := range seeds {
		run = run && s == seeds[0]+uint64(i)
	}
	if run {
		return fmt.Sprintf("%d-%d", seeds[0], seeds[len(seeds)-1])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, ",")
}
