package cli

import (
	"errors"
	"fmt"
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
	exitInterrupted = 130 // Ctrl-C, as shells report SIGINT
)
