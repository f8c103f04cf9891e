package web

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A client whose module is neither the working directory's nor this
// binary's cannot be built: Get says which module's source it needs, and
// says it again without building on a second call.
func TestWasmBuildNeedsTheModule(t *testing.T) {
	w := &WasmBuild{Module: "example.com/elsewhere", Package: "./client"}
	for range 2 {
		if _, _, err := w.Get(); err == nil || !strings.Contains(err.Error(), "example.com/elsewhere") {
			t.Fatalf("Get: %v, want an error naming the module", err)
		}
	}
}

// OnBuild hears of a build, its start and its end, and of none when the
// client is in the cache.
func TestWasmBuildOnBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go toolchain")
	}
	gocache, err := goTool("", nil, "env", "GOCACHE")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", gocache) // the toolchain's, not one under the cache directory below
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // where os.UserCacheDir looks without XDG_CACHE_HOME (macOS)
	mod := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":         "module example.com/tiny\n\ngo 1.26\n",
		"client/main.go": "package main\n\nfunc main() {}\n",
	} {
		path := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(mod)
	var calls []string
	for range 2 { // built, then found in the cache
		w := &WasmBuild{Module: "example.com/tiny", Package: "./client", OnBuild: func(done bool, took time.Duration, err error) {
			calls = append(calls, fmt.Sprint(done, took > 0, err))
		}}
		if gz, js, err := w.Get(); err != nil || len(gz) == 0 || len(js) == 0 {
			t.Fatalf("Get: %d bytes, %d bytes, %v", len(gz), len(js), err)
		}
	}
	if want := []string{"false false <nil>", "true true <nil>"}; !slices.Equal(calls, want) {
		t.Errorf("OnBuild calls %q, want %q", calls, want)
	}
}
