package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// runFlags are the run command's own flags.
type runFlags struct {
	set         []string
	resume      bool
	dryRun      bool
	keep        bool
	metricsAddr string
}

func (a *app) runCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run a scenario file: every matrix cell with its repetitions, one Result per run",
		Long: `Run the scenario FILE (see docs/scenarios.md): for every cell of its matrix and every
repetition, create its setup (streams, buckets), start all its workload instances at one
barrier, and write one Result to -o DIR, plus DIR/index.json. Ctrl-C keeps the finished runs;
'--resume' continues where the run stopped. Long runs stream their interval records to
DIR/<run>.series.jsonl as they close. 'natsperf report DIR' turns the directory into tables
and plots.

A FILE whose version is natsperf.spec/v1 is a run Spec (docs/spec.md, 'natsperf spec'
prints the one a command line builds): it runs once, as the command it was made from, with
its Result printed (and saved with -o FILE). -s or --context replaces the Spec's target, as
it does a scenario file's.`,
		Example: `  natsperf run examples/jetstream-evaluation.yaml -o results/eval
  natsperf run examples/stability.yaml -o results/soak --set duration=2m --metrics-addr 127.0.0.1:9108
  natsperf run examples/failover.yaml -o results/failover      # --verify and --fault in workloads
  natsperf run examples/jetstream-evaluation.yaml -o results/eval --resume
  natsperf run examples/jetstream-evaluation.yaml --dry-run`,
		Args: exactArgs(1, "one scenario or Spec FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.conn.checkEncryption(); err != nil {
				return err
			}
			if err := a.conn.refuseLinksOnRun(); err != nil {
				return err
			}
			if isSpecFile(args[0]) {
				return a.runSpecFile(cmd, args[0], rf)
			}
			if err := a.distributedCheck(); err != nil {
				return err
			}
			set, err := parseSets(rf.set)
			if err != nil {
				return err
			}
			sc, err := scenario.Load(args[0], scenario.Options{Set: set, CheckArgs: a.checkWorkloadArgs, CheckCapacity: a.checkCapacityArgs})
			if err != nil {
				var se *scenario.Error
				if errors.As(err, &se) {
					for _, is := range se.Issues {
						fmt.Fprintln(a.streams.Err, is.String())
					}
					return usagef("%s: %d mistake(s)", args[0], len(se.Issues))
				}
				return usageError{err}
			}
			if rf.dryRun {
				return a.dryRun(sc)
			}
			if a.out.File == "" {
				return usagef("run needs -o DIR for its Results")
			}
			return a.runScenario(runCtx(cmd), sc, set, rf)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&rf.set, "set", nil, "override a variable (name=value), or pin a matrix axis to one value; repeatable")
	f.BoolVar(&rf.resume, "resume", false, "continue a run in -o DIR: skip the runs its index lists as done, run the failed ones again")
	f.BoolVar(&rf.dryRun, "dry-run", false, "list the cells and each workload instance's command line, run nothing")
	f.BoolVar(&rf.keep, "keep", false, "keep the setup streams and buckets after each run")
	f.StringVar(&rf.metricsAddr, "metrics-addr", "", "serve live rates and latency percentiles as Prometheus metrics on HOST:PORT/metrics")
	return cmd
}

func parseSets(in []string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range in {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usagef("--set wants name=value, got %q", s)
		}
		out[k] = v
	}
	return out, nil
}

