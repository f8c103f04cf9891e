package ops

import (
	"fmt"
	"sync"
)

// State is a game server's lifecycle state.
type State int32

// The states, in the order a process goes through them.
const (
	Starting  State = iota // not yet accepting players
	Ready                  // accepting players, no match in use (again after Release)
	Allocated              // a match is in use
	Draining               // told to stop: admits nobody, ends its match
)

func (s State) String() string {
	switch s {
	case Starting:
		return "starting"
	case Ready:
		return "ready"
	case Allocated:
		return "allocated"
	case Draining:
		return "draining"
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// Accepting reports whether players may join in state s.
func (s State) Accepting() bool { return s == Ready || s == Allocated }

// TransitionError is returned for a transition the lifecycle does not allow.
type TransitionError struct{ From, To State }

func (e *TransitionError) Error() string {
	return fmt.Sprintf("tether/ops: no transition from %v to %v", e.From, e.To)
}

// Lifecycle is the state machine. The zero value is not usable; create one
// with NewLifecycle. It is safe for concurrent use.
type Lifecycle struct {
	mu       sync.Mutex
	state    State
	matches  uint64 // entries into Allocated
	watchers []func(from, to State)
	draining chan struct{}
}

// NewLifecycle returns a Lifecycle in Starting.
func NewLifecycle() *Lifecycle { return &Lifecycle{draining: make(chan struct{})} }

// State returns the current state.
func (l *Lifecycle) State() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// Match returns the number of times the lifecycle entered Allocated: a
// new number is a new match, even if a check in between never saw it
// Ready.
func (l *Lifecycle) Match() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.matches
}

// Watch calls fn after every transition, in order, from the goroutine that
// made it (never two calls at once for one Lifecycle). fn must not call
// Ready, Allocate or Drain.
func (l *Lifecycle) Watch(fn func(from, to State)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.watchers = append(l.watchers, fn)
}

// Ready moves Starting to Ready.
func (l *Lifecycle) Ready() error { return l.move(Ready, Starting) }

// Allocate moves Ready to Allocated; it is a no-op in Allocated.
func (l *Lifecycle) Allocate() error {
	if err := l.move(Allocated, Ready); err != nil && l.State() != Allocated {
		return err
	}
	return nil
}

// Release moves Allocated back to Ready: the match ended and the server
// takes a new one (Agones may allocate it again).
func (l *Lifecycle) Release() error { return l.move(Ready, Allocated) }

// Drain moves any state to Draining. It returns false if the lifecycle was
// already draining.
func (l *Lifecycle) Drain() bool {
	return l.move(Draining, Starting, Ready, Allocated) == nil
}

// Draining is closed when the lifecycle enters Draining.
func (l *Lifecycle) Draining() <-chan struct{} { return l.draining }

// move makes the transition to to from one of the states in from. The
// watchers run under the lock, so transitions and their reports stay in
// order.
func (l *Lifecycle) move(to State, from ...State) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.state
	ok := false
	for _, f := range from {
		ok = ok || cur == f
	}
	if !ok {
		return &TransitionError{From: cur, To: to}
	}
	l.state = to
	if to == Allocated {
		l.matches++
	}
	if to == Draining {
		close(l.draining)
	}
	for _, w := range l.watchers {
		w(cur, to)
	}
	return nil
}
