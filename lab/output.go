package lab

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// WriteTable prints the report as an aligned text table, one row per client.
func WriteTable(w io.Writer, r *Report) error {
	s := r.Scenario
	fmt.Fprintf(w, "scenario %s: game %s, seed %d, %g s, tick %d Hz, snapshots %d Hz, frames %d Hz\n\n",
		s.Name, s.Game, s.Seed, s.DurationS, s.TickHz, s.SnapshotHz, s.FrameHz)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tclock\tball\terr p50 ms\terr p99 ms\terr max ms\tbacksteps\tmax rate ppm\tconverge s\tcoverage\tclock up kbps\tclock down kbps\tdown kbps\t")
	for _, res := range r.Results {
		k := res.Clock
		cov := "-"
		if k.BoundCoverage != nil {
			cov = strconv.FormatFloat(*k.BoundCoverage, 'f', 4, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%d\t%.0f\t%.2f\t%s\t%.2f\t%.2f\t%.1f\t\n",
			res.Client, res.ClockMethod, res.BallMethod, k.ErrMs.P50, k.ErrMs.P99, k.ErrMs.Max,
			k.Backsteps, k.MaxRatePPM, k.ConvergeS, cov, res.Net.ClockUpKbps, res.Net.ClockDownKbps, res.Net.DownKbps)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tball\tfidelity p99 m\tfidelity max m\tpresent rms m\tdelay mean ms\tpops\textrap frames\tfrozen frames\t")
	for _, res := range r.Results {
		b := res.Ball
		fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.4f\t%.4f\t%.1f\t%d\t%d\t%d\t\n",
			res.Client, res.BallMethod, b.FidelityM.P99, b.FidelityM.Max, b.PresentM.RMS, b.DelayMs.Mean, b.Pops, b.ExtrapFrames, b.FrozenFrames)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Game == GameSoccer {
		return writeSoccerTable(w, r)
	}
	return nil
}

// writeSoccerTable prints the soccer game's own figures: the other players,
// the own kicks and the traffic up.
func writeSoccerTable(w io.Writer, r *Report) error {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tball\tothers present rms m\tothers pops\tkicks\tkick visible max frames\tkick correction p99 m\tkick lag mean ms\tkick origin p99 m\tkicks refuted\tup kbps\t")
	opt := func(s *Stat, f func(Stat) float64, format string) string {
		if s == nil {
			return "-"
		}
		return fmt.Sprintf(format, f(*s))
	}
	p99 := func(s Stat) float64 { return s.P99 }
	for _, res := range r.Results {
		b, o := res.Ball, res.Others
		if o == nil {
			o = &OthersMetrics{}
		}
		kicks := 0
		if b.Kicks != nil {
			kicks = *b.Kicks
		}
		refuted := "-"
		if b.KicksPredicted != nil {
			refuted = "0"
			if b.KicksRefuted != nil {
				refuted = fmt.Sprint(*b.KicksRefuted)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4f\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", res.Client, res.BallMethod, o.PresentM.RMS, o.Pops, kicks,
			opt(b.KickVisibleFrames, func(s Stat) float64 { return s.Max }, "%.0f"), opt(b.KickCorrectionM, p99, "%.3f"),
			opt(b.KickLagMs, func(s Stat) float64 { return s.Mean }, "%.1f"), opt(b.KickOriginM, p99, "%.3f"), refuted, res.Net.UpKbps)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeOwnTable(w, r)
}

// TraceWriter writes one CSV row per client frame.
type TraceWriter struct {
	w      *bufio.Writer
	header bool
	buf    []byte
}

// NewTraceWriter returns a TraceWriter writing to w; call Flush at the end.
func NewTraceWriter(w io.Writer) *TraceWriter { return &TraceWriter{w: bufio.NewWriter(w)} }

// traceHeader names the columns: local_s is the client's own clock; times in seconds, bound in milliseconds (-1 when
// the method reports none), positions in metres.
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
	secs(row.Estimate)
	b = strconv.AppendBool(b, row.Ready)
	b = append(b, ',')
	if row.Bound < 0 {
		num(-1)
	} else {
		num(durMs(row.Bound))
	}
	secs(row.RenderTime)
	for _, x := range row.Rendered {
		num(x)
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
