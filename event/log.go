package event

import "time"

// Log is a client's bounded memory of recent events: it drops duplicates (an
// event seen twice, by ID) and keeps the newest Cap events in order of ID, so
// a game can draw each one at its age (Event.At) for as long as it lasts.
type Log struct {
	buf    []Event // ring, in order of ID
	start  int
	n      int
	newest uint32
	any    bool

	Duplicates uint64 // events ignored because their ID was seen
}

// NewLog returns a Log that remembers the newest capacity events (at least 1).
func NewLog(capacity int) *Log {
	return &Log{buf: make([]Event, max(1, capacity))}
}

// Add records e and reports whether it was new. An event whose ID is not newer
// than the newest seen is a duplicate (events arrive in order on a reliable
// channel; a resent one is older). Add does not allocate.
func (l *Log) Add(e Event) bool {
	if l.any && int32(e.ID-l.newest) <= 0 {
		l.Duplicates++
		return false
	}
	l.any, l.newest = true, e.ID
	if l.n == len(l.buf) {
		l.start = (l.start + 1) % len(l.buf)
		l.n--
	}
	l.buf[(l.start+l.n)%len(l.buf)] = e
	l.n++
	return true
}

// Len returns the number of events held.
func (l *Log) Len() int { return l.n }

// Event returns the i-th event held, oldest first (0 ≤ i < Len).
func (l *Log) Event(i int) Event { return l.buf[(l.start+i)%len(l.buf)] }

// Since returns the index of the first event held whose Time is after t, or Len
// if none is: events from there on happened after server time t.
func (l *Log) Since(t time.Duration) int {
	for i := range l.n {
		if l.Event(i).Time > t {
			return i
		}
	}
	return l.n
}
