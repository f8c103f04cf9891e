package netsim

import "time"

// Scheduler runs callbacks in virtual time. Events run in order of time, and
// events with equal times in the order they were scheduled. The zero value is
// ready to use, with Now() == 0. A Scheduler is not safe for concurrent use;
// callbacks may schedule further events.
type Scheduler struct {
	now    time.Duration
	seq    uint64
	events timedHeap[func()]
}

// Now returns the current virtual time.
func (s *Scheduler) Now() time.Duration { return s.now }

// Len returns the number of events waiting to run.
func (s *Scheduler) Len() int { return len(s.events) }

// At schedules fn to run at time t; a t before Now runs at Now (after the
// events already due then).
func (s *Scheduler) At(t time.Duration, fn func()) {
	s.seq++
	s.events.push(timed[func()]{at: max(t, s.now), seq: s.seq, v: fn})
}

// After schedules fn to run d after Now.
func (s *Scheduler) After(d time.Duration, fn func()) { s.At(s.now+d, fn) }

// RunUntil runs every event due at or before t, including those scheduled by
// the callbacks themselves, advancing Now to each event's time, and then sets
// Now to t. A t before Now runs what is due now and leaves Now unchanged.
func (s *Scheduler) RunUntil(t time.Duration) {
	for len(s.events) > 0 && s.events[0].at <= t {
		e := s.events.pop()
		s.now = e.at
		e.v()
	}
	s.now = max(s.now, t)
}
