package ops

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
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

// minCompact is the fewest records a used-token file holds before it is
// compacted.
const minCompact = 1024

// UsedTokens is a file that keeps the connect tokens of the clients a
// server admitted, so that a restarted server still refuses them until
// they expire (netcode refuses a token's second use only while it
// remembers the first). Give OpenUsedTokens' list to
// netcode.ServerConfig.UsedTokens and Record as its OnTokenUsed.
//
// The file is bounded: when it holds twice as many records as were
// unexpired at its last compaction (and at least 1,024), it is rewritten
// with those unexpired now. A server admits at most TokenHistory clients
// per token life, so the file holds at most 2 × max(TokenHistory, 1024)
// records of 24 bytes.
type UsedTokens struct {
	mu    sync.Mutex
	path  string
	now   func() time.Time
	f     *os.File
	recs  []netcode.UsedToken // the file's records
	limit int                 // compact when recs reach it
	err   error               // the first write error, reported at Close
}

// OpenUsedTokens reads the tokens recorded at path that have not expired
// (now reads the wall clock: time.Now), rewrites the file with just those
// (mode 0600) and opens it to record more. A missing file is an empty
// list; a file of any size is read, its expired records dropped.
func OpenUsedTokens(path string, now func() time.Time) ([]netcode.UsedToken, *UsedTokens, error) {
	var live []netcode.UsedToken
	f, err := os.Open(path)
	switch {
	case err == nil:
		live, err = readUsedTokens(f, now())
		f.Close()
		if err != nil {
			return nil, nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, nil, err
	}
	u := &UsedTokens{path: path, now: now}
	if err := u.rewrite(live); err != nil {
		return nil, nil, err
	}
	return live, u, nil
}

// readUsedTokens decodes the records of a used-token file and returns
// those that have not expired at now. A torn last record (a write cut
// short) is dropped.
func readUsedTokens(r io.Reader, now time.Time) ([]netcode.UsedToken, error) {
	br := bufio.NewReader(r)
	var live []netcode.UsedToken
	var b [usedTokenRecord]byte
	for {
		if _, err := io.ReadFull(br, b[:]); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return live, nil
			}
			return nil, err
		}
		u := netcode.UsedToken{MAC: [netcode.MACSize]byte(b[:]), Expire: binary.LittleEndian.Uint64(b[netcode.MACSize:])}
		if u.Expire > uint64(max(now.Unix(), 0)) {
			live = append(live, u)
		}
	}
}

// appendUsedToken appends t's record to b.
func appendUsedToken(b []byte, t netcode.UsedToken) []byte {
	return binary.LittleEndian.AppendUint64(append(b, t.MAC[:]...), t.Expire)
}

// rewrite replaces the file with recs and opens it to append.
func (u *UsedTokens) rewrite(recs []netcode.UsedToken) error {
	b := make([]byte, 0, len(recs)*usedTokenRecord)
	for _, t := range recs {
		b = appendUsedToken(b, t)
	}
	if err := privfile.Write(u.path, b, true); err != nil {
		return err
	}
	f, err := os.OpenFile(u.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if u.f != nil {
		u.f.Close()
	}
	u.f, u.recs, u.limit = f, recs, 2*max(len(recs), minCompact)
	return nil
}

// Record appends t to the file, compacting it when it reached its limit;
// it is a netcode.ServerConfig.OnTokenUsed. A write error is kept for
// Close.
func (u *UsedTokens) Record(t netcode.UsedToken) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.err != nil {
		return
	}
	if len(u.recs) >= u.limit {
		now := uint64(max(u.now().Unix(), 0))
		var live []netcode.UsedToken
		for _, r := range u.recs {
			if r.Expire > now {
				live = append(live, r)
			}
		}
		if u.err = u.rewrite(live); u.err != nil {
			return
		}
	}
	u.recs = append(u.recs, t)
	var b [usedTokenRecord]byte
	_, u.err = u.f.Write(appendUsedToken(b[:0], t))
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
