package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMain lets the test binary act as the tether command, so tests can run it
// as a real process.
func TestMain(m *testing.M) {
	if os.Getenv("TETHER_TEST_AS_COMMAND") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func asProcess(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TETHER_TEST_AS_COMMAND=1")
	return cmd
}

// The same scenario and seed print the same JSON, byte for byte, from two
// separate processes; nothing goes to stderr when output is not a terminal.
func TestProcessDeterministicJSON(t *testing.T) {
	var outs [2][]byte
	for i := range outs {
		var stdout, stderr bytes.Buffer
		cmd := asProcess("lab", "-scenario", "wan", "-json")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: %v: %s", i, err, stderr.String())
		}
		if stderr.Len() != 0 {
			t.Fatalf("stderr not empty: %q", stderr.String())
		}
		outs[i] = stdout.Bytes()
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("two processes printed different JSON for the same seed")
	}
	if !json.Valid(outs[0]) {
		t.Fatal("output is not valid JSON")
	}
}

// Every command exits 0 when done or asked for help, 1 when it ran and
// failed, 2 for a command line it cannot run.
func TestProcessExitCodes(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"help"}, 0},
		{[]string{"-h"}, 0},
		{[]string{"lab", "-h"}, 0},
		{[]string{"keygen", "-o", key}, 0},
		{nil, 2},
		{[]string{"nope"}, 2},
		{[]string{"lab", "-scenario", "moon"}, 2},
		{[]string{"lab", "-no-such-flag"}, 2},
		{[]string{"keygen", "stray"}, 2},
		{[]string{"demo", "-game", "arena", "-json"}, 2},
		{[]string{"demo", "-bots", "99"}, 2},
		{[]string{"token", "-client-id", "1", "-server", "127.0.0.1:40000"}, 2}, // no -protocol-id
		{[]string{"token", "-protocol-id", "1", "-server", "127.0.0.1:40000", "-expiry", "1.5s"}, 2},
		{[]string{"serve", "-max-clients", "0"}, 2},
		{[]string{"serve", "-agones-port", "game"}, 2}, // without -agones
		{[]string{"bot", "-duration", "-1s"}, 2},
		{[]string{"load", "-bots", "0"}, 2},
		{[]string{"serve", "-key", filepath.Join(dir, "missing.key"), "-addr", "127.0.0.1:0"}, 1},
		{[]string{"keygen", "-o", key}, 1}, // exists
		{[]string{"lab", "-scenario-file", filepath.Join(dir, "missing.json")}, 1},
	} {
		code := 0
		err := asProcess(tc.args...).Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if code != tc.want {
			t.Errorf("tether %q: exit status %d, want %d", tc.args, code, tc.want)
		}
	}
}
