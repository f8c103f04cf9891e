package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/tether-net/tether/netcode"
)

// refusalLog logs why the server refused connection requests: at most one
// record per address per second, and records for at most
// refusalAddrsPerSecond addresses a second (the rest are summed up in the
// next), so a flood of bad requests cannot flood the log.
type refusalLog struct {
	mu         sync.Mutex
	log        *slog.Logger
	now        func() time.Time
	second     int64
	seen       map[netip.AddrPort]bool
	suppressed int
}

const refusalAddrsPerSecond = 16

func newRefusalLog(log *slog.Logger, now func() time.Time) *refusalLog {
	return &refusalLog{log: log, now: now, seen: make(map[netip.AddrPort]bool)}
}

// refused is a netcode.ServerConfig.OnRefused.
func (l *refusalLog) refused(from netip.AddrPort, reason error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.now().Unix(); s != l.second {
		l.second = s
		clear(l.seen)
		if l.suppressed > 0 {
			l.log.Warn("more connection requests refused", "not_shown", l.suppressed)
			l.suppressed = 0
		}
	}
	if l.seen[from] {
		return
	}
	if len(l.seen) >= refusalAddrsPerSecond {
		l.suppressed++
		return
	}
	l.seen[from] = true
	l.log.Warn("refused a connection request", "from", from.String(), "reason", refusalText(reason))
}

// refusalText says what a refusal reason means for the person who minted
// the token.
func refusalText(err error) string {
	switch {
	case errors.Is(err, netcode.ErrProtocolID):
		return "wrong protocol id (the token was minted with another -protocol-id than this server's)"
	case errors.Is(err, netcode.ErrAuth):
		return "failed decryption: the token was minted with another key than this server's -key"
	case errors.Is(err, netcode.ErrTokenExpired):
		return "token expired (mint a new one, or check the clocks of this machine and the one that minted it)"
	case errors.Is(err, netcode.ErrTokenReused):
		return "token already used (from another address, or its client already left; mint one per connection)"
	case errors.Is(err, netcode.ErrServerFull):
		return "server full (every client slot is taken)"
	case errors.Is(err, netcode.ErrTokenLife):
		return fmt.Sprintf("token expires more than %v ahead", netcode.DefaultMaxTokenLife)
	case errors.Is(err, netcode.ErrTokenTimeout):
		return fmt.Sprintf("token timeout is none or above %v", netcode.DefaultMaxTimeout)
	case errors.Is(err, netcode.ErrServerAddress):
		return "the token does not name this server's public address (-public)"
	case errors.Is(err, netcode.ErrVersion):
		return "not a netcode 1.02 request"
	}
	return err.Error()
}

// usedTokenRecord is the size of one record of a used-token file: the
// token's MAC and its expire timestamp (little-endian Unix seconds).
const usedTokenRecord = netcode.MACSize + 8

// usedTokenFile keeps the connect tokens a server saw used, so that a
// restarted server refuses them until they expire.
type usedTokenFile struct {
	mu  sync.Mutex
	f   *os.File
	err error // the first write error, reported at Close
}

// openUsedTokens reads the tokens recorded at path that have not expired
// at now, rewrites the file with just those (mode 0600) and opens it to
// record more. A missing file is an empty list.
func openUsedTokens(path string, now time.Time) ([]netcode.UsedToken, *usedTokenFile, error) {
	b, err := readFileLimited(path, maxUsedTokensFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	live, keep := parseUsedTokens(b, now)
	if err := writePrivate(path, keep, true); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, err
	}
	return live, &usedTokenFile{f: f}, nil
}

// parseUsedTokens decodes the records of a used-token file and returns
// those that have not expired at now, decoded and as records. A torn last
// record (a write cut short) is dropped.
func parseUsedTokens(b []byte, now time.Time) (live []netcode.UsedToken, keep []byte) {
	for ; len(b) >= usedTokenRecord; b = b[usedTokenRecord:] {
		u := netcode.UsedToken{MAC: [netcode.MACSize]byte(b), Expire: binary.LittleEndian.Uint64(b[netcode.MACSize:])}
		if u.Expire > uint64(max(now.Unix(), 0)) {
			live = append(live, u)
			keep = append(keep, b[:usedTokenRecord]...)
		}
	}
	return live, keep
}

// record is a netcode.ServerConfig.OnTokenUsed.
func (u *usedTokenFile) record(t netcode.UsedToken) {
	var b [usedTokenRecord]byte
	copy(b[:], t.MAC[:])
	binary.LittleEndian.PutUint64(b[netcode.MACSize:], t.Expire)
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, err := u.f.Write(b[:]); err != nil && u.err == nil {
		u.err = err
	}
}

// Close closes the file and returns the first error recording met.
func (u *usedTokenFile) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	err := u.f.Close()
	if u.err != nil {
		return u.err
	}
	return err
}
