package lab

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/tether-net/tether/measure"
)

// WriteReportDir writes report.md and its PNG plots into dir, creating it:
// the tables, one plot per metric, and the definitions of every column.
func WriteReportDir(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# Lab report: %s\n\n", r.Scenario.Name)
	md.WriteString("```\n")
	if err := WriteTable(&md, r); err != nil {
		return err
	}
	md.WriteString("```\n\n")
	for _, p := range r.plots() {
		if err := savePlot(filepath.Join(dir, p.file), p); err != nil {
			return fmt.Errorf("tether/lab: plot %s: %w", p.file, err)
		}
		fmt.Fprintf(&md, "## %s\n\n%s\n\n![%s](%s)\n\n", p.title, p.caption, p.title, p.file)
	}
	if b := r.bandwidthPlot(); b != nil {
		if err := saveBars(filepath.Join(dir, b.file), b); err != nil {
			return fmt.Errorf("tether/lab: plot %s: %w", b.file, err)
		}
		fmt.Fprintf(&md, "## %s\n\n%s\n\n![%s](%s)\n\n", b.title, b.caption, b.title, b.file)
	}
	md.WriteString(definitions)
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644)
}

// series is one line of a plot: the methods and clients it stands for
// (clients whose points are identical share one line).
type series struct {
	methods, clients []string
	xy               plotter.XYs
}

// label names the line by its methods, and by its clients where their
// names are not the methods'.
func (s series) label() string {
	l := strings.Join(s.methods, ", ")
	if !slices.Equal(s.methods, s.clients) {
		l += " (" + strings.Join(s.clients, ", ") + ")"
	}
	return l
}

type plotSpec struct {
	file, title, caption string
	xlabel, ylabel       string
	logX, logY           bool
	step                 bool // lines are steps: flat to the next point, then up or down to it
	lines                []series
	// empty are the methods with no points (no pops, say), which the legend
	// names after emptyLabel.
	empty      []string
	emptyLabel string
}

// Errors below floorM metres (or floorMs milliseconds) are drawn at it on
// the logarithmic axes.
const (
	floorM  = 1e-4
	floorMs = 1e-3
)

