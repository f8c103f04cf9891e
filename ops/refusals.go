package ops

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/tether-net/tether/netcode"
)

// RefusalLog logs why a server refused connection requests, so that whoever
// minted a token learns what was wrong with it, without letting a flood of
// bad requests flood the log: at most one record per address per second,
// and records for at most RefusalAddrsPerSecond addresses a second (the
// rest are counted in one record the next second). A client that retries
// with the same bad token gets one record: its address's repeats of the
// same reason within RefusalRepeatWindow are counted, in a record when the
// window is over or in the address's next record, for another reason.
type RefusalLog struct {
	mu         sync.Mutex
	log        *slog.Logger
	now        func() time.Time
	second     int64
	seen       map[netip.AddrPort]bool
	suppressed int
	last       map[netip.AddrPort]refusal // each logged address's last record
}

// refusal is the last record of an address's refusals, and how many of the
// same reason followed it unlogged.
type refusal struct {
	reason  string
	at      time.Time
	repeats int
}

// RefusalAddrsPerSecond is how many addresses' refusals a RefusalLog
// records in one second.
const RefusalAddrsPerSecond = 16

// RefusalRepeatWindow is how long after an address's record its refusals
// for the same reason are counted instead of logged.
const RefusalRepeatWindow = time.Minute

// NewRefusalLog returns a RefusalLog writing warnings to log; now reads the
// wall clock (time.Now).
func NewRefusalLog(log *slog.Logger, now func() time.Time) *RefusalLog {
	return &RefusalLog{log: log, now: now, seen: make(map[netip.AddrPort]bool), last: make(map[netip.AddrPort]refusal)}
}

// Refused records a refusal; it is a netcode.ServerConfig.OnRefused.
func (l *RefusalLog) Refused(from netip.AddrPort, reason error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if s := now.Unix(); s != l.second {
		l.second = s
		clear(l.seen)
		if l.suppressed > 0 {
			l.log.Warn("more connection requests refused", "not_shown", l.suppressed)
			l.suppressed = 0
		}
		for a, r := range l.last {
			if now.Sub(r.at) >= RefusalRepeatWindow {
				l.repeated(a, r)
				delete(l.last, a)
			}
		}
	}
	text := refusalText(reason)
	if r, ok := l.last[from]; ok && r.reason == text && now.Sub(r.at) < RefusalRepeatWindow {
		r.repeats++
		l.last[from] = r
		return
	}
	if l.seen[from] {
		return
	}
	if len(l.seen) >= RefusalAddrsPerSecond {
		l.suppressed++
		return
	}
	l.seen[from] = true
	attrs := []any{"from", from.String(), "reason", text}
	if r := l.last[from]; r.repeats > 0 {
		attrs = append(attrs, "earlier_reason", r.reason, "earlier_repeats", r.repeats)
	}
	l.last[from] = refusal{reason: text, at: now}
	l.log.Warn("refused a connection request", attrs...)
}

// repeated logs how many refusals followed r, the last record of address a,
// if any did.
func (l *RefusalLog) repeated(a netip.AddrPort, r refusal) {
	if r.repeats > 0 {
		l.log.Warn("refused the same connection requests again", "from", a.String(), "reason", r.reason, "times", r.repeats)
	}
}

// refusalText says what a refusal reason means for the person who minted
// the token.
func refusalText(err error) string {
	switch {
	case errors.Is(err, netcode.ErrProtocolID):
		return "wrong protocol id (the token was minted with another protocol id than this server's)"
	case errors.Is(err, netcode.ErrAuth):
		return "failed decryption: the token was minted with another key than this server's"
	case errors.Is(err, netcode.ErrTokenExpired):
		return "token expired (mint a new one, or check the clocks of this machine and the one that minted it)"
	case errors.Is(err, netcode.ErrTokenReused):
		return "token already used (it admitted a client, or is pending from another address; a token stays used until it expires: mint one per connection)"
	case errors.Is(err, netcode.ErrServerFull):
		return "server full (every client slot is taken)"
	case errors.Is(err, netcode.ErrRefusingNew):
		return "the server is draining (it keeps its clients and admits no new ones; join another server)"
	case errors.Is(err, netcode.ErrAlreadyConnected):
		return "already connected (a client with the token's client id plays now; mint a token per player, with its own client id)"
	case errors.Is(err, netcode.ErrTokenHistoryFull):
		return "too many clients admitted recently (the server remembers each token until it expires; mint tokens with a shorter expiry, or wait)"
	case errors.Is(err, netcode.ErrPendingFull):
		return "too many connections being set up at once (try again)"
	case errors.Is(err, netcode.ErrTokenLife):
		return fmt.Sprintf("token expires more than %v ahead", netcode.DefaultMaxTokenLife)
	case errors.Is(err, netcode.ErrTokenTimeout):
		return fmt.Sprintf("token timeout is none or above %v", netcode.DefaultMaxTimeout)
	case errors.Is(err, netcode.ErrServerAddress):
		return "the token does not name this server's public address"
	case errors.Is(err, netcode.ErrTokenInvalid):
		return "the token's sealed part holds invalid contents (a bad client id, addresses or timeout from the minter)"
	case errors.Is(err, netcode.ErrVersion):
		return "not a netcode 1.02 request"
	}
	return err.Error()
}
