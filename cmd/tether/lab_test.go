package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestLabJSONFromScenarioFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	scenario := `{"name": "mini", "seed": 5, "duration_s": 5, "clients": [
		{"name": "a", "clock": "tether", "ball": "tether", "link": "broadband"},
		{"name": "b", "clock": "ue4", "ball": "seed", "link": {"up": {"latency_ms": 30}, "down": {"latency_ms": 10}}}]}`
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "trace.csv")
	out := filepath.Join(dir, "report")
	code, stdout, stderr := runCmd(t, "lab", "-scenario-file", file, "-json", "-trace", trace, "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("-json wrote to stderr: %q", stderr)
	}
	var rep struct {
		Scenario struct {
			Name    string
			Seed    uint64
			Clients []struct{ Link map[string]any }
		}
		Results []struct {
			Client      string
			ClockMethod string `json:"clock_method"`
			BallMethod  string `json:"ball_method"`
			Clock       map[string]any
			Ball        map[string]any
			Net         map[string]any
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if rep.Scenario.Name != "mini" || rep.Scenario.Seed != 5 || len(rep.Results) != 2 {
		t.Fatalf("scenario echoed as %+v with %d results", rep.Scenario, len(rep.Results))
	}
	if rep.Results[1].ClockMethod != "ue4" || rep.Results[1].BallMethod != "seed" || rep.Results[0].Clock["err_ms"] == nil ||
		rep.Results[0].Ball["fidelity_m"] == nil || rep.Results[0].Net["down_kbps"] == nil {
		t.Fatalf("results lack fields: %+v", rep.Results)
	}
	if _, ok := rep.Scenario.Clients[0].Link["up"]; !ok {
		t.Fatalf("the preset link is not echoed in full: %v", rep.Scenario.Clients[0].Link)
	}
	csv, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if !strings.HasPrefix(lines[0], "local_s,client,server_time_s,estimate_s") || len(lines) < 2*5*60 {
		t.Fatalf("trace has %d lines, header %q", len(lines), lines[0])
	}
	for _, name := range []string{"report.md", "clock_error.png", "ball_fidelity.png", "ball_present.png", "render_delay.png"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Errorf("report dir lacks %s: %v", name, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "## Definitions") || !strings.Contains(string(md), "(ball_fidelity.png)") {
		t.Errorf("report.md lacks its definitions or a plot (%v):\n%s", err, md)
	}
}

func TestLabTable(t *testing.T) {
	code, stdout, stderr := runCmd(t, "lab", "-scenario", "lan", "-seed", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"scenario lan", "seed 2", "oneshot", "ue4", "fidelity p99 m"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

func TestLabErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"clients": [{"link": "lan", "colour": "red"}]}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lab"}, "give -scenario"},
		{[]string{"lab", "-scenario", "moon"}, "moon"},
		{[]string{"lab", "-scenario-file", bad}, `"colour"`},
		{[]string{"lab", "-scenario-file", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"lab", "-scenario", "lan", "-scenario-file", bad}, "not both"},
		{[]string{"nope"}, "unknown command"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to mention %s", tc.args, code, stderr, tc.want)
		}
	}
}

// tether lab -sweep runs a soccer scenario at each setting over the seeds
// given and prints each client's pooled figures; flags that do not go with
// it are usage errors.
func TestLabSweep(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.json")
	scenario := `{"name": "mini", "duration_s": 6, "game": "soccer", "clients": [
		{"name": "a", "ball": "tether", "link": "wan"}, {"name": "b", "ball": "seed", "link": "wan"}]}`
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "lab", "-scenario-file", file, "-sweep", "late=0.2,default", "-seeds", "1-2", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		LateShare   float64 `json:"late_share"`
		Client      string
		Seeds       int
		DelayMeanMs float64  `json:"delay_mean_ms"`
		PresentRMSM float64  `json:"present_rms_m"`
		PopsPerMin  *float64 `json:"pops_per_min"`
		Fidelity    *float64 `json:"fidelity_p99_m"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if len(rows) != 4 || rows[0].LateShare != 0.2 || rows[0].Client != "a" || rows[3].LateShare != 0 || rows[3].Client != "b" ||
		rows[0].Seeds != 2 || !(rows[0].DelayMeanMs > 0) || !(rows[0].PresentRMSM > 0) || rows[0].PopsPerMin == nil || rows[0].Fidelity == nil {
		t.Fatalf("rows %+v", rows)
	}
	code, stdout, _ = runCmd(t, "lab", "-scenario-file", file, "-sweep", "late=0.2", "-seeds", "3,5")
	if code != 0 || !strings.Contains(stdout, "2 seeds (3,5)") || !strings.Contains(stdout, "late share") {
		t.Fatalf("exit %d, table:\n%s", code, stdout)
	}
	for _, args := range [][]string{
		{"-seeds", "1-2"},
		{"-sweep", "late=1"},
		{"-sweep", "late=0.1", "-seeds", "2-1"},
		{"-sweep", "late=0.1", "-seed", "3"},
		{"-sweep", "late=0.1", "-out", t.TempDir()},
	} {
		if code, _, stderr := runCmd(t, append([]string{"lab", "-scenario-file", file}, args...)...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
}
