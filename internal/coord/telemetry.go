package coord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/telemetry"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// sampleServers samples the Spec's monitoring endpoints from the start instant at until the
// returned function is called (the coordinator holds the target, so a distributed run has
// one series whatever its number of agents; the agents sample nothing). The baseline
// reading is taken now, after every part is prepared. finish puts the series and its events
// into the merged Result.
func sampleServers(ctx context.Context, s *spec.Spec, at time.Time) (finish func(*result.Result)) {
	src := engine.TelemetrySource(s, nil)
	if src == nil {
		return func(*result.Result) {}
	}
	smp := &telemetry.Sampler{Source: src, Interval: engine.SeriesInterval(s), EventPrefix: s.Target.JSEventPrefix}
	stopAdvisories, advErr := watchAdvisories(ctx, s, smp)
	smp.Baseline(ctx)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		smp.Run(ctx, at)
	}()
	return func(res *result.Result) {
		cancel()
		<-done
		stopAdvisories()
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
		if res == nil {
			return
		}
		res.Telemetry = smp.Telemetry()
		if res.Telemetry != nil && advErr != nil {
			res.Telemetry.Errors = append(res.Telemetry.Errors, fmt.Sprintf("no JetStream advisories: %v", advErr))
		}
		res.Events = append(res.Events, smp.Events()...)
		result.SortEvents(res.Events)
	}
}

// watchAdvisories listens for the target's JetStream advisories on a connection of the
// coordinator's own, as a local run's engine does. The coordinator may not reach the servers
// its agents do: then it tries briefly and says why in the telemetry's errors. A Spec that
// names no server (the agents resolve their own) is not tried.
func watchAdvisories(ctx context.Context, s *spec.Spec, smp *telemetry.Sampler) (stop func(), err error) {
	stop = func() {}
	if len(s.Target.Servers) == 0 {
		return stop, errors.New("the Spec names no server the coordinator could connect to")
	}
	settings := engine.Settings(s.Target)
	settings.ConnectTimeout = min(settings.ConnectTimeout, 2*time.Second)
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	nc, err := connect.Connect(cctx, settings, "natsperf-coordinator-advisories")
	if err != nil {
		return stop, err
	}
	unsub, err := smp.Subscribe(nc)
	if err != nil {
		nc.Close()
		return stop, err
	}
	return func() { unsub(); nc.Close() }, nil
}
