package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Size limits of the files the commands read: far above what a valid file
// holds, so an endless or huge file (a device, a wrong path) is an error
// naming the file instead of exhausting memory.
const (
	maxKeyFile        = 1 << 10  // a key is 65 bytes
	maxTokenFile      = 8 << 10  // a token is 2048 bytes, 2732 in base64
	maxScenarioFile   = 1 << 20  // scenarios are a few kilobytes of JSON
	maxUsedTokensFile = 16 << 20 // 24 bytes per used token
)

// readLimited reads all of r, named name in errors, refusing more than
// limit bytes.
func readLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most this file may hold", name, limit)
	}
	return b, nil
}

// readFileLimited reads the file at path, refusing more than limit bytes.
func readFileLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

// writePrivate writes data to path with mode 0600 whatever existed there
// before: it writes a new file beside path and renames it over path, so
// an existing file's mode is not kept. Unless replace, an existing path
// is an error matching fs.ErrExist.
func writePrivate(path string, data []byte, replace bool) error {
	if !replace {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// errKeyMode: a private key file that others may read.
var errKeyMode = errors.New("readable by other users")

// checkPrivateMode refuses a file others may read or write (not checked
// on Windows, whose permissions are not mode bits).
func checkPrivateMode(f *os.File) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if m := info.Mode(); m.IsRegular() && m.Perm()&0o077 != 0 {
		return fmt.Errorf("%w (mode %#o): run chmod 600 %s, or pass -allow-readable-key", errKeyMode, m.Perm(), f.Name())
	}
	return nil
}
