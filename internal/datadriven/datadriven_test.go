package datadriven

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// calc is the handler of the tests' scripts: "add" prints the sum of its
// arguments a and b, "sum" the sum of the n of its input's Sub commands.
func calc(c *Command) string {
	switch c.Name {
	case "add":
		return strconv.Itoa(c.Int("a", 0) + c.Int("b", 0))
	case "sum":
		n := 0
		for _, s := range c.Sub() {
			n += s.Int("n", 0)
		}
		return strconv.Itoa(n)
	case "lines":
		return strings.Repeat("x\n", c.Int("n", 0))
	}
	c.Errorf("unknown command")
	return ""
}

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Logf(string, ...any)          {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const good = `# comment
add a=2 b=3
----
5

sum
item n=1
# skipped
item n=2
----
3

lines n=0
----

lines n=2
----
x
x
`

func TestRunPasses(t *testing.T) {
	r := &recorder{TB: t}
	Run(r, write(t, good), calc)
	if len(r.errs) != 0 {
		t.Fatalf("errors on a script whose outputs are right: %q", r.errs)
	}
}

// A changed output, an unknown argument, a bad value and a blank line in
// an output each fail at the command's position.
func TestRunFails(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"add a=2 b=3\n----\n6\n", `s.txt:1: add: output differs`},
		{"add a=2 b=3\n----\n5\nextra\n", `first difference at output line 2`},
		{"add a=2 c=3\n----\n2\n", `unknown argument "c"`},
		{"add a=x\n----\n0\n", `argument a="x"`},
		{"sum\nitem n=1\nitem m=2\n----\n1\n", `s.txt:3: unknown argument "m"`},
		{"lines n=1\n----\nx\n\nadd\n----\n1\n", `s.txt:5: add: output differs`},
		{"nope\n----\n", `unknown command`},
	} {
		r := &recorder{TB: t}
		Run(r, write(t, tc.script), calc)
		if len(r.errs) != 1 || !strings.Contains(r.errs[0], tc.want) {
			t.Errorf("%q: errors %q, want one with %q", tc.script, r.errs, tc.want)
		}
	}
	// A command whose output would need a blank line is an error, not
	// a rewritten script that cannot be read back.
	r := &recorder{TB: t}
	Run(r, write(t, "sum\n----\n0\n"), func(c *Command) string { return "a\n\nb" })
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "blank line") {
		t.Errorf("errors %q", r.errs)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"add a=1\n", "x.txt:1: command add has no ----"},
		{"add a=1\n\n----\n", "x.txt:1: command add has no ----"},
		{"----\n", "x.txt:1: ---- without a command"},
	} {
		if _, err := Parse("x.txt", tc.script); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.script, err, tc.want)
		}
	}
	if cmds, err := Parse("x.txt", ""); err != nil || len(cmds) != 0 {
		t.Errorf("empty script: %v, %v", cmds, err)
	}
}

// -rewrite puts the actual outputs in place and keeps everything else; the
// script then passes as it is.
func TestRewrite(t *testing.T) {
	stale := strings.NewReplacer("5\n", "4\nold\n", "----\nx\nx\n", "----\nx\n", "n=0\n----\n", "n=0\n----\nold\n").Replace(good)
	p := write(t, stale)
	*rewrite = true
	r := &recorder{TB: t}
	Run(r, p, calc)
	*rewrite = false
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != good || len(r.errs) != 0 {
		t.Fatalf("rewritten (errors %q):\n%s\nwant:\n%s", r.errs, b, good)
	}
	// An erring command's output is left as it was.
	p = write(t, "add c=1\n----\nkept\n")
	*rewrite = true
	Run(r, p, calc)
	*rewrite = false
	if b, _ := os.ReadFile(p); string(b) != "add c=1\n----\nkept\n" {
		t.Fatalf("an erring command's output rewritten:\n%s", b)
	}
}

func TestFix(t *testing.T) {
	for _, tc := range []struct {
		x      float64
		places int
		want   string
	}{
		{1.23456, 3, "1.235"}, {-0.0004, 3, "0.000"}, {-0.0006, 3, "-0.001"}, {2, 1, "2.0"},
	} {
		if got := Fix(tc.x, tc.places); got != tc.want {
			t.Errorf("Fix(%v, %d) = %q, want %q", tc.x, tc.places, got, tc.want)
		}
	}
	if got := Ms(time.Second / 30); got != "33.3ms" {
		t.Errorf("Ms = %q", got)
	}
}

func TestRunDir(t *testing.T) {
	n := 0
	RunDir(t, "testdata", func() Handler {
		n++
		return calc
	})
	if n != 1 {
		t.Fatalf("%d handlers made for one script", n)
	}
}

func TestStream(t *testing.T) {
	cmds, err := Parse("x.txt", "stream from=1s to=1.09s hz=30 latency=50ms jitter=0ms,20ms\n----\n")
	if err != nil {
		t.Fatal(err)
	}
	c := cmds[0]
	got := c.Stream()
	ms := time.Millisecond
	want := []Send{{1000 * ms, 1050 * ms}, {1000*ms + time.Second/30, 1070*ms + time.Second/30}, {1000*ms + 2*time.Second/30, 1050*ms + 2*time.Second/30}}
	if !slices.Equal(got, want) || c.Err() != nil {
		t.Fatalf("Stream() = %v (%v), want %v", got, c.Err(), want)
	}
}
