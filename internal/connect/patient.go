package connect

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

// ConnectPatiently is Connect for the first connection to servers that may still be starting
// (natsperf launched beside them): a refused connection is retried until the connect timeout,
// counted from the first attempt, has passed. notify, when set, is called once, at the first
// refusal, so the wait can be said once. Other failures (credentials, TLS, a port that is
// not NATS, a timeout) are not retried: they do not go away by waiting.
func ConnectPatiently(ctx context.Context, s Settings, name string, notify func(error), extra ...nats.Option) (*nats.Conn, error) {
	budget := s.timeout()
	deadline := time.Now().Add(budget)
	wait := 50 * time.Millisecond
	for first := true; ; first = false {
		// Each attempt gets what is left of the budget as its own timeout (not a ctx
		// deadline), so a failure is explained as Connect explains it.
		attempt := s
		attempt.ConnectTimeout = max(time.Until(deadline).Round(time.Millisecond), 10*time.Millisecond)
		nc, err := Connect(ctx, attempt, name, extra...)
		if err == nil || !refused(err) || ctx.Err() != nil {
			return nc, err
		}
		remaining := time.Until(deadline)
		if remaining < 10*time.Millisecond {
			if first {
				return nil, err
			}
			return nil, &connectError{msg: fmt.Sprintf("%s (retried for %v, --connect-timeout)", err, budget), errs: []error{err}}
		}
		if first && notify != nil {
			notify(err)
		}
		select {
		case <-ctx.Done():
			return nil, &connectError{msg: err.Error() + " (interrupted while retrying)", errs: []error{ctx.Err(), err}}
		case <-time.After(min(wait, remaining/2)):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// refused reports a connect that found nothing listening: a server not (yet) started.
func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}
