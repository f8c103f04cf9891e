package datadriven

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var rewrite = flag.Bool("rewrite", false, "write the actual output of data-driven test scripts in place of the expected one")

// separator ends a command's input and starts its expected output.
const separator = "----"

// Arg is one argument of a command line: key=value, or a bare key with an
// empty Value.
type Arg struct {
	Key, Value string
}

// Command is one command of a script.
type Command struct {
	Pos   string   // "file:line" of the command line, for messages
	Name  string   // the first word of the command line
	Args  []Arg    // the other words, in order
	Input []string // the lines between the command line and "----"

	file string // for the positions of Sub's commands
	line int
	read []bool     // Args[i] was asked for
	errs []error    // from the accessors and Errorf
	subs []*Command // from Sub
}

// script is a parsed file: its lines, and each command with the span of
// lines its expected output occupies.
type script struct {
	lines []string
	cmds  []*Command
	outs  [][2]int // [first, end) line indexes of each command's output
}

// parseLine parses a command line (line is its 1-based line number).
func parseLine(file string, line int, text string) *Command {
	f := strings.Fields(text)
	c := &Command{Pos: fmt.Sprintf("%s:%d", file, line), Name: f[0], file: file, line: line}
	for _, w := range f[1:] {
		k, v, _ := strings.Cut(w, "=")
		c.Args = append(c.Args, Arg{Key: k, Value: v})
	}
	c.read = make([]bool, len(c.Args))
	return c
}

// Parse parses a script; name is the file name used in positions.
func Parse(name, text string) ([]*Command, error) {
	s, err := parse(name, text)
	if err != nil {
		return nil, err
	}
	return s.cmds, nil
}

func parse(name, text string) (*script, error) {
	s := &script{lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	if text == "" {
		s.lines = nil
	}
	for i := 0; i < len(s.lines); i++ {
		l := s.lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if l == separator {
			return nil, fmt.Errorf("%s:%d: %s without a command", name, i+1, separator)
		}
		c := parseLine(name, i+1, l)
		for i++; ; i++ {
			if i == len(s.lines) || strings.TrimSpace(s.lines[i]) == "" {
				return nil, fmt.Errorf("%s: command %s has no %s line", c.Pos, c.Name, separator)
			}
			if s.lines[i] == separator {
				break
			}
			c.Input = append(c.Input, s.lines[i])
		}
		first := i + 1
		for i+1 < len(s.lines) && strings.TrimSpace(s.lines[i+1]) != "" {
			i++
		}
		s.cmds = append(s.cmds, c)
		s.outs = append(s.outs, [2]int{first, i + 1})
	}
	return s, nil
}

// Sub parses the command's input lines as commands of their own (without
// input or output: one a line; lines starting with '#' are skipped). Their
// arguments are checked with the command's: an argument of theirs never read
// is an error too.
func (c *Command) Sub() []*Command {
	if c.subs == nil {
		c.subs = []*Command{}
		for i, l := range c.Input {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
				continue
			}
			c.subs = append(c.subs, parseLine(c.file, c.line+1+i, l))
		}
	}
	return c.subs
}

// arg returns the value of key and marks it read.
func (c *Command) arg(key string) (string, bool) {
	for i, a := range c.Args {
		if a.Key == key {
			c.read[i] = true
			return a.Value, true
		}
	}
	return "", false
}

// Has reports whether the command has the argument key (a flag, or
// key=value).
func (c *Command) Has(key string) bool {
	_, ok := c.arg(key)
	return ok
}

// Str returns the value of key, or def if the command has no such argument.
func (c *Command) Str(key, def string) string {
	if v, ok := c.arg(key); ok {
		return v
	}
	return def
}

// value parses the value of key with parse, or returns def without one; a
// value that does not parse is recorded as an error (see Err).
func value[T any](c *Command, key string, def T, parse func(string) (T, error)) T {
	v, ok := c.arg(key)
	if !ok {
		return def
	}
	x, err := parse(v)
	if err != nil {
		c.Errorf("argument %s=%q: %v", key, v, err)
		return def
	}
	return x
}

// Dur returns the value of key as a duration (time.ParseDuration), or def.
func (c *Command) Dur(key string, def time.Duration) time.Duration {
	return value(c, key, def, time.ParseDuration)
}

