package ops

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

// clockAt returns a clock reading *t.
func clockAt(t *time.Time) func() time.Time { return func() time.Time { return *t } }

// A used token is refused after a restart until it expires: what Record
// wrote, a reopened file returns while it lives and drops once expired.
func TestUsedTokensAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "used")
	now := time.Unix(1_700_000_000, 0)
	live, file, err := OpenUsedTokens(path, clockAt(&now))
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
	now = now.Add(50 * time.Second)
	live, file, err = OpenUsedTokens(path, clockAt(&now))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if len(live) != 1 || live[0] != b {
		t.Fatalf("after 50 s: %+v, want only the token expiring at 100 s", live)
	}
}

// A file of any size opens: its expired records are dropped (a file
// over 16 MiB was refused, and the server could not restart).
func TestUsedTokensLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "used")
	now := time.Unix(1_700_000_000, 0)
	var b []byte
	for i := range 17 << 20 / usedTokenRecord {
		b = appendUsedToken(b, netcode.UsedToken{MAC: [netcode.MACSize]byte{byte(i), byte(i >> 8), byte(i >> 16)}, Expire: uint64(now.Unix() - 1)})
	}
	keep := netcode.UsedToken{MAC: [netcode.MACSize]byte{0xff}, Expire: uint64(now.Unix() + 1)}
	if err := os.WriteFile(path, appendUsedToken(b, keep), 0o600); err != nil {
		t.Fatal(err)
	}
	live, file, err := OpenUsedTokens(path, clockAt(&now))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if len(live) != 1 || live[0] != keep {
		t.Fatalf("%d tokens live, want the one unexpired", len(live))
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != usedTokenRecord {
		t.Fatalf("rewritten file: %v, %v; want %d bytes", fi.Size(), err, usedTokenRecord)
	}
}

// The file stays bounded under a steady stream of admissions: 20,000
// tokens of 30 s recorded 50 a second hold it to 2 × max(unexpired,
// 1024) records, about 1,500 unexpired at a time.
func TestUsedTokensBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "used")
	now := time.Unix(1_700_000_000, 0)
	_, file, err := OpenUsedTokens(path, clockAt(&now))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	largest := int64(0)
	for i := range 20000 {
		if i%50 == 0 {
			now = now.Add(time.Second)
		}
		file.Record(netcode.UsedToken{MAC: [netcode.MACSize]byte{byte(i), byte(i >> 8)}, Expire: uint64(now.Unix() + 30)})
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, fi.Size())
	}
	if limit := int64(2 * 1550 * usedTokenRecord); largest > limit {
		t.Fatalf("file reached %d bytes, want at most %d", largest, limit)
	}
	// Nothing unexpired was lost in compaction.
	live, again, err := OpenUsedTokens(path, clockAt(&now))
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	if len(live) != 30*50 {
		t.Fatalf("%d unexpired tokens after reopening, want %d", len(live), 30*50)
	}
	t.Logf("20,000 records: largest file %d bytes", largest)
}

// FuzzUsedTokens decodes arbitrary used-token files: what is kept is whole
// records, each of a token not yet expired, and encodes to a file that
// decodes to the same.
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
		live, err := readUsedTokens(bytes.NewReader(b), now)
		if err != nil || len(live)*usedTokenRecord > len(b) {
			t.Fatalf("%d tokens kept from %d bytes: %v", len(live), len(b), err)
		}
		var keep []byte
		for _, u := range live {
			keep = appendUsedToken(keep, u)
		}
		again, _ := readUsedTokens(bytes.NewReader(keep), now)
		if len(again) != len(live) {
			t.Fatalf("%d tokens re-read, want %d", len(again), len(live))
		}
		for i, u := range live {
			if u.Expire <= uint64(now.Unix()) || again[i] != u {
				t.Fatalf("token %d: %+v, re-read %+v", i, u, again[i])
			}
		}
	})
}
