package lab

import (
	"image"
	"image/color"
	"testing"
)

// Every line of every plot shows: drawn with the others, at least
// visiblePixels pixels have its colour (a marker has about 25), in the wan
// preset and in soccer.json. Lines with the same points are drawn once
// (tether's and oracle-players' render delay in soccer.json), lines with
// nearly the same show by style (their present error: the earlier line
// wider, the later one dashed over it) and by their markers, staggered along
// the curve and drawn over every line (velocity, predictive and resim's
// present error on wan, where velocity's line is all but hidden).
func TestPlotLinesVisible(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two scenarios")
	}
	wan, err := Preset("wan")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Scenario{wan, scenarioFile(t, "soccer.json")} {
		rep, err := Run(s, Options{Keep: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range rep.plots() {
			if len(spec.lines) > len(palette) {
				t.Fatalf("%s %s: %d lines, more than the %d colours", s.Name, spec.file, len(spec.lines), len(palette))
			}
			none := plotImage(t, spec, len(spec.lines)) // the legend's swatches alone
			full := plotImage(t, spec, -1)
			for i, l := range spec.lines {
				c := palette[i]
				alone := colourPixels(plotImage(t, spec, i), c) - colourPixels(none, c)
				shown := colourPixels(full, c) - colourPixels(none, c)
				t.Logf("%s %s: %q: %d of %d pixels", s.Name, spec.file, l.label(), shown, alone)
				if alone < visiblePixels || shown < visiblePixels {
					t.Errorf("%s %s: line %q shows %d of its %d pixels", s.Name, spec.file, l.label(), shown, alone)
				}
			}
		}
	}
}

// visiblePixels is how many pixels of a line's colour make it visible: four
// of its markers.
const visiblePixels = 100

// plotImage draws spec with its line only alone (all with -1, none with
// len(spec.lines)).
func plotImage(t *testing.T, spec plotSpec, only int) image.Image {
	t.Helper()
	c, err := drawPlot(spec, only)
	if err != nil {
		t.Fatal(err)
	}
	return c.Image()
}

// colourPixels counts the pixels of img within a small distance of c.
func colourPixels(img image.Image, c color.Color) int {
	r0, g0, b0, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, r0) && near(g, g0) && near(bl, b0) {
				n++
			}
		}
	}
	return n
}

func near(a, b uint32) bool { return max(a, b)-min(a, b) < 0x1800 }
