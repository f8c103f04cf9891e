// Package privfile reads files to a size bound and writes files only their
// owner may read: the key, token and used-token files of the tether command
// and of a server's operations (package ops).
//
// A bound far above what a valid file holds turns an endless or huge file
// (a device, a wrong path) into an error naming the file instead of
// exhausted memory.
package privfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ErrReadable is returned by CheckMode for a file other users may read or
// write.
var ErrReadable = errors.New("tether/privfile: readable by other users")

// ReadAll reads all of r, named name in errors, refusing more than limit
// bytes.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most this file may hold", name, limit)
	}
	return b, nil
}

// Read reads the file at path, refusing more than limit bytes.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit)
}

// Write writes data to path with mode 0600 whatever existed there before:
// it writes a new file beside path and renames it over path, so an
// existing file's mode is not kept and a reader never sees half a file.
// Unless replace, an existing path is an error matching fs.ErrExist.
func Write(path string, data []byte, replace bool) error {
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

// CheckMode returns an error matching ErrReadable, with the file's mode, if
// f is a regular file others may read or write. Windows is not checked: its
// permissions are not mode bits.
func CheckMode(f *os.File) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if m := info.Mode(); m.IsRegular() && m.Perm()&0o077 != 0 {
		return fmt.Errorf("%w (mode %#o)", ErrReadable, m.Perm())
	}
	return nil
}
