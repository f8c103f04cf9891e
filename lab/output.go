package lab

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"
)

// WriteTable prints the report as aligned text tables, one row per client:
// the clock and traffic, the ball, in the soccer game the other players,
// the own kicks and the own player, and in a game on the replication layer
// its entities, a table per kind. A figure that was not measured prints as
// "-", and a column no client measured is left out; report.md's definitions
// say what each column is.
func WriteTable(w io.Writer, r *Report) error {
	s := r.Scenario
	fmt.Fprintf(w, "scenario %s: game %s, seed %d, %g s, tick %d Hz, snapshots %d Hz, frames %d Hz\n",
		s.Name, s.Game, s.Seed, s.DurationS, s.TickHz, s.SnapshotHz, s.FrameHz)
	rows := make([]*Result, len(r.Results))
	for i := range r.Results {
		rows[i] = &r.Results[i]
	}
	// The lab's soccer clients send the clock's pings and pongs in the
	// datagrams of inputs and snapshots: its own traffic is not told apart.
	clockBytes := s.Game != GameSoccer || r.clients == nil
	tables := [][]column{clockColumns(clockBytes), ballColumns(), soccerColumns()}
	if s.Game == GameArena || s.Game == GameCrowd {
		tables = [][]column{clockColumns(false), arenaColumns(), crowdColumns()}
	}
	for _, cols := range tables {
		if err := writeColumns(w, rows, cols); err != nil {
			return err
		}
	}
	kinds := 0
	for _, res := range rows {
		kinds = max(kinds, len(res.Entities))
	}
	for k := range kinds {
		if err := writeColumns(w, rows, entityColumns(k)); err != nil {
			return err
		}
	}
	var own []*Result
	for _, res := range rows {
		if res.Own != nil {
			own = append(own, res)
		}
	}
	if err := writeColumns(w, own, ownColumns()); err != nil {
		return err
	}
	for _, res := range rows {
		if res.BallMethod == BallOracle || res.BallMethod == BallOraclePlayers {
			fmt.Fprintf(w, "\n%s\n", oracleNote)
			break
		}
	}
	return nil
}

// oracleNote says what the oracle is wherever a table shows it.
const oracleNote = `oracle is a reference, not a client method: it shows the present, the server's exact state
from one mean one-way delay ago advanced to now by the exact physics, knowing no kick made
since. Compare its present error with the methods that show the present (velocity,
predictive, resim); its fidelity is its present error, as it claims to show now.
oracle-players is the other reference (soccer): tether's frames at tether's render delay, but
past the newest snapshot it draws the true ball, as a client knowing every player's future
would: the best an interpolating client can do at that delay.`

// column is one column of a text table: its header, and the cell of a
// result, with ok false when that result did not measure it.
type column struct {
	head string
	cell func(res *Result) (text string, ok bool)
}

