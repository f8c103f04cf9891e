package replicate

import (
	"errors"
	"fmt"
	"time"

	"github.com/tether-net/tether/physics"
)

// Method names a way for a client to show a server-owned body, so that games
// and tools can offer the choice by name (a flag, a config file).
type Method string

// The methods. Tether is the default: snapshot interpolation on the client's
// render clock (package timeline, Interp here), which a client draws with its
// own timelines.
const (
	MethodTether     Method = "tether"     // snapshot interpolation (Interp), the default
	MethodSeed       Method = "seed"       // the naive baseline (Seed)
	MethodVelocity   Method = "velocity"   // Unreal's "Default" velocity correction (Velocity)
	MethodPredictive Method = "predictive" // Unreal's predictive interpolation (Predictive)
	MethodResim      Method = "resim"      // rollback and re-simulation (Resim)
)

// Methods lists every method, the default first.
func Methods() []Method {
	return []Method{MethodTether, MethodSeed, MethodVelocity, MethodPredictive, MethodResim}
}

// ErrMethod is matched (errors.Is) by the error ParseMethod returns for an
// unknown name.
var ErrMethod = errors.New("tether/replicate: unknown method")

// ParseMethod returns the method named s; "" is MethodTether.
func ParseMethod(s string) (Method, error) {
	if s == "" {
		return MethodTether, nil
	}
	for _, m := range Methods() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w %q, want one of %v", ErrMethod, s, Methods())
}

// NewView returns the view of method m for body of w, a client's own copy of
// the server's world (the same static shapes and body, stepping at the
// server's tick rate), which the view owns from then on. MethodTether returns
// nil: a client draws it with its own timeline (package client; NewInterp
// makes one outside a client). MethodSeed ignores w. The modes take their
// default configurations, with Tick the world's step.
func NewView(m Method, w *physics.World, body physics.BodyID) (View, error) {
	tick := time.Second / time.Duration(w.StepHz())
	switch m {
	case MethodTether, "":
		return nil, nil
	case MethodSeed:
		return &Seed{}, nil
	case MethodVelocity:
		return NewVelocity(VelocityConfig{Tick: tick}, NewWorldSim(w, body))
	case MethodPredictive:
		return NewPredictive(PredictiveConfig{Tick: tick}, NewWorldSim(w, body))
	case MethodResim:
		return NewWorldResim[NoInput](ResimConfig{Tick: tick}, w, body, nil)
	}
	return nil, fmt.Errorf("%w %q, want one of %v", ErrMethod, m, Methods())
}
