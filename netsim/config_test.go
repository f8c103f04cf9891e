package netsim

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPresets(t *testing.T) {
	for _, name := range PresetNames() {
		c, err := Preset(name)
		if err != nil {
			t.Fatalf("Preset(%q): %v", name, err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Preset(%q).Validate: %v", name, err)
		}
	}
	wan, _ := Preset("wan")
	want := Direction{LatencyMs: 40, Jitter: Jitter{Dist: "lognormal", MeanMs: 10, P99Ms: 60},
		Loss: Loss{Rate: 0.03, MeanBurst: 3}, Dup: 0.01}
	if !reflect.DeepEqual(wan.Up, want) || wan.Down.LatencyMs != 60 || wan.Clock != (Clock{OffsetS: 37, DriftPPM: 100}) {
		t.Errorf("wan = %+v", wan)
	}
	mobile, _ := Preset("mobile")
	if mobile.Up.Spikes == nil || mobile.Down.Spikes == nil || mobile.Up.Spikes == mobile.Down.Spikes ||
		mobile.Up.Spikes.EveryS != 60 || mobile.Clock.DriftPPM != -200 || mobile.Up.Loss.Rate != 0.05 {
		t.Errorf("mobile = %+v", mobile)
	}
	lossy, _ := Preset("lossy")
	if !reflect.DeepEqual(lossy.Blackouts, []Blackout{{AtS: 20, LenS: 2}}) || lossy.Down.Loss.Rate != 0.1 {
		t.Errorf("lossy = %+v", lossy)
	}
	lan, _ := Preset("lan")
	if lan.Up.LatencyMs != 0.5 || lan.Down.Jitter != (Jitter{Dist: "exponential", MeanMs: 0.2}) {
		t.Errorf("lan = %+v", lan)
	}

	_, err := Preset("dialup")
	if err == nil || !strings.Contains(err.Error(), `"dialup"`) || !strings.Contains(err.Error(), "lan, broadband, wan, mobile, lossy") {
		t.Errorf("Preset(dialup) error = %v", err)
	}
}

func TestPresetJSONRoundTrip(t *testing.T) {
	for _, name := range PresetNames() {
		want, _ := Preset(name)
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"up":{"latency_ms":`) {
			t.Errorf("%s marshals to %s, want the full object form", name, b)
		}
		var got LinkConfig
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: unmarshal %s: %v", name, b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s round trip: got %+v, want %+v", name, got, want)
		}
		var byName LinkConfig
		if err := json.Unmarshal([]byte(` "`+name+`" `), &byName); err != nil || !reflect.DeepEqual(byName, want) {
			t.Errorf("by name %q: %+v, %v", name, byName, err)
		}
	}
}

func TestUnmarshalDesignExample(t *testing.T) {
	const link = `{"up":   {"latency_ms": 40, "jitter": {"dist": "lognormal", "mean_ms": 10, "p99_ms": 60},
                       "loss": {"rate": 0.03, "mean_burst": 3}, "dup": 0.01,
                       "spikes": {"every_s": 30, "extra_ms": [50, 200], "len_s": [0.1, 0.5]}},
              "down": {"latency_ms": 60, "jitter": {"dist": "exponential", "mean_ms": 10}},
              "clock": {"offset_s": 37, "drift_ppm": 100},
              "blackouts": [{"at_s": 20, "len_s": 2}]}`
	var c LinkConfig
	if err := json.Unmarshal([]byte(link), &c); err != nil {
		t.Fatal(err)
	}
	if c.Up.Spikes == nil || c.Up.Spikes.LenS != [2]float64{0.1, 0.5} || c.Down.Spikes != nil ||
		c.Down.Loss != (Loss{}) || c.Down.Jitter.MeanMs != 10 || len(c.Blackouts) != 1 {
		t.Errorf("decoded %+v", c)
	}
	// Inside a larger document, as the lab uses it.
	var scenario struct {
		Clients []struct {
			Link LinkConfig `json:"link"`
		} `json:"clients"`
	}
	doc := `{"clients": [{"link": "wan"}, {"link": ` + link + `}, {"link": {"up": {"latency_ms": 5}}}]}`
	if err := json.Unmarshal([]byte(doc), &scenario); err != nil {
		t.Fatal(err)
	}
	if scenario.Clients[0].Link.Clock.OffsetS != 37 || scenario.Clients[2].Link.Up.LatencyMs != 5 ||
		scenario.Clients[2].Link.Down != (Direction{}) {
		t.Errorf("scenario = %+v", scenario)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"up":{"latncy_ms":1}}`, `unknown field "up.latncy_ms"`},
		{`{"Up":{}}`, `unknown field "Up"`},
		{`{"down":{"jitter":{"dist":"uniform","max_ms":3,"p95_ms":1}}}`, `unknown field "down.jitter.p95_ms"`},
		{`{"blackouts":[{"at_s":1,"len_s":1},{"at_s":1,"len_s":1,"x":2}]}`, `unknown field "blackouts[1].x"`},
		{`{"up":{"spikes":{"every_s":3,"extra_ms":[1,2],"len_s":[1,2],"often":true}}}`, `unknown field "up.spikes.often"`},
		{`{"up":{"loss":{"rate":1.5}}}`, `tether/netsim: up.loss.rate = 1.5, want 0 <= rate < 1`},
		{`{"down":{"jitter":{"dist":"gaussian"}}}`, `down.jitter.dist = "gaussian", want one of`},
		{`{"clock":{"drift_ppm":-20000}}`, `clock.drift_ppm = -20000`},
		{`"dialup"`, `unknown link preset "dialup"`},
		{`{"up":{"latency_ms":"fast"}}`, `tether/netsim: link: json: cannot unmarshal`},
		{`[1]`, `tether/netsim: link: json: cannot unmarshal`},
		{`7`, `tether/netsim: link: json: cannot unmarshal`},
	} {
		var c LinkConfig
		err := json.Unmarshal([]byte(tc.in), &c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Unmarshal(%s) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
	var c LinkConfig
	err := json.Unmarshal([]byte(`{"up":{"loss":{"rate":-1}}}`), &c)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "up.loss.rate" || !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("error %v is not a *ConfigError for up.loss.rate", err)
	}
	c = LinkConfig{Clock: Clock{OffsetS: 1}}
	if err := json.Unmarshal([]byte(`null`), &c); err != nil || c.Clock.OffsetS != 1 {
		t.Errorf("null: %v, %+v", err, c)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(c *LinkConfig)
		field string // "" = valid
	}{
		{"zero", func(c *LinkConfig) {}, ""},
		{"latency negative", func(c *LinkConfig) { c.Up.LatencyMs = -1 }, "up.latency_ms"},
		{"latency huge", func(c *LinkConfig) { c.Down.LatencyMs = 1e9 }, "down.latency_ms"},
		{"latency NaN", func(c *LinkConfig) { c.Down.LatencyMs = math.NaN() }, "down.latency_ms"},
		{"none with mean", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "none", MeanMs: 3} }, "up.jitter.mean_ms"},
		{"uniform", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "uniform", MaxMs: 3} }, ""},
		{"uniform no max", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "uniform"} }, "up.jitter.max_ms"},
		{"uniform with mean", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "uniform", MaxMs: 3, MeanMs: 1} }, "up.jitter.mean_ms"},
		{"exponential no mean", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "exponential"} }, "up.jitter.mean_ms"},
		{"exponential with p99", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "exponential", MeanMs: 1, P99Ms: 5} }, "up.jitter.p99_ms"},
		{"lognormal p99 below mean", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "lognormal", MeanMs: 10, P99Ms: 9} }, "up.jitter.p99_ms"},
		{"lognormal p99 too far", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "lognormal", MeanMs: 10, P99Ms: 150} }, "up.jitter.p99_ms"},
		{"lognormal near limit", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "lognormal", MeanMs: 10, P99Ms: 149} }, ""},
		{"pareto", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "pareto", MeanMs: 10, P99Ms: 60} }, ""},
		{"pareto p99 too far", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "pareto", MeanMs: 10, P99Ms: 80} }, "up.jitter.p99_ms"},
		{"pareto no p99", func(c *LinkConfig) { c.Up.Jitter = Jitter{Dist: "pareto", MeanMs: 10} }, "up.jitter.p99_ms"},
		{"loss 1", func(c *LinkConfig) { c.Down.Loss.Rate = 1 }, "down.loss.rate"},
		{"burst below 1", func(c *LinkConfig) { c.Down.Loss = Loss{Rate: 0.1, MeanBurst: 0.5} }, "down.loss.mean_burst"},
		{"burst impossible", func(c *LinkConfig) { c.Down.Loss = Loss{Rate: 0.6, MeanBurst: 1.2} }, "down.loss.mean_burst"},
		{"burst ok", func(c *LinkConfig) { c.Down.Loss = Loss{Rate: 0.6, MeanBurst: 1.5} }, ""},
		{"dup", func(c *LinkConfig) { c.Up.Dup = 1.01 }, "up.dup"},
		{"spikes extra reversed", func(c *LinkConfig) {
			c.Up.Spikes = &Spikes{EveryS: 10, ExtraMs: [2]float64{5, 1}, LenS: [2]float64{1, 2}}
		}, "up.spikes.extra_ms"},
		{"spikes zero length", func(c *LinkConfig) { c.Up.Spikes = &Spikes{EveryS: 10, ExtraMs: [2]float64{1, 5}} }, "up.spikes.len_s"},
		{"spikes too short", func(c *LinkConfig) {
			c.Up.Spikes = &Spikes{EveryS: 1e-9, ExtraMs: [2]float64{1, 5}, LenS: [2]float64{1e-12, 1e-12}}
		}, "up.spikes.len_s"},
		{"spikes too often", func(c *LinkConfig) {
			c.Up.Spikes = &Spikes{EveryS: 1, ExtraMs: [2]float64{1, 5}, LenS: [2]float64{1, 2}}
		}, "up.spikes.every_s"},
		{"bandwidth", func(c *LinkConfig) { c.Up.BandwidthKbps = 0.5 }, "up.bandwidth_kbps"},
		{"offset", func(c *LinkConfig) { c.Clock.OffsetS = 2e6 }, "clock.offset_s"},
		{"blackout at", func(c *LinkConfig) { c.Blackouts = []Blackout{{AtS: 1, LenS: 1}, {AtS: -1, LenS: 1}} }, "blackouts[1].at_s"},
		{"blackout len", func(c *LinkConfig) { c.Blackouts = []Blackout{{AtS: 1}} }, "blackouts[0].len_s"},
	} {
		var c LinkConfig
		tc.edit(&c)
		err := c.Validate()
		var ce *ConfigError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.field)
		case tc.field != "" && !strings.Contains(err.Error(), "want "):
			t.Errorf("%s: error %v does not state the allowed range", tc.name, err)
		}
	}
}

