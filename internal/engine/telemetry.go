package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/telemetry"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// TelemetrySource is where a run's server telemetry comes from: the spec's monitoring
// endpoints, else the embedded servers; nil when there is none or it is turned off.
func TelemetrySource(s *spec.Spec, t *Target) telemetry.Source {
	switch {
	case s.NoServerMetrics:
		return nil
	case s.Target.SysMetrics():
		settings := SysSettings(s.Target, t)
		return &telemetry.Sys{Dial: func(ctx context.Context) (*nats.Conn, error) {
			return connect.Connect(ctx, settings, "natsperf-telemetry-sys")
		}}
	case len(s.Target.Monitor) > 0:
		return telemetry.Monitor{URLs: s.Target.Monitor}
	case t != nil && t.Embedded != nil:
		return telemetry.Embedded{Cluster: t.Embedded}
	case t != nil && t.Procs != nil:
		return telemetry.Monitor{URLs: t.Procs.MonitorURLs()}
	}
	return nil
}

// SysSettings are the connection settings of the system-account telemetry: the target's
// (resolved when t is given), with the system user's credentials in place of its own when the
// spec names them.
func SysSettings(st spec.Target, t *Target) connect.Settings {
	c := Settings(st)
	if t != nil {
		c = t.Settings
	}
	if st.SysCreds != "" || st.SysUser != "" {
		c.Creds, c.NKey, c.JWT, c.Seed, c.Token = st.SysCreds, "", "", "", ""
		c.User, c.Password = st.SysUser, string(st.SysPassword)
	}
	return c
}

// closeSource closes a source that holds a connection.
func closeSource(src telemetry.Source) {
	if c, ok := src.(io.Closer); ok {
		c.Close()
	}
}

// attachTelemetry samples the servers alongside plan's clients (from the start barrier to
// the end, every interval, on the run's clock), listens for JetStream advisories on a
// connection of its own, and puts the series and the events in the Result. Its first
// reading places the latency breakdown's split of streams on natsperf's clock (clock). It
// returns what closes that connection.
func attachTelemetry(ctx context.Context, plan *harness.Plan, src telemetry.Source, t *Target, interval time.Duration, clock *storedClock, streams []string) func() {
	smp := &telemetry.Sampler{Source: src, Interval: interval, EventPrefix: t.Settings.JS.EventPrefix}
	stop := func() {}
	var subErr error
	if nc, err := t.Dialer()(ctx, "natsperf-telemetry"); err != nil {
		subErr = err
	} else if unsub, err := smp.Subscribe(nc); err != nil {
		nc.Close()
		subErr = err
	} else {
		stop = func() { unsub(); nc.Close() }
	}
	if _, ok := src.(io.Closer); ok {
		stopSubs := stop
		stop = func() { stopSubs(); closeSource(src) }
	}
	prevBefore := plan.Before
	plan.Before = func(ctx context.Context) {
		if prevBefore != nil {
			prevBefore(ctx)
		}
		smp.Baseline(ctx)
		clock.set(telemetry.StoredClock(smp.Telemetry(), streams))
	}
	ChainDuring(plan, smp.Run)
	Chain(plan, func(_ context.Context, res *result.Result) {
		res.Telemetry = smp.Telemetry()
		if res.Telemetry != nil && subErr != nil {
			res.Telemetry.Errors = append(res.Telemetry.Errors, fmt.Sprintf("no JetStream advisories: %v", subErr))
		}
		res.Events = append(res.Events, smp.Events()...)
		result.SortEvents(res.Events)
	})
	return stop
}

// faultEvents are a fault timeline's actions as events on the run's clock.
func faultEvents(tl []result.FaultEvent) []result.Event {
	var out []result.Event
	for _, f := range tl {
		if f.Skipped {
			continue
		}
		ev := result.Event{At: f.Started, Kind: "fault", Source: "fault", Server: f.Node, Detail: f.Spec}
		if f.Error != "" {
			ev.Detail += " (failed: " + f.Error + ")"
		}
		out = append(out, ev)
	}
	return out
}

// ChainDuring adds f to what runs alongside the plan's clients; the windows are the ones
// the plan's own During returns.
func ChainDuring(plan *harness.Plan, f func(ctx context.Context, start time.Time)) {
	prev := plan.During
	plan.During = func(ctx context.Context, start time.Time) []result.Window {
		done := make(chan struct{})
		go func() {
			defer close(done)
			f(ctx, start)
		}()
		var w []result.Window
		if prev != nil {
			w = prev(ctx, start)
		}
		<-done
		return w
	}
}
