package connect

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// timeoutError is the cause recorded when an attempt exceeds its budget. It
// is a net.Error with Timeout() true and unwraps to context.DeadlineExceeded,
// so callers can detect timeouts either way.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string   { return fmt.Sprintf("timed out after %v", e.after) }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Unwrap() error   { return context.DeadlineExceeded }
func (e *timeoutError) Temporary() bool { return false } // still part of net.Error

// attempt is one TCP dial made during the initial connect, and what became
// of it. nats.go reports only the last server's error, so this is how the
// other servers get a reason too.
type attempt struct {
	addr    string
	budget  time.Duration
	start   time.Time
	elapsed time.Duration // from dial start to end()
	dialErr error
	fired   bool  // the budget or ctx ran out and closed the connection
	cause   error // context.Cause of the attempt, when it ran out
	actx    context.Context
	cancel  context.CancelFunc
	stop    func() bool // disarms the close-on-expiry hook
	ended   bool
}

// end disarms the attempt and records whether it was cut short.
func (a *attempt) end() {
	if a.ended {
		return
	}
	a.ended = true
	a.elapsed = time.Since(a.start)
	if a.stop != nil && !a.stop() {
		a.fired = true
	}
	if a.fired {
		a.cause = context.Cause(a.actx) // before cancel, which would overwrite it
	}
	a.cancel()
}

// dialer is the nats.CustomDialer used by Connect. During the initial connect
// it bounds each attempt (dial, TLS and NATS handshake together) by timeout
// and by the caller's ctx: nats.go has no dial context and only bounds the
// dial and the handshake separately. After the initial connect it is a plain
// dialer with a timeout, for reconnects.
type dialer struct {
	timeout time.Duration
	socks   string // --socks-proxy URL, "" to dial directly

	mu       sync.Mutex
	ctx      context.Context // nil once the initial connect is over
	attempts []*attempt
}

func newDialer(ctx context.Context, timeout time.Duration, socks string) *dialer {
	return &dialer{timeout: timeout, ctx: ctx, socks: socks}
}

// Dial implements nats.CustomDialer.
func (d *dialer) Dial(network, addr string) (net.Conn, error) {
	d.mu.Lock()
	ctx := d.ctx
	if ctx != nil && len(d.attempts) > 0 {
		// nats.go tries servers one after another: a new dial means the
		// previous attempt is over, whatever its outcome.
		d.attempts[len(d.attempts)-1].end()
	}
	d.mu.Unlock()
	if ctx == nil {
		rctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		defer cancel()
		return dialVia(rctx, d.socks, network, addr)
	}

	start := time.Now()
	actx, cancel := context.WithTimeoutCause(ctx, d.timeout, &timeoutError{after: d.timeout})
	a := &attempt{addr: addr, budget: d.timeout, start: start, actx: actx, cancel: cancel}
	conn, err := dialVia(actx, d.socks, network, addr)
	if err != nil {
		a.dialErr, a.cause = err, context.Cause(actx) // nil unless actx ran out
		if a.cause == nil && isTimeout(err) {
			// The dial saw the deadline before actx's timer fired.
			a.cause = deadlineCause(ctx, start, d.timeout)
		}
	} else {
		// Closing the socket is the only way to interrupt nats.go's
		// handshake reads from outside.
		a.stop = context.AfterFunc(actx, func() { _ = conn.Close() })
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx == nil {
		// The initial connect ended while we dialed: this is a reconnect
		// and must not stay tied to the caller's ctx.
		a.end()
		return conn, err
	}
	d.attempts = append(d.attempts, a)
	return conn, err
}

// finish ends the initial connect: later dials are reconnects. It returns
// the attempts made, all ended.
func (d *dialer) finish() []*attempt {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ctx = nil
	for _, a := range d.attempts {
		a.end()
	}
	return d.attempts
}

// deadlineCause says whose deadline ended an attempt that started at start:
// the caller's if it came no later than our budget, else the budget.
func deadlineCause(parent context.Context, start time.Time, budget time.Duration) error {
	if dl, ok := parent.Deadline(); ok && !dl.After(start.Add(budget)) {
		if c := context.Cause(parent); c != nil {
			return c
		}
		return context.DeadlineExceeded
	}
	return &timeoutError{after: budget}
}