func (a *app) dryRun(sc *scenario.Scenario) error {
	w := a.streams.Out
	reps := sc.Cells[0].File.Repetitions
	fmt.Fprintf(w, "Scenario %s: %d cells x %d repetitions = %d runs\n", sc.Name, len(sc.Cells), reps, len(sc.Cells)*reps)
	for _, c := range sc.Cells {
		fmt.Fprintf(w, "\ncell %d of %d: %s\n", c.Index+1, len(sc.Cells), c.Name)
		for _, st := range c.File.Setup.Expanded() {
			fmt.Fprintf(w, "  stream %s subjects=%s storage=%s replicas=%d\n", st.Name, strings.Join(st.Subjects, ","), orDefault(st.Storage, "file"), max(st.Replicas, 1))
		}
		for _, wl := range c.File.Workloads {
			for i := 1; i <= wl.Instances; i++ {
				args, _ := wl.Args(i)
				fmt.Fprintf(w, "  %s: natsperf %s\n", spec.InstanceName(wl.Name, i), strings.Join(args, " "))
			}
		}
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// runScenario runs every cell and repetition not yet done, writing Results and the index.
func (a *app) runScenario(ctx context.Context, sc *scenario.Scenario, set map[string]string, rf runFlags) error {
	dir := a.out.File
	ix, err := a.openIndex(dir, sc, set, rf.resume)
	if err != nil {
		return err
	}
	reps := sc.Cells[0].File.Repetitions
	total, todo := len(sc.Cells)*reps, 0
	for _, c := range ix.Cells {
		for r := 1; r <= reps; r++ {
			if !runDone(c, r) {
				todo++
			}
		}
	}
	var metrics *live.Metrics
	if rf.metricsAddr != "" {
		metrics = live.NewMetrics(total)
		stop, err := serveMetrics(rf.metricsAddr, metrics, a.streams.Err)
		if err != nil {
			return err
		}
		defer stop()
	}
	fmt.Fprintf(a.streams.Out, "Scenario %s: %d cells x %d repetitions = %d runs (%d to do), Results in %s\n", sc.Name, len(sc.Cells), reps, total, todo, dir)
	tg := &runner.Targets{Log: a.streams.Out}
	defer tg.Close()
	started := time.Now()
	done, failed := 0, 0
	for ci, c := range sc.Cells {
		for rep := 1; rep <= reps; rep++ {
			if runDone(ix.Cells[ci], rep) {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			eta := "estimate after the first run"
			if done > 0 {
				eta = "about " + (time.Since(started) / time.Duration(done) * time.Duration(todo-done)).Round(time.Second).String() + " left"
			}
			fmt.Fprintf(a.streams.Out, "\n%s cell %d of %d: %s · repetition %d of %d · run %d of %d · %s\n",
				time.Now().Format("15:04:05"), ci+1, len(sc.Cells), c.Name, rep, reps, done+1, todo, eta)
			if cd := time.Duration(c.File.Cooldown); cd > 0 && done > 0 {
				select { // let the servers settle (flushes, compaction) between runs
				case <-ctx.Done():
				case <-time.After(cd):
				}
			}
			ir := a.runOnce(ctx, tg, sc, c, rep, dir, rf, metrics)
			if metrics != nil && ir.Done() {
				metrics.EndRun()
			}
			if ir.Stop != "interrupted" {
				setRun(&ix.Cells[ci], ir)
				ix.Updated = time.Now().UTC()
				if err := scenario.WriteIndex(dir, ix); err != nil {
					return err
				}
			}
			if ir.Stop == "failed" || ir.Stop == "" {
				failed++
			}
			done++
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(a.streams.Err, "natsperf: interrupted; the finished runs are in %s, continue with --resume\n", dir)
		return exitCode(exitInterrupted)
	}
	printEffects(a.streams.Out, dir)
	fmt.Fprintf(a.streams.Out, "\nDone in %s. Report: natsperf report %s\n", time.Since(started).Round(time.Second), dir)
	if failed > 0 {
		fmt.Fprintf(a.streams.Err, "natsperf: %d run(s) failed; see their stop reasons in %s\n", failed, dir)
		return exitCode(exitFailed)
	}
	// Losses decide only when no run failed; they count over the whole index, so a --resume
	// that runs the rest still reports a loss found earlier.
	if n := lossyRuns(ix); n > 0 {
		fmt.Fprintf(a.streams.Err, "natsperf: %d run(s) lost messages; see \"lost\" in %s\n", n, filepath.Join(dir, scenario.IndexFile))
		return exitCode(exitLoss)
	}
	if n := unrecoveredRuns(ix); n > 0 {
		fmt.Fprintf(a.streams.Err, "natsperf: %d run(s) had not recovered by their end; see \"not_recovered\" in %s\n", n, filepath.Join(dir, scenario.IndexFile))
		return exitCode(exitUnrecovered)
	}
	return nil
}

// unrecoveredRuns counts the finished runs of ix that had not recovered by their end.
func unrecoveredRuns(ix *scenario.Index) int {
	return finishedRuns(ix, func(r scenario.IndexRun) bool { return r.NotRecovered })
}

// lossyRuns counts the finished runs of ix that found data loss.
func lossyRuns(ix *scenario.Index) int {
	return finishedRuns(ix, func(r scenario.IndexRun) bool { return r.Lost > 0 })
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

// openIndex starts DIR's index, or with resume reads it and checks it is this scenario's.
func (a *app) openIndex(dir string, sc *scenario.Scenario, set map[string]string, resume bool) (*scenario.Index, error) {
	old, err := scenario.ReadIndex(dir)
	switch {
	case err == nil && !resume:
		return nil, usagef("%s already holds a run: pass --resume to continue it, or choose another -o DIR", dir)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	if old != nil {
		// Pinning other axes only picks other cells; other variables would label the earlier
		// runs with settings they did not have.
		if k, ok := varChanged(old.Set, set, sc.Axes); ok {
			return nil, usagef("%s was run with --set %s=%s, not %q: resume with the same variables, or choose another -o DIR", dir, k, old.Set[k], set[k])
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
			return nil, usagef("%s holds a run of scenario %q, not %q", dir, old.Scenario, sc.Name)
		}
		ix.Started = old.Started
	}
	return ix, scenario.WriteIndex(dir, ix)
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

// serveMetrics serves m on addr until stop is called.
func serveMetrics(addr string, m *live.Metrics, log interface{ Write([]byte) (int, error) }) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usagef("--metrics-addr %s: %v", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(log, "Prometheus metrics on http://%s/metrics\n", ln.Addr())
	return func() { _ = srv.Close() }, nil
}
