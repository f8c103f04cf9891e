package netsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Jitter is the distribution of the random delay added to each datagram on top
// of the base latency. Dist is one of "none" (or ""), "uniform", "exponential",
// "lognormal" and "pareto"; only the fields that distribution uses may be set.
type Jitter struct {
	Dist   string  `json:"dist"`              // "none" (or ""), "uniform", "exponential", "lognormal", "pareto"
	MaxMs  float64 `json:"max_ms,omitempty"`  // uniform: U[0, max_ms]
	MeanMs float64 `json:"mean_ms,omitempty"` // exponential, lognormal, pareto: mean
	P99Ms  float64 `json:"p99_ms,omitempty"`  // lognormal, pareto: 99th percentile
}

// Loss is random datagram loss. With MeanBurst > 1 losses come in bursts (a
// two-state Gilbert–Elliott chain stepped per datagram) whose mean length is
// MeanBurst datagrams, with the same overall Rate. With BurstMs > 0 instead,
// the bursts are spans of time: the path is down (every datagram sent is
// lost) for spans of BurstMs on average, a share Rate of the time, whatever
// is sent. A burst of a fixed number of datagrams lasts longer the fewer
// datagrams a protocol sends; a burst in time loses every datagram sent in
// it, however many that is (congestion and radio fades are spans of time).
type Loss struct {
	Rate      float64 `json:"rate"`
	MeanBurst float64 `json:"mean_burst,omitempty"`
	BurstMs   float64 `json:"burst_ms,omitempty"`
}

// Spikes are episodes of extra latency. Spikes start on average every EveryS
// seconds (the quiet time between one spike's end and the next start is
// exponentially distributed, seeded); each lasts a time drawn uniformly from
// LenS and adds a delay drawn uniformly from ExtraMs to every datagram sent
// during it. Spikes never overlap. EveryS must exceed LenS[1].
type Spikes struct {
	EveryS  float64    `json:"every_s"`
	ExtraMs [2]float64 `json:"extra_ms"`
	LenS    [2]float64 `json:"len_s"`
}

// Direction models one direction of a link.
type Direction struct {
	LatencyMs     float64 `json:"latency_ms"`               // base one-way delay
	Jitter        Jitter  `json:"jitter"`                   // random extra delay per datagram
	Loss          Loss    `json:"loss"`                     // random and burst loss
	Dup           float64 `json:"dup"`                      // probability a datagram is delivered twice (independent jitter)
	Spikes        *Spikes `json:"spikes,omitempty"`         // latency spikes; nil means none
	BandwidthKbps float64 `json:"bandwidth_kbps,omitempty"` // 0 = unlimited; otherwise a bounded serialisation queue
}

// Clock describes the client's local clock against true time: an offset in
// seconds and a rate error in parts per million.
type Clock struct {
	OffsetS  float64 `json:"offset_s"`
	DriftPPM float64 `json:"drift_ppm"`
}

// Blackout is an outage of both directions from AtS for LenS seconds.
type Blackout struct {
	AtS  float64 `json:"at_s"`
	LenS float64 `json:"len_s"`
}

// LinkConfig is a client's link to the server. The zero value is a perfect
// link: no latency, jitter, loss, duplication or clock error.
//
// In JSON a LinkConfig is either the name of a preset (a string) or an object
// in which a missing field means "none". Marshalling always produces the full
// object form.
type LinkConfig struct {
	Up        Direction  `json:"up"`   // client -> server
	Down      Direction  `json:"down"` // server -> client
	Clock     Clock      `json:"clock"`
	Blackouts []Blackout `json:"blackouts,omitempty"` // both directions drop everything
}

// Latency returns the link's base latency each way.
func (l LinkConfig) Latency() (up, down time.Duration) {
	return msDur(l.Up.LatencyMs), msDur(l.Down.LatencyMs)
}

// Asymmetry is half the difference of the base latencies, up less down: the
// error in a clock offset that no round trip can see.
func (l LinkConfig) Asymmetry() time.Duration {
	up, down := l.Latency()
	return (up - down) / 2
}

