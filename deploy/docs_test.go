package deploy

import (
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestDistributedDocValuesRender renders the chart with the values file docs/distributed.md
// shows for a real cluster and the scenario it names, so the documented example keeps working.
func TestDistributedDocValuesRender(t *testing.T) {
	doc, err := os.ReadFile("../docs/distributed.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "cat > perf-values.yaml <<'EOF'\n")
	if !ok {
		t.Fatal("docs/distributed.md does not write perf-values.yaml")
	}
	values, _, ok := strings.Cut(rest, "\nEOF\n")
	if !ok {
		t.Fatal("perf-values.yaml's here-document has no EOF line")
	}
	scenario, err := os.ReadFile("../examples/jetstream-evaluation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// --set-file coordinator.scenario=examples/jetstream-evaluation.yaml, as the doc says.
	setFile, err := yaml.Marshal(map[string]any{"coordinator": map[string]any{"scenario": string(scenario)}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := render(t, mergeUnder(t, values, string(setFile)))
	if err != nil {
		t.Fatalf("the doc's values do not render: %v", err)
	}
	checkHardened(t, r)
	if *r.deployment.Spec.Replicas != 6 || r.secret != nil {
		t.Errorf("replicas %d, chart-made Secret %v: want 6 and the existing Secret", *r.deployment.Spec.Replicas, r.secret != nil)
	}
	job := checkCoordinator(t, r, "6", "bench-natsperf-results")
	if got := pairs(container(t, job).Args, "--set"); !slices.Equal(got, []string{"pods=6", "msgs=100000", "size=1kb"}) {
		t.Errorf("--set %q", got)
	}
	// The manifest is split into objects with surrounding white space trimmed, so the block
	// scalar's final line break is not kept: compare without it.
	if got := r.configMap.Data["scenario.yaml"]; strings.TrimRight(got, "\n") != strings.TrimRight(string(scenario), "\n") {
		t.Errorf("the ConfigMap does not hold the scenario file as given: %s", firstDiff(string(scenario), got))
	}
}

// mergeUnder returns base with extra's coordinator keys merged into its own, as helm merges a
// values file (-f) and --set-file.
func mergeUnder(t *testing.T, base, extra string) string {
	t.Helper()
	var b, e map[string]any
	if err := yaml.Unmarshal([]byte(base), &b); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(extra), &e); err != nil {
		t.Fatal(err)
	}
	coord, _ := b["coordinator"].(map[string]any)
	for k, v := range e["coordinator"].(map[string]any) {
		coord[k] = v
	}
	out, err := yaml.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
