//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestREADME runs the README's ```sh blocks in order, as a new user pastes
// them on a fresh clone, each command as a real process in one fresh
// temporary directory, on loopback; it fails at the first command that
// fails. How each command is run:
//
//   - "go run ./cmd/tether" runs this test binary as the command (built once,
//     by go test), through a "tether" script on PATH; a pipe or redirection
//     in the line works as in a shell (sh -c).
//   - Other go commands (go test, go install, go build) are not run: they
//     are the suite itself or build what the test binary stands in for.
//     Any other command runs as written (sh -c).
//   - Files the command names by a relative path that the repository
//     tracks (git ls-files) and the directory does not have (a scenario
//     file) are copied in first. Untracked files are not: a user who
//     followed the README has a tether.key of their own in the working
//     copy, which the README's keygen must not find in the directory.
//   - Every 127.0.0.1:PORT with a port other than 0 becomes 127.0.0.1 and a
//     free port, the same one for the same PORT throughout, so the run
//     cannot collide with anything else on the machine.
//   - -duration D longer than readmeDuration runs readmeDuration, so the
//     test stays fast.
//   - Servers, which run until interrupted (tether serve, and tether demo
//     without -headless, given -http 127.0.0.1:0 if it names none), start in
//     the background: the test waits for their first line of output (for
//     demo, the one naming its page, which must answer), runs the rest of
//     the block (and the next, if it names the server's address), then
//     interrupts them by PID (Ctrl-C) and requires them to exit 0.
//   - Every other command runs in the foreground, killed after
//     readmeTimeout, and must exit 0.
//
// A ```text block right after a ```sh block (blank lines between at most) is
// the output of that block's last command, which must print exactly that on
// its standard output (trailing spaces aside): the figures the README quotes
// are the command's, and stay true. A measured figure quoted in the prose
// (a decimal number with a unit: ms, m, kbps, pops/min) must be one of those
// outputs'. The outputs are compared on amd64 alone, where they were
// measured and CI runs: other architectures may fuse a multiplication and
// an addition into one rounding, and a match in virtual time then plays out
// a little differently. Under the race detector, where the lab runs many
// times slower, the commands whose output is shown are not run (CI runs
// this test without it too). Any other ```text block is not run: a command that cannot run
// on one machine in a fresh directory (one that needs a cluster, say)
// belongs in one.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(string(readme))
	if len(blocks) < 5 {
		t.Fatalf("found %d sh blocks in README.md", len(blocks))
	}
	for _, f := range unshownFigures(string(readme), blocks) {
		t.Errorf("%s: no output the README shows prints it: give the command and its output beside it", f)
	}
	r := newReadmeRun(t, "../..")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nTETHER_TEST_AS_COMMAND=1 exec '%s' \"$@\"\n", self)
	if err := os.WriteFile(filepath.Join(r.bin, "tether"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// A test that fails leaves no server behind.
	var servers []*readmeServer
	t.Cleanup(func() {
		for _, s := range servers {
			if !s.stopped {
				syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
				<-s.done
			}
		}
	})
	ran := 0
	for i, block := range blocks {
		for j, line := range block.cmds {
			var want *string
			if j == len(block.cmds)-1 {
				want = block.output
			}
			if want != nil && raceEnabled {
				t.Logf("block %d: not run under the race detector: %s", i+1, line)
				continue
			}
			if s := r.command(i+1, line, want); s != nil {
				servers = append(servers, s)
			}
			ran++
		}
		// A server the next block talks to (names its address) runs on.
		next := ""
		if i+1 < len(blocks) {
			next = strings.Join(blocks[i+1].cmds, "\n")
		}
		for _, s := range servers {
			if !s.stopped && !s.namedIn(next) {
				s.stop(t)
			}
		}
	}
	t.Logf("ran %d commands of %d blocks", ran, len(blocks))
}

// figuresArch is the architecture the README's figures are measured on.
const figuresArch = "amd64"

const (
	readmeDuration = 3 * time.Second
	readmeTimeout  = 2 * time.Minute
)

// readmeBlock is a ```sh block of the README: its commands, and the output
// of the last one, if a ```text block follows it.
type readmeBlock struct {
	cmds   []string
	output *string
}

// readmeBlocks returns the ```sh blocks: continuation lines joined, comment
// and blank lines left out, each with the ```text block that follows it.
func readmeBlocks(md string) []readmeBlock {
	var blocks []readmeBlock
	var cur []string
	in, cont := false, ""
	lines := strings.Split(md, "\n")
	for i, line := range lines {
		switch {
		case !in && strings.TrimSpace(line) == "```sh":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, readmeBlock{cmds: cur, output: outputAfter(lines[i+1:])})
		case in:
			line = cont + strings.TrimSpace(line)
			if strings.HasSuffix(line, `\`) {
				cont = strings.TrimSuffix(line, `\`)
				continue
			}
			cont = ""
			if line != "" && !strings.HasPrefix(line, "#") {
				cur = append(cur, line)
			}
		}
	}
	return blocks
}

// outputAfter returns the ```text block that opens lines (after blank lines),
// or nil.
func outputAfter(lines []string) *string {
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.TrimSpace(line) != "```text" {
			return nil
		}
		var out []string
		for _, l := range lines[i+1:] {
			if strings.TrimSpace(l) == "```" {
				text := strings.Join(out, "\n")
				return &text
			}
			out = append(out, l)
		}
		return nil
	}
	return nil
}

// trimOutput drops trailing spaces from every line of out, and blank lines
// from its end.
func trimOutput(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// proseFigure is a measured figure in the README's prose: a decimal number
// and its unit.
var proseFigure = regexp.MustCompile(`\b([0-9]+\.[0-9]+) ?(ms|m|kbps|pops/min)\b`)

// unshownFigures returns the measured figures the README's prose (the text
// outside code blocks) quotes that no command's output it shows prints, each
// with its line number.
func unshownFigures(md string, blocks []readmeBlock) []string {
	var outputs strings.Builder
	for _, b := range blocks {
		if b.output != nil {
			outputs.WriteString(*b.output + "\n")
		}
	}
	number := func(x string) *regexp.Regexp {
		return regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(x) + `($|[^0-9])`)
	}
	var missing []string
	code := false
	for n, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			code = !code
			continue
		}
		if code {
			continue
		}
		for _, m := range proseFigure.FindAllStringSubmatch(line, -1) {
			if !number(m[1]).MatchString(outputs.String()) {
				missing = append(missing, fmt.Sprintf("README.md:%d: %s", n+1, m[0]))
			}
		}
	}
	return missing
}

type readmeRun struct {
	t        *testing.T
	dir, bin string
	repo     string            // the repository's working copy
	tracked  map[string]bool   // the files git tracks there, by slash-separated path
	ports    map[string]string // README's port -> the free port used
}

// newReadmeRun returns a run in fresh directories that copies files from the
// working copy at repo; it skips the test where repo is no git working copy,
// as its tracked files cannot then be told from a user's.
func newReadmeRun(t *testing.T, repo string) *readmeRun {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files in %s: %v: the README's files cannot be told from untracked ones", repo, err)
	}
	tracked := map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			tracked[f] = true
		}
	}
	return &readmeRun{t: t, dir: t.TempDir(), bin: t.TempDir(), repo: repo, tracked: tracked, ports: map[string]string{}}
}

