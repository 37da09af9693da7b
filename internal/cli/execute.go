package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// startLog is where a run's start lines go (runner.Options.StartLog): stdout, or stderr
// when stdout carries --json.
func (a *app) startLog() io.Writer {
	if a.out.JSON {
		return a.streams.Err
	}
	return a.streams.Out
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
		if err == nil {
			err = report.LoadSteps(a.streams.Out, res)
		}
		if err == nil {
			err = report.SLO(a.streams.Out, res)
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
	case result.StopIdle:
		// Receivers that waited out the idle timeout without one message of what they
		// expected have not measured anything: that is no success.
		for _, g := range res.Groups {
			if g.Expected > 0 && g.Aggregate.Msgs == 0 {
				fmt.Fprintf(a.streams.Err, "natsperf: %s received none of the %s messages it expected within --idle-timeout (is anything publishing to it?)\n", g.Kind, units.Comma(g.Expected))
				return exitCode(exitFailed)
			}
		}
	}
	if n := res.Loss(); n > 0 { // a failed run's figures are partial: it exits 1 above
		fmt.Fprintf(a.streams.Err, "natsperf: %d message(s) lost (acknowledged but missing, or sequence gaps at the receivers)\n", n)
		return exitCode(exitLoss)
	}
	if g := res.NotRecovered(); g != nil {
		fmt.Fprintf(a.streams.Err, "natsperf: not recovered by the end of the run: %s %d had no success from %.2fs to its end at %.2fs (operations still failing)\n", g.Group, g.Client, g.From.Seconds(), g.To.Seconds())
		return exitCode(exitUnrecovered)
	}
	return sloExit(a.streams.Err, res)
}

// runCtx is the command's context; cobra gives context.Background when none was set.
func runCtx(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// sloExit is exitSLO, with a line on stderr, when a threshold of res failed.
func sloExit(w io.Writer, res *result.Result) error {
	var failed []string
	for _, v := range res.SLO {
		if !v.Pass {
			failed = append(failed, v.SLO)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	fmt.Fprintf(w, "natsperf: %d threshold(s) failed: %s\n", len(failed), strings.Join(failed, ", "))
	return exitCode(exitSLO)
}
