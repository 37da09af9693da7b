package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/progress"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/result"
)

// settingsEcho is what a Result carries of the run's settings.
type settingsEcho struct {
	Connection connect.Settings `json:"connection"`
	Embedded   bool             `json:"embedded,omitempty"`
	Bench      benchFlags       `json:"bench"`
	Workload   any              `json:"workload"`
}

// runHooks let a command add to the common run. Zero hooks run a plain core benchmark.
type runHooks struct {
	// logf prints the start lines; nil prints them on stdout (stderr with --json).
	logf func(string, ...any)
	// finish completes the Result after the run and before it is rendered (JetStream adds
	// the streams' state). A scenario that captures the plan calls it after its own run.
	finish func(ctx context.Context, res *result.Result)
	// detach is called when a scenario captures the plan: it owns the run's resources now.
	detach func()
	// text replaces the nats bench-style text output (the latency command's blocks).
	text func(w io.Writer, res *result.Result) error
}

// execute runs plan against t and renders the Result; the error carries the exit code.
func (a *app) execute(cmd *cobra.Command, t *target, plan *bench.Plan, bf benchFlags, h runHooks) error {
	ctx := runCtx(cmd)
	plan.Settings = settingsEcho{
		Connection: t.Settings.Redacted(),
		Embedded:   t.Embedded != nil,
		Bench:      bf,
		Workload:   plan.Settings,
	}
	plan.Latency = !bf.NoLatency
	if a.capture != nil {
		if h.detach != nil {
			h.detach()
		}
		a.capture.add(plan, bf, h.finish)
		return nil
	}
	if h.logf == nil {
		h.logf = a.logf()
	}
	runner := &bench.Runner{
		Dial:     t.Dialer(),
		Grace:    t.Grace(),
		Interval: bf.Interval,
		Warmup:   bf.Warmup,
		Logf:     h.logf,
	}
	if a.streams.IsTerminal && !a.out.NoProgress {
		runner.Progress = progress.Bars{W: a.streams.Err}
	}
	res, err := runner.Run(ctx, plan)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(a.streams.Err, "natsperf: interrupted before the run started\n")
			return exitCode(exitInterrupted)
		}
		return err
	}
	if t.Embedded != nil {
		for i := range res.Servers {
			res.Servers[i].Embedded = true
		}
	}
	if h.finish != nil {
		h.finish(ctx, res)
	}
	err = a.render(res, h.text)
	if herr := a.saveHist(bf.Hist, res); herr != nil && err == nil {
		err = herr
	}
	return err
}

// logf prints start lines where they do not mix with --json output.
func (a *app) logf() func(string, ...any) {
	if a.out.JSON {
		return logf(a.streams.Err)
	}
	return logf(a.streams.Out)
}

// render prints res as text (text, or nats bench's form when nil) or JSON, saves it with -o,
// and maps the stop reason, then any data loss, to an exit code.
func (a *app) render(res *result.Result, text func(io.Writer, *result.Result) error) error {
	if text == nil {
		text = report.Text
	}
	var err error
	if a.out.JSON {
		err = result.Write(a.streams.Out, res)
	} else {
		err = text(a.streams.Out, res)
		if err == nil {
			err = report.CPU(a.streams.Out, res, a.out.CPU)
		}
	}
	if err != nil {
		return err
	}
	if a.out.File != "" {
		if err := result.WriteFile(a.out.File, res); err != nil {
			// The run cannot be repeated for free: keep its Result where the user sees it.
			if !a.out.JSON {
				fmt.Fprintf(a.streams.Err, "natsperf: cannot save the Result to %s; here it is:\n", a.out.File)
				_ = result.Write(a.streams.Err, res)
			}
			return fmt.Errorf("-o %s: %w", a.out.File, err)
		}
		if !a.out.JSON {
			fmt.Fprintf(a.streams.Out, "\nResult saved to %s\n", a.out.File)
		}
	}
	if err := a.saveCSV(res); err != nil {
		return err
	}
	switch res.Stop.Reason {
	case result.StopInterrupted:
		return exitCode(exitInterrupted)
	case result.StopFailed:
		return exitCode(exitFailed)
	}
	if n := res.Loss(); n > 0 { // a failed run's figures are partial: it exits 1 above
		fmt.Fprintf(a.streams.Err, "natsperf: %d message(s) lost (acknowledged but missing, or sequence gaps at the receivers)\n", n)
		return exitCode(exitLoss)
	}
	return nil
}

func logf(w io.Writer) func(string, ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(w, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

// runCtx is the command's context; cobra gives context.Background when none was set.
func runCtx(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