var (
	loopbackPort = regexp.MustCompile(`127\.0\.0\.1:([1-9][0-9]*)`)
	durationFlag = regexp.MustCompile(`-duration[ =]([0-9.]+(ns|us|µs|ms|s|m|h))+`)
)

// command runs one README command line from block n; it returns the server
// it started in the background, if it is one. A foreground command given want
// must print it (see trimOutput).
func (r *readmeRun) command(n int, line string, want *string) *readmeServer {
	t := r.t
	t.Helper()
	cmdline := line
	if strings.HasPrefix(cmdline, "go ") && !strings.HasPrefix(cmdline, "go run ./cmd/tether ") {
		t.Logf("block %d: not run: %s", n, line)
		return nil
	}
	cmdline = strings.ReplaceAll(cmdline, "go run ./cmd/tether ", "tether ")
	cmdline = loopbackPort.ReplaceAllStringFunc(cmdline, func(s string) string {
		return "127.0.0.1:" + r.port(strings.TrimPrefix(s, "127.0.0.1:"))
	})
	cmdline = durationFlag.ReplaceAllStringFunc(cmdline, func(s string) string {
		d, err := time.ParseDuration(s[len("-duration "):])
		if err != nil || d <= readmeDuration {
			return s
		}
		return "-duration " + readmeDuration.String()
	})
	words := strings.Fields(cmdline)
	for _, w := range words {
		r.copyIn(w)
	}
	server := len(words) > 1 && words[0] == "tether" &&
		(words[1] == "serve" || words[1] == "demo" && !strings.Contains(cmdline, "-headless"))
	if server && words[1] == "demo" && !strings.Contains(cmdline, "-http") {
		cmdline = strings.Replace(cmdline, "tether demo", "tether demo -http 127.0.0.1:0", 1)
	}
	t.Logf("block %d: %s", n, cmdline)
	if server {
		s := r.startServer(n, cmdline)
		s.addrs = loopbackPort.FindAllString(line, -1)
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), readmeTimeout)
	defer cancel()
	cmd := r.shell(ctx, cmdline)
	var out, stdout bytes.Buffer
	both := &lockedWriter{w: &out} // stdout and stderr are copied by two goroutines
	cmd.Stdout, cmd.Stderr = io.MultiWriter(both, &stdout), both
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("block %d: %s\n(run as %s): %v after %v; output:\n%s", n, line, cmdline, err,
			time.Since(start).Round(time.Millisecond), out.String())
	}
	if want != nil && runtime.GOARCH != figuresArch {
		t.Logf("block %d: output not compared on %s (the figures are amd64's)", n, runtime.GOARCH)
	} else if want != nil && trimOutput(stdout.String()) != trimOutput(*want) {
		t.Errorf("block %d: %s prints:\n%s\nwhere the README shows:\n%s", n, line, trimOutput(stdout.String()), trimOutput(*want))
	}
	return nil
}

