package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tether-net/tether/netcode"
)

// runToken mints a netcode connect token, as a matchmaking backend does.
func runToken(args []string, stdout, stderr io.Writer) error {
	fset := newFlags("token", stderr,
		"usage: tether token -protocol-id ID -client-id N -server IP:PORT [-server ...] [-key FILE] [-expiry 30s] [-timeout 10s] [-user-data HEX] [-o FILE]",
		"Mints a netcode 1.02 connect token; without -o it prints the token as standard base64.",
	)
	keyPath := fset.String("key", "tether.key", "private key file written by tether keygen")
	clientID := fset.Uint64("client-id", 0, "client id (unique per authenticated player)")
	protocol := fset.String("protocol-id", "", "protocol id of the game, decimal or 0x-prefixed hex (required)")
	var servers []netip.AddrPort
	fset.Func("server", "server address IP:PORT, in the order the client tries them (repeat or comma-separate; 1 to 32)", func(s string) error {
		for _, part := range strings.Split(s, ",") {
			a, err := netip.ParseAddrPort(strings.TrimSpace(part))
			if err != nil {
				return fmt.Errorf("want IP:PORT or [IPv6]:PORT: %w", err)
			}
			servers = append(servers, a)
		}
		return nil
	})
	expiry := fset.Duration("expiry", netcode.DefaultTokenExpiry, "how long the token can be used to start connecting (whole seconds)")
	timeout := fset.Duration("timeout", netcode.DefaultTokenTimeout, "connection timeout written into the token (negative: none, development only)")
	userData := fset.String("user-data", "", "up to 256 bytes of application data, hex encoded")
	out := fset.String("o", "", "write the 2048-byte token to this file instead of printing it as base64")
	if err := parseFlags(fset, args); err != nil {
		return err
	}
	if *protocol == "" {
		return errors.New("-protocol-id is required")
	}
	pid, err := strconv.ParseUint(*protocol, 0, 64)
	if err != nil {
		return fmt.Errorf("-protocol-id %q: want a 64-bit unsigned number", *protocol)
	}
	if len(servers) == 0 {
		return errors.New("at least one -server is required")
	}
	if *expiry < time.Second {
		return fmt.Errorf("-expiry %v: must be at least 1s", *expiry)
	}
	if *timeout == 0 {
		return errors.New("-timeout 0: use a positive duration, or a negative one for no timeout")
	}
	var p netcode.TokenParams
	if *userData != "" {
		ud, err := hex.DecodeString(*userData)
		if err != nil {
			return fmt.Errorf("-user-data: %w", err)
		}
		if len(ud) > netcode.UserDataSize {
			return fmt.Errorf("-user-data: %d bytes, at most %d", len(ud), netcode.UserDataSize)
		}
		copy(p.UserData[:], ud)
	}
	key, err := readKeyFile(*keyPath)
	if err != nil {
		return err
	}
	p.ProtocolID = pid
	p.ClientID = *clientID
	p.ServerAddresses = servers
	p.Now = time.Now()
	p.Expiry = *expiry
	p.Timeout = *timeout
	tok, err := netcode.NewConnectToken(rand.Reader, &key, p)
	if err != nil {
		return err
	}
	b, err := tok.MarshalBinary()
	if err != nil {
		return err
	}
	if *out == "" {
		_, err := fmt.Fprintln(stdout, base64.StdEncoding.EncodeToString(b))
		return err
	}
	if err := os.WriteFile(*out, b, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d-byte connect token for client %d to %s (expires %s)\n", len(b), p.ClientID, *out, time.Unix(int64(tok.ExpireTimestamp), 0).UTC().Format(time.RFC3339))
	return nil
}