// Spiky reports whether the link has latency spikes either way.
func (l LinkConfig) Spiky() bool { return l.Up.Spikes != nil || l.Down.Spikes != nil }

// Limits enforced by Validate.
const (
	maxDelayMs   = 60_000 // any latency, jitter parameter or spike extra
	maxOffsetS   = 1e6    // |clock.offset_s|
	maxDriftPPM  = 10_000 // |clock.drift_ppm|
	maxTimeS     = 1e6    // blackout and spike times
	maxBandwidth = 1e7    // kbps
	minBandwidth = 1      // kbps
)

// ErrInvalidConfig is matched (errors.Is) by every *ConfigError.
var ErrInvalidConfig = errors.New("tether/netsim: invalid link config")

// ConfigError reports a field of a LinkConfig outside its allowed range.
type ConfigError struct {
	Field string // path of the field, as in JSON, e.g. "up.loss.rate"
	Value string // the offending value
	Want  string // the allowed range
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("tether/netsim: %s = %s, want %s", e.Field, e.Value, e.Want)
}

// Is makes errors.Is(err, ErrInvalidConfig) true.
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

func fieldErr(field string, v float64, want string) error {
	return &ConfigError{Field: field, Value: strconv.FormatFloat(v, 'g', -1, 64), Want: want}
}

// in reports lo <= v <= hi; false for NaN.
func in(v, lo, hi float64) bool { return v >= lo && v <= hi }

// Validate reports the first field outside its allowed range as a *ConfigError
// naming the field path and the range.
func (c LinkConfig) Validate() error {
	if err := c.Up.validate("up"); err != nil {
		return err
	}
	if err := c.Down.validate("down"); err != nil {
		return err
	}
	if !in(c.Clock.OffsetS, -maxOffsetS, maxOffsetS) {
		return fieldErr("clock.offset_s", c.Clock.OffsetS, "-1e6 <= offset_s <= 1e6")
	}
	if !in(c.Clock.DriftPPM, -maxDriftPPM, maxDriftPPM) {
		return fieldErr("clock.drift_ppm", c.Clock.DriftPPM, "-10000 <= drift_ppm <= 10000")
	}
	for i, b := range c.Blackouts {
		f := fmt.Sprintf("blackouts[%d]", i)
		if !in(b.AtS, 0, maxTimeS) {
			return fieldErr(f+".at_s", b.AtS, "0 <= at_s <= 1e6")
		}
		if !(b.LenS > 0 && b.LenS <= maxTimeS) {
			return fieldErr(f+".len_s", b.LenS, "0 < len_s <= 1e6")
		}
	}
	return nil
}

