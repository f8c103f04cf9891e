package main

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
)

// The browser's client (game/soccer/webclient) is built on first use: the
// first request for it runs the Go toolchain that `go run ./cmd/tether`
// needs anyway, with GOOS=js GOARCH=wasm, in the module's source tree (the
// working directory's module, or the module cache's copy of this build's
// version), and keeps the gzipped result and the toolchain's wasm_exec.js in
// the user cache directory under a key that hashes the toolchain's version
// and every source file the client is built from: a later run with the
// same sources serves it at once.

// tetherModule is the module the client is built from.
const tetherModule = "github.com/tether-net/tether"

// webClientPkg is the browser client's package, relative to the module.
const webClientPkg = "./game/soccer/webclient"

// wasmClient is the built client: gzipped wasm and the matching
// wasm_exec.js.
type wasmClient struct {
	once   sync.Once
	gz     []byte
	execJS []byte
	err    error
}

// get builds the client once, on the first call.
func (w *wasmClient) get() ([]byte, []byte, error) {
	w.once.Do(func() { w.gz, w.execJS, w.err = buildWasm() })
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
// is this one, else the module cache's copy of the version this binary was
// built from.
func moduleDir() (string, error) {
	if dir, err := goTool("", nil, "list", "-m", "-f", "{{.Path}} {{.Dir}}"); err == nil {
		if path, d, ok := strings.Cut(dir, " "); ok && path == tetherModule {
			return d, nil
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == tetherModule && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		if dir, err := goTool("", nil, "list", "-m", "-f", "{{.Dir}}", tetherModule+"@"+bi.Main.Version); err == nil && dir != "" {
			return dir, nil
		}
	}
	return "", errors.New("the browser client is built from the module's source with the Go toolchain: run tether from a checkout of " + tetherModule)
}

// wasmEnv is the environment of the client's build.
var wasmEnv = []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}

// wasmKey hashes the toolchain's version and the client's source files.
func wasmKey(dir string) (string, error) {
	ver, err := goTool(dir, wasmEnv, "version")
	if err != nil {
		return "", err
	}
	list, err := goTool(dir, wasmEnv, "list", "-deps", "-f", `{{if not .Standard}}{{range .GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range .EmbedFiles}}{{$.Dir}}/{{.}}
{{end}}{{end}}`, webClientPkg)
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

func buildWasm() (gz, execJS []byte, err error) {
	dir, err := moduleDir()
	if err != nil {
		return nil, nil, err
	}
	key, err := wasmKey(dir)
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
	if _, err := goTool(dir, wasmEnv, "build", "-trimpath", "-o", wasm, webClientPkg); err != nil {
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
