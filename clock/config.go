package clock

import (
	"errors"
	"fmt"
	"time"
)

// Config tunes an Estimator. The zero value gives the documented defaults; a
// negative or out-of-range field makes NewEstimator return an error wrapping
// ErrConfig that names the field and its allowed range.
type Config struct {
	// FastPingInterval is the local time between pings while the estimator is
	// collecting its first FastSamples samples of an epoch. Default 100 ms;
	// allowed 1 ms to 10 s.
	FastPingInterval time.Duration
	// SlowPingInterval is the local time between pings afterwards. Default
	// 500 ms (2 Hz); allowed FastPingInterval to 60 s.
	SlowPingInterval time.Duration
	// FastSamples is how many samples an epoch collects at the fast rate.
	// Default 20; allowed 1 to 10000.
	FastSamples int
	// MinSamples is how many samples an epoch needs before Now is ready.
	// Default 4; allowed 1 to Window/3.
	MinSamples int
	// ReadyError: with at least MinSamples samples, Now becomes ready once
	// the estimate's statistical error is below ReadyError, or in any case
	// ReadyWithin after the epoch's first sample. Default 0.5 ms; allowed
	// 1 µs to 1 s.
	ReadyError time.Duration
	// ReadyWithin: see ReadyError. Default 1.2 s; allowed 0 to 1 min.
	ReadyWithin time.Duration
	// Window is how many recent samples the filter keeps. Default 64; allowed
	// 4 to 4096.
	Window int
	// MaxDriftPPM is the largest frequency difference between the two clocks
	// the estimator assumes, in parts per million: the prior on the drift and
	// the ceiling of its uncertainty. Default 500; allowed 1 to 10000.
	MaxDriftPPM float64
	// SlewPPM is the largest rate, in parts per million of the estimated
	// server rate, at which Now's output may depart from the estimated server
	// clock to catch up with it in steady state. Default 500; allowed 1 to 1000.
	SlewPPM float64
	// ConvergeSlewPPM is that rate while converging, applied only to the part
	// of an error beyond FastSlewAbove. Default 10000 (1 %); allowed SlewPPM
	// to 100000.
	ConvergeSlewPPM float64
	// FastSlewAbove is the error below which the output is slewed at SlewPPM
	// only. The first time the error at a pong is within it, converging ends
	// for the epoch. Default 2 ms; allowed 0 to ResetAbove.
	FastSlewAbove time.Duration
	// ResetAbove is the error beyond which the output steps instead of
	// slewing, as a signalled reset. Default 1 s; allowed 1 ms to 1 h.
	ResetAbove time.Duration
}

// ErrConfig is wrapped by every error NewEstimator returns for a bad Config.
var ErrConfig = errors.New("tether/clock: invalid config")

const (
	defaultFastPing        = 100 * time.Millisecond
	defaultSlowPing        = 500 * time.Millisecond
	defaultFastSamples     = 100
	defaultMinSamples      = 6
	defaultWindow          = 256
	defaultReadyError      = 500 * time.Microsecond
	defaultReadyWithin     = 1200 * time.Millisecond
	defaultMaxDriftPPM     = 1000
	defaultSlewPPM         = 500
	defaultConvergeSlewPPM = 10000
	defaultFastSlewAbove   = 2 * time.Millisecond
	defaultResetAbove      = time.Second
)

func configErr(field string, value any, allowed string) error {
	return fmt.Errorf("%w: %s = %v, allowed %s", ErrConfig, field, value, allowed)
}

// resolve fills in defaults and checks ranges.
func (c Config) resolve() (Config, error) {
	if c.FastPingInterval == 0 {
		c.FastPingInterval = defaultFastPing
	}
	if c.SlowPingInterval == 0 {
		c.SlowPingInterval = max(defaultSlowPing, c.FastPingInterval)
	}
	if c.FastSamples == 0 {
		c.FastSamples = defaultFastSamples
	}
	if c.Window == 0 {
		c.Window = defaultWindow
	}
	if c.MinSamples == 0 {
		c.MinSamples = min(defaultMinSamples, c.Window/3)
	}
	if c.ReadyWithin == 0 {
		c.ReadyWithin = defaultReadyWithin
	}
	if c.ReadyError == 0 {
		c.ReadyError = defaultReadyError
	}
	if c.MaxDriftPPM == 0 {
		c.MaxDriftPPM = defaultMaxDriftPPM
	}
	if c.SlewPPM == 0 {
		c.SlewPPM = defaultSlewPPM
	}
	if c.ConvergeSlewPPM == 0 {
		c.ConvergeSlewPPM = max(defaultConvergeSlewPPM, c.SlewPPM)
	}
	if c.ResetAbove == 0 {
		c.ResetAbove = defaultResetAbove
	}
	if c.FastSlewAbove == 0 {
		c.FastSlewAbove = min(defaultFastSlewAbove, c.ResetAbove)
	}
	switch {
	case c.FastPingInterval < time.Millisecond || c.FastPingInterval > 10*time.Second:
		return c, configErr("FastPingInterval", c.FastPingInterval, "1ms to 10s")
	case c.SlowPingInterval < c.FastPingInterval || c.SlowPingInterval > time.Minute:
		return c, configErr("SlowPingInterval", c.SlowPingInterval, "FastPingInterval to 1m")
	case c.FastSamples < 1 || c.FastSamples > 10000:
		return c, configErr("FastSamples", c.FastSamples, "1 to 10000")
	case c.Window < 4 || c.Window > 4096:
		return c, configErr("Window", c.Window, "4 to 4096")
	case c.MinSamples < 1 || c.MinSamples > c.Window/3:
		return c, configErr("MinSamples", c.MinSamples, "1 to Window/3")
	case c.ReadyWithin < 0 || c.ReadyWithin > time.Minute:
		return c, configErr("ReadyWithin", c.ReadyWithin, "0 to 1m")
	case c.ReadyError < time.Microsecond || c.ReadyError > time.Second:
		return c, configErr("ReadyError", c.ReadyError, "1µs to 1s")
	case !(c.MaxDriftPPM >= 1 && c.MaxDriftPPM <= 10000):
		return c, configErr("MaxDriftPPM", c.MaxDriftPPM, "1 to 10000")
	case !(c.SlewPPM >= 1 && c.SlewPPM <= 1000):
		return c, configErr("SlewPPM", c.SlewPPM, "1 to 1000")
	case !(c.ConvergeSlewPPM >= c.SlewPPM && c.ConvergeSlewPPM <= 100000):
		return c, configErr("ConvergeSlewPPM", c.ConvergeSlewPPM, "SlewPPM to 100000")
	case c.ResetAbove < time.Millisecond || c.ResetAbove > time.Hour:
		return c, configErr("ResetAbove", c.ResetAbove, "1ms to 1h")
	case c.FastSlewAbove < 0 || c.FastSlewAbove > c.ResetAbove:
		return c, configErr("FastSlewAbove", c.FastSlewAbove, "0 to ResetAbove")
	}
	return c, nil
}
