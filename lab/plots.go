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
	for _, c := range r.clients {
		s := series{name: c.spec.Name + " (" + c.spec.Clock + ")"}
		for _, f := range c.frames {
			if f.ready {
				s.xy = append(s.xy, plotter.XY{X: f.t.Seconds(), Y: max(0.001, math.Abs(durMs(f.est-f.t-c.asym)))})
			}
		}
		clockErr.lines = append(clockErr.lines, s)
	}
	return []plotSpec{clockErr}
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
