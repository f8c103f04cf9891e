package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tether-net/tether/lab"
	"golang.org/x/term"
)

func runLab(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("lab", stderr,
		"usage: tether lab (-scenario NAME | -scenario-file FILE) [-seed N] [-json] [-out DIR] [-trace FILE]",
	)
	scenario := fs.String("scenario", "", "built-in scenario: lan, broadband, wan, mobile or lossy")
	file := fs.String("scenario-file", "", "scenario file (JSON)")
	seed := fs.Uint64("seed", 0, "override the scenario's seed")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	out := fs.String("out", "", "write report.md and PNG plots into this directory")
	tracePath := fs.String("trace", "", "write one CSV row per client frame to this file")
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
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return lab.WriteTable(stdout, rep)
}

func loadScenario(name, file string) (lab.Scenario, error) {
	switch {
	case name != "" && file != "":
		return lab.Scenario{}, usagef("give -scenario or -scenario-file, not both")
	case file != "":
		b, err := readFileLimited(file, maxScenarioFile)
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
