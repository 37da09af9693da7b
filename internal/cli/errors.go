package cli

import (
	"errors"
	"fmt"
	"io/fs"
)

// usageError marks bad input: wrong flags, values or arguments. It exits with code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
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
	return usageError{err}
}