func (d Direction) validate(p string) error {
	if !in(d.LatencyMs, 0, maxDelayMs) {
		return fieldErr(p+".latency_ms", d.LatencyMs, "0 <= latency_ms <= 60000")
	}
	if err := d.Jitter.validate(p + ".jitter"); err != nil {
		return err
	}
	if !(d.Loss.Rate >= 0 && d.Loss.Rate < 1) {
		return fieldErr(p+".loss.rate", d.Loss.Rate, "0 <= rate < 1")
	}
	if b := d.Loss.MeanBurst; b != 0 {
		if !in(b, 1, 1e6) {
			return fieldErr(p+".loss.mean_burst", b, "0 (none) or 1 <= mean_burst <= 1e6")
		}
		// Leaving the good state with probability rate/(1-rate)/mean_burst must be possible.
		if need := d.Loss.Rate / (1 - d.Loss.Rate); b > 1 && b < need {
			return fieldErr(p+".loss.mean_burst", b,
				fmt.Sprintf("mean_burst >= rate/(1-rate) = %.4g for rate %g", need, d.Loss.Rate))
		}
	}
	if b := d.Loss.BurstMs; b != 0 {
		if d.Loss.MeanBurst != 0 {
			return fieldErr(p+".loss.burst_ms", b, "0 when mean_burst is set (bursts in datagrams or in time, not both)")
		}
		if !in(b, 0.001, maxTimeS*1e3) {
			return fieldErr(p+".loss.burst_ms", b, "0 (none) or 0.001 <= burst_ms <= 1e9")
		}
	}
	if !in(d.Dup, 0, 1) {
		return fieldErr(p+".dup", d.Dup, "0 <= dup <= 1")
	}
	if s := d.Spikes; s != nil {
		q := p + ".spikes"
		if !(s.ExtraMs[0] >= 0 && s.ExtraMs[0] <= s.ExtraMs[1] && s.ExtraMs[1] <= maxDelayMs) {
			return &ConfigError{Field: q + ".extra_ms", Value: fmt.Sprint(s.ExtraMs), Want: "0 <= extra_ms[0] <= extra_ms[1] <= 60000"}
		}
		if !(s.LenS[0] >= 0.001 && s.LenS[0] <= s.LenS[1] && s.LenS[1] <= maxTimeS) {
			return &ConfigError{Field: q + ".len_s", Value: fmt.Sprint(s.LenS), Want: "0.001 <= len_s[0] <= len_s[1] <= 1e6"}
		}
		if !(s.EveryS > s.LenS[1] && s.EveryS <= maxTimeS) {
			return fieldErr(q+".every_s", s.EveryS, fmt.Sprintf("len_s[1] (%g) < every_s <= 1e6", s.LenS[1]))
		}
	}
	if b := d.BandwidthKbps; b != 0 && !in(b, minBandwidth, maxBandwidth) {
		return fieldErr(p+".bandwidth_kbps", b, "0 (unlimited) or 1 <= bandwidth_kbps <= 1e7")
	}
	return nil
}

func (j Jitter) validate(p string) error {
	var useMax, useMean, useP99 bool
	switch j.Dist {
	case "", "none":
	case "uniform":
		useMax = true
	case "exponential":
		useMean = true
	case "lognormal", "pareto":
		useMean, useP99 = true, true
	default:
		return &ConfigError{Field: p + ".dist", Value: strconv.Quote(j.Dist),
			Want: `one of "none", "uniform", "exponential", "lognormal", "pareto"`}
	}
	params := [...]struct {
		name string
		v    float64
		used bool
	}{{"max_ms", j.MaxMs, useMax}, {"mean_ms", j.MeanMs, useMean}, {"p99_ms", j.P99Ms, useP99}}
	for _, q := range params {
		if !q.used && q.v != 0 {
			return fieldErr(p+"."+q.name, q.v, fmt.Sprintf("unset (0) for dist %q", j.Dist))
		}
	}
	if useMax && !(j.MaxMs > 0 && j.MaxMs <= maxDelayMs) {
		return fieldErr(p+".max_ms", j.MaxMs, "0 < max_ms <= 60000")
	}
	if useMean && !(j.MeanMs > 0 && j.MeanMs <= maxDelayMs) {
		return fieldErr(p+".mean_ms", j.MeanMs, "0 < mean_ms <= 60000")
	}
	if useP99 {
		hi := lognormalMaxRatio
		if j.Dist == "pareto" {
			hi = paretoMaxRatio
		}
		if !(j.P99Ms > j.MeanMs && j.P99Ms < hi*j.MeanMs) {
			return fieldErr(p+".p99_ms", j.P99Ms, fmt.Sprintf(
				"mean_ms < p99_ms < %.4g*mean_ms (no %s has mean %g ms and this p99)", hi, j.Dist, j.MeanMs))
		}
	}
	return nil
}

var presetNames = []string{"lan", "broadband", "wan", "mobile", "lossy"}

// PresetNames returns the names accepted by Preset, in order of worsening link.
func PresetNames() []string { return append([]string(nil), presetNames...) }

