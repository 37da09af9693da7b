package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

const smallScenario = `name: small
vars: {msgs: 200}
matrix:
  storage: [file, memory]
target: {embedded: {nodes: 1}}
repetitions: 2
setup:
  streams:
    - {name: "one", subjects: ["one.>"], storage: "${storage}"}
workloads:
  - name: pod
    instances: 2
    command: pubsub one.app${instance} --js --stream one
    flags: {pub: 1, sub: 2, msgs: "${msgs}", size: 64, storage: "${storage}"}
  - name: core
    command: pubsub core.x --pub 1 --sub 1
    flags: {msgs: 300, size: 32}
`

func TestRunScenario(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(smallScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(ctx, t, nil, "run", file, "-o", out, "--set", "storage=memory")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	if !strings.Contains(r.out, "cell 1 of 1: storage=memory · repetition 2 of 2") {
		t.Errorf("no progress line in\n%s", r.out)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Cells) != 1 || len(ix.Cells[0].Runs) != 2 {
		t.Fatalf("index %+v", ix.Cells)
	}
	res, err := result.ReadFile(filepath.Join(out, ix.Cells[0].Runs[0].Result))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]result.Group{}
	for _, g := range res.Groups {
		groups[g.Name] = g
	}
	// Two instances share one stream: each one's subscribers get exactly its own messages.
	for _, name := range []string{"pod1/sub", "pod2/sub"} {
		g := groups[name]
		if g.Aggregate.Msgs != 400 || g.Aggregate.Correctness == nil || g.Aggregate.Correctness.Lost != 0 {
			t.Errorf("%s: %d msgs, correctness %+v; want 2 x 200, none lost", name, g.Aggregate.Msgs, g.Aggregate.Correctness)
		}
	}
	if groups["core1/sub"].Aggregate.Msgs != 300 {
		t.Errorf("core1/sub got %d msgs, want 300", groups["core1/sub"].Aggregate.Msgs)
	}
	if len(res.Streams) != 1 || res.Streams[0].Published != 400 {
		t.Errorf("streams %+v: want one, 400 published", res.Streams)
	}

	t.Run("refuses a used directory, resumes with --resume", func(t *testing.T) {
		if r := run(ctx, t, nil, "run", file, "-o", out, "--set", "storage=memory"); r.code != exitUsage {
			t.Fatalf("exit %d, want %d", r.code, exitUsage)
		}
		if r := run(ctx, t, nil, "run", file, "-o", out, "--resume", "--set", "msgs=77"); r.code != exitUsage || !strings.Contains(r.err, "resume with the same variables") {
			t.Fatalf("resume with another variable: exit %d, stderr %q", r.code, r.err)
		}
		r := run(ctx, t, nil, "run", file, "-o", out, "--resume")
		if r.code != 0 || !strings.Contains(r.out, "(2 to do)") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
		}
	})
	t.Run("report and compare", func(t *testing.T) {
		r := run(ctx, t, nil, "report", out)
		if r.code != 0 || !strings.Contains(r.out, "| memory | 2 |") || !strings.Contains(r.out, "| file | 2 |") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
		}
		r = run(ctx, t, nil, "compare", out, out, "--fail-on-regression", "5")
		if r.code != 0 || !strings.Contains(r.out, "~") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
		}
	})
}

func TestRunScenarioErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown flag", "workloads:\n  - command: pub foo --nope\n", "s.yaml:2:14: workloads[0].command: unknown flag: --nope"},
		{"not a workload", "workloads:\n  - command: clean\n", "is not a benchmark command"},
		{"server in workload", "workloads:\n  - command: pub foo -s nats://x:4222\n", "--server is set by the scenario"},
		{"latency is not a workload", "workloads:\n  - command: latency\n", "is not a benchmark command"},
		{"bad fault in workload", "workloads:\n  - command: pubsub foo --js\n    flags: {fault: 'soon:kill'}\n", "workloads[0].command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(file, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(context.Background(), t, nil, "run", file, "-o", filepath.Join(dir, "o"))
			if r.code != exitUsage || !strings.Contains(r.err, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.err, exitUsage, tc.want)
			}
		})
	}
}

// TestResumeRetriesFailedRuns: a run the index lists as failed is run again by --resume
// (issue 9 item 7), and a completed one is not.
func TestResumeRetriesFailedRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(smallScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if r := run(ctx, t, nil, "run", file, "-o", out, "--set", "storage=memory"); r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	first := ix.Cells[0].Runs[0].End
	ix.Cells[0].Runs[1].Stop, ix.Cells[0].Runs[1].Error = result.StopFailed, "server gone"
	if err := scenario.WriteIndex(out, ix); err != nil {
		t.Fatal(err)
	}
	r := run(ctx, t, nil, "run", file, "-o", out, "--resume", "--set", "storage=memory")
	if r.code != 0 || !strings.Contains(r.out, "(1 to do)") || !strings.Contains(r.out, "repetition 2 of 2") {
		t.Fatalf("resume: exit %d, want the failed repetition 2 run again\n%s\n%s", r.code, r.out, r.err)
	}
	ix, err = scenario.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Cells[0].Runs[1]; got.Stop != result.StopCompleted || got.Error != "" {
		t.Errorf("repetition 2 after resume: %+v, want completed", got)
	}
	if !ix.Cells[0].Runs[0].End.Equal(first) {
		t.Error("resume ran the completed repetition 1 again")
	}
}
