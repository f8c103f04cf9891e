package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-net/tether/netcode"
)

func TestKeygenWritesKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k")
	var out, errb bytes.Buffer
	if err := runKeygen([]string{"-o", path}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode())
	}
	k, err := readKeyFile(path, false)
	if err != nil || k == (netcode.Key{}) {
		t.Fatalf("key %v", err)
	}
	// Refuses to overwrite without -force.
	if err := runKeygen([]string{"-o", path}, &out, &errb); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("overwrite: %v", err)
	}
	if err := runKeygen([]string{"-o", path, "-force"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	k2, _ := readKeyFile(path, false)
	if k2 == k {
		t.Fatal("key not replaced")
	}
	out.Reset()
	if err := runKeygen([]string{"-o", "-"}, &out, &errb); err != nil || len(strings.TrimSpace(out.String())) != 64 {
		t.Fatalf("stdout key %q %v", out.String(), err)
	}
	if err := runKeygen([]string{"-h"}, &out, &errb); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("help: %v", err)
	}
}

func TestTokenMintsOpenableToken(t *testing.T) {
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "k")
	var out, errb bytes.Buffer
	if err := runKeygen([]string{"-o", keyPath}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	key, _ := readKeyFile(keyPath, false)
	out.Reset()
	args := []string{"-key", keyPath, "-client-id", "42", "-protocol-id", "0x1122", "-server", "127.0.0.1:40000,[::1]:40001", "-server", "127.0.0.2:5", "-expiry", "45s", "-timeout", "7s", "-user-data", "cafe"}
	if err := runToken(args, &out, &errb); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	var tok netcode.ConnectToken
	if err := tok.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	if tok.ProtocolID != 0x1122 || tok.TimeoutSeconds != 7 || tok.ExpireTimestamp-tok.CreateTimestamp != 45 || len(tok.ServerAddresses) != 3 || tok.ServerAddresses[1] != netip.MustParseAddrPort("[::1]:40001") {
		t.Fatalf("token %+v", tok)
	}
	var priv netcode.PrivateToken
	if err := netcode.OpenPrivateToken(&priv, tok.PrivateData[:], &key, tok.ProtocolID, tok.ExpireTimestamp, &tok.Nonce); err != nil {
		t.Fatal(err)
	}
	if priv.ClientID != 42 || priv.UserData[0] != 0xca || priv.UserData[1] != 0xfe || priv.ClientToServerKey != tok.ClientToServerKey {
		t.Fatalf("private %+v", priv.ClientID)
	}
	// Raw output to a file.
	file := filepath.Join(dir, "tok")
	out.Reset()
	if err := runToken(append(args, "-o", file), &out, &errb); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); len(b) != netcode.ConnectTokenSize {
		t.Fatalf("file holds %d bytes", len(b))
	}
}

func TestTokenFlagErrors(t *testing.T) {
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "k")
	var out, errb bytes.Buffer
	runKeygen([]string{"-o", keyPath}, &out, &errb)
	base := []string{"-key", keyPath, "-client-id", "1"}
	cases := map[string][]string{
		"-protocol-id is required": append(base, "-server", "127.0.0.1:1"),
		"want a 64-bit":            append(base, "-protocol-id", "x", "-server", "127.0.0.1:1"),
		"-server is required":      append(base, "-protocol-id", "1"),
		"IP:PORT":                  append(base, "-protocol-id", "1", "-server", "localhost:1"),
		"-user-data":               append(base, "-protocol-id", "1", "-server", "127.0.0.1:1", "-user-data", "zz"),
		"no such file":             {"-key", filepath.Join(dir, "missing"), "-protocol-id", "1", "-server", "127.0.0.1:1"},
		"1 to 32":                  append(base, "-protocol-id", "1", "-server", strings.Repeat("127.0.0.1:1,", 32)+"127.0.0.1:2"),
	}
	for want, args := range cases {
		errb.Reset()
		err := runToken(args, &out, &errb)
		if err == nil || !strings.Contains(err.Error()+errb.String(), want) {
			t.Errorf("%v: error %v (stderr %q), want %q", args, err, errb.String(), want)
		}
	}
}