// Preset returns the named link profile from the design's table:
//
//	lan        0.5/0.5 ms, exponential jitter mean 0.2 ms
//	broadband  25/25 ms, exponential 5 ms, 1% loss
//	wan        40 up/60 down ms, lognormal mean 10 p99 60 ms, 3% loss in bursts of mean 3,
//	           1% duplicates, client clock +37 s and +100 ppm
//	mobile     75/75 ms, exponential 15 ms, 5% loss, spikes of +50..200 ms lasting
//	           0.1..0.5 s in each direction about every 60 s (so about every 30 s
//	           overall, each in one direction), client clock -200 ppm
//	lossy      25/25 ms, exponential 5 ms, 10% loss, a 2 s blackout at t = 20 s
//
// Every figure is per direction. An unknown name is an error listing the allowed names.
func Preset(name string) (LinkConfig, error) {
	sym := func(ms float64, j Jitter, loss Loss) LinkConfig {
		d := Direction{LatencyMs: ms, Jitter: j, Loss: loss}
		return LinkConfig{Up: d, Down: d}
	}
	exp := func(mean float64) Jitter { return Jitter{Dist: "exponential", MeanMs: mean} }
	switch name {
	case "lan":
		return sym(0.5, exp(0.2), Loss{}), nil
	case "broadband":
		return sym(25, exp(5), Loss{Rate: 0.01}), nil
	case "wan":
		c := sym(40, Jitter{Dist: "lognormal", MeanMs: 10, P99Ms: 60}, Loss{Rate: 0.03, MeanBurst: 3})
		c.Up.Dup, c.Down.Dup = 0.01, 0.01
		c.Down.LatencyMs = 60
		c.Clock = Clock{OffsetS: 37, DriftPPM: 100}
		return c, nil
	case "mobile":
		c := sym(75, exp(15), Loss{Rate: 0.05})
		spikes := func() *Spikes { return &Spikes{EveryS: 60, ExtraMs: [2]float64{50, 200}, LenS: [2]float64{0.1, 0.5}} }
		c.Up.Spikes, c.Down.Spikes = spikes(), spikes()
		c.Clock.DriftPPM = -200
		return c, nil
	case "lossy":
		c := sym(25, exp(5), Loss{Rate: 0.10})
		c.Blackouts = []Blackout{{AtS: 20, LenS: 2}}
		return c, nil
	}
	return LinkConfig{}, fmt.Errorf("tether/netsim: unknown link preset %q, want one of %s",
		name, strings.Join(presetNames, ", "))
}

// UnmarshalJSON accepts a preset name (a JSON string) or an object. Objects
// reject unknown fields, naming their path (e.g. "up.jitter.p95_ms"), and the
// result is validated. JSON null leaves c unchanged.
func (c *LinkConfig) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return fmt.Errorf("tether/netsim: link: %w", err)
		}
		p, err := Preset(name)
		if err != nil {
			return err
		}
		*c = p
		return nil
	}
	if err := checkFields(b, reflect.TypeFor[LinkConfig](), ""); err != nil {
		return err
	}
	type plain LinkConfig // no UnmarshalJSON method
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("tether/netsim: link: %w", err)
	}
	if err := LinkConfig(v).Validate(); err != nil {
		return err
	}
	*c = LinkConfig(v)
	return nil
}

// checkFields reports the first (in sorted order) key of a JSON object, at any
// depth, that names no field of struct type t. Keys match the json tags
// exactly. Values that are not objects or arrays are left to encoding/json.
func checkFields(b []byte, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) != nil {
			return nil
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f, ok := fieldByTag(t, k)
			name := k
			if path != "" {
				name = path + "." + k
			}
			if !ok {
				return fmt.Errorf("tether/netsim: unknown field %q in link", name)
			}
			if err := checkFields(obj[k], f.Type, name); err != nil {
				return err
			}
		}
	case reflect.Slice:
		var arr []json.RawMessage
		if json.Unmarshal(b, &arr) != nil {
			return nil
		}
		for i, e := range arr {
			if err := checkFields(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
