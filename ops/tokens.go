package ops

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/tether-net/tether/internal/privfile"
	"github.com/tether-net/tether/netcode"
)

// usedTokenRecord is the size of one record of a used-token file: the
// token's MAC and its expire timestamp (little-endian Unix seconds).
const usedTokenRecord = netcode.MACSize + 8

// maxUsedTokensFile bounds a used-token file: 16 MiB holds about 700,000
// tokens, far more than live at once.
const maxUsedTokensFile = 16 << 20

// UsedTokens is a file that keeps the connect tokens a server saw used, so
// that a restarted server still refuses them until they expire (netcode
// refuses a token's second use only while it remembers the first). Give
// OpenUsedTokens' list to netcode.ServerConfig.UsedTokens and Record as its
// OnTokenUsed.
type UsedTokens struct {
	mu  sync.Mutex
	f   *os.File
	err error // the first write error, reported at Close
}

// OpenUsedTokens reads the tokens recorded at path that have not expired at
// now, rewrites the file with just those (mode 0600) and opens it to record
// more. A missing file is an empty list.
func OpenUsedTokens(path string, now time.Time) ([]netcode.UsedToken, *UsedTokens, error) {
	b, err := privfile.Read(path, maxUsedTokensFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	live, keep := parseUsedTokens(b, now)
	if err := privfile.Write(path, keep, true); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, err
	}
	return live, &UsedTokens{f: f}, nil
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

// Record appends t to the file; it is a netcode.ServerConfig.OnTokenUsed.
// A write error is kept for Close.
func (u *UsedTokens) Record(t netcode.UsedToken) {
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
func (u *UsedTokens) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	err := u.f.Close()
	if u.err != nil {
		return u.err
	}
	return err
}