// plots returns the report's line plots, each titled with the scenario and
// its seed, and its lines labelled by method: the clock plot by the clients'
// clock methods, the others by their ball methods.
func (r *Report) plots() []plotSpec {
	of := fmt.Sprintf(": %s, seed %d", r.Scenario.Name, r.Scenario.Seed)
	clockErr := plotSpec{file: "clock_error.png", title: "Clock error over time" + of,
		caption: fmt.Sprintf("The clock error (err ms in the table) at every frame that had an estimate; below %g ms drawn at %g ms. Lines are labelled by clock method, with the clients that used it where their names differ; clients whose clocks erred alike share a line.", floorMs, floorMs),
		xlabel:  "true time (s)", ylabel: "clock error (ms)", logY: true}
	fidelity := plotSpec{file: "ball_fidelity.png", title: "Ball fidelity error" + of,
		caption: fmt.Sprintf("The share of frames (after the warm-up, outside teleports and blackouts) whose fidelity error, |drawn - true ball at the render time|, is x or more; below %g mm drawn at %g mm. Lower and further left is better; where a line crosses 0.01 is its p99.", floorM*1e3, floorM*1e3),
		xlabel:  "fidelity error (m)", ylabel: "share of frames with error ≥ x", logX: true, logY: true}
	present := plotSpec{file: "ball_present.png", title: "Ball present error" + of,
		caption: fmt.Sprintf("The share of frames (after the warm-up, outside teleports) whose present error, |drawn - true ball now|, is x or more: how far from the ball the player sees it; below %g mm drawn at %g mm.", floorM*1e3, floorM*1e3),
		xlabel:  "present error (m)", ylabel: "share of frames with error ≥ x", logX: true, logY: true}
	pops := plotSpec{file: "ball_pops.png", title: "Ball pops over time" + of,
		caption: "The pops (pops in the table: frames whose drawn motion differs from the true motion by more than 5 cm) counted so far, at the true time of each. A method that shows the present counts a pop at every kick it learns of late: compare it with the oracle.",
		xlabel:  "true time (s)", ylabel: "pops so far", logY: true, step: true, emptyLabel: "no pops: "}
	delay := plotSpec{file: "render_delay.png", title: "Render delay over time" + of,
		caption: "True server time minus the server time the ball is drawn at (delay ms in the table), at every frame after the warm-up that drew the ball.",
		xlabel:  "true time (s)", ylabel: "render delay (ms)"}
	for _, c := range r.clients {
		var ck, dl, pp plotter.XYs
		var fid, pres []float64
		for _, f := range c.frames {
			x := f.t.Seconds()
			if f.ready {
				ck = append(ck, plotter.XY{X: x, Y: max(floorMs, math.Abs(durMs(f.est-f.t-c.asym)))})
			}
			if !f.ball.OK || f.t < warmUp {
				continue
			}
			dl = append(dl, plotter.XY{X: x, Y: durMs(f.t - f.ball.RenderTime)})
			if r.truth.CutWithin(f.t, measure.TeleportSpan) {
				continue
			}
			pres = append(pres, max(floorM, f.ball.Pos.Dist(r.truth.At(f.t))))
			if !c.blackouts.In(f.t) && !c.blackouts.In(f.ball.RenderTime) {
				fid = append(fid, max(floorM, f.ball.Pos.Dist(r.truth.At(f.ball.RenderTime))))
			}
		}
		for i, t := range c.pops {
			pp = append(pp, plotter.XY{X: t.Seconds(), Y: float64(i + 1)})
		}
		name, ball := c.spec.Name, c.spec.Ball
		if len(pp) > 0 {
			pp = append(pp, plotter.XY{X: r.Scenario.DurationS, Y: float64(len(pp))})
		} else if !slices.Contains(pops.empty, ball) {
			pops.empty = append(pops.empty, ball)
		}
		clockErr.add(c.spec.Clock, name, ck)
		delay.add(ball, name, dl)
		fidelity.add(ball, name, exceedance(fid))
		present.add(ball, name, exceedance(pres))
		pops.add(ball, name, pp)
	}
	return []plotSpec{clockErr, fidelity, present, pops, delay}
}

// add adds client's line, drawn by method, to the plot, or its names to a
// line with the same points: identical series are drawn once, labelled with
// every method and client.
func (p *plotSpec) add(method, client string, xy plotter.XYs) {
	if len(xy) == 0 {
		return
	}
	for i := range p.lines {
		if l := &p.lines[i]; slices.Equal(l.xy, xy) {
			if !slices.Contains(l.methods, method) {
				l.methods = append(l.methods, method)
			}
			l.clients = append(l.clients, client)
			return
		}
	}
	p.lines = append(p.lines, series{methods: []string{method}, clients: []string{client}, xy: xy})
}

// exceedance returns the share of xs at least x, at each sample x: a
// complementary CDF, which on a logarithmic axis shows the tail (where a line
// crosses 0.01 is the p99). It sorts xs.
func exceedance(xs []float64) plotter.XYs {
	slices.Sort(xs)
	xy := make(plotter.XYs, len(xs))
	for i, x := range xs {
		xy[i] = plotter.XY{X: x, Y: float64(len(xs)-i) / float64(len(xs))}
	}
	return xy
}

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x7f, 0x7f, 0x7f, 0xff},
}

