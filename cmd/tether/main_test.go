package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// A command line a command cannot run is reported in two lines, the error
// and where to read the flags, whatever the error; help is at hand.
func TestCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "-bogus"}, "tether demo: flag provided but not defined: -bogus"},
		{[]string{"demo", "-duration", "5"}, `tether demo: invalid value "5" for flag -duration: 5 needs a unit, e.g. 5s`},
		{[]string{"bot", "-duration", "soon"}, `tether bot: invalid value "soon" for flag -duration: want a duration such as 300ms, 20s or 5m`},
		{[]string{"token", "-server", "localhost:40000"}, `tether token: invalid value "localhost:40000" for flag -server: want IP:PORT`},
		{[]string{"nope"}, `tether: unknown command "nope"`},
	} {
		code, stdout, stderr := runCmd(t, tc.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != exitUsage || stdout != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], tc.want) {
			t.Errorf("tether %q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and two lines, the first %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	code, _, stderr := runCmd(t, "serve", "-key", filepath.Join(dir, "tether.key"), "-addr", "127.0.0.1:0")
	if code != exitFailure || !strings.Contains(stderr, `run "tether keygen -o `) {
		t.Errorf("serve without a key: exit %d, stderr %q; want it to suggest tether keygen", code, stderr)
	}
}

// tether help COMMAND is tether COMMAND -h.
func TestHelpCommand(t *testing.T) {
	code, _, stderr := runCmd(t, "help", "demo")
	_, _, want := runCmd(t, "demo", "-h")
	if code != exitOK || stderr != want || !strings.HasPrefix(stderr, "usage: tether demo") {
		t.Errorf("help demo: exit %d, stderr:\n%s\nwant demo -h's:\n%s", code, stderr, want)
	}
}

func TestVersion(t *testing.T) {
	var b strings.Builder
	writeVersion(&b, &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/tether-net/tether", Version: "v0.1.0"},
		Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"},
			{Key: "vcs.revision", Value: "0c15817"}, {Key: "vcs.time", Value: "2026-12-07T04:00:00Z"}, {Key: "vcs.modified", Value: "true"}}})
	want := "tether v0.1.0 (github.com/tether-net/tether)\nrevision 0c15817 (2026-12-07T04:00:00Z) with local changes\nbuilt by go1.26.8 for linux/amd64\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	if code, stdout, _ := runCmd(t, "version"); code != exitOK || !strings.HasPrefix(stdout, "tether ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

// tether lab -out says where it wrote the report.
func TestLabOutSaysWhere(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	if err := os.WriteFile(file, []byte(`{"name": "mini", "duration_s": 4, "clients": [{"name": "a", "link": "lan"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := runCmd(t, "lab", "-scenario-file", file, "-out", out)
	if want := "tether lab: wrote " + filepath.Join(out, "report.md"); code != exitOK || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want %q", code, stderr, want)
	}
}
