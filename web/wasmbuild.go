package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
)

// WasmBuild is a browser client — a Go main package built with GOOS=js
// GOARCH=wasm — built on first use, for PlayConfig.Client: the first Get
// runs the Go toolchain (which `go run` of the server needed anyway) in the
// module's source tree, the working directory's module if it is Module, or
// else the module cache's copy of the version this binary was built from.
// It keeps the gzipped result and the toolchain's wasm_exec.js in the user
// cache directory (tether/webclient/KEY), under a key that hashes the
// toolchain's version and every source file the client is built from: a
// later run with the same sources serves them at once. A game ships its own
// client by naming its module and package; a server that must not run a
// toolchain serves files built ahead instead.
type WasmBuild struct {
	Module  string // the client's module path, "github.com/tether-net/tether"
	Package string // its main package, relative to the module: "./game/soccer/webclient"
	// OnBuild, if set, is called when the toolchain starts building the
	// client (done false) and when it is done (done true, with the time it
	// took and its error), so that a server can say why a first Play waits.
	// A client found in the cache is not built and calls nothing.
	OnBuild func(done bool, took time.Duration, err error)

	once   sync.Once
	gz     []byte
	execJS []byte
	err    error
}

// Get returns the gzipped client and the matching wasm_exec.js, building
// them on the first call.
func (w *WasmBuild) Get() (gz, execJS []byte, err error) {
	w.once.Do(func() { w.gz, w.execJS, w.err = w.build() })
	return w.gz, w.execJS, w.err
}

func goTool(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}

// moduleDir finds the module's source: the working directory's module if it
// is Module, else the module cache's copy of the version this binary was
// built from.
func (w *WasmBuild) moduleDir() (string, error) {
	if dir, err := goTool("", nil, "list", "-m", "-f", "{{.Path}} {{.Dir}}"); err == nil {
		if path, d, ok := strings.Cut(dir, " "); ok && path == w.Module {
			return d, nil
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == w.Module && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		if dir, err := goTool("", nil, "list", "-m", "-f", "{{.Dir}}", w.Module+"@"+bi.Main.Version); err == nil && dir != "" {
			return dir, nil
		}
	}
	return "", errors.New("tether/web: the browser client is built from the module's source with the Go toolchain: run the server from a checkout of " + w.Module)
}

// wasmEnv is the environment of the client's build.
var wasmEnv = []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}

// key hashes the toolchain's version and the client's source files.
func (w *WasmBuild) key(dir string) (string, error) {
	ver, err := goTool(dir, wasmEnv, "version")
	if err != nil {
		return "", err
	}
	list, err := goTool(dir, wasmEnv, "list", "-deps", "-f", `{{if not .Standard}}{{range .GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range .EmbedFiles}}{{$.Dir}}/{{.}}
{{end}}{{end}}`, w.Package)
	if err != nil {
		return "", err
	}
	files := strings.Fields(list)
	sort.Strings(files)
	h := sha256.New()
	io.WriteString(h, ver)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

func (w *WasmBuild) build() (gz, execJS []byte, err error) {
	dir, err := w.moduleDir()
	if err != nil {
		return nil, nil, err
	}
	key, err := w.key(dir)
	if err != nil {
		return nil, nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, nil, err
	}
	out := filepath.Join(cache, "tether", "webclient", key)
	gzPath, jsPath := filepath.Join(out, "client.wasm.gz"), filepath.Join(out, "wasm_exec.js")
	if gz, err := os.ReadFile(gzPath); err == nil {
		if js, err := os.ReadFile(jsPath); err == nil {
			return gz, js, nil
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	wasm := filepath.Join(out, "client.wasm")
	if w.OnBuild != nil {
		w.OnBuild(false, 0, nil)
		start := time.Now()
		defer func() { w.OnBuild(true, time.Since(start), err) }()
	}
	if _, err := goTool(dir, wasmEnv, "build", "-trimpath", "-o", wasm, w.Package); err != nil {
		return nil, nil, err
	}
	defer os.Remove(wasm)
	raw, err := os.ReadFile(wasm)
	if err != nil {
		return nil, nil, err
	}
	root, err := goTool(dir, nil, "env", "GOROOT")
	if err != nil {
		return nil, nil, err
	}
	if execJS, err = os.ReadFile(filepath.Join(root, "lib", "wasm", "wasm_exec.js")); err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, nil, err
	}
	// Written under temporary names and renamed, so that a concurrent
	// run never reads half a file.
	for _, f := range []struct {
		path string
		b    []byte
	}{{jsPath, execJS}, {gzPath, b.Bytes()}} {
		tmp := f.path + ".tmp" + fmt.Sprint(os.Getpid())
		if err := os.WriteFile(tmp, f.b, 0o644); err != nil {
			return nil, nil, err
		}
		if err := os.Rename(tmp, f.path); err != nil {
			return nil, nil, err
		}
	}
	return b.Bytes(), execJS, nil
}
