package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/natsperf/natsperf/internal/cmdline"
)

// usageError marks bad input: wrong flags, values or arguments. It exits with code 2. It is
// cmdline's, so bad input found there exits 2 too.
type usageError = cmdline.UsageError

func usagef(format string, args ...any) error {
	return usageError{Err: fmt.Errorf(format, args...)}
}

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1   // the run failed or could not start
	exitUsage       = 2   // bad input
	exitLoss        = 3   // the run completed and found data loss (result.Result.Loss)
	exitRegression  = 4   // compare --fail-on-regression found a regression
	exitUnrecovered = 5   // the run completed, no loss, but had not recovered by its end (result.Result.NotRecovered)
	exitSLO         = 6   // a threshold (--slo) failed, or capacity found none that holds
	exitInterrupted = 130 // Ctrl-C, as shells report SIGINT
)

// loadError classifies an error reading Result files: a file that is missing or cannot be read
// fails the command (1), while content that is not a valid Result is bad input (2).
func loadError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return usageError{Err: err}
}

// checkOutputFile refuses, before anything runs, a file that could not be written.
var checkOutputFile = cmdline.CheckOutputFile
