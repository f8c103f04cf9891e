package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The checks of deploy/agones run real tools: kubeconform (a Go module),
// promtool (Debian's prometheus package) and Agones' SDK server (in
// ../shared/tools/agones beside the module's root, where CI has it). Where
// one is missing they skip, saying so, but when TETHER_REQUIRE_FLEET_TOOLS
// is set (CI sets it) they fail.
const requireFleetTools = "TETHER_REQUIRE_FLEET_TOOLS"

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// fleetTool returns the path of a tool the deploy checks need: a command
// on PATH, or a file relative to the module's root. It skips the test
// where it is missing, or fails it under TETHER_REQUIRE_FLEET_TOOLS.
func fleetTool(t *testing.T, name string) string {
	t.Helper()
	var path string
	var err error
	if strings.Contains(name, "/") {
		path = filepath.Join(moduleRoot(t), name)
		_, err = os.Stat(path)
	} else {
		path, err = exec.LookPath(name)
	}
	if err != nil {
		if os.Getenv(requireFleetTools) != "" {
			t.Fatalf("%s is required (%s is set): %v", name, requireFleetTools, err)
		}
		t.Skipf("%s not found (%v): skipped; CI installs it", name, err)
	}
	return path
}

// strictSchemas writes the Agones CRD schemas in dir as kubeconform finds
// them ({{ .ResourceKind }} is lower case) and as strict as its own
// built-in ones: every object that lists its properties refuses others
// (the CRDs' schemas leave additionalProperties open, so a misspelt field
// would pass).
func strictSchemas(t *testing.T, from, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(from, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in %s: %v", from, err)
	}
	var strict func(v any)
	strict = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			_, props := v["properties"]
			_, open := v["additionalProperties"]
			if props && !open && v["x-kubernetes-preserve-unknown-fields"] != true {
				v["additionalProperties"] = false
			}
			for _, e := range v {
				strict(e)
			}
		case []any:
			for _, e := range v {
				strict(e)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if props, ok := s["properties"].(map[string]any); ok { // below the top, which leaves apiVersion, kind, metadata out
			for _, p := range props {
				strict(p)
			}
		}
		out, _ := json.Marshal(s)
		if err := os.WriteFile(filepath.Join(dir, strings.ToLower(filepath.Base(f))), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeployManifests validates every manifest of deploy/agones with
// kubeconform -strict against Agones' CRD schemas (made strict), checks
// that a misspelt field fails it, and checks the Fleet's own rules: the
// admin port off the sidecar's 8080, no livenessProbe of its own (it would
// take the place of Agones' health checking), Dynamic ports, a restricted
// security context.
func TestDeployManifests(t *testing.T) {
	kubeconform := fleetTool(t, "kubeconform")
	schemas := fleetTool(t, "../shared/tools/agones/schemas")
	dir := t.TempDir()
	strictSchemas(t, schemas, dir)
	deploy := filepath.Join(moduleRoot(t), "deploy", "agones")
	manifests, _ := filepath.Glob(filepath.Join(deploy, "*.yaml"))
	manifests = slices.DeleteFunc(manifests, func(f string) bool { return filepath.Base(f) == "alerts_test.yaml" }) // promtool's, not Kubernetes'
	validate := func(files ...string) (string, error) {
		// PodMonitor and PrometheusRule have no schema offline: skipped
		// (promtool checks the rules).
		args := append([]string{"-strict", "-summary", "-ignore-missing-schemas",
			"-schema-location", filepath.Join(dir, "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")}, files...)
		out, err := exec.Command(kubeconform, args...).CombinedOutput()
		return string(out), err
	}
	out, err := validate(manifests...)
	if err != nil || !strings.Contains(out, "Valid: 4, Invalid: 0, Errors: 0") {
		t.Fatalf("kubeconform: %v\n%s", err, out)
	}
	t.Logf("kubeconform: %s", strings.TrimSpace(out))

	fleet, err := os.ReadFile(filepath.Join(deploy, "fleet.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "fleet.yaml")
	os.WriteFile(bad, bytes.Replace(fleet, []byte("readOnlyRootFilesystem"), []byte("readOnlyRootFilesytem"), 1), 0o644)
	if out, err := validate(bad); err == nil {
		t.Errorf("a misspelt field passed kubeconform:\n%s", out)
	}

	for _, rule := range []struct {
		re   string
		want bool
		why  string
	}{
		{`(?m)^\s*livenessProbe:`, false, "a livenessProbe switches off Agones' health checking"},
		{`-admin=[^\n]*:8080\b|containerPort: 8080\b`, false, "the Agones sidecar serves :8080 in the same pod network"},
		{`portPolicy: Dynamic`, true, "Dynamic ports are the default"},
		{`-agones-port=game`, true, "with Dynamic ports the server reads its address from the GameServer record"},
		{`runAsNonRoot: true`, true, "restricted: runAsNonRoot"},
		{`seccompProfile: \{type: RuntimeDefault\}`, true, "restricted: a seccomp profile"},
		{`allowPrivilegeEscalation: false`, true, "restricted: no privilege escalation"},
		{`capabilities: \{drop: \[ALL\]\}`, true, "restricted: capabilities dropped"},
	} {
		if regexp.MustCompile(rule.re).Match(fleet) != rule.want {
			t.Errorf("fleet.yaml: %s (/%s/ found: %v)", rule.why, rule.re, !rule.want)
		}
	}

	// The high-density Fleet: as many ports game-i (container port 7777 +
	// i) as -matches, and the Counter rooms of that capacity.
	rooms, err := os.ReadFile(filepath.Join(deploy, "fleet-rooms.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := regexp.MustCompile(`-matches=(\d+)`).FindSubmatch(rooms)
	if n == nil || !bytes.Contains(rooms, []byte("rooms: {count: 0, capacity: "+string(n[1])+"}")) || !bytes.Contains(rooms, []byte("-agones-port=game\n")) {
		t.Fatalf("fleet-rooms.yaml: no -matches, -agones-port=game, or no Counter rooms of its capacity")
	}
	matches, _ := strconv.Atoi(string(n[1]))
	ports := regexp.MustCompile(`name: game-(\d+), portPolicy: Dynamic, containerPort: (\d+)`).FindAllSubmatch(rooms, -1)
	for i, p := range ports {
		if string(p[1]) != strconv.Itoa(i) || string(p[2]) != strconv.Itoa(7777+i) {
			t.Errorf("fleet-rooms.yaml: port game-%s on %s, want game-%d on %d", p[1], p[2], i, 7777+i)
		}
	}
	if len(ports) != matches {
		t.Errorf("fleet-rooms.yaml: %d ports game-i for -matches=%d", len(ports), matches)
	}
}

// prometheusRules writes the rules file inside deploy/agones'
// PrometheusRule (its spec, the last key) into dir as rules.yaml, with the
// promtool unit tests beside it.
func prometheusRules(t *testing.T, dir string) (rules, tests string) {
	t.Helper()
	deploy := filepath.Join(moduleRoot(t), "deploy", "agones")
	b, err := os.ReadFile(filepath.Join(deploy, "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, spec, ok := strings.Cut(string(b), "\nspec:\n")
	if !ok {
		t.Fatal("prometheusrule.yaml has no spec")
	}
	lines := strings.Split(spec, "\n")
	for i, l := range lines {
		if l != "" && !strings.HasPrefix(l, "  ") {
			t.Fatalf("prometheusrule.yaml: a key after spec: %q", l)
		}
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	rules, tests = filepath.Join(dir, "rules.yaml"), filepath.Join(dir, "alerts_test.yaml")
	if err := os.WriteFile(rules, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := os.ReadFile(filepath.Join(deploy, "alerts_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tests, tb, 0o644); err != nil {
		t.Fatal(err)
	}
	return rules, tests
}

// TestDeployRules checks the alerting rules with promtool and runs their
// unit tests (deploy/agones/alerts_test.yaml: each alert fires on series
// that should fire it, and not on a draining server's).
func TestDeployRules(t *testing.T) {
	promtool := fleetTool(t, "promtool")
	rules, tests := prometheusRules(t, t.TempDir())
	for _, args := range [][]string{{"check", "rules", rules}, {"test", "rules", tests}} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args[:2], " "), err, out)
		}
		t.Logf("promtool %s: %s", strings.Join(args[:2], " "), strings.Join(strings.Fields(string(out)), " "))
	}
}

// TestDeployMetrics scrapes a live tether serve -agones -matches 2, as the
// high-density Fleet runs it (beside Agones' SDK server, one bot playing),
// and checks its /metrics with promtool check metrics, then that every
// metric the alerting rules and the dashboard name is served.
func TestDeployMetrics(t *testing.T) {
	promtool := fleetTool(t, "promtool")
	s := newSDKServer(t, "tether-soccer-m3trics", freeUDPPort(t), freeUDPPort(t))
	s.start()
	dir, key := newKey(t)
	srv, out, srvErr := startAgonesServe(t, s, key, "-matches", "2", "-admin", "127.0.0.1:0", "-drain-grace", "0s")
	m := waitLine(t, out, regexp.MustCompile(`msg=listening match=0 udp=(127\.0\.0\.1:\d+) .* admin=(127\.0\.0\.1:\d+)`), 10*time.Second)
	bot := playFor(t, dir, key, m[1], "1", 0)
	waitLine(t, out, regexp.MustCompile(`msg="client connected"`), 10*time.Second)
	resp, err := http.Get("http://" + m[2] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	bot.Process.Kill()
	bot.Wait()
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = bytes.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}

	rules, _ := prometheusRules(t, t.TempDir())
	rb, _ := os.ReadFile(rules)
	db, err := os.ReadFile(filepath.Join(moduleRoot(t), "deploy", "agones", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(db) {
		t.Fatal("grafana-dashboard.json is not JSON")
	}
	names := regexp.MustCompile(`\b(?:tether|process)_[a-z_]+`)
	for _, src := range []struct {
		file string
		text []byte
	}{{"the rules", rb}, {"the dashboard", db}} {
		seen := map[string]bool{}
		for _, n := range names.FindAll(src.text, -1) {
			name := string(n)
			if seen[name] {
				continue
			}
			seen[name] = true
			if fams[name] != nil {
				continue
			}
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_count"), "_sum")
			if f := fams[base]; f == nil || f.GetType().String() != "HISTOGRAM" {
				t.Errorf("%s name %s, which /metrics does not serve", src.file, name)
			}
		}
		if len(seen) < 5 {
			t.Errorf("%s name %d metrics: the pattern missed them", src.file, len(seen))
		}
	}
	stopProcess(t, srv, srvErr, 10*time.Second)
}
