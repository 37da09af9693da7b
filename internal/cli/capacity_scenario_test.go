package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/scenario"
)

// TestScenarioCapacity: a scenario with capacity: searches each cell's capacity instead of
// running it once. Its cells request two responders written here, one serving a request per
// 10ms (100/s), the other per 20ms (50/s): each cell's capacity is within 10% of its
// responder's rate and not above it, the index names each cell's search, and the report's
// effects compare the capacities (the slow responder's about half the fast one's).
func TestScenarioCapacity(t *testing.T) {
	s := startServer(t, nil)
	pacedResponder(t, s.ClientURL(), "cap.fast", 10*time.Millisecond)
	pacedResponder(t, s.ClientURL(), "cap.slow", 20*time.Millisecond)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(`name: capacity
matrix:
  service: [fast, slow]
target: {servers: "`+s.ClientURL()+`"}
slo: ["rate>=0.97", "loss=0"]
capacity: {min: 25, max: 200, probe-duration: 2s, warmup: 500ms, repeats: 1, drain: 200ms}
workloads:
  - name: req
    command: service request cap.${service}
    flags: {clients: 40, size: 16}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(context.Background(), t, nil, "run", file, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	set, err := report.Load([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"fast": 100, "slow": 50}
	for i, c := range set.Cells {
		o := c.Runs[0].Capacity
		if o == nil || ix.Cells[i].Runs[0].Capacity == "" {
			t.Fatalf("cell %s: no capacity search in the index", c.Name)
		}
		rate := want[c.Values["service"]]
		if o.Verdict != "found" || o.Capacity < 0.9*rate || o.Capacity > 1.04*rate {
			t.Errorf("cell %s: capacity %v (%s), want within 10%% of %v and not above; probes %+v", c.Name, o.Capacity, o.Verdict, rate, o.Probes)
		}
		if c.Runs[0].Result == nil || c.Runs[0].Result.Stop.Reason != "completed" {
			t.Errorf("cell %s: no completed Result of the probe at the capacity", c.Name)
		}
	}
	var found bool
	for _, e := range report.Effects(set) {
		if e.Metric.Key == "capacity" {
			found = true
			if e.Level != "slow" || e.Ratio < 0.4 || e.Ratio > 0.6 {
				t.Errorf("capacity effect %s, want slow vs fast about x0.5", e)
			}
		}
	}
	if !found {
		t.Fatalf("no capacity effect among %v", report.Effects(set))
	}
	md := run(context.Background(), t, nil, "report", out)
	if md.code != 0 || !strings.Contains(md.out, "capacity msgs/s") {
		t.Errorf("report: exit %d, no capacity in\n%s\n%s", md.code, md.out, md.err)
	}
	t.Logf("%s", r.out)
}

// TestScenarioCapacityRefusedAtLoad: a scenario whose capacity: cell is not one fixed-rate
// workload that capacity can probe is refused when the file loads (a usage error, exit 2,
// one line naming the cell and the workload), before any cell runs; it used to be found only
// when the cell ran (exit 1). The target is a port nothing listens on: nothing may run.
func TestScenarioCapacityRefusedAtLoad(t *testing.T) {
	head := `name: refused
target: {servers: "nats://127.0.0.1:1"}
slo: ["p99<10ms"]
capacity: {min: 100, max: 200}
`
	for _, tt := range []struct {
		name, body string
		want       []string // in the one line naming the mistake
	}{
		{"no fixed rate", `matrix:
  op: [put, get]
workloads:
  - name: kv
    command: kv ${op}
`, []string{"workloads[0].command", "cell op=get", "workload kv", "kv get has no fixed rate"}},
		{"two workloads", `workloads:
  - {name: a, command: pub x}
  - {name: b, command: sub x}
`, []string{"capacity", "one workload of one instance", "this cell has 2 (a x1, b x1)"}},
		{"instances", `workloads:
  - {name: req, command: service request x, instances: 3}
`, []string{"capacity", "this cell has 3 (req x3)"}},
		{"a shape", `workloads:
  - {name: p, command: "pub x --steps 100,200 --step-duration 1s"}
`, []string{"workloads[0].command", "workload p", "capacity sets the rate"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(file, []byte(head+tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(context.Background(), t, nil, "run", file, "-o", filepath.Join(dir, "out"))
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d (refused when loaded)\n%s\n%s", r.code, exitUsage, r.out, r.err)
			}
			var named []string
			for _, line := range strings.Split(strings.TrimSpace(r.err), "\n") {
				if strings.Contains(line, tt.want[0]) && strings.Contains(line, "s.yaml") {
					named = append(named, line)
				}
			}
			if len(named) != 1 {
				t.Fatalf("want one line naming %q, got %q", tt.want[0], r.err)
			}
			for _, w := range tt.want {
				if !strings.Contains(named[0], w) {
					t.Errorf("%q lacks %q", named[0], w)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Errorf("the run directory was made: something ran")
			}
		})
	}
}
