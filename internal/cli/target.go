package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
)

// target is where a run's clients connect: the user's servers, or an embedded server started
// because none was given.
type target struct {
	settings connect.Settings // resolved; holds secrets, print only Redacted()
	embedded *embedded.Cluster
	shared   bool // a scenario's target: its owner closes it
	reach    *reach
}

// reach is whether the user's servers have answered yet. Until one connection has succeeded,
// connecting waits for a server that is still starting (retried until --connect-timeout),
// and says so once on stderr; afterwards a refusal fails at once.
type reach struct {
	warn    io.Writer
	mu      sync.Mutex
	reached bool
	said    sync.Once
}

func (r *reach) done() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reached
}

func (r *reach) connected() {
	r.mu.Lock()
	r.reached = true
	r.mu.Unlock()
}

// openTarget resolves the connection flags. With no server anywhere it starts an embedded
// nats-server of nodes nodes and says so on stderr.
func (a *app) openTarget(ctx context.Context, nodes int) (*target, error) {
	return a.openTargetWith(ctx, embedded.Options{Nodes: nodes})
}

// openTargetWith is openTarget with the embedded server's options (fault runs: pausable).
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
	resolved, specified, err := connect.Resolve(a.conn.s, a.streams.Env)
	if err != nil {
		return nil, usageError{err}
	}
	t := &target{settings: resolved}
	if specified {
		t.reach = &reach{warn: a.streams.Err}
	} else {
		c, err := embedded.Start(ctx, eo)
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(a.streams.Err, "natsperf: interrupted before the run started\n")
				return nil, exitCode(exitInterrupted)
			}
			return nil, fmt.Errorf("start embedded server: %w", err)
		}
		t.embedded = c
		t.settings.Servers = c.URL()
		fmt.Fprintf(a.streams.Err, "No server given (--server, NATS_URL or --context): using %s\n", c.Describe())
	}
	if _, err := t.settings.URLs(); err != nil {
		t.close()
		return nil, usageError{err}
	}
	if _, err := t.settings.Options(); err != nil {
		t.close()
		return nil, usageError{err}
	}
	return t, nil
}

// dialer connects clients with the resolved settings.
func (t *target) dialer() bench.Dialer {
	return func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		r := t.reach
		if r == nil || r.done() {
			return connect.Connect(ctx, t.settings, name, opts...)
		}
		nc, err := connect.ConnectPatiently(ctx, t.settings, name, func(err error) {
			r.said.Do(func() {
				fmt.Fprintf(r.warn, "natsperf: %v; retrying for up to %v (--connect-timeout)\n", err, t.grace())
			})
		}, opts...)
		if err == nil {
			r.connected()
		}
		return nc, err
	}
}

// grace is how long a dropped connection may take to come back before its client fails.
func (t *target) grace() time.Duration {
	if t.settings.ConnectTimeout > 0 {
		return t.settings.ConnectTimeout
	}
	return connect.DefaultConnectTimeout
}

func (t *target) close() {
	if t.embedded != nil && !t.shared {
		t.embedded.Shutdown()
	}
}
