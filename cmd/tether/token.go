package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/tether-net/tether/internal/privfile"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/ops/mint"
)

// defaultTokenExpiry is tether token's -expiry: long enough to copy a
// token to another machine and start a client there.
const defaultTokenExpiry = 5 * time.Minute

// wholeSeconds checks a token duration flag: tokens carry whole seconds,
// and tether serve refuses more than max.
func wholeSeconds(flag string, d, max time.Duration) error {
	switch {
	case d%time.Second != 0:
		return usagef("%s %v: tokens carry whole seconds; give %v or %v", flag, d, d.Truncate(time.Second), d.Truncate(time.Second)+time.Second)
	case d < time.Second || d > max:
		return usagef("%s %v: want 1s to %v (tether serve refuses more)", flag, d, max)
	}
	return nil
}

// runToken mints a netcode connect token, as a matchmaking backend does.
func runToken(args []string, stdout, stderr io.Writer) error {
	fset := newFlags("token", stderr,
		"usage: tether token -protocol-id ID -client-id N -server IP:PORT [-server ...] [-key FILE] [-expiry 5m] [-timeout 10s] [-user-data HEX] [-o FILE]",
		"       tether token -protocol-id ID -serve IP:PORT -secret-file FILE [-key FILE] [-expiry 5m] [-timeout 10s] [-rate N] [-log-format text|json]",
		"Mints a netcode 1.02 connect token; without -o it prints the token as standard base64.",
		"With -serve it mints them for a backend over HTTP instead (POST /v1/token, bearer secret).",
		"The client must start connecting within -expiry of minting (5 minutes by default, room to",
		"copy the token to another machine); tether serve refuses tokens that expire more than an",
		"hour ahead or whose timeout is above a minute.",
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
	expiry := fset.Duration("expiry", defaultTokenExpiry, fmt.Sprintf("how long the token can be used to start connecting: whole seconds, 1s to %v", netcode.DefaultMaxTokenLife))
	timeout := fset.Duration("timeout", netcode.DefaultTokenTimeout, fmt.Sprintf("connection timeout written into the token: whole seconds, 1s to %v", netcode.DefaultMaxTimeout))
	allowReadable := fset.Bool("allow-readable-key", false, "use a key file other users can read")
	userData := fset.String("user-data", "", "up to 256 bytes of application data, hex encoded")
	out := fset.String("o", "", "write the 2048-byte token to this file instead of printing it as base64")
	serveAddr := fset.String("serve", "", "instead of minting one token, serve POST /v1/token on ADDR (IP:PORT) to a backend holding the -secret-file's bearer secret, until interrupted (package ops/mint)")
	secretPath := fset.String("secret-file", "", fmt.Sprintf("with -serve: file holding the bearer secret (at least %d bytes; surrounding space ignored)", mint.MinSecret))
	rate := fset.Float64("rate", 200, "with -serve: tokens minted a second at most, on average (bursts of twice as many); beyond it 429")
	logFormat := fset.String("log-format", "text", "with -serve: log the audit records as text or json")
	if err := parseFlags(fset, args); err != nil {
		return err
	}
	if *protocol == "" {
		return usagef("-protocol-id is required")
	}
	pid, err := strconv.ParseUint(*protocol, 0, 64)
	if err != nil {
		return usagef("-protocol-id %q: want a 64-bit unsigned number", *protocol)
	}
	if err := wholeSeconds("-expiry", *expiry, netcode.DefaultMaxTokenLife); err != nil {
		return err
	}
	if err := wholeSeconds("-timeout", *timeout, netcode.DefaultMaxTimeout); err != nil {
		return err
	}
	if *serveAddr != "" {
		given := false
		fset.Visit(func(f *flag.Flag) {
			given = given || f.Name == "client-id" || f.Name == "server" || f.Name == "user-data" || f.Name == "o"
		})
		if given {
			return usagef("-serve takes the client id, servers and user data from each request: give no -client-id, -server, -user-data or -o")
		}
		if *secretPath == "" {
			return usagef("-serve needs -secret-file")
		}
		if *rate <= 0 {
			return usagef("-rate %v: want more than 0", *rate)
		}
		return serveTokens(*serveAddr, *secretPath, *keyPath, *allowReadable, *logFormat, mint.Config{ProtocolID: pid, Rate: *rate, Expiry: *expiry, Timeout: *timeout}, stdout)
	}
	if len(servers) == 0 {
		return usagef("at least one -server is required")
	}
	var p netcode.TokenParams
	if *userData != "" {
		ud, err := hex.DecodeString(*userData)
		if err != nil {
			return usagef("-user-data: %w", err)
		}
		if len(ud) > netcode.UserDataSize {
			return usagef("-user-data: %d bytes, at most %d", len(ud), netcode.UserDataSize)
		}
		copy(p.UserData[:], ud)
	}
	key, err := readKeyFile(*keyPath, *allowReadable)
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
	if *out == "" {
		text, err := tok.MarshalText()
		if err == nil {
			_, err = fmt.Fprintf(stdout, "%s\n", text)
		}
		return err
	}
	b, err := tok.MarshalBinary()
	if err != nil {
		return err
	}
	if err := privfile.Write(*out, b, true); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d-byte connect token for client %d to %s (expires %s)\n", len(b), p.ClientID, *out, time.Unix(int64(tok.ExpireTimestamp), 0).UTC().Format(time.RFC3339))
	return nil
}
