package nodes

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotReady is wrapped when the servers did not become ready within the ready timeout.
var ErrNotReady = errors.New("not ready")

// errTimedOut tells the Waiter's own timeout apart from the caller's ctx.
var errTimedOut = errors.New("ready timeout")

// Waiter waits for a cluster's conditions: a node listening, the cluster ready.
type Waiter struct {
	Every   time.Duration   // between checks
	Timeout time.Duration   // bounds a whole start or restart (Options.ReadyTimeout)
	Closing <-chan struct{} // closed by Shutdown, which ends every wait
}

// WithTimeout bounds a whole start or restart by the Waiter's Timeout.
func (w Waiter) WithTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, w.Timeout, errTimedOut)
}

// Poll calls check until it reports nothing pending. The error names the condition that was
// still unmet when ctx ended: ErrNotReady when it was the Timeout (ctx from WithTimeout).
func (w Waiter) Poll(ctx context.Context, check func() (pending string, err error)) error {
	tick := time.NewTicker(w.Every)
	defer tick.Stop()
	for {
		pending, err := check()
		if err != nil {
			return err
		}
		if pending == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			if cause := context.Cause(ctx); !errors.Is(cause, errTimedOut) {
				return fmt.Errorf("gave up waiting (%s): %w", pending, cause)
			}
			return fmt.Errorf("%s within %s: %w", pending, w.Timeout, ErrNotReady)
		case <-w.Closing:
			return fmt.Errorf("%s: shut down while waiting: %w", pending, ErrNotReady)
		case <-tick.C:
		}
	}
}
