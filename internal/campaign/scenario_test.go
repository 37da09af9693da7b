package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// TestRunScenario: campaign.Run runs every cell and repetition through the Build and Runner
// it is given, writes a Result per run and the index, counts a cell whose Spec cannot be
// built as failed runs, refuses a used directory, and on resume runs only the failed ones.
func TestRunScenario(t *testing.T) {
	s := natstest.Server(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	yaml := fmt.Sprintf(`name: lib
matrix:
  size: [16, 32]
target: {servers: [%q]}
repetitions: 2
workloads:
  - name: p
    command: pub lib.x
    flags: {msgs: 50, size: "${size}"}
`, s.ClientURL())
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(file, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var built [][]string
	broken := true // the size=32 cell's command line does not build until it is fixed
	var out, log bytes.Buffer
	o := Options{
		Dir: filepath.Join(dir, "out"),
		Build: func(args []string) (*spec.Spec, error) {
			mu.Lock()
			defer mu.Unlock()
			built = append(built, args)
			if broken && has32(args) {
				return nil, errors.New("a builder's refusal")
			}
			return &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Pacing: spec.Pacing{Msgs: 50}, Config: &spec.Pub{Subject: args[1]}}}}, nil
		},
		Runner: func(*spec.Spec) runner.Options { return runner.Options{} },
		Out:    &out, Err: &log,
	}
	ctx := context.Background()
	got, err := Run(ctx, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != 4 || got.Todo != 4 || got.Failed != 2 || got.Interrupted || got.Lossy != 0 {
		t.Fatalf("outcome %+v: want 4 runs to do, 2 failed\n%s\n%s", got, out.String(), log.String())
	}
	if !slices.ContainsFunc(built, func(a []string) bool {
		return a[0] == "pub" && a[1] == "lib.x" && strings.Contains(strings.Join(a, " "), "16")
	}) {
		t.Errorf("Build got %q, want the cell's command line with its matrix value", built)
	}
	if !strings.Contains(log.String(), "a builder's refusal") {
		t.Errorf("the failed runs are not reported: %q", log.String())
	}
	ix, err := scenario.ReadIndex(o.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ix.Cells {
		if len(c.Runs) != 2 {
			t.Fatalf("cell %s: %d runs in the index, want 2", c.Name, len(c.Runs))
		}
		res, err := result.ReadFile(filepath.Join(o.Dir, c.Runs[0].Result))
		if err != nil {
			t.Fatal(err)
		}
		want := result.StopCompleted
		if c.Values["size"] == "32" {
			want = result.StopFailed
		}
		if res.Stop.Reason != want || c.Runs[0].Stop != want {
			t.Errorf("cell %s: stop %q (index %q), want %q", c.Name, res.Stop.Reason, c.Runs[0].Stop, want)
		}
		if want == result.StopCompleted && (len(res.Groups) == 0 || res.Groups[0].Aggregate.Msgs != 50) {
			t.Errorf("cell %s: groups %+v, want 50 msgs published", c.Name, res.Groups)
		}
	}

	if _, err := Run(ctx, sc, o); !errors.As(err, new(runner.InputError)) || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("a used directory without Resume: %v, want an InputError naming --resume", err)
	}
	broken, built, o.Resume = false, nil, true
	got, err = Run(ctx, sc, o)
	if err != nil || got.Todo != 2 || got.Failed != 0 {
		t.Fatalf("resume: %+v, %v; want the 2 failed runs done again\n%s\n%s", got, err, out.String(), log.String())
	}
	if len(built) != 2 || slices.ContainsFunc(built, func(a []string) bool { return !has32(a) }) {
		t.Errorf("resume built %q, want only the failed cell's two runs", built)
	}
}

// has32 says whether a workload's command line is the size=32 cell's.
func has32(args []string) bool {
	return strings.Contains(strings.Join(args, " "), "32")
}
