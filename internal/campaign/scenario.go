package campaign

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// Options are how to run a scenario.
type Options struct {
	// Dir is the results directory: one Result per run, the index, the series files.
	Dir string
	// Set are the --set variables the scenario was loaded with (recorded in the index, and
	// checked against it on Resume).
	Set map[string]string
	// Resume continues the run in Dir: runs its index lists as done are skipped, failed ones
	// run again.
	Resume bool
	// Keep keeps each cell's setup streams and buckets after its runs.
	Keep bool
	// MetricsAddr, when set, serves live rates and latency percentiles as Prometheus metrics
	// on HOST:PORT/metrics while the scenario runs.
	MetricsAddr string
	// Runner gives the runner options a cell's Spec runs with; it may change the Spec's
	// target (the command line's connection flags win over the file's). Options.Targets
	// and Options.Series are campaign's to set.
	Runner func(s *spec.Spec) runner.Options
	// Out receives the progress lines; Err the runs' failures.
	Out, Err io.Writer
}

// Outcome is what a scenario's runs came to.
type Outcome struct {
	Index *scenario.Index
	// Total is the scenario's number of runs; Todo those this invocation had to do.
	Total, Todo int
	// Elapsed is this invocation's wall time.
	Elapsed time.Duration
	// Interrupted: the context ended before every run was done.
	Interrupted bool
	// Failed counts this invocation's runs that failed or whose Result could not be written.
	Failed int
	// Lossy and Unrecovered count the index's finished runs (this invocation's and earlier
	// ones') that lost messages, or had not recovered by their end.
	Lossy, Unrecovered int
}

// RunScenario runs every cell and repetition of sc not yet done in o.Dir, writing each run's Result
// and the index as it goes. An error is one that stopped the scenario (bad input is a
// runner.InputError); failed runs are counted in the Outcome.
func RunScenario(ctx context.Context, sc *scenario.Scenario, o Options) (*Outcome, error) {
	dir := o.Dir
	ix, err := openIndex(dir, sc, o.Set, o.Resume)
	if err != nil {
		return nil, err
	}
	reps := sc.Cells[0].File.Repetitions
	out := &Outcome{Index: ix, Total: len(sc.Cells) * reps}
	for _, c := range ix.Cells {
		for r := 1; r <= reps; r++ {
			if !runDone(c, r) {
				out.Todo++
			}
		}
	}
	var metrics *live.Metrics
	if o.MetricsAddr != "" {
		metrics = live.NewMetrics(out.Total)
		stop, err := serveMetrics(o.MetricsAddr, metrics, o.Err)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	fmt.Fprintf(o.Out, "Scenario %s: %d cells x %d repetitions = %d runs (%d to do), Results in %s\n", sc.Name, len(sc.Cells), reps, out.Total, out.Todo, dir)
	tg := &runner.Targets{Log: o.Out}
	defer tg.Close()
	started := time.Now()
	done := 0
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
				eta = "about " + (time.Since(started) / time.Duration(done) * time.Duration(out.Todo-done)).Round(time.Second).String() + " left"
			}
			fmt.Fprintf(o.Out, "\n%s cell %d of %d: %s · repetition %d of %d · run %d of %d · %s\n",
				time.Now().Format("15:04:05"), ci+1, len(sc.Cells), c.Name, rep, reps, done+1, out.Todo, eta)
			if cd := time.Duration(c.File.Cooldown); cd > 0 && done > 0 {
				select { // let the servers settle (flushes, compaction) between runs
				case <-ctx.Done():
				case <-time.After(cd):
				}
			}
			ir := cell{o: &o, sc: sc, c: c, rep: rep, tg: tg, metrics: metrics}.run(ctx)
			if metrics != nil && ir.Done() {
				metrics.EndRun()
			}
			if ir.Stop != "interrupted" {
				setRun(&ix.Cells[ci], ir)
				ix.Updated = time.Now().UTC()
				if err := scenario.WriteIndex(dir, ix); err != nil {
					return nil, err
				}
			}
			if ir.Stop == "failed" || ir.Stop == "" {
				out.Failed++
			}
			done++
		}
	}
	out.Elapsed = time.Since(started)
	out.Interrupted = ctx.Err() != nil
	// Losses count over the whole index, so a --resume that runs the rest still reports a
	// loss found earlier.
	out.Lossy = finishedRuns(ix, func(r scenario.IndexRun) bool { return r.Lost > 0 })
	out.Unrecovered = finishedRuns(ix, func(r scenario.IndexRun) bool { return r.NotRecovered })
	return out, nil
}
