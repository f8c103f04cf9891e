package lab

import (
	"errors"
	"strings"
	"testing"
)

const designExample = `{
  "name": "example", "seed": 7, "duration_s": 60,
  "tick_hz": 60, "snapshot_hz": 30, "frame_hz": 60,
  "game": "ball-drill",
  "clients": [
    {"name": "a", "clock": "tether", "ball": "tether", "link": "wan"},
    {"name": "b", "clock": "oneshot", "ball": "seed",
     "link": {"up":   {"latency_ms": 40, "jitter": {"dist": "lognormal", "mean_ms": 10, "p99_ms": 60},
                       "loss": {"rate": 0.03, "mean_burst": 3}, "dup": 0.01,
                       "spikes": {"every_s": 30, "extra_ms": [50, 200], "len_s": [0.1, 0.5]}},
              "down": {"latency_ms": 60, "jitter": {"dist": "exponential", "mean_ms": 10}},
              "clock": {"offset_s": 37, "drift_ppm": 100},
              "blackouts": [{"at_s": 20, "len_s": 2}]}}
  ]
}`

func TestParseDesignExample(t *testing.T) {
	s, err := ParseScenario(strings.NewReader(designExample))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "example" || s.Seed != 7 || len(s.Clients) != 2 {
		t.Fatalf("parsed %+v", s)
	}
	b := s.Clients[1].Link
	if b.Up.LatencyMs != 40 || b.Down.Jitter.Dist != "exponential" || b.Clock.OffsetS != 37 || len(b.Blackouts) != 1 {
		t.Fatalf("client b's link parsed as %+v", b)
	}
	if s.Clients[0].Link.Clock.DriftPPM != 100 {
		t.Fatalf("preset wan not resolved: %+v", s.Clients[0].Link)
	}
}

func TestParseDefaults(t *testing.T) {
	s, err := ParseScenario(strings.NewReader(`{"clients": [{"link": "lan"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed != DefaultSeed || s.DurationS != DefaultDurationS || s.TickHz != 60 || s.SnapshotHz != 30 ||
		s.FrameHz != 60 || s.Game != GameBallDrill || s.Clients[0].Clock != ClockTether || s.Clients[0].Name != "c1" {
		t.Fatalf("defaults not applied: %+v", s)
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"clients": [{"link": "lan"}], "colour": 1}`, `"colour"`},
		{`{"clients": [{"link": "lan", "speed": 1}]}`, `"speed"`},
		{`{"clients": [{"link": {"up": {"latency_ms": 1, "jiter": {}}}}]}`, "jiter"},
		{`{"clients": [{"link": "moon"}]}`, "moon"},
		{`{"clients": [{"link": "lan", "clock": "sundial"}]}`, "clients[0].clock"},
		{`{"clients": [{"link": "lan", "ball": "cube"}]}`, "clients[0].ball"},
		{`{"clients": [{"link": {"up": {"loss": {"rate": 2}}}}]}`, "rate"},
		{`{"clients": [{"link": "lan"}], "tick_hz": -1}`, "tick_hz"},
		{`{"clients": [{"link": "lan"}], "snapshot_hz": 120}`, "snapshot_hz"},
		{`{"clients": [{"link": "lan"}], "duration_s": 1}`, "duration_s"},
		{`{"clients": [{"link": "lan"}], "game": "chess"}`, "game"},
		{`{"clients": []}`, "clients"},
		{`{"clients": [{"link": "lan"}], "game": "soccer", "late_share": 1}`, "late_share"},
		{`{"clients": [{"name": "x", "link": "lan"}, {"name": "x", "link": "lan"}]}`, "clients[1].name"},
		{`{"clients": [{"link": "lan"}]} {}`, "trailing"},
	} {
		_, err := ParseScenario(strings.NewReader(tc.in))
		if err == nil {
			t.Errorf("%s: no error", tc.in)
			continue
		}
		if !errors.Is(err, ErrScenario) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not name %s", tc.in, err, tc.want)
		}
	}
}

func TestPresets(t *testing.T) {
	for _, name := range []string{"lan", "broadband", "wan", "mobile", "lossy"} {
		s, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		clocks := map[string]bool{}
		for _, c := range s.Clients {
			clocks[c.Clock] = true
		}
		if len(clocks) != 3 {
			t.Errorf("%s compares clocks %v, want all three", name, clocks)
		}
	}
	if _, err := Preset("moon"); err == nil || !strings.Contains(err.Error(), "lan, broadband") {
		t.Errorf("unknown preset: %v", err)
	}
}
