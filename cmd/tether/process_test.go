package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
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

func TestProcessExitCodes(t *testing.T) {
	if err := asProcess("help").Run(); err != nil {
		t.Fatalf("help: %v", err)
	}
	err := asProcess("lab", "-scenario", "moon").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("bad scenario: %v, want exit status 1", err)
	}
}
