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

// execute runs plan against t and renders the Result; the error carries the exit code.
func (a *app) execute(cmd *cobra.Command, t *target, plan *bench.Plan, bf benchFlags) error {
	ctx := cmd.Context()
	plan.Settings = settingsEcho{
		Connection: t.settings.Redacted(),
		Embedded:   t.embedded != nil,
		Bench:      bf,
		Workload:   plan.Settings,
	}
	plan.Latency = !bf.NoLatency
	if a.capture != nil {
		a.capture.add(plan, bf, nil)
		return nil
	}
	logTo := a.streams.Out
	if a.out.JSON {
		logTo = a.streams.Err
	}
	runner := &bench.Runner{
		Dial:     t.dialer(),
		Grace:    t.grace(),
		Interval: bf.Interval,
		Warmup:   bf.Warmup,
		Logf:     logf(logTo),
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
	if t.embedded != nil {
		for i := range res.Servers {
			res.Servers[i].Embedded = true
		}
	}
	err = a.render(res)
	if herr := a.saveHist(bf.Hist, res); herr != nil && err == nil {
		err = herr
	}
	return err
}

// render prints res as text or JSON, saves it with -o, and maps the stop reason to an exit code.
func (a *app) render(res *result.Result) error {
	var err error
	if a.out.JSON {
		err = result.Write(a.streams.Out, res)
	} else {
		err = report.Text(a.streams.Out, res)
	}
	if err != nil {
		return err
	}
	if a.out.File != "" {
		if err := result.WriteFile(a.out.File, res); err != nil {
			return err
		}
		if !a.out.JSON {
			fmt.Fprintf(a.streams.Out, "\nResult saved to %s\n", a.out.File)
		}
	}
	switch res.Stop.Reason {
	case result.StopInterrupted:
		return exitCode(exitInterrupted)
	case result.StopFailed:
		return exitCode(exitFailed)
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
