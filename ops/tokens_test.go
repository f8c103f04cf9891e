package ops

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

// A used token is refused after a restart until it expires: what Record
// wrote, a reopened file returns while it lives and drops once expired.
func TestUsedTokensAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "used")
	now := time.Unix(1_700_000_000, 0)
	live, file, err := OpenUsedTokens(path, now)
	if err != nil || len(live) != 0 {
		t.Fatalf("a missing file: %v tokens, %v", live, err)
	}
	a := netcode.UsedToken{MAC: [netcode.MACSize]byte{1}, Expire: uint64(now.Unix() + 10)}
	b := netcode.UsedToken{MAC: [netcode.MACSize]byte{2}, Expire: uint64(now.Unix() + 100)}
	file.Record(a)
	file.Record(b)
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
	live, file, err = OpenUsedTokens(path, now.Add(50*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if len(live) != 1 || live[0] != b {
		t.Fatalf("after 50 s: %+v, want only the token expiring at 100 s", live)
	}
}

// FuzzUsedTokens decodes arbitrary used-token files: what is kept is whole
// records, each of a token not yet expired, and decodes to what is returned.
func FuzzUsedTokens(f *testing.F) {
	now := time.Unix(1_700_000_000, 0)
	var rec []byte
	for i, exp := range []int64{now.Unix() - 1, now.Unix(), now.Unix() + 1, now.Unix() + 300} {
		rec = append(rec, bytes.Repeat([]byte{byte(i)}, netcode.MACSize)...)
		rec = binary.LittleEndian.AppendUint64(rec, uint64(exp))
	}
	f.Add(rec)
	f.Add(rec[:len(rec)-3])
	f.Fuzz(func(t *testing.T, b []byte) {
		live, keep := parseUsedTokens(b, now)
		if len(keep) != len(live)*usedTokenRecord || len(keep) > len(b) {
			t.Fatalf("%d tokens kept in %d bytes of %d", len(live), len(keep), len(b))
		}
		again, _ := parseUsedTokens(keep, now)
		for i, u := range live {
			if u.Expire <= uint64(now.Unix()) || again[i] != u {
				t.Fatalf("token %d: %+v, re-read %+v", i, u, again[i])
			}
		}
	})
}
