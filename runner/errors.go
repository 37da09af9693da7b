package runner

import (
	"errors"

	"github.com/natsperf/natsperf/internal/coord"
	"github.com/natsperf/natsperf/internal/engine"
)

// InputError is a run that cannot start as asked: the Spec or the Options are wrong (the
// command line exits 2 on it).
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// inputError marks the engine's and the coordinator's input errors as runner's own.
func inputError(err error) error {
	var ei engine.InputError
	var ci coord.InputError
	if errors.As(err, &ei) || errors.As(err, &ci) {
		return InputError{err}
	}
	return err
}
