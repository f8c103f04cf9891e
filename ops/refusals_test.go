package ops

import (
	"bytes"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/netcode"
)

func TestRefusalLogRateLimited(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(1000, 0)
	l := NewRefusalLog(slog.New(slog.NewTextHandler(&out, nil)), func() time.Time { return now })
	a := netip.MustParseAddrPort("127.0.0.1:1")
	b := netip.MustParseAddrPort("127.0.0.1:2")
	for range 100 {
		l.Refused(a, netcode.ErrAuth)
		l.Refused(b, netcode.ErrProtocolID)
	}
	now = now.Add(999 * time.Millisecond)
	l.Refused(a, netcode.ErrAuth)
	if n := strings.Count(out.String(), "\n"); n != 2 {
		t.Fatalf("%d lines in the first second, want 2:\n%s", n, out.String())
	}
	now = now.Add(time.Millisecond)
	for i := range 100 { // 100 addresses in one second: 16 lines and a sum
		l.Refused(netip.AddrPortFrom(a.Addr(), uint16(100+i)), netcode.ErrTokenExpired)
	}
	now = now.Add(time.Second)
	l.Refused(a, netcode.ErrServerFull)
	text := out.String()
	for _, want := range []string{`from=127.0.0.1:1 reason="failed decryption`, `from=127.0.0.1:2 reason="wrong protocol id`, "not_shown=84", "server full"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n"); n != 2+RefusalAddrsPerSecond+2 {
		t.Errorf("%d lines:\n%s", n, text)
	}
}

// A bot retrying a refused token ten times a second gets one record, and
// the count of its retries once the window is over.
func TestRefusalLogRepeats(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(1000, 0)
	l := NewRefusalLog(slog.New(slog.NewTextHandler(&out, nil)), func() time.Time { return now })
	a := netip.MustParseAddrPort("127.0.0.1:1")
	for range 110 {
		l.Refused(a, netcode.ErrTokenReused)
		now = now.Add(100 * time.Millisecond)
	}
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Fatalf("%d lines for 11 s of retries, want 1:\n%s", n, out.String())
	}
	now = now.Add(RefusalRepeatWindow)
	l.Refused(netip.MustParseAddrPort("127.0.0.1:2"), netcode.ErrAuth)
	text := out.String()
	for _, want := range []string{"times=109", "already used", `from=127.0.0.1:2 reason="failed decryption`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n"); n != 3 {
		t.Errorf("%d lines, want 3:\n%s", n, text)
	}
	// Another reason from the same address is news.
	l.Refused(a, netcode.ErrTokenExpired)
	if !strings.Contains(out.String(), "token expired") {
		t.Errorf("a new reason not logged:\n%s", out.String())
	}
}

// Every reason netcode reports to OnRefused is explained, none printed
// raw.
func TestRefusalTextExplained(t *testing.T) {
	for _, err := range []error{netcode.ErrVersion, netcode.ErrProtocolID, netcode.ErrTokenExpired, netcode.ErrAuth,
		netcode.ErrTokenInvalid, netcode.ErrServerAddress, netcode.ErrTokenLife, netcode.ErrTokenTimeout, netcode.ErrTokenReused,
		netcode.ErrAlreadyConnected, netcode.ErrServerFull, netcode.ErrRefusingNew, netcode.ErrTokenHistoryFull, netcode.ErrPendingFull} {
		if got := refusalText(err); got == err.Error() {
			t.Errorf("%v: printed raw", err)
		}
	}
}
