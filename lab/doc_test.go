package lab

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The report in the repository's doc/lab, whose plot the README shows, is
// the lab's report of testdata/soccer-wan.json, file for file and byte for
// byte: a change to the lab that changes it fails here until the report is
// written anew, by the command the README gives beside it. It is checked on
// amd64, where the report was made: another architecture may fuse a
// multiplication and an addition into one rounding, and play the match a
// little differently.
func TestDocReport(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("doc/lab is amd64's report; this is %s", runtime.GOARCH)
	}
	rep, err := Run(scenarioFile(t, "soccer-wan.json"), Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteReportDir(dir, rep); err != nil {
		t.Fatal(err)
	}
	const doc = "../doc/lab"
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadDir(doc)
	if err != nil {
		t.Fatal(err)
	}
	stale := false
	names := map[string]bool{}
	for _, e := range want {
		names[e.Name()] = true
		a, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(doc, e.Name()))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("doc/lab/%s is not the lab's (%v)", e.Name(), err)
			stale = true
		}
	}
	for _, e := range have {
		if !names[e.Name()] {
			t.Errorf("doc/lab/%s is no file of the lab's report", e.Name())
			stale = true
		}
	}
	if stale {
		t.Log("write it anew: go run ./cmd/tether lab -scenario-file lab/testdata/soccer-wan.json -out doc/lab")
	}
}