func FuzzLinkConfigJSON(f *testing.F) {
	for _, name := range PresetNames() {
		c, _ := Preset(name)
		b, _ := json.Marshal(c)
		f.Add(b)
		f.Add([]byte(`"` + name + `"`))
	}
	f.Add([]byte(`{"up":{"jitter":{"dist":"pareto","mean_ms":3,"p99_ms":20},"bandwidth_kbps":64}}`))
	f.Add([]byte(`{"up":{"jitter":{"dist":"uniform","max_ms":3}},"blackouts":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c LinkConfig
		if err := json.Unmarshal(b, &c); err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("decoded config is invalid: %v", err)
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var again LinkConfig
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		if out2, _ := json.Marshal(again); string(out2) != string(out) {
			t.Fatalf("round trip changed %s to %s", out, out2)
		}
		l := NewLink(c, 1)
		var arr []time.Duration
		for i := range 8 {
			arr = l.Up.Send(time.Duration(i)*time.Second, 100, arr[:0])
			arr = l.Down.Send(time.Duration(i)*time.Second, 100, arr[:0])
		}
	})
}

// A link's base latencies, their asymmetry and whether it spikes, as the
// meters read them.
func TestLinkLatency(t *testing.T) {
	l, err := Preset("mobile")
	if err != nil {
		t.Fatal(err)
	}
	up, down := l.Latency()
	if up != time.Duration(l.Up.LatencyMs*1e6) || down != time.Duration(l.Down.LatencyMs*1e6) || l.Asymmetry() != (up-down)/2 || !l.Spiky() {
		t.Errorf("mobile: up %v, down %v, asymmetry %v, spiky %v", up, down, l.Asymmetry(), l.Spiky())
	}
	if b, _ := Preset("broadband"); b.Spiky() {
		t.Error("broadband spikes")
	}
}
