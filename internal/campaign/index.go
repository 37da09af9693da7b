package campaign

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
)

// openIndex starts DIR's index, or with resume reads it and checks it is this scenario's.
func openIndex(dir string, sc *scenario.Scenario, set map[string]string, resume bool) (*scenario.Index, error) {
	old, err := scenario.ReadIndex(dir)
	switch {
	case err == nil && !resume:
		return nil, inputf("%s already holds a run: pass --resume to continue it, or choose another -o DIR", dir)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	if old != nil {
		// Pinning other axes only picks other cells; other variables would label the earlier
		// runs with settings they did not have.
		if k, ok := varChanged(old.Set, set, sc.Axes); ok {
			return nil, inputf("%s was run with --set %s=%s, not %q: resume with the same variables, or choose another -o DIR", dir, k, old.Set[k], set[k])
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	ix := &scenario.Index{Schema: scenario.IndexSchema, Scenario: sc.Name, File: sc.Path, Set: set, Axes: sc.Axes, Started: time.Now().UTC(),
		Description: sc.Cells[0].File.Description, Vars: fixedVars(sc, set)}
	for _, c := range sc.Cells {
		values := map[string]string{}
		for _, v := range c.Values {
			values[v.Axis] = v.Value
		}
		ic := scenario.IndexCell{Index: c.Index, Name: c.Name, Values: values, Runs: []scenario.IndexRun{}}
		if old != nil {
			for _, oc := range old.Cells {
				if oc.Name == c.Name {
					ic.Runs = oc.Runs
				}
			}
		}
		ix.Cells = append(ix.Cells, ic)
	}
	if old != nil {
		// Cells of the earlier run that this one does not pin stay in the index.
		for _, oc := range old.Cells {
			if !slices.ContainsFunc(ix.Cells, func(c scenario.IndexCell) bool { return c.Name == oc.Name }) {
				ix.Cells = append(ix.Cells, oc)
			}
		}
		if old.Scenario != sc.Name {
			return nil, inputf("%s holds a run of scenario %q, not %q", dir, old.Scenario, sc.Name)
		}
		ix.Started = old.Started
	}
	return ix, scenario.WriteIndex(dir, ix)
}

// inputf is bad input found before any run: the command line exits 2 on it.
func inputf(format string, args ...any) error {
	return runner.InputError{Err: fmt.Errorf(format, args...)}
}

// fixedVars is the scenario's variables as this run sets them, without the matrix axes.
func fixedVars(sc *scenario.Scenario, set map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range sc.Cells[0].File.Vars {
		out[k] = v
	}
	for k, v := range set {
		out[k] = v
	}
	for _, a := range sc.Axes {
		delete(out, a.Name)
	}
	return out
}

// varChanged names a --set variable (not a matrix axis) whose value differs between runs.
func varChanged(old, now map[string]string, axes []scenario.Axis) (string, bool) {
	isAxis := func(k string) bool {
		return slices.ContainsFunc(axes, func(a scenario.Axis) bool { return a.Name == k })
	}
	for _, m := range []map[string]string{old, now} {
		for k := range m {
			if !isAxis(k) && old[k] != now[k] {
				return k, true
			}
		}
	}
	return "", false
}

// runDone: a failed run is not done, so --resume runs it again.
func runDone(c scenario.IndexCell, rep int) bool {
	for _, r := range c.Runs {
		if r.Repetition == rep && r.Done() && r.Stop != result.StopFailed {
			return true
		}
	}
	return false
}

func setRun(c *scenario.IndexCell, ir scenario.IndexRun) {
	for i, r := range c.Runs {
		if r.Repetition == ir.Repetition {
			c.Runs[i] = ir
			return
		}
	}
	c.Runs = append(c.Runs, ir)
}

// finishedRuns counts the finished runs of ix for which is holds.
func finishedRuns(ix *scenario.Index, is func(scenario.IndexRun) bool) int {
	n := 0
	for _, c := range ix.Cells {
		for _, r := range c.Runs {
			if r.Done() && is(r) {
				n++
			}
		}
	}
	return n
}