// shell returns cmdline run by sh in the run's directory with the tether
// script on PATH, in its own process group, which ctx's end kills.
func (r *readmeRun) shell(ctx context.Context, cmdline string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", "-c", cmdline)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "PATH="+r.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// port returns the free loopback port that stands for the README's port p.
func (r *readmeRun) port(p string) string {
	if q, ok := r.ports[p]; ok {
		return q
	}
	// A port free for both TCP and UDP, as a server may take either.
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			r.t.Fatal(err)
		}
		q := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
		pc, err := net.ListenPacket("udp", "127.0.0.1:"+q)
		ln.Close()
		if err != nil {
			continue
		}
		pc.Close()
		r.ports[p] = q
		return q
	}
}

// copyIn copies the repository's file at relative path w into the run's
// directory, if git tracks it and the directory does not have it.
func (r *readmeRun) copyIn(w string) {
	if filepath.IsAbs(w) || strings.HasPrefix(w, "-") || !r.tracked[filepath.ToSlash(filepath.Clean(w))] {
		return
	}
	if _, err := os.Stat(filepath.Join(r.dir, w)); err == nil {
		return
	}
	b, err := os.ReadFile(filepath.Join(r.repo, w))
	if err != nil {
		r.t.Fatal(err)
	}
	dst := filepath.Join(r.dir, w)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// readmeServer is a command of the README that runs until interrupted.
type readmeServer struct {
	line    string
	addrs   []string // the loopback addresses the README's line names
	cmd     *exec.Cmd
	mu      sync.Mutex
	out     bytes.Buffer
	done    chan error
	stopped bool
}

// namedIn reports whether README text names one of the server's addresses.
func (s *readmeServer) namedIn(text string) bool {
	for _, a := range s.addrs {
		if strings.Contains(text, a) {
			return true
		}
	}
	return false
}

func (s *readmeServer) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// startServer starts cmdline in the background and waits for its first line
// of output; a demo's page must then answer.
func (r *readmeRun) startServer(n int, cmdline string) *readmeServer {
	t := r.t
	t.Helper()
	// exec: the shell becomes the command, so the PID interrupted is its.
	s := &readmeServer{line: cmdline, cmd: r.shell(context.Background(), "exec "+cmdline), done: make(chan error, 1)}
	pr, pw := io.Pipe()
	s.cmd.Stdout, s.cmd.Stderr = pw, pw
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("block %d: %s: %v", n, cmdline, err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			s.out.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		err := s.cmd.Wait()
		pw.Close()
		s.done <- err
	}()
	demo := strings.Contains(cmdline, "tether demo")
	timeout := time.After(readmeTimeout)
	for ready := false; !ready; {
		select {
		case line := <-lines:
			url := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`).FindString(line)
			ready = !demo || url != ""
			if url == "" {
				continue
			}
			resp, err := http.Get(url)
			if err != nil {
				s.stop(t)
				t.Fatalf("block %d: %s: the page %s: %v", n, cmdline, url, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				s.stop(t)
				t.Fatalf("block %d: %s: the page %s: %s", n, cmdline, url, resp.Status)
			}
		case err := <-s.done:
			t.Fatalf("block %d: %s ended before it served: %v; output:\n%s", n, cmdline, err, s.output())
		case <-timeout:
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("block %d: %s not serving after %v; output:\n%s", n, cmdline, readmeTimeout, s.output())
		}
	}
	return s
}

// stop interrupts the server as Ctrl-C does and requires it to exit 0.
func (s *readmeServer) stop(t *testing.T) {
	t.Helper()
	s.stopped = true
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("%s: interrupt: %v", s.line, err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("%s: on Ctrl-C: %v; output:\n%s", s.line, err, s.output())
		}
	case <-time.After(readmeTimeout):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("%s: still running %v after Ctrl-C; output:\n%s", s.line, readmeTimeout, s.output())
	}
}

// The README's commands get the repository's tracked files, never a file of
// the user's own in the working copy: after "tether keygen" there, TestREADME
// failed at the README's keygen, which found the user's tether.key copied in.
func TestREADMECopiesTrackedFilesOnly(t *testing.T) {
	repo := t.TempDir()
	for name, body := range map[string]string{"lab/s.json": "{}", "tether.key": "user's key"} {
		path := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "lab/s.json"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v: %s", args, err, out)
		}
	}
	r := newReadmeRun(t, repo)
	r.copyIn("lab/s.json")
	r.copyIn("tether.key")
	if b, err := os.ReadFile(filepath.Join(r.dir, "lab/s.json")); err != nil || string(b) != "{}" {
		t.Errorf("tracked lab/s.json: %q, %v; want it copied", b, err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "tether.key")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("untracked tether.key: %v; want it left out", err)
	}
}

// The README and the root package's documentation say how many lines the
// module's Example (example_test.go) takes: that many.
func TestExampleLineCount(t *testing.T) {
	example, err := os.ReadFile("../../example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(string(example), "\n")
	inLines := regexp.MustCompile(`\bin ([0-9]+) lines\b`)
	for _, name := range []string{"README.md", "doc.go"} {
		b, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n//", "\n")), " ")
		found := inLines.FindAllStringSubmatch(text, -1)
		if len(found) == 0 {
			t.Errorf("%s does not say in how many lines the Example is written", name)
		}
		for _, m := range found {
			if m[1] != strconv.Itoa(want) {
				t.Errorf("%s: the Example %s; example_test.go has %d lines", name, m[0], want)
			}
		}
	}
}

// A figure quoted in the prose is one a command's shown output prints.
func TestUnshownFigures(t *testing.T) {
	md := "Tether draws at 118.3 ms, for 4.03 pops/min (netcode 1.02; 0.05 share).\n\n" +
		"```sh\ngo run ./cmd/tether lab\n```\n\n```text\ntether 118.3 4.03\n```\n\n" +
		"Not shown: 2.5 m, nor 118.35 ms.\n"
	got := unshownFigures(md, readmeBlocks(md))
	want := []string{"README.md:11: 2.5 m", "README.md:11: 118.35 ms"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