// Float returns the value of key as a number, or def.
func (c *Command) Float(key string, def float64) float64 {
	return value(c, key, def, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
}

// Int returns the value of key as an integer, or def.
func (c *Command) Int(key string, def int) int {
	return value(c, key, def, strconv.Atoi)
}

// Floats returns the value of key as a comma-separated list of numbers
// (pos=1,0,0), or def.
func (c *Command) Floats(key string, def ...float64) []float64 {
	return value(c, key, def, func(s string) ([]float64, error) {
		var xs []float64
		for w := range strings.SplitSeq(s, ",") {
			x, err := strconv.ParseFloat(w, 64)
			if err != nil {
				return nil, err
			}
			xs = append(xs, x)
		}
		return xs, nil
	})
}

// Durs returns the value of key as a comma-separated list of durations
// (jitter=0ms,25ms,5ms), or def.
func (c *Command) Durs(key string, def ...time.Duration) []time.Duration {
	return value(c, key, def, func(s string) ([]time.Duration, error) {
		var ds []time.Duration
		for w := range strings.SplitSeq(s, ",") {
			d, err := time.ParseDuration(w)
			if err != nil {
				return nil, err
			}
			ds = append(ds, d)
		}
		return ds, nil
	})
}

// Send is one send of a scripted stream: at At, arriving at Arrive.
type Send struct {
	At, Arrive time.Duration
}

// Stream reads the arguments of a stream of sends over a scripted link, as
// Tether's traces of networked cores write it:
//
//	from= to= [hz=30] [latency=0s] [jitter=d,d,...]
//
// a send at from + k/hz for k = 0, 1, ... while not after to, arriving
// latency plus the k-th duration of jitter (the list cycled) after it.
func (c *Command) Stream() []Send {
	from, to, hz := c.Dur("from", 0), c.Dur("to", 0), c.Int("hz", 30)
	latency, jitter := c.Dur("latency", 0), c.Durs("jitter", 0)
	if hz <= 0 || to < from {
		c.Errorf("a stream wants hz > 0 and to ≥ from")
		return nil
	}
	var s []Send
	for k := 0; ; k++ {
		t := from + time.Duration(k)*time.Second/time.Duration(hz)
		if t > to {
			return s
		}
		s = append(s, Send{At: t, Arrive: t + latency + jitter[k%len(jitter)]})
	}
}

// Errorf records an error in the command: the test fails with it, at the
// command's position.
func (c *Command) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// Err returns the errors recorded in the command and its Sub commands, and
// one for each of their arguments never read, or nil.
func (c *Command) Err() error {
	errs := slices.Clone(c.errs)
	for i, a := range c.Args {
		if !c.read[i] {
			errs = append(errs, fmt.Errorf("unknown argument %q", a.Key))
		}
	}
	for _, s := range c.subs {
		if err := s.Err(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Pos, err))
		}
	}
	return errors.Join(errs...)
}

// Fix formats x with places decimal places, and never as "-0.000": a value
// that rounds to zero prints as zero whatever its sign, so that output does
// not change with the sign of a rounding error.
func Fix(x float64, places int) string {
	p := math.Pow10(places)
	if math.Round(x*p) == 0 {
		x = 0
	}
	return strconv.FormatFloat(x, 'f', places, 64)
}

// Ms formats d in milliseconds with one decimal place: "33.3ms".
func Ms(d time.Duration) string {
	return Fix(float64(d)/float64(time.Millisecond), 1) + "ms"
}

// Run runs the script at path: for each command in turn, do returns what it
// prints, which is compared with the output recorded under the command (or,
// with -rewrite, written there). A difference, or an error recorded in the
// command (see Command.Err), fails the test at the command's position; the
// later commands still run.
func Run(t testing.TB, path string, do Handler) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parse(path, string(b))
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]string, len(s.cmds))
	for i, c := range s.cmds {
		out := strings.TrimRight(do(c), "\n")
		if out != "" {
			got[i] = strings.Split(out, "\n")
		}
		if slices.ContainsFunc(got[i], func(l string) bool { return strings.TrimSpace(l) == "" }) {
			c.Errorf("the output has a blank line, which the format cannot hold")
		}
		want := s.lines[s.outs[i][0]:s.outs[i][1]]
		if err := c.Err(); err != nil {
			t.Errorf("%s: %s: %v", c.Pos, c.Name, err)
			got[i] = want // not rewritten: what it printed is not to be trusted
			continue
		}
		if !*rewrite && !slices.Equal(got[i], want) {
			t.Errorf("%s: %s: output differs (run with -rewrite to accept it)\n--- want\n%s\n--- got\n%s\n%s",
				c.Pos, c.Name, strings.Join(want, "\n"), strings.Join(got[i], "\n"), firstDiff(want, got[i]))
		}
	}
	if !*rewrite {
		return
	}
	var w []string
	at := 0
	for i, o := range s.outs {
		w = append(w, s.lines[at:o[0]]...)
		w = append(w, got[i]...)
		at = o[1]
	}
	w = append(w, s.lines[at:]...)
	text := strings.Join(w, "\n") + "\n"
	if text == string(b) {
		return
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote %s", path)
}

// firstDiff says where two outputs first differ.
func firstDiff(want, got []string) string {
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if i >= len(want) || i >= len(got) || w != g {
			return fmt.Sprintf("first difference at output line %d:\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return ""
}

// Handler runs one command of a script and returns what it prints.
type Handler func(c *Command) string

// RunDir runs every script (*.txt) in dir, in name order, as a subtest
// named after its file, with a handler of its own from newHandler (a fresh
// scenario). It fails if there is none.
func RunDir(t *testing.T, dir string, newHandler func() Handler) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no scripts in %s", dir)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txt"), func(t *testing.T) { Run(t, p, newHandler()) })
	}
}
