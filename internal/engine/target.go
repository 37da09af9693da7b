package engine

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/procs"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Target is where a run's clients connect: the user's servers, or an embedded server started
// because none was given.
type Target struct {
	Settings connect.Settings // resolved; holds secrets, print only Redacted()
	Embedded *embedded.Cluster
	// Procs are the nats-server processes natsperf runs instead (--server-bin, --server-version).
	Procs *procs.Cluster
	// Shared marks a target several runs use (a scenario's): its owner closes it, Close does not.
	Shared bool
	reach  *reach
}

// reach is whether the user's servers have answered yet. Until one connection has succeeded,
// connecting waits for a server that is still starting (retried until --connect-timeout),
// and says so once; afterwards a refusal fails at once.
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

// InputError marks a problem with what the user gave (settings, spec): the command line exits
// with its usage code.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// TargetOptions say how to resolve a target.
type TargetOptions struct {
	// Env is where NATS_URL and nats contexts are read from.
	Env connect.Env
	// Embedded is the server to start when no server is given anywhere.
	Embedded embedded.Options
	// Warn receives one-line notices (the embedded server started, retries); nil: discarded.
	Warn io.Writer
	// Processes runs a nats-server binary as processes in place of the embedded server, sized
	// as Embedded says (nil: the in-process server).
	Processes *spec.Embedded
	// ForceEmbedded starts the embedded server even when NATS_URL or a context names one.
	ForceEmbedded bool
}

// OpenTarget resolves settings (flags > NATS_URL > context). With no server anywhere it starts
// an embedded nats-server and says so on o.Warn.
func OpenTarget(ctx context.Context, settings connect.Settings, o TargetOptions) (*Target, error) {
	warn := o.Warn
	if warn == nil {
		warn = io.Discard
	}
	resolved, specified := settings, false
	if !o.ForceEmbedded {
		var err error
		resolved, specified, err = connect.Resolve(settings, o.Env)
		if err != nil {
			return nil, InputError{err}
		}
	}
	t := &Target{Settings: resolved}
	if specified {
		t.reach = &reach{warn: warn}
	} else if o.Processes.Processes() {
		c, err := startProcs(ctx, o, warn)
		if err != nil {
			return nil, err
		}
		t.Procs = c
		t.Settings.Servers = c.URL()
		fmt.Fprintf(warn, "No server given (--server, NATS_URL or --context): using %s\n", c.Describe())
	} else {
		c, err := embedded.Start(ctx, o.Embedded)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted before the run started: %w", ctx.Err())
			}
			return nil, fmt.Errorf("start embedded server: %w", err)
		}
		t.Embedded = c
		t.Settings.Servers = c.URL()
		if d := c.JetStreamDomain(); d != "" && t.Settings.JS.Domain == "" {
			t.Settings.JS.Domain = d // clients on leaf nodes reach the hub's JetStream as its domain
		}
		fmt.Fprintf(warn, "No server given (--server, NATS_URL or --context): using %s\n", c.Describe())
	}
	if _, err := t.Settings.URLs(); err != nil {
		t.Close()
		return nil, InputError{err}
	}
	if _, err := t.Settings.Options(); err != nil {
		t.Close()
		return nil, InputError{err}
	}
	return t, nil
}

// Dialer connects clients with the resolved settings.
func (t *Target) Dialer() harness.Dialer {
	return func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		r := t.reach
		if r == nil || r.done() {
			return connect.Connect(ctx, t.Settings, name, opts...)
		}
		nc, err := connect.ConnectPatiently(ctx, t.Settings, name, func(err error) {
			r.said.Do(func() {
				fmt.Fprintf(r.warn, "natsperf: %v; retrying for up to %v (--connect-timeout)\n", err, t.Grace())
			})
		}, opts...)
		if err == nil {
			r.connected()
		}
		return nc, err
	}
}

// Grace is how long a dropped connection may take to come back before its client fails.
func (t *Target) Grace() time.Duration {
	if t.Settings.ConnectTimeout > 0 {
		return t.Settings.ConnectTimeout
	}
	return connect.DefaultConnectTimeout
}

// describeServers adds to res's servers what the target knows of them beyond their INFO:
// natsperf's own servers, and their encryption at rest. A server natsperf did not start
// does not tell (nats-server reports its store cipher in no monitoring endpoint or $SYS
// reply), which the Result says as "unknown".
func (t *Target) describeServers(res *result.Result) {
	if t.Embedded != nil {
		res.Network = networkOf(t.Embedded)
	}
	if t.Procs != nil {
		describeProcs(t.Procs, res)
		return
	}
	for i := range res.Servers {
		if t.Embedded != nil {
			res.Servers[i].Embedded = true
			res.Servers[i].Encryption = t.Embedded.Encryption()
			res.Servers[i].SyncInterval = t.Embedded.SyncInterval()
		} else {
			res.Servers[i].Encryption = result.EncryptionUnknown
		}
	}
}

// Close stops the embedded server unless the target is shared.
func (t *Target) Close() {
	if t.Embedded != nil && !t.Shared {
		t.Embedded.Shutdown()
	}
	if t.Procs != nil && !t.Shared {
		t.Procs.Shutdown()
	}
}

// Settings are a spec target's connection settings, as the flags would give them.
func Settings(t spec.Target) connect.Settings { return connect.FromSpec(t) }
