package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/tether-net/tether/internal/privfile"
	"github.com/tether-net/tether/netcode"
)

// runKeygen writes a new netcode private key (64 hex digits and a newline).
func runKeygen(args []string, stdout, stderr io.Writer) error {
	fset := newFlags("keygen", stderr,
		"usage: tether keygen [-o FILE] [-force]",
		"Writes a new private key shared by the token backend and the servers.",
	)
	out := fset.String("o", "tether.key", `key file to write ("-" for standard output)`)
	force := fset.Bool("force", false, "overwrite an existing key file")
	if err := parseFlags(fset, args); err != nil {
		return err
	}
	key, err := netcode.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	text, _ := key.MarshalText()
	text = append(text, '\n')
	if *out == "-" {
		_, err := stdout.Write(text)
		return err
	}
	// A new file with mode 0600, also with -force over a file others could read.
	err = privfile.Write(*out, text, *force)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; use -force to replace it", *out)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote private key to %s\n", *out)
	return nil
}

// maxKeyFile bounds a key file: a key is 65 bytes.
const maxKeyFile = 1 << 10

// readKeyFile reads a key written by keygen. Unless allowReadable, a key
// file other users may read is refused: whoever reads it can mint tokens.
func readKeyFile(path string, allowReadable bool) (netcode.Key, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return netcode.Key{}, fmt.Errorf("%w; run \"tether keygen -o %s\" to write one", err, path)
	}
	if err != nil {
		return netcode.Key{}, err
	}
	defer f.Close()
	if !allowReadable {
		if err := privfile.CheckMode(f); err != nil {
			return netcode.Key{}, fmt.Errorf("%s: %w: run chmod 600 %s, or pass -allow-readable-key", path, err, path)
		}
	}
	b, err := privfile.ReadAll(f, path, maxKeyFile)
	if err != nil {
		return netcode.Key{}, err
	}
	var k netcode.Key
	if err := k.UnmarshalText([]byte(strings.TrimSpace(string(b)))); err != nil {
		return netcode.Key{}, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}