// dashes are the lines' patterns, in turn: solid, dashed, dotted,
// dash-dotted.
var dashes = [][]vg.Length{nil, {vg.Points(7), vg.Points(3)}, {vg.Points(2), vg.Points(2.5)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

// shapes are the lines' markers, in turn: filled, so that each shows its
// colour.
var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

// markersPerLine is how many markers a line carries: few enough that the
// markers of eight lines along the same curve do not overlap.
const markersPerLine = 8

// markers returns where line i of n of spec carries its markers: evenly
// spaced along its length as drawn (on the plot's scales), the lines'
// markers staggered, so that a line drawn under another with nearly the
// same points still shows by its own.
func (spec *plotSpec) markers(i, n int) plotter.XYs {
	xy := spec.lines[i].xy
	scale := func(v float64, log bool) float64 {
		if log {
			return math.Log10(v)
		}
		return v
	}
	var lo, hi [2]float64
	for k := range lo {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
	}
	for _, l := range spec.lines {
		for _, p := range l.xy {
			x, y := scale(p.X, spec.logX), scale(p.Y, spec.logY)
			lo[0], hi[0] = min(lo[0], x), max(hi[0], x)
			lo[1], hi[1] = min(lo[1], y), max(hi[1], y)
		}
	}
	span := func(k int) float64 { return max(hi[k]-lo[k], 1e-12) }
	// The length of the line as drawn, each axis counted as 1, up to each point.
	along := make([]float64, len(xy))
	for j := 1; j < len(xy); j++ {
		dx := (scale(xy[j].X, spec.logX) - scale(xy[j-1].X, spec.logX)) / span(0)
		dy := (scale(xy[j].Y, spec.logY) - scale(xy[j-1].Y, spec.logY)) / span(1)
		along[j] = along[j-1] + math.Hypot(dx, dy)
	}
	total := along[len(along)-1]
	var out plotter.XYs
	for m := range markersPerLine {
		at := (float64(m) + float64(i+1)/float64(n+1)) / markersPerLine * total
		j, _ := slices.BinarySearch(along, at)
		out = append(out, xy[min(j, len(xy)-1)])
	}
	return out
}

// lineStyle is the style of line i of n: its own colour and dash pattern,
// and a width that narrows in drawing order, so that a line drawn over one
// with the same points leaves the earlier one showing on either side and
// through its gaps.
func lineStyle(i, n int) draw.LineStyle {
	return draw.LineStyle{
		Color:  palette[i%len(palette)],
		Width:  vg.Points(1.3 + 0.7*float64(n-1-i)),
		Dashes: dashes[i%len(dashes)],
	}
}

// Plot size: the data on the left, the legend in a column on the right.
const (
	plotWidth  = 10 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// savePlot draws spec as a PNG at path, its legend outside the data.
func savePlot(path string, spec plotSpec) error {
	img, err := drawPlot(spec, -1)
	if err != nil {
		return err
	}
	return savePNG(path, img)
}

// drawPlot draws spec's lines, or its line only alone if only >= 0 (the
// others transparent, so that the axes and legend are the same), each in the
// style of its place among all of them.
func drawPlot(spec plotSpec, only int) (*vgimg.Canvas, error) {
	p := plot.New()
	p.Title.Text = spec.title
	p.X.Label.Text = spec.xlabel
	p.Y.Label.Text = spec.ylabel
	if spec.logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if spec.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.Padding = 0.05 * vg.Inch
	legend.ThumbnailWidth = 0.6 * vg.Inch
	// The lines, then every line's markers over them all.
	var marks []plot.Plotter
	for i, s := range spec.lines {
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return nil, err
		}
		l.LineStyle = lineStyle(i, len(spec.lines))
		if spec.step {
			l.StepStyle = plotter.PostStep
		}
		m, err := plotter.NewScatter(spec.markers(i, len(spec.lines)))
		if err != nil {
			return nil, err
		}
		m.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(3), Shape: shapes[i%len(shapes)]}
		legend.Add(s.label(), l, m)
		if only >= 0 && only != i {
			hiddenLine, hiddenMarks := *l, *m
			hiddenLine.Color, hiddenMarks.GlyphStyle.Color = color.Transparent, color.Transparent
			l, m = &hiddenLine, &hiddenMarks
		}
		p.Add(l)
		marks = append(marks, m)
	}
	p.Add(marks...)
	if len(spec.lines) == 0 { // an empty plot's log axes still need a range
		if spec.logX {
			p.X.Min, p.X.Max = 1, 10
		}
		if spec.logY {
			p.Y.Min, p.Y.Max = 1, 10
		}
	}
	if len(spec.empty) > 0 {
		legend.Add(spec.emptyLabel + strings.Join(spec.empty, ", "))
	}
	img := vgimg.New(plotWidth, plotHeight)
	dc := draw.New(img)
	lw := legend.Rectangle(dc).Size().X + 0.3*vg.Inch
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	// The legend's column starts level with the top of the data.
	legend.Draw(draw.Crop(dc, plotWidth-lw+0.15*vg.Inch, 0, 0, -0.45*vg.Inch))
	return img, nil
}

// savePNG writes img to path as a PNG.
func savePNG(path string, img *vgimg.Canvas) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// barSpec is a plot of stacked horizontal bars: one row per label, one
// stack per kind.
type barSpec struct {
	file, title, caption string
	xlabel               string
	rows                 []string
	kinds                []string
	values               [][]float64 // values[kind][row]
}

// bandwidthPlot returns the plot of every client's traffic by kind, down
// and up, or nil if the run did not split it by kind. Kinds no client sent
// are left out.
func (r *Report) bandwidthPlot() *barSpec {
	b := &barSpec{file: "bandwidth.png", title: fmt.Sprintf("Bandwidth by kind: %s, seed %d", r.Scenario.Name, r.Scenario.Seed),
		caption: "Every client's traffic on the wire (down kbps and up kbps in the table), kilobits per second, split by what the bytes carried: the messages of each kind, and headers (every datagram's IPv4, UDP and netcode headers, the reliable channel's framing and resends).",
		xlabel:  "kbps"}
	all := [][]float64{}
	for _, res := range r.Results {
		for _, dir := range []struct {
			name  string
			kinds *NetKinds
		}{{"down", res.Net.Down}, {"up", res.Net.Up}} {
			if dir.kinds == nil {
				continue
			}
			k := dir.kinds
			b.rows = append(b.rows, res.Client+" "+dir.name)
			all = append(all, []float64{k.Snapshots, k.Inputs, k.Acks, k.Replies, k.Clock, k.Events, k.Headers})
		}
	}
	if len(b.rows) == 0 {
		return nil
	}
	for i, kind := range []string{"snapshots", "inputs", "acks", "replies", "clock", "events", "headers"} {
		col := make([]float64, len(all))
		sent := false
		for j, row := range all {
			col[j] = row[i]
			sent = sent || row[i] > 0
		}
		if sent {
			b.kinds = append(b.kinds, kind)
			b.values = append(b.values, col)
		}
	}
	return b
}

// saveBars draws spec as a PNG at path: the first row at the top, the
// legend on the right.
func saveBars(path string, spec *barSpec) error {
	p := plot.New()
	p.Title.Text = spec.title
	p.X.Label.Text = spec.xlabel
	p.Add(plotter.NewGrid())
	rows := slices.Clone(spec.rows)
	slices.Reverse(rows)
	p.NominalY(rows...)
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.Padding = 0.05 * vg.Inch
	var below *plotter.BarChart
	for i, kind := range spec.kinds {
		vals := slices.Clone(spec.values[i])
		slices.Reverse(vals)
		bc, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(9))
		if err != nil {
			return err
		}
		bc.Horizontal = true
		bc.Color = palette[i%len(palette)]
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		legend.Add(kind, bc)
	}
	height := max(plotHeight, vg.Points(14*float64(len(rows))+90))
	img := vgimg.New(plotWidth, height)
	dc := draw.New(img)
	lw := legend.Rectangle(dc).Size().X + 0.3*vg.Inch
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	legend.Draw(draw.Crop(dc, plotWidth-lw+0.15*vg.Inch, 0, 0, -0.45*vg.Inch))
	return savePNG(path, img)
}
