package cli

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/result"
)

// jsSession is a JetStream command's target plus a setup connection for creating, purging and
// filling streams, and what to report about them after the run.
type jsSession struct {
	t        *target
	nc       *nats.Conn
	js       jetstream.JetStream
	logf     func(string, ...any)
	warnings []string
	report   []streamReport
	after    []func(ctx context.Context) // cleanup after the run (delete this run's consumer)
	detached bool                        // captured: the scenario runner finishes and closes it
	down     *downSince                  // the setup connection's outages
}

// downSince remembers since when a connection is down (Unix nanoseconds, 0 while it is up),
// so the queries after a run do not wait on a server gone for longer than --connect-timeout.
type downSince struct{ at atomic.Int64 }

func (d *downSince) options() []nats.Option {
	return []nats.Option{
		nats.DisconnectErrHandler(func(*nats.Conn, error) { d.at.CompareAndSwap(0, time.Now().UnixNano()) }),
		nats.ReconnectHandler(func(*nats.Conn) { d.at.Store(0) }),
	}
}

// deadline is when work that needs the connection gives up: grace from now, or grace after
// the connection went down when it is down (possibly already past).
func (d *downSince) deadline(grace time.Duration) time.Time {
	end := time.Now().Add(grace)
	if at := d.at.Load(); at != 0 {
		if gone := time.Unix(0, at).Add(grace); gone.Before(end) {
			end = gone
		}
	}
	return end
}

type streamReport struct {
	name      string
	published *js.Tally // nil for readers
	size      int64
}

// openJSWith opens the target (an embedded cluster of max(3, replicas) nodes when replicas > 1
// and no server is given, with eo's options; eo.Nodes is a minimum) and the setup connection.
func (a *app) openJSWith(cmd *cobra.Command, replicas int, eo embedded.Options) (*jsSession, error) {
	ctx := runCtx(cmd)
	nodes := 1
	if replicas > 1 {
		nodes = max(3, replicas)
	}
	eo.Nodes = max(eo.Nodes, nodes)
	t, err := a.openTargetWith(ctx, eo)
	if err != nil {
		return nil, err
	}
	down := &downSince{}
	nc, err := t.Dialer()(ctx, "natsperf-setup", down.options()...)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	jsc, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		t.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	return &jsSession{t: t, nc: nc, js: jsc, logf: a.logf(), down: down}, nil
}

func (s *jsSession) close() {
	if s.detached {
		return
	}
	s.nc.Close()
	s.t.Close()
}

// warn prints a setup line and keeps it in the Result's warnings.
func (s *jsSession) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.logf("%s", msg)
	s.warnings = append(s.warnings, msg)
}

// setupCtx bounds one setup step.
func setupCtx(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(runCtx(cmd), time.Minute)
}

// runJS executes plan like any benchmark, adding the streams' state and the setup warnings to
// the Result before rendering it.
func (a *app) runJS(cmd *cobra.Command, s *jsSession, plan *bench.Plan, bf benchFlags) error {
	plan.Corrected = bf.Rate > 0
	for _, g := range plan.Groups {
		if g.Producer && bf.Rate > 0 {
			g.Rate = bf.Rate // the report says when it was not reached
		}
	}
	return a.execute(cmd, s.t, plan, bf, runHooks{
		logf:   s.logf,
		finish: s.finishRun,
		detach: func() { s.detached = true },
	})
}

// finishRun completes the Result of a run this session executed itself.
func (s *jsSession) finishRun(ctx context.Context, res *result.Result) {
	if s.detached {
		s.finish(ctx, res)
		return
	}
	s.finishOn(ctx, res)
}

// finish adds the streams' state and the setup warnings to res, then closes the session.
func (s *jsSession) finish(ctx context.Context, res *result.Result) {
	s.finishOn(ctx, res)
	s.detached = false
	s.close()
}

func (s *jsSession) finishOn(ctx context.Context, res *result.Result) {
	// Ctrl-C must not cost the stream state: read it on a context of its own, bounded by
	// --connect-timeout (from when the connection went down, if it is down: a server killed
	// during the run is not waited for twice).
	actx, cancel := context.WithDeadline(context.WithoutCancel(ctx), s.down.deadline(s.t.Grace()))
	defer cancel()
	for _, f := range s.after {
		f(actx)
	}
	for _, r := range s.report {
		var published int64
		if r.published != nil {
			published = r.published.Load()
		}
		st, err := js.State(actx, s.js, r.name, published, r.size)
		if err != nil {
			s.warnings = append(s.warnings, fmt.Sprintf("stream %s: state after the run unavailable: %v", r.name, err))
			continue
		}
		res.Streams = append(res.Streams, st)
	}
	res.Warnings = append(res.Warnings, s.warnings...)
}
