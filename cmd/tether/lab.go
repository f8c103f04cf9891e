package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tether-net/tether/internal/privfile"
	"github.com/tether-net/tether/lab"
	"golang.org/x/term"
)

func runLab(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("lab", stderr,
		"usage: tether lab (-scenario NAME | -scenario-file FILE) [-seed N] [-json] [-out DIR] [-trace FILE]",
		"       tether lab -scenario-file FILE -sweep late=SHARE,... [-seeds 1-10] [-json]",
	)
	scenario := fs.String("scenario", "", "built-in scenario: lan, broadband, wan, mobile or lossy")
	file := fs.String("scenario-file", "", "scenario file (JSON)")
	seed := fs.Uint64("seed", 0, "override the scenario's seed")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	out := fs.String("out", "", "write report.md and PNG plots into this directory")
	tracePath := fs.String("trace", "", "write one CSV row per client frame to this file")
	sweep := fs.String("sweep", "", "run the scenario at each setting of the render delay's knob, late=SHARE,... (the target share of frames drawn past the newest snapshot; default for the game's own), and print each client's figures pooled over -seeds")
	seedsFlag := fs.String("seeds", "", "with -sweep, the seeds to pool over: N-M or N,M,... (default: the scenario's seed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadScenario(*scenario, *file)
	if err != nil {
		return err
	}
	if *seed != 0 {
		s.Seed = *seed
	}
	if *sweep != "" || *seedsFlag != "" {
		if *sweep == "" || *out != "" || *tracePath != "" || *seed != 0 {
			return usagef("-seeds goes with -sweep, and -sweep with neither -seed, -out nor -trace")
		}
		return runSweep(s, *sweep, *seedsFlag, *asJSON, stdout, stderr)
	}

	opts := lab.Options{Keep: *out != ""}
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err != nil {
			return err
		}
		defer f.Close()
		tw := lab.NewTraceWriter(f)
		opts.Trace = tw.Write
		defer func() {
			if ferr := tw.Flush(); ferr != nil {
				fmt.Fprintf(stderr, "tether lab: trace: %v\n", ferr)
			}
		}()
	}
	if !*asJSON {
		if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			opts.Progress = progressBar(stderr, s.Name)
		}
	}
	rep, err := lab.Run(s, opts)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := lab.WriteReportDir(*out, rep); err != nil {
			return err
		}
		if !*asJSON { // JSON's stderr stays empty, for scripts
			fmt.Fprintf(stderr, "tether lab: wrote %s and its plots\n", filepath.Join(*out, "report.md"))
		}
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	return lab.WriteTable(stdout, rep)
}

// runSweep runs tether lab -sweep: scenario s at each setting of spec,
// pooled over the seeds of seedSpec.
func runSweep(s lab.Scenario, spec, seedSpec string, asJSON bool, stdout, stderr io.Writer) error {
	shares, err := lab.ParseSweep(spec)
	if err != nil {
		return usagef("-sweep: %w", err)
	}
	seeds := []uint64{s.Seed}
	if seedSpec != "" {
		if seeds, err = parseSeeds(seedSpec); err != nil {
			return usagef("-seeds: %w", err)
		}
	}
	var progress func(float64)
	if f, ok := stderr.(*os.File); ok && !asJSON && term.IsTerminal(int(f.Fd())) {
		progress = progressBar(stderr, s.Name+" sweep")
	}
	rows, err := lab.Sweep(s, shares, seeds, progress)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(stdout, rows)
	}
	return lab.WriteSweep(stdout, s, seeds, rows)
}

// parseSeeds reads "N-M" (every seed from N to M) or "N,M,...".
func parseSeeds(spec string) ([]uint64, error) {
	if from, to, ok := strings.Cut(spec, "-"); ok {
		a, err1 := strconv.ParseUint(from, 10, 64)
		b, err2 := strconv.ParseUint(to, 10, 64)
		if err1 != nil || err2 != nil || a == 0 || b < a || b-a >= 1000 {
			return nil, fmt.Errorf("%q, want N-M with 1 <= N <= M < N+1000", spec)
		}
		var seeds []uint64
		for x := a; x <= b; x++ {
			seeds = append(seeds, x)
		}
		return seeds, nil
	}
	var seeds []uint64
	for v := range strings.SplitSeq(spec, ",") {
		x, err := strconv.ParseUint(v, 10, 64)
		if err != nil || x == 0 {
			return nil, fmt.Errorf("seed %q, want a whole number from 1", v)
		}
		seeds = append(seeds, x)
	}
	return seeds, nil
}

// maxScenarioFile bounds a scenario file: scenarios are a few kilobytes.
const maxScenarioFile = 1 << 20

func loadScenario(name, file string) (lab.Scenario, error) {
	switch {
	case name != "" && file != "":
		return lab.Scenario{}, usagef("give -scenario or -scenario-file, not both")
	case file != "":
		b, err := privfile.Read(file, maxScenarioFile)
		if err != nil {
			return lab.Scenario{}, err
		}
		s, err := lab.ParseScenario(bytes.NewReader(b))
		if err != nil {
			return lab.Scenario{}, fmt.Errorf("%s: %w", file, err)
		}
		return s, nil
	case name != "":
		s, err := lab.Preset(name)
		if err != nil {
			return lab.Scenario{}, usagef("-scenario: %w", err)
		}
		return s, nil
	default:
		return lab.Scenario{}, usagef("give -scenario NAME or -scenario-file FILE")
	}
}

// progressBar returns a progress callback that redraws one line on a terminal.
func progressBar(w io.Writer, name string) func(float64) {
	const width = 30
	last := -1
	return func(done float64) {
		n := int(done * width)
		if n == last {
			return
		}
		last = n
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = ' '
			if i < n {
				bar[i] = '='
			}
		}
		fmt.Fprintf(w, "\r%s [%s] %3.0f%%", name, bar, done*100)
		if done >= 1 {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}
