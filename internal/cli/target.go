package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/engine"
)

// target is where a run's clients connect (internal/engine resolves it).
type target = engine.Target

// openTargetWith opens the command line's target, or an embedded server with eo's options.
func (a *app) openTargetWith(ctx context.Context, eo embedded.Options) (*target, error) {
	if a.capture != nil {
		return a.capture.target, nil // the scenario's, shared by its workloads
	}
	if err := checkOutputFile("-o", a.out.File); err != nil {
		return nil, err
	}
	if err := checkOutputFile("--csv", a.csvFile); err != nil {
		return nil, err
	}
	t, err := engine.OpenTarget(ctx, a.conn.s, engine.TargetOptions{Env: a.streams.Env, Embedded: eo, Warn: a.streams.Err})
	if err != nil {
		var in engine.InputError
		switch {
		case errors.As(err, &in):
			return nil, usageError{err}
		case ctx.Err() != nil:
			fmt.Fprintf(a.streams.Err, "natsperf: interrupted before the run started\n")
			return nil, exitCode(exitInterrupted)
		}
		return nil, err
	}
	return t, nil
}
