package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/campaign"
	"github.com/natsperf/natsperf/internal/scenario"
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
			if err := a.conn.CheckEncryption(); err != nil {
				return err
			}
			if err := a.conn.RefuseLinksOnRun(); err != nil {
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
			sc, err := scenario.Load(args[0], scenario.Options{Set: set, CheckCapacity: a.checkCapacityArgs})
			if err != nil {
				var se *scenario.Error
				if errors.As(err, &se) {
					for _, is := range se.Issues {
						fmt.Fprintln(a.streams.Err, is.String())
					}
					return usagef("%s: %d mistake(s)", args[0], len(se.Issues))
				}
				return usageError{Err: err}
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
	a.runDist.Register(f) // --agents ...: where the cells run
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

// runScenario runs every cell and repetition not yet done (campaign.RunScenario), then says what
// they came to: the effects of the matrix's choices, and the exit code.
func (a *app) runScenario(ctx context.Context, sc *scenario.Scenario, set map[string]string, rf runFlags) error {
	dir := a.out.File
	out, err := campaign.RunScenario(ctx, sc, campaign.Options{
		Dir: dir, Set: set, Resume: rf.resume, Keep: rf.keep, MetricsAddr: rf.metricsAddr,
		Runner: a.cellOptions, Out: a.streams.Out, Err: a.streams.Err,
	})
	if err != nil {
		return a.runError(nil, err)
	}
	if out.Interrupted {
		fmt.Fprintf(a.streams.Err, "natsperf: interrupted; the finished runs are in %s, continue with --resume\n", dir)
		return exitCode(exitInterrupted)
	}
	printEffects(a.streams.Out, dir)
	fmt.Fprintf(a.streams.Out, "\nDone in %s. Report: natsperf report %s\n", out.Elapsed.Round(time.Second), dir)
	switch {
	case out.Failed > 0:
		fmt.Fprintf(a.streams.Err, "natsperf: %d run(s) failed; see their stop reasons in %s\n", out.Failed, dir)
		return exitCode(exitFailed)
	// Losses decide only when no run failed.
	case out.Lossy > 0:
		fmt.Fprintf(a.streams.Err, "natsperf: %d run(s) lost messages; see \"lost\" in %s\n", out.Lossy, filepath.Join(dir, scenario.IndexFile))
		return exitCode(exitLoss)
	case out.Unrecovered > 0:
		fmt.Fprintf(a.streams.Err, "natsperf: %d run(s) had not recovered by their end; see \"not_recovered\" in %s\n", out.Unrecovered, filepath.Join(dir, scenario.IndexFile))
		return exitCode(exitUnrecovered)
	}
	return nil
}
