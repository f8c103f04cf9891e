package privfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteReplacesModeAndRefusesExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Write over an existing file without replace: %v, want fs.ErrExist", err)
	}
	if err := Write(path, []byte("new"), true); err != nil {
		t.Fatal(err)
	}
	b, err := Read(path, 3)
	if err != nil || string(b) != "new" {
		t.Fatalf("Read: %q, %v", b, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := CheckMode(f); err != nil {
		t.Fatalf("CheckMode of a written file: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("%d files in the directory, want the one written (no temporary left)", len(entries))
	}
}

func TestCheckModeRefusesReadable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits")
	}
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, []byte("k"), 0o640); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := CheckMode(f); !errors.Is(err, ErrReadable) || !strings.Contains(err.Error(), "0640") {
		t.Fatalf("CheckMode: %v, want ErrReadable naming mode 0640", err)
	}
}

func TestReadAllBound(t *testing.T) {
	if _, err := ReadAll(strings.NewReader("12345"), "f", 4); err == nil || !strings.Contains(err.Error(), "larger than 4 bytes") {
		t.Fatalf("ReadAll over the bound: %v", err)
	}
	if b, err := ReadAll(strings.NewReader("1234"), "f", 4); err != nil || string(b) != "1234" {
		t.Fatalf("ReadAll at the bound: %q, %v", b, err)
	}
}