// writeColumns prints a table of rows with the columns at least one row
// measured, "-" in the cells of the others; the first two columns (which
// client) always print, and the table not at all if no other column does.
func writeColumns(w io.Writer, rows []*Result, cols []column) error {
	var keep []column
	for i, c := range cols {
		measured := i < 2
		for _, res := range rows {
			if _, ok := c.cell(res); ok {
				measured = true
				break
			}
		}
		if measured {
			keep = append(keep, c)
		}
	}
	if len(rows) == 0 || len(keep) <= 2 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, c := range keep {
		fmt.Fprintf(tw, "%s\t", c.head)
	}
	fmt.Fprintln(tw)
	for _, res := range rows {
		for _, c := range keep {
			text, ok := c.cell(res)
			if !ok {
				text = "-"
			}
			fmt.Fprintf(tw, "%s\t", text)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// text and the helpers below make cells.
func text(f func(*Result) string) func(*Result) (string, bool) {
	return func(res *Result) (string, bool) { return f(res), true }
}

func num(format string, x float64, ok bool) (string, bool) {
	if !ok {
		return "", false
	}
	return fmt.Sprintf(format, x), true
}

func count(n int, ok bool) (string, bool) {
	if !ok {
		return "", false
	}
	return strconv.Itoa(n), true
}

func optStat(s *Stat, f func(Stat) float64, format string) (string, bool) {
	if s == nil {
		return "", false
	}
	return num(format, f(*s), true)
}

func optCount(n *int) (string, bool) {
	if n == nil {
		return "", false
	}
	return count(*n, true)
}

var (
	clientCol = column{"client", text(func(res *Result) string { return res.Client })}
	ballCol   = column{"ball", text(func(res *Result) string { return res.BallMethod })}
	p99       = func(s Stat) float64 { return s.P99 }
)

// clockColumns are the clock's figures and the traffic; clockBytes says
// whether the clock's own traffic was measured.
func clockColumns(clockBytes bool) []column {
	return []column{
		clientCol,
		{"clock", text(func(res *Result) string { return res.ClockMethod })},
		ballCol,
		{"err p50 ms", func(res *Result) (string, bool) { return num("%.3f", res.Clock.ErrMs.P50, true) }},
		{"err p99 ms", func(res *Result) (string, bool) { return num("%.3f", res.Clock.ErrMs.P99, true) }},
		{"err max ms", func(res *Result) (string, bool) { return num("%.3f", res.Clock.ErrMs.Max, true) }},
		{"backsteps", func(res *Result) (string, bool) { return count(res.Clock.Backsteps, true) }},
		{"max rate ppm", func(res *Result) (string, bool) {
			return num("%.0f", deref(res.Clock.MaxRatePPM), res.Clock.MaxRatePPM != nil)
		}},
		{"converge s", func(res *Result) (string, bool) {
			if res.Clock.ConvergeS < 0 {
				return "never", true
			}
			return num("%.2f", res.Clock.ConvergeS, true)
		}},
		{"coverage", func(res *Result) (string, bool) {
			return num("%.4f", deref(res.Clock.BoundCoverage), res.Clock.BoundCoverage != nil)
		}},
		{"clock up kbps", func(res *Result) (string, bool) { return num("%.2f", res.Net.ClockUpKbps, clockBytes) }},
		{"clock down kbps", func(res *Result) (string, bool) { return num("%.2f", res.Net.ClockDownKbps, clockBytes) }},
		{"up kbps", func(res *Result) (string, bool) { return num("%.1f", res.Net.UpKbps, true) }},
		{"down kbps", func(res *Result) (string, bool) { return num("%.1f", res.Net.DownKbps, true) }},
	}
}

// ballColumns are the ball's figures. Fidelity and pops are measured over
// the frames outside teleports and blackouts, the present error over those
// outside teleports, the rest over every frame that drew the ball.
func ballColumns() []column {
	fid := func(b *BallMetrics) bool { return b.Frames-b.TeleportFrames-b.BlackoutFrames > 0 }
	return []column{
		clientCol, ballCol,
		{"fidelity p99 m", func(res *Result) (string, bool) { return num("%.4f", res.Ball.FidelityM.P99, fid(&res.Ball)) }},
		{"fidelity max m", func(res *Result) (string, bool) { return num("%.4f", res.Ball.FidelityM.Max, fid(&res.Ball)) }},
		{"present rms m", func(res *Result) (string, bool) {
			return num("%.4f", res.Ball.PresentM.RMS, res.Ball.Frames > res.Ball.TeleportFrames)
		}},
		{"delay mean ms", func(res *Result) (string, bool) { return num("%.1f", res.Ball.DelayMs.Mean, res.Ball.Frames > 0) }},
		{"pops", func(res *Result) (string, bool) { return count(res.Ball.Pops, fid(&res.Ball)) }},
		{"extrap frames", func(res *Result) (string, bool) { return count(res.Ball.ExtrapFrames, res.Ball.Frames > 0) }},
		{"frozen frames", func(res *Result) (string, bool) { return count(res.Ball.FrozenFrames, fid(&res.Ball)) }},
		{"resim ticks/s", func(res *Result) (string, bool) {
			return num("%.0f", deref(res.Ball.ResimTicks), res.Ball.ResimTicks != nil)
		}},
	}
}

// soccerColumns are the soccer game's other players and own kicks.
func soccerColumns() []column {
	others := func(res *Result) bool { return res.Others != nil && res.Others.Samples > 0 }
	return []column{
		clientCol, ballCol,
		{"others present rms m", func(res *Result) (string, bool) { return num("%.4f", deref(res.Others).PresentM.RMS, others(res)) }},
		{"others pops", func(res *Result) (string, bool) { return count(deref(res.Others).Pops, others(res)) }},
		{"kicks", func(res *Result) (string, bool) { return optCount(res.Ball.Kicks) }},
		{"kick visible max frames", func(res *Result) (string, bool) {
			return optStat(res.Ball.KickVisibleFrames, func(s Stat) float64 { return s.Max }, "%.0f")
		}},
		{"kick correction p99 m", func(res *Result) (string, bool) { return optStat(res.Ball.KickCorrectionM, p99, "%.3f") }},
		{"kick lag mean ms", func(res *Result) (string, bool) {
			return optStat(res.Ball.KickLagMs, func(s Stat) float64 { return s.Mean }, "%.1f")
		}},
		{"kick origin p99 m", func(res *Result) (string, bool) { return optStat(res.Ball.KickOriginM, p99, "%.3f") }},
		{"kicks predicted", func(res *Result) (string, bool) { return optCount(res.Ball.KicksPredicted) }},
		{"kicks refuted", func(res *Result) (string, bool) {
			return count(deref(res.Ball.KicksRefuted), res.Ball.KicksPredicted != nil)
		}},
	}
}

// ownColumns are the soccer game's own player; a player the client does not
// predict has no corrections, and its present error and pops are not
// measured.
func ownColumns() []column {
	return []column{
		clientCol, ballCol,
		{"predicted", text(func(res *Result) string { return strconv.FormatBool(res.Own.Predicted) })},
		{"own corrections/min", func(res *Result) (string, bool) { return num("%.1f", res.Own.CorrectionsPerMin, res.Own.Predicted) }},
		{"correction p99 m", func(res *Result) (string, bool) { return num("%.3f", res.Own.CorrectionM.P99, res.Own.Corrections > 0) }},
		{"own present rms m", func(res *Result) (string, bool) { return num("%.4f", res.Own.PresentM.RMS, res.Own.Frames > 0) }},
		{"own pops", func(res *Result) (string, bool) { return count(res.Own.Pops, res.Own.Frames > 0) }},
		{"input-to-visible max frames", func(res *Result) (string, bool) {
			return num("%.0f", math.Max(0, res.Own.InputDelayFrames.Max), true)
		}},
		{"first predicted s", func(res *Result) (string, bool) {
			return num("%.2f", res.Own.FirstPredictedS, res.Own.FirstPredictedS > 0)
		}},
		{"inputs lost", func(res *Result) (string, bool) { return count(res.Own.InputsLost, true) }},
	}
}

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// TraceWriter writes one CSV row per client frame.
type TraceWriter struct {
	w      *bufio.Writer
	header bool
	buf    []byte
}

// NewTraceWriter returns a TraceWriter writing to w; call Flush at the end.
func NewTraceWriter(w io.Writer) *TraceWriter { return &TraceWriter{w: bufio.NewWriter(w)} }

// traceHeader names the columns: local_s is the client's own clock; times in seconds, bound in milliseconds,
// positions in metres. A field with no value is empty: estimate_s before the clock is ready, bound_ms where the
// method reports none, render_time_s and rendered_* in frames that drew no ball.
const traceHeader = "local_s,client,server_time_s,estimate_s,ready,bound_ms,render_time_s,rendered_x,rendered_y,rendered_z,true_x,true_y,true_z\n"

// Write appends row; errors surface at Flush.
func (t *TraceWriter) Write(row TraceRow) {
	if !t.header {
		t.w.WriteString(traceHeader)
		t.header = true
	}
	b := t.buf[:0]
	secs := func(d time.Duration) { b = strconv.AppendFloat(b, d.Seconds(), 'f', 9, 64); b = append(b, ',') }
	num := func(x float64) { b = strconv.AppendFloat(b, x, 'g', -1, 64); b = append(b, ',') }
	secs(row.Local)
	b = append(b, row.Client...)
	b = append(b, ',')
	secs(row.ServerTime)
	if row.Ready {
		secs(row.Estimate)
	} else {
		b = append(b, ',')
	}
	b = strconv.AppendBool(b, row.Ready)
	b = append(b, ',')
	if row.Bound < 0 {
		b = append(b, ',')
	} else {
		num(durMs(row.Bound))
	}
	if row.Drawn {
		secs(row.RenderTime)
		for _, x := range row.Rendered {
			num(x)
		}
	} else {
		b = append(b, ",,,,"...)
	}
	for _, x := range row.True {
		num(x)
	}
	b[len(b)-1] = '\n'
	t.buf = b
	t.w.Write(b)
}

// Flush writes out buffered rows and reports the first write error.
func (t *TraceWriter) Flush() error { return t.w.Flush() }
