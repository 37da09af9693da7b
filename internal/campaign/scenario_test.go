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
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// TestRunScenario: campaign.RunScenario runs every cell and repetition through the Runner it is
// given, writes a Result per run and the index, counts a cell that cannot run as failed runs, refuses a used directory, and on resume runs only the failed ones.
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
	var ran []spec.Size // each run's message size, as its Spec (cmdline's, from the cell's command line) says
	broken := true      // the size=32 cell's server refuses connections until it is fixed
	var out, log bytes.Buffer
	o := Options{
		Dir: filepath.Join(dir, "out"),
		Runner: func(s *spec.Spec) runner.Options {
			mu.Lock()
			defer mu.Unlock()
			size := s.Workloads[0].Config.(*spec.Pub).Size
			ran = append(ran, size)
			if broken && size == 32 {
				s.Target = spec.Target{Servers: []string{"nats://127.0.0.1:1"}}
			}
			return runner.Options{}
		},
		Out: &out, Err: &log,
	}
	ctx := context.Background()
	got, err := RunScenario(ctx, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != 4 || got.Todo != 4 || got.Failed != 2 || got.Interrupted || got.Lossy != 0 {
		t.Fatalf("outcome %+v: want 4 runs to do, 2 failed\n%s\n%s", got, out.String(), log.String())
	}
	if !slices.Contains(ran, 16) || !slices.Contains(ran, 32) {
		t.Errorf("ran sizes %v, want the cells' command lines with their matrix values (16 and 32)", ran)
	}
	if !strings.Contains(log.String(), "127.0.0.1:1") && !strings.Contains(log.String(), "connect") {
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

	if _, err := RunScenario(ctx, sc, o); !errors.As(err, new(runner.InputError)) || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("a used directory without Resume: %v, want an InputError naming --resume", err)
	}
	broken, ran, o.Resume = false, nil, true
	got, err = RunScenario(ctx, sc, o)
	if err != nil || got.Todo != 2 || got.Failed != 0 {
		t.Fatalf("resume: %+v, %v; want the 2 failed runs done again\n%s\n%s", got, err, out.String(), log.String())
	}
	if len(ran) != 2 || slices.ContainsFunc(ran, func(s spec.Size) bool { return s != 32 }) {
		t.Errorf("resume ran sizes %v, want only the failed cell's two runs", ran)
	}
}
