package clock

import (
	"errors"
	"fmt"
	"time"
)

// Config tunes an Estimator. The zero value of every field means its
// default; an out-of-range field makes NewEstimator return an error wrapping
// ErrConfig that names the field and its allowed range. Times are local
// (client clock) durations; rates are in parts per million (ppm).
type Config struct {
	// FastPingInterval is the time between pings for the first FastSamples
	// samples of an epoch (connect, server restart). Default 100 ms (10 Hz);
	// allowed 1 ms to 10 s.
	FastPingInterval time.Duration
	// SlowPingInterval is the time between pings once the epoch has
	// 2*FastSamples samples; in between, the interval lengthens evenly.
	// Default 500 ms (2 Hz); allowed FastPingInterval to 1 min.
	SlowPingInterval time.Duration
	// FastSamples: see FastPingInterval. Default 100; allowed 1 to 10000.
	FastSamples int
	// BurstSamples is how many of an epoch's first samples are pinged for at
	// half FastPingInterval (20 Hz by default, which is what a server
	// answers at most), so that Now is ready sooner and with less error.
	// Default 16; -1 means none; allowed up to FastSamples.
	BurstSamples int
	// Window is how many recent samples the filter keeps. Default 128 (about
	// a minute at 2 Hz: short enough to follow the wander of a drifting
	// clock); allowed 16 to 4096.
	Window int
	// MinSamples is the least number of samples of an epoch before Now is
	// ready. Default 6; allowed 1 to Window/2.
	MinSamples int
	// ReadyError: with MinSamples samples, Now becomes ready once the
	// estimate's statistical error is below ReadyError, or in any case
	// ReadyWithin after the epoch's first sample. Default 500 µs; allowed
	// 1 µs to 1 s.
	ReadyError time.Duration
	// ReadyWithin: see ReadyError. Default 1.2 s; allowed up to 1 min.
	ReadyWithin time.Duration
	// MaxDriftPPM bounds the frequency difference between the two clocks:
	// the range the drift is searched in, the scale of its prior (a quarter
	// of it), and the ceiling of its uncertainty in Bound. Default 1000;
	// allowed 1 to 10000.
	MaxDriftPPM float64
	// SlewPPM is the largest rate at which Now's output departs from the
	// estimated server rate to close a gap to the estimate, in steady state.
	// While the drift is still uncertain the rate is lowered so that slew
	// plus drift error stays under 950 ppm. Default 500; allowed 1 to 1000.
	SlewPPM float64
	// ConvergeSlewPPM is the rate for the part of a gap beyond FastSlewAbove
	// while converging: from the first ready moment of an epoch until the
	// gap at a pong is within FastSlewAbove. Default 10000 (1 %); allowed
	// SlewPPM to 100000.
	ConvergeSlewPPM float64
	// FastSlewAbove: see ConvergeSlewPPM. Default 2 ms; allowed 1 µs to
	// ResetAbove.
	FastSlewAbove time.Duration
	// ResetAbove is the gap beyond which the output steps to the estimate
	// instead of slewing, as a signalled reset (Epoch increments). Default
	// 1 s; allowed 1 ms to 1 h.
	ResetAbove time.Duration
}

// ErrConfig is wrapped by every error NewEstimator returns for a bad Config.
var ErrConfig = errors.New("tether/clock: invalid config")

const (
	defaultFastPing        = 100 * time.Millisecond
	defaultSlowPing        = 500 * time.Millisecond
	defaultFastSamples     = 100
	defaultBurstSamples    = 16
	defaultMinSamples      = 6
	defaultWindow          = 128
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
	switch c.BurstSamples {
	case 0:
		c.BurstSamples = min(defaultBurstSamples, c.FastSamples)
	case -1:
		c.BurstSamples = 0
	}
	if c.Window == 0 {
		c.Window = defaultWindow
	}
	if c.MinSamples == 0 {
		c.MinSamples = min(defaultMinSamples, max(c.Window/2, 1))
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
		return c, configErr("SlowPingInterval", c.SlowPingInterval, "FastPingInterval to 1m0s")
	case c.FastSamples < 1 || c.FastSamples > 10000:
		return c, configErr("FastSamples", c.FastSamples, "1 to 10000")
	case c.BurstSamples < 0 || c.BurstSamples > c.FastSamples:
		return c, configErr("BurstSamples", c.BurstSamples, "-1 (none) to FastSamples")
	case c.Window < 16 || c.Window > 4096:
		return c, configErr("Window", c.Window, "16 to 4096")
	case c.MinSamples < 1 || c.MinSamples > c.Window/2:
		return c, configErr("MinSamples", c.MinSamples, "1 to Window/2")
	case c.ReadyWithin < 0 || c.ReadyWithin > time.Minute:
		return c, configErr("ReadyWithin", c.ReadyWithin, "up to 1m0s")
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
	case c.FastSlewAbove < time.Microsecond || c.FastSlewAbove > c.ResetAbove:
		return c, configErr("FastSlewAbove", c.FastSlewAbove, "1µs to ResetAbove")
	}
	return c, nil
}
