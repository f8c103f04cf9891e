package lab

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// series is one line of a plot: y against true time in seconds.
type series struct {
	name string
	xy   plotter.XYs
}

// WriteReportDir writes report.md and its PNG plots into dir, creating it.
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
		fmt.Fprintf(&md, "## %s\n\n![%s](%s)\n\n", p.title, p.title, p.file)
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644)
}

type plotSpec struct {
	file, title, ylabel string
	log                 bool // logarithmic y axis
	lines               []series
}

func (r *Report) plots() []plotSpec {
	clockErr := plotSpec{file: "clock_error.png", title: "Clock error over time", ylabel: "|estimate - server time - asymmetry| (ms, log)", log: true}
	ballErr := plotSpec{file: "ball_error.png", title: "Ball fidelity error over time", ylabel: "|drawn - true at render time| (m, log)", log: true}
	delay := plotSpec{file: "render_delay.png", title: "Render delay over time", ylabel: "server time now - render time (ms)"}
	for _, c := range r.clients {
		ck := series{name: c.spec.Name + " (" + c.spec.Clock + ")"}
		be := series{name: c.spec.Name + " (" + c.spec.Ball + ")"}
		dl := series{name: be.name}
		for _, f := range c.frames {
			x := f.t.Seconds()
			if f.ready {
				ck.xy = append(ck.xy, plotter.XY{X: x, Y: max(0.001, math.Abs(durMs(f.est-f.t-c.asym)))})
			}
			if f.ball.ok && f.t >= warmUp {
				e := f.ball.pos.Dist(r.truth.at(f.ball.renderTime))
				be.xy = append(be.xy, plotter.XY{X: x, Y: max(1e-4, e)})
				dl.xy = append(dl.xy, plotter.XY{X: x, Y: durMs(f.t - f.ball.renderTime)})
			}
		}
		clockErr.lines = append(clockErr.lines, ck)
		ballErr.lines = append(ballErr.lines, be)
		delay.lines = append(delay.lines, dl)
	}
	return []plotSpec{clockErr, ballErr, delay}
}

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x7f, 0x7f, 0x7f, 0xff},
}

func savePlot(path string, spec plotSpec) error {
	p := plot.New()
	p.Title.Text = spec.title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = spec.ylabel
	if spec.log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	for i, s := range spec.lines {
		if len(s.xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return err
		}
		l.Color = palette[i%len(palette)]
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Legend.Top = true
	return p.Save(10*vg.Inch, 4*vg.Inch, path)
}
