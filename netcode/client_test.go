package netcode

import "testing"

// The states a failed connection ends in say what they likely mean; the
// others say nothing.
func TestClientStateCauses(t *testing.T) {
	for _, s := range []ClientState{StateRequestTimedOut, StateDenied, StateResponseTimedOut} {
		if s.Causes() == "" {
			t.Errorf("%v: no causes", s)
		}
	}
	for _, s := range []ClientState{StateConnected, StateDisconnected, StateSendingRequest} {
		if c := s.Causes(); c != "" {
			t.Errorf("%v: causes %q", s, c)
		}
	}
}
