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
	md.WriteString(definitions)
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644)
}

// series is one line of a plot, named by the clients it stands for.
type series struct {
	clients []string
	xy      plotter.XYs
}

type plotSpec struct {
	file, title, caption string
	xlabel, ylabel       string
	logX, logY           bool
	lines                []series
}

// Errors below floorM metres (or floorMs milliseconds) are drawn at it on
// the logarithmic axes.
const (
	floorM  = 1e-4
	floorMs = 1e-3
)

func (r *Report) plots() []plotSpec {
	clockErr := plotSpec{file: "clock_error.png", title: "Clock error over time",
		caption: fmt.Sprintf("The clock error (err ms in the table) at every frame that had an estimate; below %g ms drawn at %g ms. Clients whose clocks erred alike share a line.", floorMs, floorMs),
		xlabel:  "true time (s)", ylabel: "clock error (ms)", logY: true}
	fidelity := plotSpec{file: "ball_fidelity.png", title: "Ball fidelity error",
		caption: fmt.Sprintf("The share of frames (after the warm-up, outside teleports and blackouts) whose fidelity error, |drawn - true ball at the render time|, is x or more; below %g mm drawn at %g mm. Lower and further left is better; where a line crosses 0.01 is its p99.", floorM*1e3, floorM*1e3),
		xlabel:  "fidelity error (m)", ylabel: "share of frames with error ≥ x", logX: true, logY: true}
	present := plotSpec{file: "ball_present.png", title: "Ball present error",
		caption: fmt.Sprintf("The share of frames (after the warm-up, outside teleports) whose present error, |drawn - true ball now|, is x or more: how far from the ball the player sees it; below %g mm drawn at %g mm.", floorM*1e3, floorM*1e3),
		xlabel:  "present error (m)", ylabel: "share of frames with error ≥ x", logX: true, logY: true}
	delay := plotSpec{file: "render_delay.png", title: "Render delay over time",
		caption: "True server time minus the server time the ball is drawn at (delay ms in the table), at every frame after the warm-up that drew the ball.",
		xlabel:  "true time (s)", ylabel: "render delay (ms)"}
	for _, c := range r.clients {
		var ck, dl plotter.XYs
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
		name := c.spec.Name
		clockErr.add(name, ck)
		delay.add(name, dl)
		fidelity.add(name, exceedance(fid))
		present.add(name, exceedance(pres))
	}
	return []plotSpec{clockErr, fidelity, present, delay}
}

// add adds client's line to the plot, or its name to a line with the same
// points: identical series are drawn once, labelled with every client.
func (p *plotSpec) add(client string, xy plotter.XYs) {
	if len(xy) == 0 {
		return
	}
	for i := range p.lines {
		if slices.Equal(p.lines[i].xy, xy) {
			p.lines[i].clients = append(p.lines[i].clients, client)
			return
		}
	}
	p.lines = append(p.lines, series{clients: []string{client}, xy: xy})
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

// Plot size: the data on the left, the legend in a column on the right.
const (
	plotWidth  = 10 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// savePlot draws spec as a PNG at path, its legend outside the data.
func savePlot(path string, spec plotSpec) error {
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
	for i, s := range spec.lines {
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return err
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		p.Add(l)
		legend.Add(strings.Join(s.clients, ", "), l)
	}
	img := vgimg.New(plotWidth, plotHeight)
	dc := draw.New(img)
	lw := legend.Rectangle(dc).Size().X + 0.3*vg.Inch
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	// The legend's column starts level with the top of the data.
	legend.Draw(draw.Crop(dc, plotWidth-lw+0.15*vg.Inch, 0, 0, -0.45*vg.Inch))
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
