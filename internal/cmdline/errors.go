package cmdline

import "fmt"

// UsageError marks bad input on a command line: wrong flags, values or arguments (exit 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// usageError is UsageError under the name this package's checks use.
type usageError = UsageError

func usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}
